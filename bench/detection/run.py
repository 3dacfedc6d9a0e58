"""Running a detector over a corpus trace: rows from the CSV (validated), events as dicts."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from shipsense.detector import Detector
from shipsense.offline import RATE_SAMPLES, rate_of
from shipsense.trace import read_trace, table_mode


def load_rows(path: Path) -> list[tuple]:
    with path.open(encoding="utf-8") as lines:
        return [row[1:] for row in read_trace(lines)]


def make_detector(rows: list[tuple], items: dict | None) -> Detector:
    """A detector set up as `bosun detect` sets one up for this trace (its rate and table)."""
    rate_hz = rate_of([row[0] for row in rows[:RATE_SAMPLES]])
    return Detector(rate_hz=rate_hz, table=table_mode(rows[0][2], rows[0][3]), items=items)


def detect(
    rows: list[tuple], items: dict | None, factory: Callable = make_detector
) -> tuple[list[dict], float]:
    """All events of one trace and the CPU seconds the detector took (parsing excluded)."""
    detector = factory(rows, items)
    events: list[dict] = []
    feed = detector.feed
    start = time.process_time()
    for t_ms, zones_g, table_g, impact in rows:
        out = feed(t_ms, zones_g, table_g, impact)
        if out:
            events.extend(out)
    return events, time.process_time() - start
