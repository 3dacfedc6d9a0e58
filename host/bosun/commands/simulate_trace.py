"""`bosun simulate-trace OUT_PREFIX`: a virtual ship session as trace, truth and item weights."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from bosun.commands.argtypes import number, whole_number
from bosun.sim import LEVELS, ShipParams, VirtualShip, random_session, scripted_session
from bosun.sim.params import RATES_SPS, TABLE_KINDS
from bosun.sim.session import sample_count
from bosun.sim.trace_io import TraceWriter, write_items, write_truth
from bosun.sim.truth import SessionInfo
from bosun.sim.zoo import FAMILIES, level_named

MAX_SECONDS = 24 * 3600
PROGRESS_FROM_SAMPLES = 200_000  # below this a session takes well under a second


def _rate(text: str) -> int:
    if text not in {str(r) for r in RATES_SPS}:
        rates = " or ".join(map(str, RATES_SPS))
        raise argparse.ArgumentTypeError(f"{text!r} is not an HX711 rate ({rates} SPS)")
    return int(text)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "simulate-trace",
        help="a virtual ship session: trace CSV, ground truth and item weights",
        description=(
            "Simulates the ship, its load cells and the table sensor during random game-like "
            "play (or a script), deterministically from the seed. Writes OUT_PREFIX.csv (the "
            "trace), OUT_PREFIX.truth.jsonl (what happened) and OUT_PREFIX.items.json."
        ),
    )
    p.add_argument("out_prefix", metavar="OUT_PREFIX", help="path and name stem of the files")
    p.add_argument(
        "--seed", type=whole_number(0, 2**63, "2**63"), default=0, help="random seed (default 0)"
    )
    p.add_argument("--rate", type=_rate, default=80, help="samples per second, 10 or 80 (80)")
    p.add_argument(
        "--seconds",
        type=number(1.0, MAX_SECONDS, "seconds"),
        default=120.0,
        help="length (default 120)",
    )
    p.add_argument(
        "--level",
        choices=[*sorted(LEVELS), *FAMILIES],
        default="normal",
        help="a preset, or a zoo family that stretches one kind of physics (bosun.sim.zoo)"
        " (normal)",
    )
    p.add_argument("--table", choices=TABLE_KINDS, default="both", help="table sensor (both)")
    p.add_argument(
        "--script",
        metavar="ACTIONS.jsonl",
        help="play these actions instead of random ones (see bosun.sim.session)",
    )
    p.set_defaults(run=run)


def _load_script(path: str) -> list:
    actions = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                actions.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path} line {number}: not JSON ({error.msg})") from None
    return actions


def run(args: argparse.Namespace) -> int:
    prefix = Path(args.out_prefix)
    if not prefix.name or prefix.name in (".", ".."):
        return _fail(f"OUT_PREFIX {args.out_prefix!r} needs a file name stem, e.g. traces/run1")
    if not prefix.parent.is_dir():
        return _fail(f"directory {str(prefix.parent)!r} does not exist")
    paths = {kind: Path(f"{prefix}{kind}") for kind in (".csv", ".truth.jsonl", ".items.json")}

    level = level_named(args.level)
    params = ShipParams.draw(level, args.seed, rate_sps=args.rate, table=args.table)
    ship = VirtualShip(params, args.seed)
    try:
        if args.script:
            samples = scripted_session(ship, _load_script(args.script), args.seconds)
        else:
            samples = random_session(ship, level, args.seconds, args.seed)
        total = sample_count(args.seconds, args.rate)
        progress = Progress(
            TextColumn("simulating"),
            BarColumn(),
            TextColumn("{task.completed:,}/{task.total:,} samples"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
            disable=total < PROGRESS_FROM_SAMPLES,
        )
        with progress, TraceWriter(paths[".csv"]) as trace:
            task = progress.add_task("samples", total=total)
            for sample in samples:
                trace.write(sample)
                if trace.rows % 8192 == 0:
                    progress.update(task, completed=trace.rows)
    except (OSError, ValueError) as error:
        paths[".csv"].unlink(missing_ok=True)  # no half-written trace left behind
        return _fail(str(error))
    info = SessionInfo(
        seed=args.seed,
        level=args.level,
        rate_sps=args.rate,
        table=args.table,
        seconds=args.seconds,
        samples=trace.rows,
        items=ship.calibrated_item_grams(),
    )
    records = ship.truth()
    write_truth(paths[".truth.jsonl"], info, records)
    write_items(paths[".items.json"], ship.calibrated_item_grams())
    kinds = Counter(record.kind for record in records)
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())) or "no actions"
    print(
        f"wrote {paths['.csv']} ({trace.rows} samples, {args.seconds:g} s at {args.rate} SPS, "
        f"{args.level}, table {args.table}), {paths['.truth.jsonl']} ({summary}), "
        f"{paths['.items.json']}"
    )
    return 0


def _fail(message: str) -> int:
    print(f"bosun simulate-trace: {message}", file=sys.stderr)
    return 2
