"""The HX711 wires on a Raspberry Pi's GPIO, through libgpiod v2 (`gpiod`, the kernel's GPIO
character device; no sysfs, no root beyond the `gpio` group).

The firmware's own driver (shipcore.hx711.HX711Bus) does the reading: one shared SCK for
every amplifier, 24 + 1-3 pulses, every pulse's high time measured. It is given
- `sck`: a pin whose `value(level)` sets the clock line, and
- a word reader in place of the ESP32's GPIO_IN_REG: `lines[GPIO_IN_REG]` reads every DOUT
  line in one call (one ioctl), bit n set when BCM GPIO n is high; as on the ESP32 one read a
  pulse, however many amplifiers.
`gpiod` is imported only when a ship starts (not on hosts that never drive GPIO), and a test
may hand in a stand-in module with the same API (tests/support/fake_gpiod.py).
"""

from __future__ import annotations

import gc
import time
from types import ModuleType
from typing import Any

from shipcore.hx711 import GPIO_IN_REG, POWER_DOWN_US, HX711Bus

CONSUMER = "bosun-ship"
GPIOD_HINT = (
    "libgpiod's Python bindings are not installed: pip install 'bosun[pi]' "
    "(gpiod 2.x, the kernel's GPIO character device)"
)


def import_gpiod() -> ModuleType:
    """The `gpiod` module (libgpiod v2); a clear error if it is missing or too old."""
    try:
        import gpiod
    except ImportError:
        raise RuntimeError(GPIOD_HINT) from None
    if not hasattr(gpiod, "request_lines"):  # libgpiod 1.x bindings: another API
        raise RuntimeError(f"gpiod {getattr(gpiod, '__version__', '?')} is not 2.x; {GPIOD_HINT}")
    return gpiod


class ClockPin:
    """SCK as the driver drives it: `value(level)`."""

    def __init__(self, request: Any, offset: int, values: tuple[Any, Any]) -> None:
        self._set = request.set_value
        self._offset = offset
        self._low, self._high = values

    def value(self, level: int | None = None) -> None:
        self._set(self._offset, self._high if level else self._low)


class InputPin:
    """One DOUT line read alone (the driver's pin-by-pin mode; the word reader is faster)."""

    def __init__(self, request: Any, offset: int, high: Any) -> None:
        self._request = request
        self._offset = offset
        self._high = high

    def value(self) -> int:
        return 1 if self._request.get_value(self._offset) == self._high else 0


class DoutWord:
    """Every DOUT line in one read, as the ESP32's GPIO_IN_REG word: `word[GPIO_IN_REG]`."""

    def __init__(self, request: Any, offsets: list[int], high: Any) -> None:
        self._get = request.get_values
        self._offsets = list(offsets)
        self._bits = [1 << offset for offset in offsets]
        self._high = high

    def __getitem__(self, register: int) -> int:
        word = 0
        high = self._high
        for bit, level in zip(self._bits, self._get(self._offsets), strict=True):
            if level == high:
                word |= bit
        return word


class MicrosecondTicks:
    """The driver's clock on CPython (no MicroPython ticks): microseconds that never wrap."""

    @staticmethod
    def ticks_us() -> int:
        return time.perf_counter_ns() // 1000

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b


class PiBus(HX711Bus):
    """The firmware's HX711 driver on the Pi, with two guards an ESP32 (interrupts off for
    the train) does not need:
    - the garbage collector stays out of a train (a collection in the middle of a pulse
      would stretch it past the 60 us power-down);
    - a train the scheduler held up for longer than `max_train_us` (a quarter of the
      sample period) is thrown away and every amplifier reset: an HX711 whose next
      conversion ends in a long gap between two pulses may drop its half-read word and
      start the next one mid-train, and would then stay out of step with the clock,
      reading garbage, until powered down (SCK high over 60 us, then low again)."""

    def __init__(self, *args: Any, max_train_us: int = 3125, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_train_us = max_train_us
        self.slow_trains = 0

    def read(self) -> bool:
        enabled = gc.isenabled()
        gc.disable()
        try:
            start_ns = time.perf_counter_ns()
            ok = super().read()
            took_us = (time.perf_counter_ns() - start_ns) // 1000
        finally:
            if enabled:
                gc.enable()
        if took_us > self.max_train_us:
            self.slow_trains += 1
            self.reset_amplifiers()
            return False
        return ok

    def reset_amplifiers(self) -> None:
        """SCK high for twice the power-down time, then low: every chip starts afresh."""
        self.power_down()
        end_ns = time.perf_counter_ns() + 2 * POWER_DOWN_US * 1000
        while time.perf_counter_ns() < end_ns:
            pass
        self.power_up()
        self.powered_down = True  # LoadCells discards the settling readings that follow


class GpioLines:
    """SCK and the DOUT lines of one gpiochip, requested for this process."""

    def __init__(self, gpiod: ModuleType, chip: str, sck: int, douts: list[int]) -> None:
        line = gpiod.line
        self.request = gpiod.request_lines(
            chip,
            consumer=CONSUMER,
            config={
                sck: gpiod.LineSettings(
                    direction=line.Direction.OUTPUT, output_value=line.Value.INACTIVE
                ),
                tuple(douts): gpiod.LineSettings(direction=line.Direction.INPUT),
            },
        )
        values = (line.Value.INACTIVE, line.Value.ACTIVE)
        self.sck = ClockPin(self.request, sck, values)
        self.douts = [InputPin(self.request, offset, line.Value.ACTIVE) for offset in douts]
        self.word = DoutWord(self.request, douts, line.Value.ACTIVE)
        self.offsets = list(douts)

    def bus(self, gain: int, rate_hz: int = 80) -> PiBus:
        """The driver on these lines, reading every DOUT a pulse as one word."""
        return PiBus(
            self.sck,
            self.douts,
            gain,
            self.offsets,
            self.word,
            reg=GPIO_IN_REG,
            clock=MicrosecondTicks,
            max_train_us=1_000_000 // rate_hz // 4,
        )

    def release(self) -> None:
        """SCK low (the amplifiers keep converting), then the lines go back to the kernel."""
        try:
            self.sck.value(0)
        finally:
            self.request.release()
