"""Home Assistant's MQTT discovery end to end: real mosquitto, the real service, a ship on the
broker, and a subscriber that checks what Home Assistant's documentation requires of every
discovery config (not what bosun's own module says) and that states follow the game."""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections import defaultdict

import paho.mqtt.client as mqtt
import pytest
from support.polling import until
from support.service import (
    CEILING_S,
    RunningService,
    online_ship,
    service_options,
    with_virtual_table,
)

from bosun.home_assistant.bridge import RESEND_MIN_S
from bosun.home_assistant.settings import HomeAssistantSettings
from bosun.tables import TableConfig, default_seats
from shipsense.pieces import ITEM_GRAMS as W

PLAYERS = ["ann", "bob", "cy"]
WEIGHT_EVERY_S = 2.0

# Home Assistant's MQTT discovery documentation: what each component's config must carry.
# Every entity needs a unique_id (to be edited in the UI and grouped under its device), a
# device with identifiers, and here an availability list; then per component:
REQUIRED = {
    "binary_sensor": {"state_topic", "payload_on", "payload_off"},
    "sensor": {"state_topic"},
    "event": {"state_topic", "event_types"},
}
COMMON = {"name", "unique_id", "device", "availability"}
WEIGHT_UNITS = {"g", "kg", "mg", "µg", "oz", "lb", "st"}  # device_class weight's units
CONFIG_TOPIC = re.compile(
    r"^homeassistant/(binary_sensor|sensor|event)/([a-zA-Z0-9_-]+)/([a-zA-Z0-9_-]+)/config$"
)
TABLE_TOPIC = re.compile(r"^bosun/[a-z0-9][a-z0-9_-]{0,31}/")  # a table's own (ships' ACLs)


class Watcher:
    """A subscriber on the broker as Home Assistant would be: every message, kept in order."""

    def __init__(self, broker, *topics: str) -> None:
        self.messages: dict[str, list[tuple[bytes, bool]]] = defaultdict(list)
        self._lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.on_message = self._on_message
        self.client.connect(broker.host, broker.port, keepalive=5)
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *_: subscribed.set()
        self.client.subscribe([(topic, 1) for topic in topics])
        self.client.loop_start()
        assert subscribed.wait(CEILING_S)

    def _on_message(self, client, userdata, message) -> None:
        with self._lock:
            self.messages[message.topic].append((bytes(message.payload), bool(message.retain)))

    def topics(self, prefix: str = "") -> list[str]:
        with self._lock:
            return [t for t in self.messages if t.startswith(prefix)]

    def all(self, topic: str) -> list[bytes]:
        with self._lock:
            return [payload for payload, _ in self.messages.get(topic, [])]

    def last(self, topic: str):
        payloads = self.all(topic)
        return json.loads(payloads[-1]) if payloads else None

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(CEILING_S)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def table():
    return TableConfig(id="t1", players=default_seats(PLAYERS), settle_s=0)


@pytest.fixture
def watcher(mosquitto):
    watching = Watcher(mosquitto, "homeassistant/#", "bosun/#")
    yield watching
    watching.close()


def home_assistant_on(mosquitto, tmp_path, table):
    settings = HomeAssistantSettings(enabled=True, weight_every_s=WEIGHT_EVERY_S)
    return service_options(mosquitto.url, tmp_path, [table], home_assistant=settings)


def configs_of(watcher: Watcher, node: str) -> dict[str, dict]:
    found = {}
    for topic in watcher.topics("homeassistant/"):
        match = CONFIG_TOPIC.match(topic)
        if match and match.group(2) == node:
            found[topic] = json.loads(watcher.all(topic)[-1])
    return found


def check_discovery_schema(configs: dict[str, dict]) -> None:
    unique_ids = set()
    for topic, config in configs.items():
        component = CONFIG_TOPIC.match(topic).group(1)
        missing = (COMMON | REQUIRED[component]) - config.keys()
        assert not missing, (topic, missing)
        assert config["unique_id"] not in unique_ids
        unique_ids.add(config["unique_id"])
        assert config["device"]["identifiers"] and config["device"]["name"]
        for availability in config["availability"]:
            assert isinstance(availability["topic"], str)
            assert not TABLE_TOPIC.match(availability["topic"])
        assert config.get("availability_mode", "latest") in ("all", "any", "latest")
        # states outside any table's topics: no ship may write them under the broker's ACLs
        assert not TABLE_TOPIC.match(config["state_topic"]), config["state_topic"]
        if component == "binary_sensor":
            assert config["device_class"] == "connectivity"
        if config.get("device_class") == "weight":
            assert config["unit_of_measurement"] in WEIGHT_UNITS
            assert config["state_class"] == "measurement"
        if component == "event":
            assert isinstance(config["event_types"], list) and config["event_types"]


