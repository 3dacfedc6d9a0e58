"""The calibration wizard's API against virtual ships that answer like the firmware."""

from __future__ import annotations

import asyncio

import pytest
from support import polling
from support.service import CEILING_S, RunningService, service_options, with_virtual_table

from bosun.demo.virtual_ship import VirtualShipNode
from bosun.tables import load_tables

SCALE = 4.0  # ship seconds a real second: each 500 ms measurement takes 125 ms


def wizard(service, table: str, step: str = "", body: dict | None = None, status: int = 200):
    path = f"/api/tables/{table}/calibration{'/' + step if step else ''}"
    if body is None and not step:
        response = service.http.get(path, params={"key": service.key})
    else:
        response = service.http.post(path, params={"key": service.key}, json=body or {})
    assert response.status_code == status, response.text
    return response.json()


def until(service, table: str, condition, timeout_s: float = CEILING_S) -> dict:
    """The table's wizard state, once `condition` holds of it."""
    return polling.until(lambda: wizard(service, table), condition, timeout_s)


def measured(service, table: str, step: str, body: dict) -> dict:
    """Send a measuring step and wait for the ship's answer."""
    wizard(service, table, step, body)
    return until(service, table, lambda s: s["pending"] is None)


def reading(state: dict, zone: int) -> float | None:
    weights = state["ship"]["weights"]
    return None if weights is None else weights["zones_g"][zone - 1]


@pytest.fixture
def demo(mosquitto, tmp_path):
    options = service_options(mosquitto.url, tmp_path, time_scale=SCALE)
    with with_virtual_table(options, seed=3) as running:
        yield running


def test_a_virtual_table_is_tared_calibrated_and_its_pieces_weighed(demo):
    service, table = demo
    node = table.node
    state = wizard(service, "demo-1", "start")
    assert state["active"] and state["virtual"]
    pairing = service.http.post("/api/tables/demo-1/ship/pairing", params={"key": service.key})
    assert pairing.status_code == 409 and "pairs itself" in pairing.text  # a virtual ship
    snapshot = service.table("demo-1")
    assert snapshot["calibrating"] and snapshot["humans"] == ["ann", "bob", "cy"]  # bots hold
    wizard(service, "demo-1", "hands", {"do": "clear"})
    before = service.table("demo-1")

    state = measured(service, "demo-1", "tare", {})
    assert state["tared"] is not None, state["message"]
    assert set(state["tared"]["counts"]) == {f"z{z}" for z in range(1, 11)} | {"mat"}

    wizard(service, "demo-1", "hands", {"do": "weight", "zone": 3, "grams": 100})
    until(service, "demo-1", lambda s: (reading(s, 3) or 0) > 99)
    state = measured(service, "demo-1", "zone", {"zone": 3, "grams": 100})
    counts_per_g = state["zones"]["3"]["counts_per_g"]
    assert counts_per_g == pytest.approx(node.true_counts_per_g[2], rel=0.005)
    wizard(service, "demo-1", "hands", {"do": "take", "zone": 3})

    # weighing an empty zone is refused by the ship, with its reason
    state = measured(service, "demo-1", "item", {"item": "boat", "zone": 1})
    assert (
        state["message"]["level"] == "error" and "put the piece on it" in state["message"]["text"]
    )
    assert "boat" not in state["items"]

    wizard(service, "demo-1", "hands", {"do": "piece", "item": "boat", "zone": 1})
    true_grams = node.hand_loads[0].grams
    until(service, "demo-1", lambda s: (reading(s, 1) or 0) > true_grams - 0.5)
    state = measured(service, "demo-1", "item", {"item": "boat", "zone": 1})
    assert state["items"]["boat"] == pytest.approx(true_grams, abs=0.1)
    wizard(service, "demo-1", "hands", {"do": "take", "zone": 1})

    state = wizard(service, "demo-1", "finish", {"save": True, "new_game": False})
    assert not state["active"] and "memory" in state["saved"]["where"]
    runtime = service.service.runtimes["demo-1"]
    boat = state["items"]["boat"]
    assert service.call(lambda: runtime.config.items["boat"]) == boat
    assert service.call(lambda: runtime.referee.item_grams["boat"]) == boat  # used at once
    assert node.items["boat"] == pytest.approx(boat, abs=0.01)  # and by the ship's detector
    snapshot = service.table("demo-1")
    assert not snapshot["calibrating"] and snapshot["humans"] == []  # the bots play again
    # what the wizard put on the ship was never refereed: no loads, no RR10 flags
    assert snapshot["state"]["ship"] == before["state"]["ship"]
    assert snapshot["referee"]["flags"] == before["referee"]["flags"]


