"""Files of a simulated session: the trace CSV, the truth JSON lines, the item weights JSON.

Trace CSV per DESIGN.md: header `t_ms,z1,...,z10,table_g,impact`, one row a sample; grams
with 3 decimals; `table_g` empty without a mat, `impact` (0/1) empty without a piezo.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from bosun.sim.ship import Sample
from bosun.sim.truth import SessionInfo, TruthRecord
from shipsense.protocol import TRACE_COLUMNS

TRACE_HEADER = ",".join(TRACE_COLUMNS)


def format_ms(t_ms: float) -> str:
    """Milliseconds with as few decimals as needed (at most 3): 12.5, 100.0, 37.125."""
    text = f"{t_ms:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def format_sample(sample: Sample) -> str:
    """One CSV row (no newline)."""
    zones = ",".join(f"{g:.3f}" for g in sample.zones_g)
    table = "" if sample.table_g is None else f"{sample.table_g:.3f}"
    impact = "" if sample.impact is None else str(sample.impact)
    return f"{format_ms(sample.t_ms)},{zones},{table},{impact}"


class TraceWriter:
    """Writes a trace CSV sample by sample (a long session never sits in memory)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._file: IO[str] = self.path.open("w", encoding="utf-8", newline="")
        self._file.write(TRACE_HEADER + "\n")
        self.rows = 0

    def write(self, sample: Sample) -> None:
        self._file.write(format_sample(sample) + "\n")
        self.rows += 1

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_trace(path: str | Path, samples: Iterable[Sample]) -> int:
    """Write every sample; returns the number of rows."""
    with TraceWriter(path) as writer:
        for sample in samples:
            writer.write(sample)
        return writer.rows


def write_truth(path: str | Path, info: SessionInfo, records: Iterable[TruthRecord]) -> int:
    """The session header and the records sorted by time, one JSON object a line."""
    ordered = sorted(records, key=lambda r: r.t_us)
    with Path(path).open("w", encoding="utf-8") as out:
        out.write(json.dumps(info.to_json()) + "\n")
        for record in ordered:
            out.write(json.dumps(record.to_json()) + "\n")
    return len(ordered)


def write_items(path: str | Path, item_grams: dict[str, float]) -> None:
    """Item weights as `bosun detect --items` reads them: {"rat": 2.6, "boat": 11.8, ...}."""
    Path(path).write_text(json.dumps(item_grams) + "\n", encoding="utf-8")
