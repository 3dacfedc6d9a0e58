"""The calibration wizard at a Montego Bay table: the harbour's four docks and a barrel."""

from __future__ import annotations

import time

import pytest
from support.service import CEILING_S, service_options, with_virtual_table

SCALE = 4.0  # each 500 ms measurement of the virtual harbour takes 125 ms


@pytest.fixture
def harbour(mosquitto, tmp_path):
    options = service_options(mosquitto.url, tmp_path, time_scale=SCALE)
    with with_virtual_table(options, seed=5, game="montego-bay") as running:
        yield running


def step(service, name: str = "", body: dict | None = None, status: int = 200) -> dict:
    path = f"/api/tables/demo-1/calibration{'/' + name if name else ''}"
    if body is None and not name:
        response = service.http.get(path, params={"key": service.key})
    else:
        response = service.http.post(path, params={"key": service.key}, json=body or {})
    assert response.status_code == status, response.text
    return response.json()


def until(service, condition, timeout_s: float = CEILING_S) -> dict:
    deadline = time.monotonic() + timeout_s
    while True:
        state = step(service)
        if condition(state):
            return state
        assert time.monotonic() < deadline, f"the wizard never got there: {state}"
        time.sleep(0.02)


def measured(service, name: str, body: dict) -> dict:
    step(service, name, body)
    return until(service, lambda s: s["pending"] is None)


def dock_g(state: dict, dock: int) -> float:
    weights = state["ship"]["weights"]
    return 0.0 if weights is None else weights["zones_g"][dock - 1]


def test_a_harbour_is_tared_its_docks_calibrated_and_a_barrel_weighed(harbour):
    service, table = harbour
    node = table.node
    state = step(service, "start")
    assert state["zones_to_calibrate"] == ["1", "2", "3", "4"]  # no mat at a harbour
    assert state["items_to_weigh"] == ["barrel"] and state["table_items"]["barrel"] > 2
    page = service.http.get("/tables/demo-1/calibrate", params={"key": service.key}).text
    assert "Weigh a barrel" in page and "A known weight on each dock" in page
    step(service, "hands", {"do": "clear"})
    state = measured(service, "tare", {})
    assert state["tared"] is not None, state["message"]

    step(service, "hands", {"do": "weight", "zone": 2, "grams": 50})
    until(service, lambda s: dock_g(s, 2) > 49)
    state = measured(service, "zone", {"zone": 2, "grams": 50})
    assert state["zones"]["2"]["counts_per_g"] == pytest.approx(node.true_counts_per_g[1], rel=0.01)
    step(service, "hands", {"do": "take", "zone": 2})

    step(service, "hands", {"do": "piece", "item": "barrel", "zone": 1, "count": 4})
    true_grams = node.hand_loads[0].grams / 4
    until(service, lambda s: dock_g(s, 1) > 4 * true_grams - 0.5)
    state = measured(service, "item", {"item": "barrel", "zone": 1, "count": 4})
    assert state["items"]["barrel"] == pytest.approx(true_grams, abs=0.05)
    step(service, "hands", {"do": "take", "zone": 1})

    # a harbour has docks 1-4 and barrels only
    bad = step(service, "zone", {"zone": 7, "grams": 50}, status=400)
    assert "dock of the harbour" in bad["error"]
    assert "(MB2)" in step(service, "item", {"item": "rat", "zone": 1}, status=400)["error"]

    state = step(service, "finish", {"save": True, "new_game": False})
    barrel = state["items"]["barrel"]
    runtime = service.service.tables["demo-1"]
    assert service.call(lambda: runtime.referee.barrel_g) == barrel  # counted with it at once
    assert service.table("demo-1")["referee"]["barrel_g"] == barrel
    assert state["table_items"] == {"barrel": barrel}
