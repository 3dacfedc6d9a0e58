"""The referee service end to end: real mosquitto, real SQLite, HTTP, a ship on the broker."""

from __future__ import annotations

import json
import queue
import threading

import paho.mqtt.client as mqtt
import pytest
from support.service import CEILING_S, BrokerShip, RunningService, online_ship

from bosun.referee.riffraff import FALL_EPISODE_MS
from bosun.service import ServiceOptions
from bosun.tables import TableConfig, default_seats
from shipsense.pieces import ITEM_GRAMS as W

PLAYERS = ["ann", "bob", "cy"]


@pytest.fixture
def service(mosquitto, store_url):
    table = TableConfig(id="t1", players=default_seats(PLAYERS), settle_s=0)
    options = ServiceOptions(
        tables=[table],
        db_url=store_url,
        mqtt_url=mosquitto.url,
        http_port=0,
    )
    with RunningService(options) as running:
        yield running


@pytest.fixture
def ship(service, mosquitto):
    with online_ship(service, mosquitto) as test_ship:
        yield test_ship


def act(service, token, **request):
    return service.act(token, **request)


def test_a_turn_from_cards_to_led_prompt_to_load(service, ship):
    seats = service.seats("t1")
    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        assert act(service, seats[player], type="card", value=value).status_code == 200
    led = ship.next_led(show="prompt")
    assert led["zone"] == 8  # RR5/RR8: bob, the new captain, loads on zone 8
    ship.event("place", 1000.0, zone=8, grams=W["barrel"] + 0.2)
    led = ship.next_led(show="prompt")
    assert led["zone"] == 5  # settle 0: bob's turn ended, cy's zone is lit
    state = service.wait_for("t1", lambda s: s["state"]["turn"] == "cy")["state"]
    assert state["ship"]["8"] == ["barrel"]


def test_a_fall_is_refereed_from_events(service, ship):
    seats = service.seats("t1")
    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        act(service, seats[player], type="card", value=value)
    ship.event("place", 1000.0, zone=8, grams=W["rat"])
    service.wait_for("t1", lambda s: s["state"]["turn"] == "cy")
    ship.event("leaving", 2000.0, grams=W["rat"], zones=[8])
    assert ship.next_led(show="fall")
    ship.event("fall", 2000.0, grams=W["rat"], zones=[8])
    ship.event("land", 2200.0, grams=W["rat"])
    state = service.wait_for(
        "t1", lambda s: s["state"]["ship"]["8"] == [], timeout_s=FALL_EPISODE_MS / 1000 + 5
    )["state"]
    # RR14: with "immediately" cy's turn opened as the rat rested; it toppled before she
    # loaded anything: bob's, to his supply (RR13), and cy's turn goes on
    assert state["players"]["bob"]["items"]["rat"] == 1 and state["turn"] == "cy"
    assert state["players"]["cy"]["supply"] == 8
    ship.event("place", 3000.0, zone=5, grams=W["boat"])
    state = service.wait_for("t1", lambda s: s["state"]["turn"] == "ann")["state"]
    assert state["ship"]["5"] == ["boat"]


def test_rr11_a_toppled_touch_is_asked_about_and_the_answer_ends_the_turn(service, ship):
    # a pressed piece toppled off as it was let go, weighed by no sensor: people name it
    seats = service.seats("t1")
    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        act(service, seats[player], type="card", value=value)
    ship.next_led(show="prompt")
    ship.event("touch", 1000.0, grams=19.5, zones=[8], toppled=True)
    snapshot = service.wait_for("t1", lambda s: s["referee"]["flags"] != [])
    (flag,) = snapshot["referee"]["flags"]
    assert flag["kind"] == "toppled" and "zone 8" in flag["text"]
    answer = {"type": "confirm", "flag": flag["id"], "option": "crate"}
    assert act(service, seats["ann"], **answer).status_code == 200
    state = service.wait_for("t1", lambda s: s["state"]["turn"] == "cy")["state"]
    assert state["ship"]["8"] == [] and state["players"]["bob"]["items"]["crate"] == 1
    again = act(service, seats["ann"], **answer)  # answered already: refused, nothing changes
    assert again.status_code == 409 and "already been answered" in again.json()["error"]


