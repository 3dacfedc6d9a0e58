"""The service's clock: milliseconds for the log and timers on the asyncio loop.

A demo may run its virtual ships faster than real time; the referee then runs on the same
scaled clock, so every window and timeout keeps its length in ship time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class LoopClock:
    """Wall-clock milliseconds that advance `scale` times as fast as real time."""

    def __init__(self, loop: asyncio.AbstractEventLoop, scale: float = 1.0) -> None:
        if not 0.01 <= scale <= 1000:
            raise ValueError(f"time scale {scale} is out of range (0.01-1000)")
        self.loop = loop
        self.scale = scale
        self._epoch_ms = int(time.time() * 1000)
        self._loop_t0 = loop.time()

    def now_ms(self) -> int:
        return self._epoch_ms + int((self.loop.time() - self._loop_t0) * 1000 * self.scale)

    def call_at_ms(self, deadline_ms: int, callback: Callable[[], None]) -> asyncio.TimerHandle:
        when = self._loop_t0 + (deadline_ms - self._epoch_ms) / 1000 / self.scale
        return self.loop.call_at(when, callback)

    def seconds(self, ship_seconds: float) -> float:
        """Real seconds for a span of clock seconds."""
        return ship_seconds / self.scale
