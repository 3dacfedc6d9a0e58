"""Nothing secret reaches someone else: every page, API answer, export and event stream a
non-owner can get is collected while a card is chosen and not yet revealed (RR4), and, for
Riff Raff, two rounds after the first: its cards lie face down by then (RR7)."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import pytest
from support.service import BrokerShip, RunningService, service_options

from bosun.tables import TableConfig, default_seats
from shipsense.pieces import ITEM_GRAMS as W

PLAYERS = ["ann", "bob", "cy"]
# Rounds 1 and 2, each player's values different across them: round 1's lie face down in
# round 3 (RR7), round 2's face up. The zones are the cards (RR8).
ROUND_1 = {"ann": 9, "bob": 5, "cy": 3}
ROUND_2 = {"ann": 2, "bob": 8, "cy": 6}
SECRET_CARD = 7  # ann's choice in round 3, before bob and cy have chosen


@pytest.fixture
def service(mosquitto, tmp_path):
    table = TableConfig(id="t1", players=default_seats(PLAYERS), settle_s=0)
    options = service_options(mosquitto.url, tmp_path, [table])
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


def check_payloads(collected, seats, key, leaks, secret_field: str) -> None:
    """Every collected answer (name -> (text, the seat it was for, or None)): no other seat's
    token, never the operator key, and no secret card (`leaks(payload, owner)`; a page that
    is not JSON must not even name `secret_field`)."""
    for name, (text, owner) in collected.items():
        others = [token for player, token in seats.items() if player != owner]
        assert not [t for t in others if t in text], f"{name} shows another seat's token"
        assert key not in text, f"{name} shows the operator key"
        try:
            payload = json.loads(text)
        except ValueError:
            assert f'"{secret_field}"' not in text, name
            continue
        assert leaks(payload, owner) == [], name


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


RR7_TEXTS = (
    re.compile(r"(?P<player>\w+) loaded .*\bon zone (?P<value>\d+)"),
    re.compile(r"(?P<player>\w+)\b[^.]*\btheir card is (?P<value>\d+)"),
    re.compile(r"(?P<player>\w+) (?:played|chose) (?:the |a )?(?P<value>\d+)"),
)


def earlier_card_leaks(payload: Any, owner: str | None) -> list[str]:
    """Where `payload` (sent to `owner`, or None: to anyone) shows another player's card of
    round 1, face down by now (RR7): a card or played value, a turn's zone (RR8), a load's
    zone, a sensor moment's zones, or a line of text tying them together."""
    leaks = []

    def face_down(player: Any, value: Any) -> bool:
        return player in ROUND_1 and player != owner and value == ROUND_1[player]

    for found in every_dict(payload):
        who = found.get("player")
        for field in ("value", "card", "zone"):
            if face_down(who, found.get(field)):
                leaks.append(f"{field}={found[field]} of {who}: {found}"[:200])
        for load in found.get("loads") or []:
            if isinstance(load, dict) and face_down(who, load.get("zone")):
                leaks.append(f"a load's zone {load['zone']} in {who}'s turn")
        if found.get("kind") == "load" and found.get("round") == 1:
            leaks += [f"zone {z} of {who}'s load in round 1" for z in found.get("zones", [])]
    for path, key, value in walk(payload):
        player = path.rsplit("/", 1)[-1]
        if key == "played" and isinstance(value, list):
            leaks += [f"{path}/played={v}" for v in value if face_down(player, v)]
        if isinstance(value, str):
            for pattern in RR7_TEXTS:
                for found in pattern.finditer(value):
                    if face_down(found["player"], int(found["value"])):
                        leaks.append(f"{path}/{key}: {value!r}")
    return leaks