def test_discovery_follows_the_schema_and_states_follow_the_game(
    mosquitto, tmp_path, table, watcher
):
    options = home_assistant_on(mosquitto, tmp_path, table)
    with RunningService(options) as service, online_ship(service, mosquitto) as ship:
        configs = until(
            lambda: configs_of(watcher, "bosun_t1"), lambda found: len(found) >= 15
        )  # connection, 10 zones, the mat, falls and places, phase, turn
        check_discovery_schema(configs)
        by_id = {c["unique_id"]: c for c in configs.values()}
        assert len({json.dumps(c["device"], sort_keys=True) for c in configs.values()}) == 1
        assert sorted(by_id["bosun_t1_falls_and_places"]["event_types"]) == ["fall", "place"]
        assert by_id["bosun_t1_zone_8_weight"]["device_class"] == "weight"
        late = Watcher(mosquitto, "homeassistant/#")  # Home Assistant starting later
        try:  # finds every config kept by the broker
            until(lambda: configs_of(late, "bosun_t1"), lambda found: found == configs)
            assert all(late.messages[topic][0][1] for topic in configs)  # retained
        finally:
            late.close()

        connection = by_id["bosun_t1_connection"]["state_topic"]
        until(lambda: watcher.all(connection), lambda states: states and states[-1] == b"online")
        assert watcher.all("bosun/_ha/status")[-1] == b"online"

        game = by_id["bosun_t1_phase"]["state_topic"]
        seats = service.seats("t1")
        for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
            service.play(seats[player], type="card", value=value)
        # RR5/RR8: bob, the new captain, loads first
        until(lambda: watcher.last(game), lambda s: s and s["turn"] == "bob")
        placed = ship.event("place", 1000.0, zone=8, grams=W["barrel"] + 0.2)
        state = until(lambda: watcher.last(game), lambda s: s["turn"] == "cy")
        assert state["phase"] == "turn" and state["game"] == "Riff Raff"

        events = by_id["bosun_t1_falls_and_places"]["state_topic"]
        first = until(lambda: watcher.all(events), lambda found: found)
        assert json.loads(first[0]) == {
            "event_type": "place",
            "grams": round(W["barrel"] + 0.2, 1),
            "zone": 8,
        }
        # fed after de-duplication: the ship's resend of that event fires nothing
        ship.event("place", 1000.0, seq=placed["seq"], zone=8, grams=W["barrel"] + 0.2)
        ship.event("fall", 2000.0, grams=W["barrel"], zones=[8])
        fired = until(lambda: watcher.all(events), lambda found: len(found) >= 2)
        assert [json.loads(p)["event_type"] for p in fired] == ["place", "fall"]
        assert json.loads(fired[1])["zones"] == [8]
        assert not any(retained for _, retained in watcher.messages[events])

        check_weights(ship, watcher, by_id)

        # Home Assistant restarts: it says "online" and gets every config again
        before = len(watcher.all(connection))
        config_topic = next(iter(configs))
        sent = len(watcher.all(config_topic))
        watcher.publish("homeassistant/status", b"online")
        until(lambda: len(watcher.all(config_topic)), lambda n: n > sent)
        until(lambda: len(watcher.all(connection)), lambda n: n > before)

        # anyone may say "online": a flood of it resends at most once every RESEND_MIN_S
        resends_before = service.call(lambda: service.service.home_assistant.resends)
        started = time.monotonic()
        for _ in range(200):
            watcher.client.publish("homeassistant/status", b"online", qos=0)
        watcher.publish("homeassistant/status", b"offline")  # ignored; ends the flood in order
        flood_s = time.monotonic() - started
        resends = service.call(lambda: service.service.home_assistant.resends) - resends_before
        assert resends <= 1 + math.ceil(flood_s / RESEND_MIN_S), (resends, flood_s)

    # bosun stopped: every entity becomes unavailable, the configs stay
    assert watcher.all("bosun/_ha/status")[-1] == b"offline"
    assert configs_of(watcher, "bosun_t1").keys() == configs.keys()


