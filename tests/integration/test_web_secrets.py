"""Nothing secret reaches someone else: every page, API answer and event stream a non-owner
can get is collected while a card is chosen and not yet revealed (RR4)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from support.service import BrokerShip, RunningService

from bosun.service import ServiceOptions
from bosun.sim.params import ITEM_GRAMS as W
from bosun.tables import TableConfig, default_seats

PLAYERS = ["ann", "bob", "cy"]
SECRET_CARD = 7  # ann's choice in round 2, before bob and cy have chosen


@pytest.fixture
def service(mosquitto, tmp_path):
    table = TableConfig(id="t1", players=default_seats(PLAYERS), settle_s=0)
    options = ServiceOptions(
        tables=[table],
        db_url=f"sqlite:///{tmp_path / 'bosun.db'}",
        mqtt_url=mosquitto.url,
        http_port=0,
    )
    with RunningService(options) as running:
        running.test_ship = BrokerShip(mosquitto.host, mosquitto.port, "t1")
        running.wait_for("t1", lambda s: s["ship"]["online"])
        yield running
        running.test_ship.close()


def first_event(service, path: str) -> str:
    """The first event of a server-sent event stream (its data line)."""
    with service.http.stream("GET", path) as stream:
        for line in stream.iter_lines():
            if line.startswith("data:"):
                return line[5:].strip()
    raise AssertionError(f"{path} sent no event")


def walk(value: Any, path: str = ""):
    """Every (path, key, value) in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield path, key, item
            yield from walk(item, f"{path}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, f"{path}/{index}")


def secret_card_leaks(payload: Any, owner: str | None) -> list[str]:
    """Where `payload` (sent to `owner`, or None: to anyone) shows ann's hidden card."""
    leaks = []
    for path, key, value in walk(payload):
        if key == "my_card" and value is not None and owner != "ann":
            leaks.append(f"{path}/my_card={value}")
        if key == "card" and value is not None and path.endswith("/players/ann"):
            leaks.append(f"{path}/card={value}")
        if key == "value" and value == SECRET_CARD and "/cards/" in path:
            leaks.append(f"{path}/value={value}")  # a timeline of the running game
    if isinstance(payload, dict) and payload.get("type") == "card":
        leaks.append("a card action")
    return leaks


def test_no_page_api_answer_or_stream_shows_a_hidden_card_or_a_token(service):
    seats = service.seats("t1")
    key = service.key
    post = service.http.post
    for player, value in (("ann", 9), ("bob", 5), ("cy", 3)):
        assert post(f"/api/seat/{seats[player]}", json={"type": "card", "value": value}).is_success
    ship = service.test_ship
    for t_ms, zone, item in ((1000.0, 9, "barrel"), (2000.0, 5, "rat"), (3000.0, 3, "boat")):
        ship.event("place", t_ms, zone=zone, grams=W[item])
    service.wait_for("t1", lambda s: s["state"]["round"] == 2)
    # RR4: ann chooses in round 2; until bob and cy have chosen, only ann may see it
    assert post(f"/api/seat/{seats['ann']}", json={"type": "card", "value": SECRET_CARD}).is_success
    game_id = service.http.get("/api/games").json()[0]["game_id"]

    collected: dict[str, tuple[str, str | None]] = {}  # name -> (text, who it is for)

    def get(path: str, owner: str | None = None, **params: str) -> None:
        response = service.http.get(path, params=params)
        collected[path] = (response.text, owner)

    # what anyone can open: pages, their assets, the public API and streams
    for path in ("/", "/tables/t1", "/games", f"/games/{game_id}", "/stats"):
        get(path)
    for asset in re.findall(r'(/static/[^"]+)', collected["/tables/t1"][0]):
        get(asset)
    for path in (
        "/api/health",
        "/api/tables",
        "/api/tables/t1",
        "/api/games",
        f"/api/games/{game_id}",
        "/api/stats",
        f"/api/games/{game_id}/log.jsonl",  # refused while running, without the key
        f"/api/games/{game_id}/trace.csv",
        "/api/tables/t1/seats",  # refused without the key
        "/api/tables/t1/seat-links",
        "/api/tables/t1/calibration",
        "/tables/t1/calibrate",
    ):
        get(path)
    collected["/api/tables/t1/stream"] = (first_event(service, "/api/tables/t1/stream"), None)
    # what bob's own link gives him
    bob = seats["bob"]
    get(f"/seat/{bob}", owner="bob")
    get(f"/api/seat/{bob}", owner="bob")
    get(f"/api/seat/{bob}/next", owner="bob")
    collected[f"/api/seat/{bob}/stream"] = (first_event(service, f"/api/seat/{bob}/stream"), "bob")
    # and ann's, to show the checks can fail: her own card is in her own answers
    ann_view = service.http.get(f"/api/seat/{seats['ann']}").json()
    assert secret_card_leaks(ann_view, owner=None) != []
    assert len(collected) > 25

    for name, (text, owner) in collected.items():
        others = [token for player, token in seats.items() if player != owner]
        assert not [t for t in others if t in text], f"{name} shows another seat's token"
        assert key not in text, f"{name} shows the operator key"
        try:
            payload = json.loads(text)
        except ValueError:
            assert '"my_card"' not in text, name
            continue
        assert secret_card_leaks(payload, owner) == [], name
        if name == f"/api/seat/{bob}":
            assert payload["state"]["my_card"] is None and payload["you"] == "bob"