def every_dict(value: Any):
    """Every JSON object in a JSON value, nested ones too."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from every_dict(item)
    elif isinstance(value, list):
        for item in value:
            yield from every_dict(item)


def every_leak(payload: Any, owner: str | None) -> list[str]:
    return secret_card_leaks(payload, owner) + earlier_card_leaks(payload, owner)


def play_round(service, cards: dict[str, int], t0_ms: float) -> None:
    """Everyone chooses; each turn's piece rests on its card's zone ("immediately")."""
    seats = service.seats("t1")
    for player, value in cards.items():
        response = service.http.post(
            f"/api/seat/{seats[player]}", json={"type": "card", "value": value}
        )
        assert response.is_success, response.text
    number = service.table("t1")["state"]["round"]
    t_ms = t0_ms
    for player in sorted(cards, key=lambda p: -cards[p]):
        t_ms += 1000.0
        service.test_ship.event("place", t_ms, zone=cards[player], grams=W["barrel"])
        service.wait_for(
            "t1", lambda s, p=player: s["state"]["turn"] != p or s["state"]["round"] != number
        )
    service.wait_for("t1", lambda s: s["state"]["round"] == number + 1)


def test_no_page_api_answer_or_stream_shows_a_hidden_card_or_a_token(service, mosquitto):
    import paho.mqtt.client as mqtt

    seats = service.seats("t1")
    key = service.key
    post = service.http.post
    play_round(service, ROUND_1, 0.0)
    play_round(service, ROUND_2, 10_000.0)
    ship = service.test_ship
    # a piece slides along the ship and another topples after the round: on every page too
    ship.event("shift", 20_000.0, **{"from": 9, "to": 4}, grams=W["barrel"])
    ship.event("fall", 21_000.0, grams=W["barrel"], zones=[3])
    ship.event("land", 21_100.0, grams=W["barrel"])
    service.wait_for("t1", lambda s: s["state"]["ship"]["3"] == [])
    # RR4: ann chooses in round 3; until bob and cy have chosen, only ann may see it
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
    # what the broker keeps for anyone who subscribes: the table's public state
    retained: list[bytes] = []
    arrived = threading.Event()

    def on_message(_client, _userdata, message) -> None:
        retained.append(message.payload)
        arrived.set()

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    client.on_message = on_message
    client.connect(mosquitto.host, mosquitto.port)
    client.subscribe("bosun/t1/game/state", qos=1)
    client.loop_start()
    try:
        assert arrived.wait(10), "the broker kept no game/state"
    finally:
        client.loop_stop()
        client.disconnect()
    collected["mqtt bosun/t1/game/state"] = (retained[0].decode(), None)
    # and ann's, to show the checks can fail: her own cards are in her own answers
    ann_view = service.http.get(f"/api/seat/{seats['ann']}").json()
    assert secret_card_leaks(ann_view, owner=None) != []
    assert earlier_card_leaks(ann_view, owner=None) != []  # her round-1 9 (RR7)
    assert ann_view["state"]["players"]["ann"]["played"] == [9, 2]
    timeline = json.loads(collected[f"/api/games/{game_id}"][0])
    assert earlier_card_leaks({"turns": [{"player": "bob", "card": 5}]}, None) != []
    assert len(collected) > 25

    check_payloads(collected, seats, key, every_leak, "my_card")
    bob_view = json.loads(collected[f"/api/seat/{bob}"][0])
    assert bob_view["state"]["my_card"] is None and bob_view["you"] == "bob"
    assert bob_view["state"]["players"]["bob"]["played"] == [5, 8]  # his own (RR7)
    assert {p: i["played"] for p, i in bob_view["state"]["players"].items()} == {
        "ann": [2],
        "bob": [5, 8],
        "cy": [6],
    }
    # the timeline still tells the game: round 2's cards, the shift and the late fall
    rounds = {r["round"]: r for r in timeline["rounds"]}
    assert [c["value"] for c in rounds[2]["cards"]] == [2, 8, 6] or sorted(
        c["value"] for c in rounds[2]["cards"]
    ) == [2, 6, 8]
    assert {c["value"] for c in rounds[1]["cards"]} == {None}
    assert any("moved from zone 9 to zone 4" in e["text"] for e in timeline["events"])
    assert [f["late"] for f in timeline["falls"]] == [True]


# -- Montego Bay: the Big, Little and Lazy Jack cards stay secret until all are in (MB6) -----

MB_SECRET = {"big": 4, "little": 2}  # ann's cards in round 1, before bob and cy choose
CARDS = {"big", "little", "jack"}


@pytest.fixture
def harbour_service(mosquitto, tmp_path):
    table = TableConfig(id="m1", game="montego-bay", players=default_seats(PLAYERS))
    options = service_options(mosquitto.url, tmp_path, [table])
    with RunningService(options) as running:
        running.test_ship = BrokerShip(mosquitto.host, mosquitto.port, "m1")
        running.wait_for("m1", lambda s: s["ship"]["online"])
        yield running
        running.test_ship.close()


def montego_card_leaks(payload: Any, owner: str | None) -> list[str]:
    """Where `payload` (sent to `owner`, or None: to anyone) shows ann's hidden cards."""
    leaks = []
    for path, key, value in walk(payload):
        if key == "my_cards" and value and owner != "ann":
            leaks.append(f"{path}/my_cards={value}")
        if key == "cards" and isinstance(value, dict) and "ann" in value:
            leaks.append(f"{path}/cards/ann={value['ann']}")
        if key in CARDS and isinstance(value, int) and "/events/" in path:
            leaks.append(f"{path}/{key}={value}")
    if isinstance(payload, dict) and payload.get("type") == "cards" and payload.keys() & CARDS:
        leaks.append("a cards action with its cards")
    return leaks


