"""Bounds on what the network can make the host do: rates, counters, log lines.

Nothing on the network is trusted (DESIGN.md, "Bad input"): a ship gone mad or a guest with
`mosquitto_pub` may send as fast as the wire allows, under any table name. These keep every
cost per message constant and every memory bounded, whatever arrives.
"""

from __future__ import annotations

import logging
from collections import OrderedDict


class TokenBucket:
    """Admits `rate_per_s` on average, `burst` at once; the caller passes the time."""

    def __init__(self, rate_per_s: float, burst: int) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self._tokens = float(burst)
        self._at_ms: float | None = None

    def admit(self, now_ms: float) -> bool:
        if self._at_ms is not None and now_ms > self._at_ms:
            refill = (now_ms - self._at_ms) * self.rate_per_s / 1000
            self._tokens = min(self.burst, self._tokens + refill)
        self._at_ms = now_ms if self._at_ms is None else max(self._at_ms, now_ms)
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False


class CappedCounter:
    """Counts by name, remembering at most `cap` names (the oldest seen is forgotten first;
    `total` counts them all)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.total = 0
        self._counts: OrderedDict[str, int] = OrderedDict()

    def add(self, name: str, n: int = 1) -> int:
        """Count `n` more for `name`; its count now (1: the first time it is remembered)."""
        self.total += n
        count = self._counts.pop(name, 0) + n
        self._counts[name] = count
        while len(self._counts) > self.cap:
            self._counts.popitem(last=False)
        return count

    def keys(self) -> list[str]:
        return list(self._counts)

    def items(self) -> list[tuple[str, int]]:
        return list(self._counts.items())

    def __getitem__(self, name: str) -> int:
        return self._counts.get(name, 0)

    def __len__(self) -> int:
        return len(self._counts)

    def __contains__(self, name: object) -> bool:
        return name in self._counts


class LogThrottle:
    """A warning at most once every `interval_ms`; the lines held back are counted in the
    next one ("... and 41 more like it"), so a flood writes a few lines, not one a message."""

    def __init__(self, log: logging.Logger, interval_ms: int = 10_000) -> None:
        self.log = log
        self.interval_ms = interval_ms
        self._last_ms: float | None = None
        self._held = 0

    def warning(self, now_ms: float, message: str, *args: object) -> None:
        if self._last_ms is not None and now_ms - self._last_ms < self.interval_ms:
            self._held += 1
            return
        if self._held:
            message += " (and %d more like it in the last %.0f s)"
            args = (*args, self._held, (now_ms - self._last_ms) / 1000)
        self._last_ms, self._held = now_ms, 0
        self.log.warning(message, *args)
