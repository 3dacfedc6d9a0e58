"""`python -m bench.detection`: score the detector and the baseline on the simulated corpus.

Simulates the corpus on first use (bench/README.md lists its seeds), runs the shipsense
detector and the plain baseline over every trace, and prints, per half: precision, recall
and F1 of places and fall episodes, fallen grams, item naming, latencies (overall and at
80 SPS), false places/falls around touches and knocks, and the CPU cost per sample in
CPython and in real MicroPython.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.detection import corpus
from bench.detection.baseline import make_baseline
from bench.detection.run import detect, load_rows, make_detector
from bench.detection.score import Score, percentile, score_trace

REPO = Path(__file__).resolve().parents[2]
COST_SCRIPT = Path(__file__).with_name("micropython_cost.py")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.detection", description=__doc__)
    parser.add_argument(
        "--half",
        choices=(
            *corpus.HALVES,
            *corpus.HELD_BACK_2,
            *corpus.HELD_BACK_3,
            *corpus.HELD_BACK_4,
            *corpus.HELD_BACK_5,
            *corpus.EXTRA,
            *corpus.POOLS,
            *corpus.ZOO,
            *corpus.ZOO_MORE,
            *corpus.ZOO_HELD_BACK,
            "both",
        ),
        default="both",
        help="a set, or a pool of sets scored as one (tuning-pool: every tuning-only set)",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(tempfile.gettempdir()) / "bosun-detection-corpus",
        help="where the simulated traces are kept (made on first use)",
    )
    parser.add_argument(
        "--folder",
        type=Path,
        help="score every trace in this folder instead (NAME.csv with NAME.truth.jsonl and "
        "NAME.items.json: recorded, or from another model such as bench.othership)",
    )
    parser.add_argument("--only", help="only traces whose name contains this")
    parser.add_argument("--misses", action="store_true", help="list every miss of the detector")
    parser.add_argument(
        "--late",
        type=float,
        metavar="MS",
        help="list every fall found that was decided more than MS after it left, latest first",
    )
    parser.add_argument("--groups", action="store_true", help="also by rate and level")
    parser.add_argument("--no-baseline", action="store_true", help="skip the baseline")
    parser.add_argument("--json", type=Path, help="also write all figures to this JSON file")
    args = parser.parse_args(argv)
    halves = list(corpus.HALVES) if args.half == "both" else [args.half]
    found: list = []
    if args.folder:
        if args.half != "both":
            parser.error("--folder scores the traces found there: leave out --half")
        try:
            found = corpus.folder_specs(args.folder) if args.folder.is_dir() else []
        except ValueError as e:
            parser.error(str(e))
        if not found:
            parser.error(f"--folder {args.folder}: no NAME.csv with its truth and items there")
        halves = [args.folder.name]
    figures: dict = {}
    for half in halves:
        members = corpus.POOLS.get(half, (half,))
        pool = found or [s for member in members for s in corpus.specs(member, args.corpus)]
        specs = [s for s in pool if not args.only or args.only in s.name]
        ours, plain = Score(), Score()
        groups: dict[str, Score] = {}
        cpu_s = 0.0
        for n, spec in enumerate(specs, 1):
            made = corpus.ensure(spec)
            print(
                f"\r{half}: trace {n}/{len(specs)} {'(simulated) ' if made else ''}{spec.name}   ",
                end="",
                file=sys.stderr,
                flush=True,
            )
            rows = load_rows(spec.csv)
            truth, items = spec.truth(), spec.items()
            events, spent = detect(rows, items, make_detector)
            cpu_s += spent
            s = score_trace(truth, events, spec.name)
            s.samples = len(rows)
            ours.add(s)
            for key in (f"{spec.rate} SPS", f"{spec.rate} SPS {spec.level}"):
                groups.setdefault(key, Score()).add(s)
            if not args.no_baseline:
                base_events, _ = detect(rows, items, make_baseline)
                plain.add(score_trace(truth, base_events, spec.name))
        print("\r" + " " * 78 + "\r", end="", file=sys.stderr)
        figures[half] = {"shipsense": summary(ours), "by_group": {}}
        report(f"{half} shipsense", ours, args.misses)
        if args.late is not None:
            print_late(half, ours, args.late)
        if args.groups:
            for key in sorted(groups):
                report(f"{half} {key}", groups[key], False)
                figures[half]["by_group"][key] = summary(groups[key])
        if "80 SPS" in groups:
            print_80(half, groups["80 SPS"])
            figures[half]["80 SPS"] = summary(groups["80 SPS"])
        if not args.no_baseline:
            report(f"{half} baseline", plain, False)
            figures[half]["baseline"] = summary(plain)
        if ours.samples:
            us = 1e6 * cpu_s / ours.samples
            figures[half]["cpython_us_per_sample"] = round(us, 1)
            print(f"[{half}] CPU CPython {us:.1f} us a sample ({ours.samples} samples)")
    mp = {} if args.folder else micropython_cost(args.corpus)  # the cost traces are the corpus's
    if mp:
        figures["micropython_us_per_sample"] = mp
        for rate in ("80 SPS", "10 SPS"):
            if rate in mp:
                print(
                    f"[MicroPython] {mp[rate]:.1f} us a sample at {rate} (10 zones + mat + "
                    f"piezo), slowest sample {mp[rate + ' worst']} us"
                )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def micropython_cost(folder: Path) -> dict[str, float]:
    """Real MicroPython's microseconds per sample on one hard both-sensor trace a rate."""
    exe = shutil.which("micropython") or shutil.which(
        "micropython", path=str(Path(sys.executable).parent)
    )
    if not exe:
        print("[MicroPython] not installed: no cost figure", file=sys.stderr)
        return {}
    out = {}
    for spec in corpus.specs("tuning", folder):
        if spec.level != "hard" or spec.table != "both" or f"{spec.rate} SPS" in out:
            continue
        corpus.ensure(spec)
        done = subprocess.run(
            [exe, str(COST_SCRIPT), str(spec.csv), str(spec.items_path)],
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(done.stdout)
        out[f"{spec.rate} SPS"] = round(figures["us_per_sample"], 1)
        out[f"{spec.rate} SPS worst"] = figures["worst_us"]
    return out


def _ms(values: list[float], q: float) -> str:
    v = percentile(values, q)
    return "-" if v is None else f"{v:.0f}"


def summary(s: Score) -> dict:
    place, fall, shift = s.place_prf(), s.fall_prf(), s.shift_prf()

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "place": {
            "precision": round(place[0], 4),
            "recall": round(place[1], 4),
            "f1": round(place[2], 4),
            "found": s.place_tp,
            "truth": s.places,
        },
        "fall": {
            "precision": round(fall[0], 4),
            "recall": round(fall[1], 4),
            "f1": round(fall[2], 4),
            "found": s.fall_tp,
            "truth": s.falls,
        },
        "shift": {
            "precision": round(shift[0], 4),
            "recall": round(shift[1], 4),
            "f1": round(shift[2], 4),
        },
        "unweighed_topples": {  # toppled as let go, weighed by no sensor (topples.UNWEIGHED_WHY)
            "places": s.unweighed,
            "caught": s.caught_topples,
            "fall_episodes": s.unweighed_falls,  # theirs, with the cascades they set off
            "place_f1_without": round(s.place_prf_weighed()[2], 4),
            "fall_f1_without": round(s.fall_prf_weighed()[2], 4),
            "heard_not_placed": s.heard_topples,
            "heard_marked_toppled": s.heard_topples_marked,
            "toppled_touches": s.toppled_touches,
            "toppled_touches_false": s.toppled_touches_false,
        },
        "fallen_grams_right": ratio(s.fall_grams_right, s.fall_found),
        "items_exact": ratio(
            s.place_items_right + s.fall_items_right, s.place_items + s.fall_items
        ),
        "items_per_piece": ratio(
            s.place_items_right + s.fall_pieces_right, s.place_items + s.fall_pieces
        ),
        "place_items": ratio(s.place_items_right, s.place_items),
        "fall_items_exact": ratio(s.fall_items_right, s.fall_items),
        "fall_items_per_piece": ratio(s.fall_pieces_right, s.fall_pieces),
        "mat_stayed_grams_right": ratio(s.mat_grams_right, s.mat_episodes),
        "mat_stayed_set_right": ratio(s.mat_set_right, s.mat_episodes),
        "strikes_right": ratio(s.strikes_right, s.strike_episodes),
        "spurious_place": s.spurious_place,
        "spurious_fall": s.spurious_fall,
        "spurious_from_touch_knock": s.spurious_from_disturbance,
        "latency_ms": {
            "place_p50": percentile(s.latency_place, 50),
            "place_p99": percentile(s.latency_place, 99),
            "fall_p50": percentile(s.latency_fall, 50),
            "fall_p99": percentile(s.latency_fall, 99),
            "leaving_p50_from_start": percentile(s.latency_leaving_start, 50),
            "leaving_p50_from_leave": percentile(s.latency_leaving, 50),
        },
    }


