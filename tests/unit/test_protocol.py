"""The ship's wire protocol (shipsense.protocol) as the host sees it under CPython."""

from __future__ import annotations

import json

import pytest

from shipsense import protocol, ship_messages


def test_topics_live_under_the_table_root():
    assert protocol.topic("cafe-3", protocol.EVENT) == "bosun/cafe-3/ship/event"
    assert protocol.parse_topic("bosun/cafe-3/ship/result") == ("cafe-3", "ship/result")
    assert protocol.DELIVERY[protocol.STATUS] == (1, True)
    assert protocol.DELIVERY[protocol.EVENT] == (1, False)
    assert protocol.DELIVERY[protocol.WEIGHTS][0] == 0


@pytest.mark.parametrize("table", ["", "a/b", "t 1", "x" * 33, "+", "#", 7])
def test_bad_table_ids_are_refused(table):
    with pytest.raises(protocol.ProtocolError, match="table id"):
        protocol.topic(table, protocol.EVENT)


def test_the_last_will_is_exactly_the_documented_bytes():
    assert protocol.LWT_PAYLOAD == b'{"online":false}'


def test_an_event_carries_boot_and_seq_and_round_trips():
    event = {"type": "place", "t_ms": 1250, "decided_ms": 1500, "zone": 7, "grams": 11.8}
    msg = protocol.event_message(event, "a1b2c3d4", 17)
    assert "seq" not in event  # the detector's dict is not changed
    decoded = ship_messages.check_event(protocol.decode(protocol.encode(msg)))
    assert decoded == {**event, "boot": "a1b2c3d4", "seq": 17}


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"seq": 0}, "seq"),
        ({"seq": True}, "seq"),
        ({"seq": 1.5}, "seq"),
        ({"boot": ""}, "boot"),
        ({"type": ""}, "type"),
        ({"t_ms": "soon"}, "t_ms"),
        ({"decided_ms": None}, "decided_ms"),
    ],
)
def test_malformed_events_are_refused_naming_the_field(change, problem):
    msg = {"type": "fall", "t_ms": 10, "boot": "b", "seq": 1, **change}
    with pytest.raises(protocol.ProtocolError, match=problem):
        ship_messages.check_event(msg)


@pytest.mark.parametrize(
    "payload, problem",
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b"x" * 5000, "too long"),
    ],
)
def test_undecodable_payloads_say_why(payload, problem):
    with pytest.raises(protocol.ProtocolError, match=problem):
        protocol.decode(payload)


def test_commands_the_host_builds_are_valid():
    cmd = protocol.command("led", "c7", show="countdown", zone=7, color=[255, 0, 0], seconds=3)
    assert protocol.parse_command(protocol.encode(cmd)) == cmd
    assert protocol.command("tare")["cmd"] == "tare"
    resend = protocol.command("resend", 9, boot="b1", **{"from": 3, "to": 5})
    assert (resend["from"], resend["to"], resend["id"]) == (3, 5, 9)


@pytest.mark.parametrize(
    "msg, problem",
    [
        ({"cmd": "fly"}, "unknown command 'fly'"),
        ({}, "needs 'cmd'"),
        ({"cmd": "tare", "zones": [1, 1]}, "twice"),
        ({"cmd": "tare", "zones": []}, "non-empty"),
        ({"cmd": "tare", "zones": [0]}, "zones are numbers"),
        ({"cmd": "tare", "colour": 1}, "unexpected field 'colour'"),
        ({"cmd": "calibrate", "zone": 3}, "missing field 'grams'"),
        ({"cmd": "calibrate", "zone": 3, "grams": -5}, "grams"),
        ({"cmd": "calibrate", "zone": True, "grams": 500}, "zone"),
        ({"cmd": "weigh", "item": "", "zone": 2}, "item"),
        ({"cmd": "led", "show": "disco"}, "one of off, prompt"),
        ({"cmd": "led", "show": "prompt", "zone": 3}, "needs 'color'"),
        ({"cmd": "led", "show": "prompt", "zone": 3, "color": [256, 0, 0]}, "0-255"),
        ({"cmd": "led", "show": "countdown", "zone": 3, "color": [1, 2, 3]}, "seconds"),
        ({"cmd": "resend", "boot": "b", "from": 5, "to": 4}, "below"),
        ({"cmd": "resend", "boot": "b", "from": 1, "to": 5000}, "at most"),
        ({"cmd": "trace", "on": 1}, "true or false"),
        ({"cmd": "tare", "id": {"x": 1}}, "'id'"),
    ],
)
def test_bad_commands_are_refused_with_the_reason(msg, problem):
    with pytest.raises(protocol.CommandError, match=problem):
        protocol.parse_command(json.dumps(msg).encode())


def test_a_refused_command_still_yields_its_id_and_name_for_the_result():
    with pytest.raises(protocol.CommandError) as caught:
        protocol.parse_command(b'{"cmd": "calibrate", "id": "c9", "zone": 3}')
    assert (caught.value.cmd_id, caught.value.name) == ("c9", "calibrate")
    result = protocol.result_message(
        caught.value.cmd_id, caught.value.name, False, str(caught.value)
    )
    assert ship_messages.check_result(result)["error"] == "calibrate: missing field 'grams'"


