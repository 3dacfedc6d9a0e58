"""`python -m bench.detection.episode NAME T_MS`: one corpus moment, sample by sample (tuning aid).

Prints the truth records and the detector's events around `T_MS` of the corpus trace whose
name contains NAME, then every sample: the total above the detector's committed level (raw
and fast mean), the zones that moved most, and the detector's episode state (A active, pk
the peak, rel samples since the release, plat the still stretch level/length, R after the
release, st the still run, L a leaving pending, D a drop being judged, H a short rest held,
P a touch waiting for the table's word, V a load gone as cargo left, waiting for its fall).
Held-back sets 3 and 4 and the zoo's held-back sets are not offered: each is looked at once, by
the benchmark, at the end.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from bench.detection import corpus
from bench.detection.run import load_rows, make_detector


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.detection.episode", description=__doc__)
    parser.add_argument("name", help="part of a corpus trace's name (e.g. extra3-4004)")
    parser.add_argument("t_ms", type=float, help="the moment to look at")
    parser.add_argument("--before", type=float, default=1500.0, help="ms shown before t_ms")
    parser.add_argument("--after", type=float, default=2500.0, help="ms shown after t_ms")
    parser.add_argument(
        "--corpus", type=Path, default=Path(tempfile.gettempdir()) / "bosun-detection-corpus"
    )
    parser.add_argument(
        "--folder", type=Path, help="look in this folder of traces instead (bench.othership's)"
    )
    args = parser.parse_args(argv)
    if args.folder is not None:
        found = [s for s in corpus.folder_specs(args.folder) if args.name in s.name]
    else:
        halves = (*corpus.HALVES, *corpus.EXTRA, *corpus.HELD_BACK_2, *corpus.ZOO, *corpus.ZOO_MORE)
        found = [s for h in halves for s in corpus.specs(h, args.corpus) if args.name in s.name]
    if len(found) != 1:
        print(f"{len(found)} traces match {args.name!r}", file=sys.stderr)
        return 2
    spec = found[0]
    corpus.ensure(spec)
    rows = load_rows(spec.csv)
    a, b = args.t_ms - args.before, args.t_ms + args.after
    for record in spec.truth():
        t = record.get("t_ms")
        if t is not None and a - 2000 <= t <= b:
            print("TRUTH", record)
    det = make_detector(rows, spec.items())
    for t_ms, zones_g, table_g, impact in rows:
        events = det.feed(t_ms, zones_g, table_g, impact)
        if t_ms < a or t_ms > b:
            continue
        k = det.k
        h = det.history_n
        total = det.total_ring[k % h] - det.base
        fast = det.fast_ring[k % h] - det.base
        moved = sorted(range(det.n_zones), key=lambda i: -abs(det.y[i] - det.ref[i]))[:3]
        zones = " ".join(f"z{i + 1}{det.y[i] - det.ref[i]:+6.2f}" for i in moved)
        plateau = det.plateau
        held = " H" if det.held is not None else ""
        held += " P" if det.pending is not None else ""
        held += " V" if det.vanished is not None else ""
        p = (
            "-"
            if plateau is None
            else f"{plateau.level_g:.2f}/{plateau.n}{'R' if plateau.after_release else ''}"
        )
        state = (
            f"{'A' if det.state else ' '} pk {det.peak:5.2f} rel "
            f"{'-' if det.released_k is None else k - det.released_k} plat {p} "
            f"st {det.stable_run} {'L' if det.leave else ''}{'D' if det.dropping_k else ''}{held}"
        )
        table = "" if table_g is None else f" mat {table_g:6.2f}"
        hit = "" if not impact else " HIT"
        print(f"{t_ms:9.1f} {total:7.2f} {fast:7.2f} | {zones} | {state}{table}{hit}")
        for e in events:
            print("   EVENT", e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
