"""`python -m bench.detection.dump_events`: every detector event of some corpus traces, as JSON.

    python -m bench.detection.dump_events --half tuning --half extra --out before.json
    python -m bench.detection.dump_events --compare before.json after.json

Runs the shipsense detector over each trace twice (with the trace's calibrated items and
without items) and writes {trace name: {"items": [events], "plain": [events]}}, keys sorted,
so that two detectors can be compared event for event (a refactoring must not change one).
`--compare` prints the traces whose events differ and exits 1 if any do.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench.detection import corpus
from bench.detection.run import detect, load_rows, make_detector


def dump(halves: list[str], folder: Path, only: str | None) -> dict:
    out: dict = {}
    for half in halves:
        for spec in corpus.specs(half, folder):
            if only and only not in spec.name:
                continue
            corpus.ensure(spec)
            rows = load_rows(spec.csv)
            with_items, _ = detect(rows, spec.items(), make_detector)
            plain, _ = detect(rows, None, make_detector)
            out[spec.name] = {"items": with_items, "plain": plain}
            print(f"\r{spec.name}: {len(with_items)} events   ", end="", file=sys.stderr)
    print(file=sys.stderr)
    return out


def compare(a_path: Path, b_path: Path) -> int:
    a = json.loads(a_path.read_text(encoding="utf-8"))
    b = json.loads(b_path.read_text(encoding="utf-8"))
    differ = 0
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            differ += 1
            print(f"differs: {name}")
    events = sum(len(v["items"]) + len(v["plain"]) for v in a.values())
    print(f"{len(a)} vs {len(b)} traces, {events} events in the first; {differ} traces differ")
    return 1 if differ or set(a) != set(b) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.detection.dump_events", description=__doc__
    )
    parser.add_argument("--half", action="append", default=[], help="a corpus set (repeatable)")
    parser.add_argument("--only", help="only traces whose name contains this")
    parser.add_argument("--out", type=Path, help="write the events here")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("A", "B"))
    parser.add_argument(
        "--corpus", type=Path, default=Path(tempfile.gettempdir()) / "bosun-detection-corpus"
    )
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if not args.half or not args.out:
        parser.error("give --half (one or more) and --out, or --compare A B")
    for half in args.half:
        if half not in {**corpus.HALVES, **corpus.EXTRA, **corpus.ZOO, **corpus.ZOO_MORE}:
            parser.error(
                f"--half {half!r}: only the tuning half, `extra` and the zoo's tuning sets"
            )
    events = dump(args.half, args.corpus, args.only)
    args.out.write_text(json.dumps(events, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