def test_rr8_a_load_weighed_with_the_hand_is_named_again_when_the_hand_comes_off(service, ship):
    # bob held a bottle down still: placed as hand and bottle, a chest's weight. The hand
    # comes off (a `stay` naming zone 8): the log's load is a bottle, his chest is his still
    seats = service.seats("t1")
    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        act(service, seats[player], type="card", value=value)
    ship.next_led(show="prompt")
    hand_g = W["chest"] - W["bottle"]
    ship.event("place", 1000.0, zone=8, grams=W["chest"])
    service.wait_for("t1", lambda s: s["state"]["ship"]["8"] == ["chest"])
    ship.event("stay", 1400.0, grams=hand_g, zone=8)
    state = service.wait_for("t1", lambda s: s["state"]["ship"]["8"] == ["bottle"])["state"]
    items = state["players"]["bob"]["items"]
    assert (items["chest"], items["bottle"], state["turn"]) == (1, 0, "cy")


def test_duplicates_and_bad_messages_change_nothing_and_the_service_lives(service, ship):
    seats = service.seats("t1")
    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        act(service, seats[player], type="card", value=value)
    first = ship.event("place", 1000.0, zone=8, grams=W["rat"])
    service.wait_for("t1", lambda s: s["state"]["turn"] == "cy")
    before = service.table("t1")["state"]
    ship.event("place", 1000.0, seq=first["seq"], zone=5, grams=W["rat"])  # duplicate key
    bad = [
        b"not json",
        b"[1,2,3]",
        json.dumps({"type": "place", "t_ms": 1, "boot": "b1", "seq": 99, "zone": 55}).encode(),
        json.dumps({"type": "place", "t_ms": 1, "boot": "b1", "seq": 98, "zone": "5"}).encode(),
        json.dumps({"type": "place", "t_ms": "x", "boot": "b1", "seq": 97}).encode(),
        b"{" + b" " * 70_000 + b"}",
    ]
    for payload in bad:
        ship.publish("ship/event", None, raw=payload)
    foreign = BrokerShip(ship.client._host, ship.client._port, "elsewhere")  # noqa: SLF001
    foreign.event("place", 1.0, zone=5, grams=W["rat"])
    foreign.close()
    # a valid event after the garbage is still refereed: the service is alive and in order
    ship.event("place", 3000.0, zone=5, grams=W["boat"])
    after = service.wait_for("t1", lambda s: s["state"]["turn"] == "ann")["state"]
    assert after["ship"]["5"] == ["boat"]
    assert after["ship"]["8"] == before["ship"]["8"] == ["rat"]
    rejected = service.call(lambda: service.service.tables["t1"].refused_messages)
    assert rejected == len(bad)
    assert service.call(lambda: dict(service.service.foreign_messages)) == {"elsewhere": 2}


def test_a_seat_token_acts_only_for_its_seat_and_never_sees_other_cards(service, ship):
    seats = service.seats("t1")
    assert act(service, seats["ann"], type="card", value=9).status_code == 200
    # ann's token cannot choose for bob: the request is ann's, and ann has chosen
    response = act(service, seats["ann"], type="card", value=4, player="bob")
    assert response.status_code == 409 and "already chosen" in response.json()["error"]
    assert act(service, "forged-token", type="card", value=4).status_code == 404
    bob_view = service.http.get(f"/api/seat/{seats['bob']}").json()
    assert bob_view["state"]["my_card"] is None
    assert "9" not in json.dumps(bob_view["state"]["players"])
    public = service.http.get("/api/tables/t1").text
    assert all(token not in public for token in seats.values())
    assert '"my_card"' not in public
    ann_view = service.http.get(f"/api/seat/{seats['ann']}").json()
    assert ann_view["state"]["my_card"] == 9
    assert service.http.get("/api/tables/t1/seats").status_code == 403  # no operator key


