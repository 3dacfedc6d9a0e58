"""A stand-in for libgpiod v2's Python module whose lines are wired to virtual HX711s.

Only the pins are fake: the amplifiers are the virtual board's datasheet model
(host/bosun/board/mp/vhx711.py, run here under CPython with MicroPython's ticks on
perf_counter), wired as the virtual board wires them (board/mp/vboard.py): one shared SCK,
rising edges applied to every chip at the next DOUT read, and SCK held high for more than
60 us powering every chip down (they reset when it falls). The API is the subset bosun.pi
uses, spelled as gpiod 2.x spells it: request_lines(path, config, consumer), LineSettings,
line.Direction, line.Value, and a request's set_value, get_value, get_values, release.
"""

from __future__ import annotations

import enum
import importlib.util
import random
import threading
import time
import types
from pathlib import Path
from typing import Any

import bosun.board

VHX711 = Path(bosun.board.__file__).parent / "mp" / "vhx711.py"
POWER_DOWN_US = 60


class _Ticks:
    """MicroPython's time.ticks_* for the model, on CPython's perf_counter (no wrap)."""

    ticks_us = staticmethod(lambda: time.perf_counter_ns() // 1000)
    ticks_diff = staticmethod(lambda a, b: a - b)
    ticks_add = staticmethod(lambda a, b: a + b)


def _load_model() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("bosun_vhx711_cpython", VHX711)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.time = _Ticks  # its only outside dependency
    return module


class Value(enum.Enum):
    INACTIVE = 0
    ACTIVE = 1


class Direction(enum.Enum):
    AS_IS = 1
    INPUT = 2
    OUTPUT = 3


class LineSettings:
    def __init__(
        self, direction: Direction = Direction.AS_IS, output_value: Value = Value.INACTIVE, **_
    ) -> None:
        self.direction = direction
        self.output_value = output_value


class Amplifiers:
    """HX711 chips on one clock line; `counts[ch]`: each one's analogue input, in counts."""

    def __init__(
        self, sck: int, douts: list[int], rate_hz: int = 80, noise_counts: float = 2.0
    ) -> None:
        model = _load_model()
        # A live amplifier never repeats itself for long (LoadCells faults one that does).
        self.noise_counts = noise_counts
        self._rng = random.Random(7)
        self.sck_offset = sck
        self.douts = list(douts)
        self.counts = [0] * len(douts)
        self.ramps: dict[int, list[int]] = {}  # channel: inputs still to come, one a conversion
        self.lock = threading.Lock()
        self.sck_level = 0
        self.sck_rise_us = 0
        self.rises = 0
        self.power_downs = 0
        self.last_power_down_us = -1  # when SCK last came low after powering the chips down
        self.stretch_next_us = 0  # hold the next pulse high this long (a preempted process)
        self.stall_after_pulses = 0  # after this many more pulses, a long gap with SCK low
        self.stall_us = 0
        self.stall_ended_us = -1
        self.chips = [
            model.VirtualHX711(self, ch, rate_hz, phase_us=(ch * 911) % 3000)
            for ch in range(len(douts))
        ]

    def set_grams(self, channel: int, grams: float, offset: int, counts_per_g: float) -> None:
        with self.lock:
            self.counts[channel] = round(offset + grams * counts_per_g)

    def ramp_grams(
        self, channel: int, grams: list[float], offset: int, counts_per_g: float
    ) -> None:
        """`grams` one conversion after another, the last held: a load paced by the chip's
        own clock, whatever the test's thread is doing meanwhile."""
        with self.lock:
            self.ramps[channel] = [round(offset + g * counts_per_g) for g in grams]

    # what the model asks of its board (once a conversion and channel)
    def raw_for(self, channel: int, gain: int) -> int:
        ramp = self.ramps.get(channel)
        if ramp:
            self.counts[channel] = ramp.pop(0)
        value = self.counts[channel]
        if self.noise_counts:
            value += round(self._rng.gauss(0.0, self.noise_counts))
        if gain == 64:
            return value // 2
        return 0 if gain == 32 else value

    def _flush(self, now: int) -> None:
        rises, self.rises = self.rises, 0
        for _ in range(rises):
            for chip in self.chips:
                chip.rising(now)

    # the lines
    def set_sck(self, level: int) -> None:
        now = _Ticks.ticks_us()
        if level and not self.sck_level:
            self.sck_level = 1
            self.sck_rise_us = now
            self.rises += 1
            if self.stretch_next_us:
                end = time.perf_counter_ns() + self.stretch_next_us * 1000
                self.stretch_next_us = 0
                while time.perf_counter_ns() < end:
                    pass
        elif not level and self.sck_level:
            self.sck_level = 0
            if now - self.sck_rise_us > POWER_DOWN_US:
                self.power_downs += 1
                self.last_power_down_us = now
                self.rises = 0
                for chip in self.chips:
                    chip.reset(now)
            if self.stall_us:
                self.stall_after_pulses -= 1

    def stall_if_due(self) -> None:
        """The process held up between two pulses (SCK low), outside the timed high part."""
        if self.stall_us and self.stall_after_pulses <= 0:
            self._flush(_Ticks.ticks_us())
            end = time.perf_counter_ns() + self.stall_us * 1000
            self.stall_us = 0
            while time.perf_counter_ns() < end:
                for chip in self.chips:
                    chip.update(_Ticks.ticks_us())
            self.stall_ended_us = _Ticks.ticks_us()

    def dout(self, channel: int) -> int:
        now = _Ticks.ticks_us()
        if self.rises:
            self._flush(now)
        for chip in self.chips:
            chip.update(now)
        if self.sck_level and now - self.sck_rise_us > POWER_DOWN_US:
            return 1
        return self.chips[channel].dout()


class LineRequest:
    """The lines one process requested."""

    def __init__(self, amplifiers: Amplifiers, config: dict[Any, LineSettings]) -> None:
        self.amplifiers = amplifiers
        self.directions: dict[int, Direction] = {}
        for key, line_settings in config.items():
            for offset in key if isinstance(key, tuple) else (key,):
                self.directions[offset] = line_settings.direction
        self.released = False
        self.sets = 0

    def _check(self, offset: int, direction: Direction) -> None:
        if self.released:
            raise RuntimeError("the request was released")
        if self.directions.get(offset) is not direction:
            raise ValueError(f"line {offset} was not requested as {direction.name}")

    def set_value(self, line: int, value: Value) -> None:
        self._check(line, Direction.OUTPUT)
        if line == self.amplifiers.sck_offset:
            self.sets += 1
            with self.amplifiers.lock:
                self.amplifiers.set_sck(1 if value is Value.ACTIVE else 0)

    def get_value(self, line: int) -> Value:
        return self.get_values([line])[0]

    def get_values(self, lines: list[int] | None = None) -> list[Value]:
        amplifiers = self.amplifiers
        lines = list(lines if lines is not None else amplifiers.douts)
        for line in lines:
            self._check(line, Direction.INPUT)
        with amplifiers.lock:
            amplifiers.stall_if_due()
            levels = [amplifiers.dout(amplifiers.douts.index(line)) for line in lines]
        return [Value.ACTIVE if level else Value.INACTIVE for level in levels]

    def release(self) -> None:
        self.released = True


class FakeGpiod(types.SimpleNamespace):
    """The module: `request_lines` on `chip` hands out requests on `amplifiers`."""

    def __init__(self, chip: str, amplifiers: Amplifiers) -> None:
        super().__init__(
            __version__="2-fake",
            line=types.SimpleNamespace(Value=Value, Direction=Direction),
            LineSettings=LineSettings,
        )
        self.chip = chip
        self.amplifiers = amplifiers
        self.requests: list[LineRequest] = []

    def request_lines(self, path: str, config: dict, consumer: str | None = None, **_) -> Any:
        if path != self.chip:
            raise FileNotFoundError(2, "No such file or directory", path)
        request = LineRequest(self.amplifiers, config)
        self.requests.append(request)
        return request
