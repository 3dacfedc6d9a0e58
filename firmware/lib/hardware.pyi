"""What the firmware takes as hardware, for the type checker only (MicroPython never imports
it, and `make flash` copies only .py files): the ESP32's `machine` objects, the virtual
board's and the tests' stand-ins all fit these."""

from typing import Protocol, overload

class Pin(Protocol):
    """A digital pin: `value()` reads its level, `value(level)` drives it."""

    @overload
    def value(self) -> int: ...
    @overload
    def value(self, level: int, /) -> None: ...

class Memory(Protocol):
    """32-bit words by address (`machine.mem32`): the GPIO input registers."""

    def __getitem__(self, address: int, /) -> int: ...

class Strip(Protocol):
    """A WS2812 strip (`neopixel.NeoPixel`): set pixels, then write them out."""

    def __setitem__(self, index: int, rgb: tuple[int, int, int], /) -> None: ...
    def write(self) -> None: ...

class TicksDiff(Protocol):
    """`time.ticks_diff`: the signed difference of two wrapping tick counts."""

    def __call__(self, ticks1: int, ticks2: int, /) -> int: ...

class Clock(Protocol):
    """time's ticks_ms, ticks_diff and ticks_add (the ship core's clock), or a host's."""

    def ticks_ms(self) -> int: ...
    def ticks_diff(self, ticks1: int, ticks2: int, /) -> int: ...
    def ticks_add(self, ticks: int, delta: int, /) -> int: ...

class MicrosecondClock(Protocol):
    """time's ticks_us and ticks_diff, or a host's stand-in (bosun.pi)."""

    def ticks_us(self) -> int: ...
    def ticks_diff(self, ticks1: int, ticks2: int, /) -> int: ...

class Stream(Protocol):
    """A serial port's stream (`sys.stdin.buffer`, `sys.stdout`): bytes in, text out."""

    def read(self, size: int, /) -> bytes | str | None: ...
    def write(self, text: str, /) -> object: ...
