"""What the virtual board's load cells feel, one sample at a time.

A source has `next_sample() -> (zones_g, table_g, impact)` (grams per zone, mat grams or
None, piezo 0/1 or None) and `inject(fn)`; the launcher calls them from its feeder thread
under a lock, one call per HX711 conversion, so a demo can change the world as it goes.

- `ShipSource(ship)`: a `bosun.sim.VirtualShip`; `inject(lambda ship: ship.place(7, "rat"))`
  acts at the ship's current time, and a script of simulator actions (`bosun.sim.session`
  format, `at_ms` on the ship's clock) can be given up front.
- `RowsSource(rows)`: recorded samples (e.g. a trace CSV's rows), then the last one held.
- `StillSource(zones)`: an empty, motionless ship.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

Sample = tuple[Sequence[float], float | None, int | None]


class StillSource:
    """Nothing on the ship, nothing on the mat, nothing moves."""

    def __init__(self, zones: int = 10, table_g: float | None = 0.0, impact: int | None = 0):
        self.zones = zones
        self.sample: Sample = ([0.0] * zones, table_g, impact)

    def next_sample(self) -> Sample:
        return self.sample

    def inject(self, fn: Callable[[Any], Any]) -> Any:
        return fn(self)


class RowsSource:
    """Recorded samples in order; after the last, the last is held."""

    def __init__(self, rows: Iterable[Sample]):
        self._rows = iter(rows)
        self._last: Sample | None = None
        self.used = 0
        self.finished = False

    def next_sample(self) -> Sample:
        try:
            self._last = next(self._rows)
            self.used += 1
        except StopIteration:
            self.finished = True
            if self._last is None:
                raise ValueError("the recorded source has no samples") from None
        return self._last

    def inject(self, fn: Callable[[Any], Any]) -> Any:
        return fn(self)


class ShipSource:
    """A virtual ship from bosun.sim, optionally with a script of actions on its clock."""

    def __init__(self, ship: Any, script: Iterable[dict] = ()):
        from bosun.sim.session import check_action

        self.ship = ship
        self._script = sorted(
            (check_action(action, n) for n, action in enumerate(script, 1)),
            key=lambda action: action["at_ms"],
        )

    def next_sample(self) -> Sample:
        from bosun.sim.session import apply_action

        ship = self.ship
        next_ms = ship.now_ms + ship.period_us / 1000.0 if ship.samples else 0.0
        while self._script and self._script[0]["at_ms"] < next_ms:
            apply_action(ship, self._script.pop(0))
        sample = ship.next_sample()
        return sample.zones_g, sample.table_g, sample.impact

    def inject(self, fn: Callable[[Any], Any]) -> Any:
        return fn(self.ship)

    @property
    def script_done(self) -> bool:
        return not self._script
