"""The demo's virtual ship is the firmware's ship core (bosun.demo.virtual_ship): on a real
broker it speaks and obeys as an ESP32 ship does, because it runs the same code — birth and
status, numbered events, `led`, `trace`, `resend`, `maintenance`, `restart` and refusals."""

from __future__ import annotations

import asyncio
import threading

import pytest
from support.polling import CEILING_S, until
from support.ship_host import ShipHost

from bosun.demo.virtual_ship import VirtualShipNode
from shipsense import protocol

TABLE = "v1"


@pytest.fixture
def running(mosquitto):
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    host = ShipHost(mosquitto, TABLE)
    node = VirtualShipNode(TABLE, (mosquitto.host, mosquitto.port), seed=4, scale=4.0)
    loop.call_soon_threadsafe(node.start)

    def call(fn):
        async def run():
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), loop).result(CEILING_S)

    try:
        yield node, host, call
    finally:
        asyncio.run_coroutine_threadsafe(node.stop(), loop).result(CEILING_S)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(CEILING_S)
        loop.close()
        host.close()


def test_the_virtual_ship_speaks_and_obeys_as_the_firmware(running):
    node, host, call = running
    birth = host.wait_for(lambda: [s for s in host.of(protocol.STATUS) if s.get("online")])[0]
    assert birth["fw"].startswith("bosun-ship") and birth["boot"] == node.boot
    assert birth["table"] == TABLE and birth["calibration"] and birth["problems"] == []

    # a piece loaded by a hand in the simulator: a numbered event from the core's detector
    call(lambda: node.ship.place(7, "barrel"))
    place = host.wait_for(lambda: [e for e in host.of(protocol.EVENT) if e["type"] == "place"])
    assert place[0]["zone"] == 7 and place[0]["item"] == "barrel" and place[0]["seq"] >= 1

    host.command({"id": "l1", "cmd": "led", "show": "off"})
    assert host.result("l1")["ok"] and node.led["show"] == "off"

    host.command({"id": "t1", "cmd": "trace", "on": True})
    assert host.result("t1")["ok"]
    rows = host.wait_for(lambda: host.of(protocol.TRACE))[0]["rows"]
    assert len(rows[0]) == 1 + 10 + 2  # t_ms, ten zones, the mat, the piezo

    seq = place[0]["seq"]
    host.command({"id": "r1", "cmd": "resend", "boot": node.boot, "from": seq, "to": seq})
    resent = host.result("r1")
    assert resent["ok"] and resent["resent"] == 1 and resent["missing"] == []
    host.wait_for(lambda: [e for e in host.of(protocol.EVENT) if e["seq"] == seq][1:])

    host.command({"id": "bad", "cmd": "led", "show": "prompt", "zone": 12, "color": [0, 0, 255]})
    refused = host.result("bad")
    assert not refused["ok"] and "zone" in refused["error"], refused

    old_boot = node.boot
    host.command({"id": "x0", "cmd": "restart"})  # what changes the ship needs maintenance
    assert "only in maintenance" in host.result("x0")["error"]
    host.command({"id": "m1", "cmd": "maintenance", "on": True})
    assert host.result("m1")["ok"]
    host.command({"id": "x1", "cmd": "restart"})
    assert host.result("x1")["ok"]
    reborn = host.wait_for(
        lambda: [s for s in host.of(protocol.STATUS) if s.get("boot") not in (None, old_boot)]
    )
    assert reborn[0]["online"] and reborn[0]["seq"] == 0


def test_an_event_on_its_way_holds_the_service_clock_until_the_host_takes_it(running):
    """On a busy machine the broker and the host's queue lag behind the ship: the referee's
    clock must not pass an event sent and not yet taken (a `land` after its `fall`), for at
    most `hold_untaken_ms` of ship time."""
    node, host, call = running
    taken = {"seq": 0}
    node.taken = lambda boot: taken["seq"] if boot == node.boot else 0
    node.hold_untaken_ms = 600_000.0  # (the test decides when the host takes it)
    call(lambda: node.ship.place(7, "barrel"))
    place = host.wait_for(lambda: [e for e in host.of(protocol.EVENT) if e["type"] == "place"])
    seq = place[0]["seq"]
    held = call(node.lived_ms)
    assert place[0]["decided_ms"] <= held <= call(lambda: node.ship.now_ms)
    # the ship samples on, a second and more; the time the host may see stays where it sent
    until(lambda: call(lambda: node.ship.now_ms), lambda now: now > held + 1000)
    assert call(node.lived_ms) == held and call(node.behind_ms) > 1000
    taken["seq"] = seq  # the referee took it: the clock follows the samples again
    assert call(lambda: node.lived_ms() == node.ship.now_ms)

    node.hold_untaken_ms = 500.0  # a host that never takes an event holds nothing for long
    taken["seq"] = 0
    assert call(lambda: node.lived_ms() == node.ship.now_ms)