def test_mb6_no_page_api_answer_stream_or_message_shows_cards_before_all_are_in(
    harbour_service, mosquitto
):
    import paho.mqtt.client as mqtt

    service = harbour_service
    seats = service.seats("m1")
    key = service.key
    post = service.http.post
    heard: list[tuple[str, bytes]] = []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    client.on_message = lambda _c, _u, m: heard.append((m.topic, m.payload))
    client.connect(mosquitto.host, mosquitto.port)
    client.subscribe("bosun/m1/#", qos=1)
    client.loop_start()
    try:
        for player in PLAYERS:
            assert post(
                f"/api/seat/{seats[player]}", json={"type": "hire", "worker": None}
            ).is_success
        card = {"type": "cards", **MB_SECRET}
        assert post(f"/api/seat/{seats['ann']}", json=card).is_success
        service.wait_for("m1", lambda s: s["state"]["chosen"] == ["ann"])
        game_id = service.http.get("/api/games").json()[0]["game_id"]
        collected: dict[str, tuple[str, str | None]] = {}

        def get(path: str, owner: str | None = None) -> None:
            collected[path] = (service.http.get(path).text, owner)

        for path in ("/", "/tables/m1", "/games", f"/games/{game_id}", "/stats"):
            get(path)
        for asset in re.findall(r'(/static/[^"]+)', collected["/tables/m1"][0]):
            get(asset)
        for path in (
            "/api/tables",
            "/api/tables/m1",
            "/api/games",
            f"/api/games/{game_id}",
            "/api/stats",
            f"/api/games/{game_id}/log.jsonl",  # refused while running, without the key
            f"/api/games/{game_id}/trace.csv",
            "/api/health",
            "/api/tables/m1/seats",
            "/api/tables/m1/seat-links",
            "/api/tables/m1/calibration",
            "/tables/m1/calibrate",
        ):
            get(path)
        collected["/api/tables/m1/stream"] = (first_event(service, "/api/tables/m1/stream"), None)
        bob = seats["bob"]
        get(f"/seat/{bob}", owner="bob")
        get(f"/api/seat/{bob}", owner="bob")
        collected[f"/api/seat/{bob}/stream"] = (
            first_event(service, f"/api/seat/{bob}/stream"),
            "bob",
        )
        # ann's own page shows her cards: the check can fail
        ann_view = service.http.get(f"/api/seat/{seats['ann']}").json()
        assert ann_view["state"]["my_cards"] == MB_SECRET
        assert montego_card_leaks(ann_view, owner=None) != []
        assert "montego-bay-seat.js" in collected[f"/seat/{bob}"][0]

        check_payloads(collected, seats, key, montego_card_leaks, "my_cards")
        bob_view = json.loads(collected[f"/api/seat/{bob}"][0])
        assert bob_view["state"]["my_cards"] == {} and bob_view["you"] == "bob"
        # MQTT carries the public state and the log as it grows: no card before the reveal
        service.wait_for("m1", lambda s: True)
        events = [json.loads(p) for t, p in heard if t.endswith("/game/event")]
        assert {"type": "cards", "player": "ann"} in events
        for topic, payload in heard:
            if topic.endswith(("/game/event", "/game/state")):
                assert montego_card_leaks(json.loads(payload), None) == [], topic
        # MB6: once all are in, everyone sees them
        for player, cards in (("bob", {"big": 1, "little": 1}), ("cy", {"big": 2, "little": 5})):
            assert post(f"/api/seat/{seats[player]}", json={"type": "cards", **cards}).is_success
        assert service.table("m1")["state"]["cards"]["ann"] == MB_SECRET
    finally:
        client.loop_stop()
        client.disconnect()