def report(label: str, s: Score, misses: bool) -> None:
    p, r, f = s.place_prf()
    print(
        f"[{label}] place P {p:.3f} R {r:.3f} F1 {f:.3f} ({s.place_tp}/{s.places} found, "
        f"{s.place_events} events; zone wrong {s.place_zone_wrong}, grams wrong "
        f"{s.place_grams_wrong}, spurious {s.spurious_place})"
    )
    p, r, f = s.fall_prf()
    print(
        f"[{label}] fall  P {p:.3f} R {r:.3f} F1 {f:.3f} ({s.fall_tp}/{s.falls} episodes; "
        f"grams right {s.fall_grams_right}/{s.fall_found}; spurious {s.spurious_fall})"
    )
    p, r, f = s.shift_prf()
    print(f"[{label}] shift P {p:.3f} R {r:.3f} F1 {f:.3f} ({s.shift_tp}/{s.shifts})")
    right = s.place_items_right + s.fall_items_right
    total = s.place_items + s.fall_items
    pieces_right = s.place_items_right + s.fall_pieces_right
    pieces = s.place_items + s.fall_pieces
    if total:
        print(
            f"[{label}] items: exact {right}/{total} = {right / total:.3f}; per piece "
            f"{pieces_right}/{pieces} = {pieces_right / max(pieces, 1):.3f} (places "
            f"{s.place_items_right}/{s.place_items}, fall sets {s.fall_items_right}/"
            f"{s.fall_items}, fallen pieces {s.fall_pieces_right}/{s.fall_pieces})"
        )
    print(
        f"[{label}] latency ms: place p50 {_ms(s.latency_place, 50)} p99 "
        f"{_ms(s.latency_place, 99)}; fall p50 {_ms(s.latency_fall, 50)} p99 "
        f"{_ms(s.latency_fall, 99)}; leaving p50 {_ms(s.latency_leaving_start, 50)} after "
        f"the weight starts to go, {_ms(s.latency_leaving, 50)} after contact is lost"
    )
    if s.mat_episodes:
        print(
            f"[{label}] table: mat stayed grams right {s.mat_grams_right}/{s.mat_episodes}, "
            f"stayed set right {s.mat_set_right}/{s.mat_episodes}"
        )
    if s.strike_episodes:
        print(
            f"[{label}] table: pieces that struck it counted right {s.strikes_right}/"
            f"{s.strike_episodes} (too many {s.strikes_over}, too few {s.strikes_under})"
        )
    if s.caught_topples:
        print(
            f"[{label}] toppled as let go and caught by a hand (to the sensors a hand taking "
            f"its piece back): {s.caught_topples}; of them missed: places "
            f"{s.caught_topple_places_missed}, falls {s.caught_topple_falls_missed}"
        )
    if s.unweighed:
        place, fall = s.place_prf_weighed()[2], s.fall_prf_weighed()[2]
        print(
            f"[{label}] toppled as let go and weighed by no sensor (caught, bounced off the "
            f"mat, or no mat): {s.unweighed} places, {s.unweighed_falls} fall episodes (with the "
            f"cascades they set off), of them found "
            f"{s.unweighed_place_tp} and {s.unweighed_fall_tp}; without them place F1 "
            f"{place:.3f}, fall F1 {fall:.3f}"
        )
    if s.heard_topples or s.toppled_touches:
        print(
            f"[{label}] of those the table heard and nothing placed, touches marked toppled "
            f"(the referee asks): {s.heard_topples_marked}/{s.heard_topples}; toppled touches "
            f"with no such topple near: {s.toppled_touches_false}/{s.toppled_touches}"
        )
    print(
        f"[{label}] false places/falls around touches and knocks: "
        f"{s.spurious_from_disturbance}; touch events {s.touch_events} for {s.touches} "
        f"touches, knock events {s.knock_events} for {s.knocks} knocks"
    )
    if misses:
        for line in s.misses:
            print("  " + line)


def print_late(half: str, s: Score, late_ms: float) -> None:
    """The falls found and weighed right that were decided more than `late_ms` after they
    left, latest first: where the fall latency's tail comes from."""
    late = sorted((timed for timed in s.falls_timed if timed[0] > late_ms), reverse=True)
    print(f"[{half}] falls decided over {late_ms:.0f} ms after they left: {len(late)}")
    for _, line in late:
        print("  " + line)


def print_80(half: str, s: Score) -> None:
    print(
        f"[{half} 80 SPS targets] leaving p50 {_ms(s.latency_leaving_start, 50)} ms "
        f"(<= 100); fall p50 {_ms(s.latency_fall, 50)} ms (<= 330), p99 "
        f"{_ms(s.latency_fall, 99)} ms (<= 450); place p50 {_ms(s.latency_place, 50)} ms "
        f"(<= 500)"
    )


if __name__ == "__main__":
    sys.exit(main())
