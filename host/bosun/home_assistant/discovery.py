"""What Home Assistant is told about a table: discovery configs and state payloads (pure).

Home Assistant's MQTT discovery (its documentation, "MQTT Discovery"): a retained JSON config
on `<prefix>/<component>/<node_id>/<object_id>/config` creates an entity; its state comes on
the `state_topic` the config names. One device a table (its ship), with:

- a connectivity binary_sensor: is the ship on the broker;
- one weight sensor a load cell the table's game uses (zones, or docks), and the mat's;
- an event entity that fires on every fall and place the referee received (checked,
  de-duplicated, in the ship's order: never a raw MQTT message);
- the game's phase and whose turn it is.

States live under `bosun/_ha/<table>/`: `_ha` can never be a table id (they start with a
letter or digit), so no ship's topic permission (`bosun/<table>/ship/#`) reaches them, and
none of their names is a ship topic's. Only the host writes `bosun/_ha/#` and the discovery
prefix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bosun import __version__
from shipsense import protocol

STATE_ROOT = f"{protocol.ROOT}/_ha"
BRIDGE_STATUS = f"{STATE_ROOT}/status"  # "online" while bosun runs; its last will "offline"
ONLINE, OFFLINE = "online", "offline"
# The state topics of a table (bosun/_ha/<table>/<name>); none is a ship topic's name.
CONNECTION, GRAMS, EVENTS, GAME = "connection", "grams", "events", "game"
EVENT_TYPES = ("fall", "place")  # what the event entity fires on
GRAMS_DECIMALS = 1


@dataclass(frozen=True)
class TableDevice:
    """What discovery needs to know of one table: its id, game and load cells."""

    table_id: str
    game_title: str  # "Riff Raff"
    zones: tuple[int, ...]  # the load cells its game uses
    zone_word: str = "zone"  # "dock" for a harbour
    board: str = "ship"  # what the load cells sit under: "ship", "harbour"
    mat: bool = True  # the table mat weighs what fell off (table_sensor mat/both)


def state_topic(table_id: str, name: str) -> str:
    return f"{STATE_ROOT}/{table_id}/{name}"


def node_id(table_id: str) -> str:
    return f"bosun_{table_id}"


def configs(table: TableDevice, prefix: str = "homeassistant") -> list[tuple[str, dict[str, Any]]]:
    """(config topic, config) for every entity of `table`'s device, in a stable order."""
    t = table.table_id
    device = {
        "identifiers": [node_id(t)],
        "name": f"bosun {t}",
        "manufacturer": "bosun",
        "model": f"{table.game_title} {table.board}",
        "sw_version": __version__,
    }
    origin = {"name": "bosun", "sw_version": __version__}
    bridge = {"topic": BRIDGE_STATUS, "payload_available": ONLINE, "payload_not_available": OFFLINE}
    ship = {
        "topic": state_topic(t, CONNECTION),
        "payload_available": ONLINE,
        "payload_not_available": OFFLINE,
    }

    def entity(component: str, object_id: str, name: str, **fields: Any) -> tuple[str, dict]:
        config = {
            "name": name,
            "unique_id": f"{node_id(t)}_{object_id}",
            "device": device,
            "origin": origin,
            # bosun's own status, and for what the ship measures the ship's too
            "availability": [bridge, ship] if fields.pop("needs_ship", True) else [bridge],
            "availability_mode": "all",
            **fields,
        }
        return f"{prefix}/{component}/{node_id(t)}/{object_id}/config", config

    def weight(object_id: str, name: str, key: str) -> tuple[str, dict]:
        return entity(
            "sensor",
            object_id,
            name,
            state_topic=state_topic(t, GRAMS),
            value_template=f"{{{{ value_json.{key} }}}}",
            device_class="weight",
            unit_of_measurement="g",
            state_class="measurement",
            suggested_display_precision=0,
        )

    found = [
        entity(
            "binary_sensor",
            "connection",
            "Ship connection",
            needs_ship=False,
            state_topic=state_topic(t, CONNECTION),
            payload_on=ONLINE,
            payload_off=OFFLINE,
            device_class="connectivity",
            entity_category="diagnostic",
        )
    ]
    word = table.zone_word
    for zone in table.zones:
        key = f"{word}_{zone}"
        found.append(weight(f"{key}_weight", f"{word.capitalize()} {zone}", key))
    if table.mat:
        found.append(weight("mat_weight", "Mat", "mat"))
    found.append(
        entity(
            "event",
            "falls_and_places",
            "Falls and places",
            state_topic=state_topic(t, EVENTS),
            event_types=list(EVENT_TYPES),
        )
    )
    game = {"needs_ship": False, "state_topic": state_topic(t, GAME)}
    phase = "{{ value_json.phase }}"
    found.append(entity("sensor", "phase", "Game phase", value_template=phase, **game))
    turn = "{{ value_json.turn }}"
    found.append(entity("sensor", "turn", "Whose turn", value_template=turn, **game))
    return found


def grams_state(table: TableDevice, weights: dict[str, Any]) -> dict[str, float | None]:
    """The weight sensors' state from a checked `ship/weights` message (zones_g[0] is zone 1;
    a cell the message does not carry is None, which Home Assistant shows as unknown)."""
    zones_g = weights["zones_g"]
    state: dict[str, float | None] = {}
    for zone in table.zones:
        grams = zones_g[zone - 1] if zone <= len(zones_g) else None
        state[f"{table.zone_word}_{zone}"] = _shown_g(grams)
    if table.mat:
        state["mat"] = _shown_g(weights.get("table_g"))
    return state


def _shown_g(grams: float | None) -> float | None:
    # + 0.0: a cell a hair below zero shows 0.0, not -0.0
    return None if grams is None else round(grams, GRAMS_DECIMALS) + 0.0


def event_state(event: dict[str, Any]) -> dict[str, Any] | None:
    """The event entity's payload for a checked ship event, or None if it does not fire on
    it. Only the fields the referee checked go on (shipsense.ship_messages.EVENT_FIELDS)."""
    kind = event["type"]
    if kind not in EVENT_TYPES:
        return None
    payload: dict[str, Any] = {"event_type": kind, "grams": round(event["grams"], GRAMS_DECIMALS)}
    if kind == "place":
        payload["zone"] = event["zone"]
    else:
        payload["zones"] = list(event["zones"])
    return payload


def game_state(title: str, state: dict[str, Any] | None) -> dict[str, Any]:
    """The phase and turn sensors' state from a game's public state (DESIGN.md), or from no
    game yet. Whose turn: Riff Raff's `turn`, else the player a question waits for (Montego
    Bay's `pending`); in phases everyone plays at once (choosing cards) it is nobody's."""
    if state is None:
        return {"game": title, "phase": "no game", "round": None, "turn": None}
    turn = state.get("turn")
    pending = state.get("pending")
    if turn is None and isinstance(pending, dict):
        turn = pending.get("player")
    return {
        "game": title,
        "phase": state.get("phase"),
        "round": state.get("round"),
        "turn": turn if isinstance(turn, str) else None,
    }


def encode(message: dict[str, Any] | str) -> bytes:
    if isinstance(message, str):
        return message.encode()
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