def check_weights(ship, watcher: Watcher, by_id: dict[str, dict]) -> None:
    """A zone's sensor follows the ship's weights, at most once every WEIGHT_EVERY_S and only
    on a change; a ship's bad numbers never reach it."""
    grams = by_id["bosun_t1_zone_8_weight"]["state_topic"]
    assert by_id["bosun_t1_zone_8_weight"]["value_template"] == "{{ value_json.zone_8 }}"
    assert by_id["bosun_t1_mat_weight"]["value_template"] == "{{ value_json.mat }}"

    def weights(zone_8_g: float, t_ms: int, table_g: float | None = 0.0) -> None:
        zones = [0.0] * 10
        zones[7] = zone_8_g
        ship.publish(
            "ship/weights", {"boot": ship.boot, "t_ms": t_ms, "zones_g": zones, "table_g": table_g}
        )

    weights(100.0, 1)
    until(lambda: watcher.last(grams), lambda s: s and s["zone_8"] == 100.0)
    started = time.monotonic()
    sent_before = len(watcher.all(grams))
    for n in range(1, 21):  # 20 new readings in a burst: one goes out now, the last at the end
        weights(100.0 + 5 * n, 1 + n)
    last = until(lambda: watcher.last(grams), lambda s: s["zone_8"] == 200.0, CEILING_S)
    elapsed_s = time.monotonic() - started
    sent = len(watcher.all(grams)) - sent_before
    assert 1 <= sent <= 2 + math.ceil(elapsed_s / WEIGHT_EVERY_S), (sent, elapsed_s)
    assert last["mat"] == 0.0 and last["zone_1"] == 0.0
    # a bad reading is shown to nobody; the next good one is (the mat now unknown)
    ship.publish("ship/weights", {"boot": ship.boot, "t_ms": 30, "zones_g": ["x"] * 10})
    weights(210.0, 31, table_g=None)
    mat_unknown = until(lambda: watcher.last(grams), lambda s: s["mat"] is None)
    assert mat_unknown["zone_8"] == 210.0
    assert all(
        isinstance(v, float | None) for p in watcher.all(grams) for v in json.loads(p).values()
    )


def test_a_demo_tables_entities_follow_a_move_played_on_its_virtual_ship(
    mosquitto, tmp_path, watcher
):
    settings = HomeAssistantSettings(enabled=True, weight_every_s=WEIGHT_EVERY_S)
    options = service_options(mosquitto.url, tmp_path, time_scale=4.0, home_assistant=settings)
    with with_virtual_table(options, seed=3, people=tuple(PLAYERS), baseline=True) as (
        service,
        _table,
    ):
        configs = until(lambda: configs_of(watcher, "bosun_demo-1"), lambda f: len(f) >= 15)
        check_discovery_schema(configs)
        state = "bosun/_ha/demo-1/"
        until(lambda: watcher.all(state + "connection"), lambda s: s and s[-1] == b"online")
        seats = service.seats("demo-1")
        for player, value in zip(PLAYERS, (9, 5, 3), strict=True):
            service.play(seats[player], type="card", value=value)
        # RR5: ann, the highest card, is captain and loads first
        until(lambda: watcher.last(state + "game"), lambda s: s and s["turn"] == "ann")
        hands = f"/api/seat/{seats['ann']}/virtual"
        assert service.http.post(hands, json={"do": "place", "item": "boat", "zone": 9}).is_success
        # the firmware's detector saw the boat land: the event fires, the zone weighs it
        placed = until(lambda: watcher.all(state + "events"), lambda found: found)
        assert json.loads(placed[0])["event_type"] == "place"
        assert json.loads(placed[0])["zone"] == 9
        until(lambda: watcher.last(state + "game"), lambda s: s["turn"] != "ann")
        grams = until(lambda: watcher.last(state + "grams"), lambda s: s and s["zone_9"] > 5)
        assert grams["zone_9"] == pytest.approx(W["boat"], abs=1.0)


def test_nothing_goes_to_home_assistant_when_it_is_off(mosquitto, tmp_path, table, watcher):
    options = service_options(mosquitto.url, tmp_path, [table])
    with RunningService(options) as service, online_ship(service, mosquitto) as ship:
        assert service.service.home_assistant is None
        seats = service.seats("t1")
        for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
            service.play(seats[player], type="card", value=value)
        ship.event("place", 1000.0, zone=8, grams=W["barrel"])
        ship.publish("ship/weights", {"boot": ship.boot, "t_ms": 1, "zones_g": [1.0] * 10})
        watcher.publish("homeassistant/status", b"online")
        until(  # the game went on (RR5/RR8: bob loaded, cy's turn), published by the host
            lambda: watcher.last("bosun/t1/game/state"), lambda s: s and s["turn"] == "cy"
        )
    assert watcher.topics("homeassistant/") == ["homeassistant/status"]  # our own publish
    assert watcher.topics("bosun/_ha") == []
