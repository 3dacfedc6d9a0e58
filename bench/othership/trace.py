"""One trace of the other ship: draw the ship, play a session, simulate, write three files.

The trace CSV is written here from DESIGN.md's contract, not with `bosun.sim.trace_io`: the
model shares no code with the simulator or the detector, so the reader is checked against a
writer it did not grow up with."""

import json
import random
from dataclasses import dataclass
from pathlib import Path

from .model import simulate
from .params import ZONES, draw_params
from .play import play

COMBOS = ((80, "mat"), (80, "piezo"), (80, "both"), (10, "mat"), (10, "piezo"), (10, "both"))
HEADER = "t_ms," + ",".join(f"z{z}" for z in ZONES) + ",table_g,impact"


def trace_name(seed: int, rate_sps: int, table: str) -> str:
    return f"other-{seed}-{rate_sps}sps-other-{table}"


@dataclass
class Written:
    """What `write_trace` wrote, for the CLI's one-line summary."""

    name: str
    counts: dict


def write_trace(
    out: Path,
    seed: int,
    rate_sps: int,
    table: str,
    seconds: float = 180.0,
    calibration: str = "wizard",
) -> Written:
    """Write NAME.csv, NAME.truth.jsonl and NAME.items.json for one seed into `out`, the ship
    calibrated as `calibration` says (params.CALIBRATIONS)."""
    rng = random.Random(seed)
    params = draw_params(rng, rate_sps, table, calibration)
    session = play(rng, params, seconds)
    trace = simulate(params, session.plan, seconds, random.Random(rng.getrandbits(64)))
    name = trace_name(seed, rate_sps, table)
    items = params.calibrated_items()

    has_mat, has_piezo = table in ("mat", "both"), table in ("piezo", "both")
    lines = [HEADER]
    columns = [trace.zones[z] for z in ZONES]
    for k, t_ms in enumerate(trace.t_ms):
        cells = ",".join(f"{column[k]:.3f}" for column in columns)
        mat = f"{trace.table_g[k]:.3f}" if has_mat else ""
        impact = str(trace.impact[k]) if has_piezo else ""
        lines.append(f"{t_ms:.2f},{cells},{mat},{impact}")
    (out / f"{name}.csv").write_text("\n".join(lines) + "\n")

    head = {
        "type": "session",
        "seed": seed,
        "level": "other",
        "rate_sps": rate_sps,
        "table": table,
        "seconds": float(seconds),
        "samples": len(trace.t_ms),
        "items": items,
    }
    records = [head, *session.truth]
    (out / f"{name}.truth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (out / f"{name}.items.json").write_text(json.dumps(items) + "\n")
    return Written(name=name, counts=dict(session.counts))