def test_a_failed_result_needs_a_reason():
    with pytest.raises(protocol.ProtocolError):
        ship_messages.check_result({"ok": False, "error": None})


def test_status_weights_and_trace_messages_check_out():
    status = protocol.status_message(True, fw="x", boot="b", problems=["z3 is faulted"])
    assert ship_messages.check_status(status)["problems"] == ["z3 is faulted"]
    weights = protocol.weights_message("b", 1000, [1.234, 0.0], None, [2])
    assert ship_messages.check_weights(weights)["zones_g"] == [1.23, 0.0]
    row = [0, *[0.0] * 10, None, None]
    trace = protocol.trace_message("b", [row])
    assert ship_messages.check_trace(trace)["columns"][0] == "t_ms"
    with pytest.raises(protocol.ProtocolError, match="row 0"):
        ship_messages.check_trace(protocol.trace_message("b", [row[:5]]))


def test_serial_lines_carry_topic_and_message():
    line = protocol.encode_line(protocol.EVENT, {"type": "land", "seq": 3})
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert protocol.decode_line(line) == (protocol.EVENT, {"type": "land", "seq": 3})
    assert protocol.decode_line(line.encode()) == (protocol.EVENT, {"type": "land", "seq": 3})
    with pytest.raises(protocol.ProtocolError, match="unknown topic"):
        protocol.decode_line('{"topic": "game/state", "msg": {}}')
    with pytest.raises(protocol.ProtocolError):
        protocol.decode_line("hello, I am console text")


@pytest.mark.parametrize(
    "msg, problem",
    [
        ({"type": "place", "zone": 7}, "'grams'"),
        ({"type": "place", "zone": 11, "grams": 2.6}, "'zone' must be a zone 1-10"),
        ({"type": "place", "zone": "7", "grams": 2.6}, "'zone'"),
        ({"type": "place", "zone": 7, "grams": 1e6}, "'grams'"),
        ({"type": "fall", "grams": 2.6, "zones": [3, 12]}, "'zones' holds 12"),
        ({"type": "fall", "grams": 2.6, "zones": "3"}, "'zones' must be a list"),
        ({"type": "shift", "from": 9, "grams": 2.6}, "'to'"),
        ({"type": "land", "grams": "a lot"}, "'grams'"),
        ({"type": "leaving", "zones": [9]}, "'grams'"),
        ({"type": "stay", "zone": 8}, "'grams'"),
        ({"type": "stay", "grams": 6.1, "zone": 0}, "'zone' must be a zone 1-10"),
        ({"type": "stay", "grams": 6.1, "zone": True}, "'zone'"),
        ({"type": "x" * 33}, "'type'"),
        ({"type": "touch", "boot": "b" * 33}, "boot"),
        ({"type": "touch", "seq": 2**53 + 1}, "seq"),
        ({"type": "touch", "t_ms": -1}, "t_ms"),
    ],
)
def test_the_fields_the_referee_acts_on_are_checked_by_the_one_contract(msg, problem):
    event = {"t_ms": 10, "boot": "b1", "seq": 1, **msg}
    with pytest.raises(protocol.ProtocolError, match=problem):
        ship_messages.check_event(event)


def test_events_the_host_acts_on_pass_with_their_optional_fields():
    for event in (
        {"type": "land", "grams": None},
        {"type": "land"},
        {"type": "fall", "grams": 6.1},
        {"type": "shift", "from": 9, "to": 7, "grams": 2.6},
        {"type": "stay", "grams": 1.0},
        {"type": "stay", "grams": 6.1, "zone": 8},
        {"type": "fault", "zone": "mat", "reason": "silent"},  # not acted on: as it is
    ):
        msg = {"t_ms": 10, "decided_ms": 12, "boot": "b1", "seq": 2**53, **event}
        assert ship_messages.check_event(msg) is msg


@pytest.mark.parametrize("text", ['{"t_ms": NaN}', '{"t_ms": Infinity}', "[" * 3000 + "]" * 3000])
def test_what_json_does_not_have_is_refused(text):
    with pytest.raises(protocol.ProtocolError, match="JSON|nested"):
        protocol.decode(text.encode(), limit=10**6)


def test_only_a_trace_batch_may_be_longer_than_a_message():
    assert ship_messages.max_bytes(protocol.EVENT) == protocol.MAX_PAYLOAD_BYTES == 4096
    assert ship_messages.max_bytes(protocol.TRACE) == ship_messages.MAX_TRACE_BYTES
    with pytest.raises(protocol.ProtocolError, match="too long"):
        protocol.decode(b"{}" + b" " * 4096)


@pytest.mark.parametrize("table", ["Window", "T1", "-t1", "_t1"])
def test_one_table_id_rule_refuses_what_no_table_could_match(table):
    with pytest.raises(protocol.ProtocolError, match="table id"):
        protocol.check_table_id(table)
