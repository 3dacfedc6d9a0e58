"""The serial bridge's acks never deadlock with paho: paho calls on_publish holding the lock
its publish() takes, while the bridge's serial thread publishes an event and notes its id."""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

from support.polling import CEILING_S

from bosun.bus.serial_bridge import SerialBridge
from shipsense import protocol


class FakeSerial:
    def __init__(self) -> None:
        self.lines: list[dict] = []

    def write(self, data: bytes) -> int:
        self.lines.extend(json.loads(line) for line in data.decode().splitlines())
        return len(data)

    def flush(self) -> None:
        pass


class PahoLikeClient:
    """publish() takes `out`, the lock paho's own thread holds while it calls on_publish."""

    def __init__(self) -> None:
        self.out = threading.Lock()
        self.mid = 0

    def publish(self, topic, payload, qos=0, retain=False):
        with self.out:
            self.mid += 1
            return SimpleNamespace(mid=self.mid)


def test_an_ack_arriving_while_the_event_is_published_is_sent_and_nothing_waits_for_ever():
    bridge = SerialBridge("/dev/null", "t1", log=lambda _line: None)
    bridge.client = client = PahoLikeClient()
    bridge._serial = serial = FakeSerial()
    event = {"type": "place", "t_ms": 10, "zone": 3, "boot": "b1", "seq": 7}
    line = protocol.encode_line(protocol.EVENT, event)
    in_callback, publishing = threading.Event(), threading.Event()

    def paho_thread() -> None:  # a PUBACK handled as paho does: its lock held, on_publish
        with client.out:
            in_callback.set()
            publishing.wait(CEILING_S)
            bridge._on_publish(client, None, 1, None, None)

    paho = threading.Thread(target=paho_thread, daemon=True)
    paho.start()
    in_callback.wait(CEILING_S)
    serial_side = threading.Thread(target=bridge._handle_line, args=(line.encode(),), daemon=True)
    acks_held = bridge._acks_lock.locked
    serial_side.start()
    while not acks_held() and serial_side.is_alive():
        pass  # the serial side holds the acks' lock, waiting for paho's lock
    publishing.set()
    paho.join(CEILING_S)
    serial_side.join(CEILING_S)
    assert not paho.is_alive() and not serial_side.is_alive(), "the two threads deadlocked"
    assert [m for m in serial.lines if m["topic"] == protocol.LINK_ACK] == [
        {"topic": protocol.LINK_ACK, "msg": {"seq": 7}}
    ]
