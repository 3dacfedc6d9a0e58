"""The service's clock: milliseconds for the log and timers on the asyncio loop.

A demo may run its virtual ships faster than real time; the referee then runs on the same
scaled clock, so every window and timeout keeps its length in ship time. A virtual ship
computes its samples as fast as the machine lets it: on a busy machine it falls behind the
scaled wall clock for a while. The clock then waits for the slowest of them (its `pacers`),
so the referee never sees ship time pass that the ship has not lived yet: a quiet window
would otherwise close before the barrels set down in it were even felt. Nor past an event a
ship sent that the referee has not taken yet (the broker and the host's queue lag too on a
busy machine: `VirtualShipNode.lived_ms`).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable
from typing import Protocol


class Pacer(Protocol):
    def behind_ms(self) -> float:
        """How far this virtual ship's time (its samples, and the events it sent that the
        referee has not taken) is behind the scaled wall clock (ms, >= 0)."""
        ...


class LoopClock:
    """Wall-clock milliseconds that advance `scale` times as fast as real time, never ahead
    of a virtual ship that paces it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, scale: float = 1.0) -> None:
        if not 0.01 <= scale <= 1000:
            raise ValueError(f"time scale {scale} is out of range (0.01-1000)")
        self.loop = loop
        self.scale = scale
        self._epoch_ms = int(time.time() * 1000)
        self._loop_t0 = loop.time()
        self._last_ms = self._epoch_ms  # the clock never goes back
        self._pacers: weakref.WeakSet[Pacer] = weakref.WeakSet()

    def pace_with(self, pacer: Pacer) -> None:
        """Hold the clock back while `pacer` (a virtual ship) is behind it."""
        self._pacers.add(pacer)

    def now_ms(self) -> int:
        now = self._epoch_ms + int((self.loop.time() - self._loop_t0) * 1000 * self.scale)
        if self._pacers:
            now -= int(max(0.0, *(pacer.behind_ms() for pacer in self._pacers)))
        if now > self._last_ms:
            self._last_ms = now
        return self._last_ms

    def call_at_ms(self, deadline_ms: int, callback: Callable[[], None]) -> asyncio.TimerHandle:
        """Call `callback` when the clock reads about `deadline_ms`: not earlier in real time,
        later while a pacer holds the clock back (callers look at the clock again)."""
        delay_ms = max(0, deadline_ms - self.now_ms())
        return self.loop.call_later(delay_ms / 1000 / self.scale, callback)

    def seconds(self, ship_seconds: float) -> float:
        """Real seconds for a span of clock seconds."""
        return ship_seconds / self.scale