def test_the_wizard_refuses_bad_requests_with_a_reason(demo):
    service, _ = demo
    assert service.http.get("/api/tables/demo-1/calibration").status_code == 403
    assert service.http.post("/api/tables/demo-1/calibration/start").status_code == 403
    assert wizard(service, "demo-1", "tare", {}, status=409)["error"].startswith("start")
    wizard(service, "demo-1", "start")
    for step, body, words in (
        ("zone", {"zone": 11, "grams": 100}, "zone"),
        ("zone", {"zone": 3, "grams": 0}, "grams"),
        ("zone", {"zone": 3, "grams": "100"}, "number"),
        ("item", {"item": "cannon", "zone": 1}, "RR2"),
        ("item", {"item": "rat", "zone": 1, "count": 9}, "count"),
        ("hands", {"do": "juggle"}, "do must be"),
        ("finish", {"save": "yes"}, "true or false"),
    ):
        error = wizard(service, "demo-1", step, body, status=400)["error"]
        assert words in error, (step, body, error)
    wizard(service, "demo-1", "hands", {"do": "weight", "zone": 2, "grams": 50})
    error = wizard(service, "demo-1", "hands", {"do": "weight", "zone": 2, "grams": 50}, 409)
    assert "already holds" in error["error"]
    wizard(service, "demo-1", "tare", {})
    busy = wizard(service, "demo-1", "tare", {}, status=409)  # one measurement at a time
    assert "still measuring" in busy["error"]
    wizard(service, "demo-1", "cancel")
    assert service.table("demo-1")["calibrating"] is False
    assert (
        service.http.get("/api/tables/nope/calibration", params={"key": service.key}).status_code
        == 404
    )


def test_a_configured_tables_weights_are_written_to_its_tables_file(mosquitto, tmp_path):
    tables_file = tmp_path / "bosun.toml"
    tables_file.write_text(
        '# the café\'s tables\n[[table]]\nid = "t1"\nsettle_s = 3\ntable_sensor = "mat"\n'
        'players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" }]\n',
        encoding="utf-8",
    )
    options = service_options(
        mosquitto.url,
        tmp_path,
        load_tables(tables_file),
        time_scale=SCALE,
        tables_file=str(tables_file),
    )
    with RunningService(options) as service:
        # the table's real ship, stood in for by a virtual one (no virtual hands in the wizard)
        node = VirtualShipNode("t1", service.service.broker_address, seed=5, table_sensor="mat")
        service.call(node.start)
        service.wait_for("t1", lambda s: s["ship"]["online"])
        wizard(service, "t1", "start")
        error = wizard(service, "t1", "hands", {"do": "clear"}, status=409)["error"]
        assert "real ship" in error
        assert measured(service, "t1", "tare", {})["tared"] is not None
        service.call(lambda: node.put_piece(2, "rat"))  # a person puts a rat on zone 2
        true_grams = node.hand_loads[1].grams
        until(service, "t1", lambda s: (reading(s, 2) or 0) > true_grams - 0.3)
        rat = measured(service, "t1", "item", {"item": "rat", "zone": 2})["items"]["rat"]
        assert rat == pytest.approx(true_grams, abs=0.1)
        state = wizard(service, "t1", "finish", {"save": True})
        assert str(tables_file) in state["saved"]["where"]
        asyncio.run_coroutine_threadsafe(node.stop(), service.loop).result(10)
    written = load_tables(tables_file)[0]
    assert written.items == {"rat": round(rat, 2)}
    assert tables_file.read_text(encoding="utf-8").startswith("# the café's tables")