@pytest.mark.parametrize(
    "body, status",
    [(b"not json", 400), (b"[1]", 400), (b"{" + b" " * 20000 + b"}", 413)],
)
def test_bad_http_requests_are_refused_with_a_reason(service, body, status):
    token = service.seats("t1")["ann"]
    response = service.http.post(
        f"/api/seat/{token}", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == status and response.json()["error"]


def test_the_table_pauses_when_the_ship_goes_offline(service, ship):
    seats = service.seats("t1")
    ship.client.loop_stop()
    ship.client.socket().close()  # vanish: the broker publishes the last will
    service.wait_for("t1", lambda s: not s["ship"]["online"] and not s["referee"]["online"])
    response = act(service, seats["ann"], type="card", value=2)
    assert response.status_code == 409 and "paused" in response.json()["error"]
    back = BrokerShip(ship.client._host, ship.client._port, "t1", boot="b2")  # noqa: SLF001
    service.wait_for("t1", lambda s: s["referee"]["online"])
    assert act(service, seats["ann"], type="card", value=2).status_code == 200
    back.close()


def test_a_gap_in_the_events_is_asked_for_again_and_filled(service, ship):
    seats = service.seats("t1")
    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        act(service, seats[player], type="card", value=value)
    ship.next_led(show="prompt")
    ship.event("touch", 500.0, seq=1, grams=3.0, zones=[2])
    # event 2 (bob's piece) is lost on the way; event 3 (cy's piece) arrives
    ship.event("place", 3000.0, seq=3, zone=5, grams=W["rat"])
    while (command := ship.commands.get(timeout=CEILING_S))["cmd"] != "resend":
        pass
    assert (command["boot"], command["from"], command["to"]) == ("b1", 2, 2)
    assert service.table("t1")["state"]["turn"] == "bob"  # event 3 waits behind the gap
    ship.event("place", 1000.0, seq=2, zone=8, grams=W["barrel"])  # the ring buffer resends
    snapshot = service.wait_for("t1", lambda s: s["state"]["turn"] == "ann")
    assert snapshot["state"]["ship"]["8"] == ["barrel"]  # bob's, refereed first
    assert snapshot["state"]["ship"]["5"] == ["rat"]  # then cy's, in the ship's order
    assert snapshot["referee"]["flags"] == []


def test_a_rebooted_ship_is_told_again_what_to_light_and_stream(service, ship, mosquitto):
    seats = service.seats("t1")
    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        act(service, seats[player], type="card", value=value)
    assert ship.next_led(show="prompt")["zone"] == 8
    ship.close()
    rebooted = BrokerShip(mosquitto.host, mosquitto.port, "t1", boot="b2")
    commands = [rebooted.commands.get(timeout=CEILING_S) for _ in range(2)]
    assert {"cmd": "trace", "on": True}.items() <= commands[0].items()
    assert commands[1]["cmd"] == "led" and commands[1]["zone"] == 8
    rebooted.close()


def test_no_secret_card_travels_over_mqtt(service, ship, mosquitto):
    """DESIGN.md: secret cards never travel over MQTT; the reveal is in game/state."""
    heard: queue.Queue = queue.Queue()
    listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    subscribed = threading.Event()
    listener.on_message = lambda _c, _u, m: heard.put((m.topic, json.loads(m.payload)))
    listener.on_subscribe = lambda *_: subscribed.set()
    listener.connect(mosquitto.host, mosquitto.port)
    listener.subscribe("bosun/t1/#", qos=1)
    listener.loop_start()
    assert subscribed.wait(5)
    seats = service.seats("t1")
    act(service, seats["ann"], type="card", value=3)
    act(service, seats["bob"], type="card", value=8)
    act(service, seats["cy"], type="card", value=5)  # the reveal
    service.wait_for("t1", lambda s: s["state"]["phase"] == "turn")
    messages = []

    def seen(kind: str) -> list[dict]:
        return [m for t, m in messages if t.endswith(kind)]

    while (
        len([m for m in seen("game/event") if m["type"] == "card"]) < 3
        or not [m for m in seen("ship/cmd") if m.get("show") == "prompt"]
        or not [m for m in seen("game/state") if m["phase"] == "turn"]
    ):  # everything the broker carried until the reveal was published and bob's zone lit
        messages.append(heard.get(timeout=CEILING_S))
    listener.loop_stop()
    listener.disconnect()
    cards = [m for m in seen("game/event") if m["type"] == "card"]
    assert [c["player"] for c in cards] == ["ann", "bob", "cy"]
    assert all("value" not in c for c in cards)
    states = seen("game/state")
    before_reveal = [s for s in states if s["phase"] == "choose"]
    assert all(p["card"] is None for s in before_reveal for p in s["players"].values())
    assert states[-1]["players"]["bob"]["card"] == 8  # revealed together (RR4)


def test_raw_trace_batches_are_checked_as_they_arrive_and_only_good_ones_are_stored(service, ship):
    runtime = service.service.runtimes["t1"]
    good = [[1000.0 + 12.5 * k, *([0.5] * 10), None, 0] for k in range(4)]
    bad = [
        {"boot": "b1", "rows": [good[0][:5]]},  # too few columns
        {"boot": "b1", "rows": [[*good[0][:3], "heavy", *good[0][4:]]]},  # a word for grams
        {"boot": "b1", "rows": [good[1], good[0]]},  # time runs backwards
        {"boot": "b1", "rows": [[*good[0][:12], 7]]},  # an impact is 0 or 1
        {"boot": "b1", "rows": [[*good[0][:5], 1e12, *good[0][6:]]]},  # no ship holds a teragram
        {"boot": "b1", "rows": "all of them"},
        {"boot": 5, "rows": good},
    ]
    for batch in bad:
        ship.publish("ship/trace", {"columns": [], **batch})
    ship.publish("ship/trace", {"boot": "b1", "columns": [], "rows": good})
    # the ship's messages arrive in order: once this event is refereed, every batch was seen
    seats = service.seats("t1")
    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        act(service, seats[player], type="card", value=value)
    ship.event("place", 1100.0, zone=8, grams=W["rat"])
    service.wait_for("t1", lambda s: s["state"]["turn"] == "cy")
    assert service.call(lambda: service.service.tables["t1"].refused_messages) == len(bad)
    service.call(runtime.traces.flush).result(10)  # the commit, in the writer's thread
    stored = service.call(lambda: runtime.store.trace("t1", 0.0, 1e9))
    assert [row[0] for row in stored] == [row[0] for row in good]
    assert stored[0][1:11] == pytest.approx([0.5] * 10)


def test_a_referee_bug_is_shown_on_the_tables_feed_and_the_table_goes_on(service, ship):
    runtime = service.service.runtimes["t1"]
    seats = service.seats("t1")
    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        act(service, seats[player], type="card", value=value)
    referee = service.call(lambda: runtime.referee)
    decide = referee.on_ship_event

    def broken_once(event, now_ms):
        referee.on_ship_event = decide  # the next event is decided as usual
        raise RuntimeError("a bug")

    service.call(lambda: setattr(referee, "on_ship_event", broken_once))
    ship.event("place", 1000.0, zone=8, grams=W["rat"])
    feed = service.wait_for(
        "t1", lambda s: any("the referee failed" in f["text"] for f in s["feed"])
    )["feed"]
    failure = next(f for f in feed if "the referee failed" in f["text"])
    assert failure["level"] == "error" and "event message" in failure["text"]
    ship.event("place", 2000.0, zone=8, grams=W["rat"])
    state = service.wait_for("t1", lambda s: s["state"]["turn"] == "cy")["state"]
    assert state["ship"]["8"] == ["rat"]
