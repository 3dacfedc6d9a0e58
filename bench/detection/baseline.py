"""The deliberately plain baseline: a median filter and a fixed threshold on the total.

What a first attempt looks like: each zone median-filtered over five samples (three at
10 SPS), the sum compared with its resting value; a change beyond a fixed threshold that
then holds still for 400 ms is a `place` (rise) or a `fall` (drop) on the zone that changed
most; items are named by the nearest weight (falls: the nearest set of pieces). No leaving,
no sway model, no notion of hands or flight time.
"""

from __future__ import annotations

from shipsense.items import name_fall, name_place

THRESHOLD_G = 1.5
HOLD_BAND_G = 0.5
HOLD_MS = 400


class BaselineDetector:
    """Median filter + fixed threshold; `feed` like shipsense's Detector (place/fall only)."""

    def __init__(self, rate_hz: float, items: dict | None = None):
        self.width = 5 if rate_hz >= 40 else 3
        self.hold_n = max(2, round(HOLD_MS * rate_hz / 1000))
        self.items = items
        self.raw: list[list[float]] = []
        self.ref_total: float | None = None
        self.ref_zones: list[float] = []
        self.active_since: float | None = None
        self.history: list[tuple[float, float, list[float]]] = []

    def feed(self, t_ms, zones_g, table_g=None, impact=None) -> list[dict]:
        self.raw.append(list(zones_g))
        if len(self.raw) > self.width:
            self.raw.pop(0)
        zones = [sorted(column)[len(column) // 2] for column in zip(*self.raw, strict=True)]
        total = sum(zones)
        if self.ref_total is None:
            self.ref_total, self.ref_zones = total, zones
            return []
        self.history.append((t_ms, total, zones))
        if len(self.history) > self.hold_n:
            self.history.pop(0)
        if self.active_since is None:
            if abs(total - self.ref_total) > THRESHOLD_G:
                self.active_since = t_ms
            return []
        totals = [h[1] for h in self.history]
        if len(totals) < self.hold_n or max(totals) - min(totals) > 2 * HOLD_BAND_G:
            return []
        delta = total - self.ref_total
        changes = [z - r for z, r in zip(zones, self.ref_zones, strict=True)]
        start = self.active_since
        self.active_since = None
        self.ref_total, self.ref_zones = total, zones
        if delta > THRESHOLD_G:
            zone = max(range(10), key=lambda i: changes[i])
            event = {"type": "place", "t_ms": start, "decided_ms": t_ms, "zone": zone + 1}
            event["grams"] = round(delta, 2)
            if self.items:
                event["item"] = name_place(delta, self.items)[0]
            return [event]
        if delta < -THRESHOLD_G:
            zone = min(range(10), key=lambda i: changes[i])
            event = {"type": "fall", "t_ms": start, "decided_ms": t_ms, "zones": [zone + 1]}
            event["grams"] = round(-delta, 2)
            if self.items:
                event["items"] = name_fall(-delta, self.items)[0]
            return [event]
        return []


def make_baseline(rows: list[tuple], items: dict | None) -> BaselineDetector:
    return BaselineDetector(1000.0 / (rows[1][0] - rows[0][0]), items)
