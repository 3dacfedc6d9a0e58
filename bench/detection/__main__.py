"""`python -m bench.detection`: score the detector and the baseline on the simulated corpus."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from bench.detection import corpus
from bench.detection.run import detect, load_rows
from bench.detection.score import Score, percentile, score_trace


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.detection", description=__doc__)
    parser.add_argument("--half", choices=(*corpus.HALVES, "both"), default="both")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(tempfile.gettempdir()) / "bosun-detection-corpus",
        help="where the simulated traces are kept (made on first use)",
    )
    parser.add_argument("--only", help="only traces whose name contains this")
    parser.add_argument("--misses", action="store_true", help="list every miss")
    parser.add_argument("--groups", action="store_true", help="also by rate and level")
    args = parser.parse_args(argv)
    halves = list(corpus.HALVES) if args.half == "both" else [args.half]
    for half in halves:
        specs = [s for s in corpus.specs(half, args.corpus) if not args.only or args.only in s.name]
        total = Score()
        groups: dict[str, Score] = {}
        for n, spec in enumerate(specs, 1):
            made = corpus.ensure(spec)
            rows = load_rows(spec.csv)
            events, cpu_s = detect(rows, spec.items())
            s = score_trace(spec.truth(), events, spec.name)
            s.samples = len(rows)
            total.add(s)
            for key in (f"{spec.rate} SPS", f"{spec.rate} SPS {spec.level}"):
                groups.setdefault(key, Score()).add(s)
            print(
                f"\r{half}: {n}/{len(specs)} {'simulated, ' if made else ''}{spec.name}   ",
                end="",
                file=sys.stderr,
            )
        print(file=sys.stderr)
        report(half, total, args.misses)
        if args.groups:
            for key in sorted(groups):
                report(f"{half} {key}", groups[key], False)
    return 0


def _ms(values: list[float], q: float) -> str:
    v = percentile(values, q)
    return "-" if v is None else f"{v:.0f}"


def report(half: str, s: Score, misses: bool) -> None:
    p, r, f = s.place_prf()
    print(
        f"[{half}] place P {p:.3f} R {r:.3f} F1 {f:.3f} ({s.place_tp}/{s.places}, "
        f"{s.place_events} events; zone wrong {s.place_zone_wrong}, grams wrong "
        f"{s.place_grams_wrong}, spurious {s.spurious_place})"
    )
    p, r, f = s.fall_prf()
    print(
        f"[{half}] fall  P {p:.3f} R {r:.3f} F1 {f:.3f} ({s.fall_tp}/{s.falls}; "
        f"grams right {s.fall_grams_right}/{s.fall_found}; spurious {s.spurious_fall})"
    )
    p, r, f = s.shift_prf()
    print(f"[{half}] shift P {p:.3f} R {r:.3f} F1 {f:.3f} ({s.shift_tp}/{s.shifts})")
    items_right = s.place_items_right + s.fall_items_right
    items = s.place_items + s.fall_items
    print(
        f"[{half}] items {items_right}/{items} (places {s.place_items_right}/{s.place_items}"
        f", falls {s.fall_items_right}/{s.fall_items})"
    )
    print(
        f"[{half}] latency place p50 {_ms(s.latency_place, 50)} p99 {_ms(s.latency_place, 99)}"
        f"; fall p50 {_ms(s.latency_fall, 50)} p99 {_ms(s.latency_fall, 99)}; leaving "
        f"p50 {_ms(s.latency_leaving_start, 50)} (from start) / "
        f"{_ms(s.latency_leaving, 50)} (from leave), missed {s.leaving_missed}"
    )
    print(
        f"[{half}] spurious from touch/knock {s.spurious_from_disturbance}; touches "
        f"{s.touch_events}/{s.touches}, knocks {s.knock_events}/{s.knocks}"
    )
    if misses:
        for line in s.misses:
            print("  " + line)


if __name__ == "__main__":
    sys.exit(main())
