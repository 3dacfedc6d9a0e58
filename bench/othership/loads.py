"""Force histories: what hands, pieces and impacts put on one zone or on the mat, over time.

A channel's force is a base (everything that has come to rest) plus the changes still under
way. Each change is a small object with a start `t0_ms`, an end `t1_ms`, a `value(t_ms)` in
between (grams-force, relative to before it began) and the `final` value it leaves behind.
"""

import heapq
import math


def ms(t: float) -> float:
    """A moment as the truth records it (0.1 ms)."""
    return round(t, 1)


def smoothstep_points(
    t0_ms: float, t1_ms: float, v0: float, v1: float, steps: int = 4
) -> list[tuple[float, float]]:
    """A smooth (S-shaped) ramp from v0 to v1 as piecewise-linear points."""
    points = []
    for i in range(steps + 1):
        u = i / steps
        s = u * u * (3 - 2 * u)
        points.append((t0_ms + (t1_ms - t0_ms) * u, v0 + (v1 - v0) * s))
    return points


class Ramp:
    """A piecewise-linear change of force; 0 before its first point, its last value after."""

    __slots__ = ("points", "t0_ms", "t1_ms", "final", "_i")

    def __init__(self, points: list[tuple[float, float]]):
        points = sorted(points)
        self.points = points
        self.t0_ms = points[0][0]
        self.t1_ms = points[-1][0]
        self.final = points[-1][1]
        self._i = 0

    def value(self, t_ms: float) -> float:
        points = self.points
        i = self._i
        while i + 1 < len(points) and points[i + 1][0] <= t_ms:
            i += 1
        self._i = i
        if i + 1 >= len(points):
            return points[-1][1]
        (ta, va), (tb, vb) = points[i], points[i + 1]
        if t_ms <= ta:
            return va
        return va + (vb - va) * (t_ms - ta) / (tb - ta)

    def peak(self) -> float:
        return max(v for _, v in self.points)


class Ring:
    """A damped wobble (a piece rocking on its base as it settles); leaves nothing behind."""

    __slots__ = ("t0_ms", "t1_ms", "final", "amp_g", "omega", "tau_ms")

    def __init__(self, t0_ms: float, amp_g: float, f_hz: float, tau_ms: float):
        self.t0_ms = t0_ms
        self.t1_ms = t0_ms + 5 * tau_ms
        self.final = 0.0
        self.amp_g = amp_g
        self.omega = 2 * math.pi * f_hz / 1000.0
        self.tau_ms = tau_ms

    def value(self, t_ms: float) -> float:
        u = t_ms - self.t0_ms
        return self.amp_g * math.exp(-u / self.tau_ms) * math.sin(self.omega * u)


class Channel:
    """The force on one zone (or the mat) as the sum of its changes."""

    def __init__(self):
        self.base = 0.0
        self._pending: list[tuple[float, int, object]] = []
        self._active: list = []
        self._count = 0

    def add(self, change) -> None:
        self._count += 1
        heapq.heappush(self._pending, (change.t0_ms, self._count, change))

    def at(self, t_ms: float) -> float:
        """The force at t_ms; t_ms must not go backwards between calls."""
        pending = self._pending
        while pending and pending[0][0] <= t_ms:
            self._active.append(heapq.heappop(pending)[2])
        if not self._active:
            return self.base
        total = self.base
        still = []
        for change in self._active:
            if t_ms >= change.t1_ms:
                self.base += change.final
                total += change.final
            else:
                total += change.value(t_ms)
                still.append(change)
        self._active = still
        return total
