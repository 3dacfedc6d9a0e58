"""CLI: `python -m bench.othership --out DIR [--seeds 0-23] [--rates 10,80] [--tables ...]
[--calibration wizard|cell]`."""

import argparse
import sys
import time
from pathlib import Path

from .params import CALIBRATIONS
from .trace import COMBOS, write_trace


def _seeds(text: str) -> list[int]:
    seeds = []
    for part in text.split(","):
        part = part.strip()
        low, sep, high = part.partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise argparse.ArgumentTypeError(f"not a seed or range of seeds: {part!r}")
        first, last = int(low), int(high) if sep else int(low)
        if last < first:
            raise argparse.ArgumentTypeError(f"range runs backwards: {part!r}")
        seeds.extend(range(first, last + 1))
    return seeds


def _choices(allowed: tuple, convert):
    def parse(text: str) -> list:
        picked = []
        for part in text.split(","):
            try:
                value = convert(part.strip())
            except ValueError:
                value = None
            if value not in allowed:
                options = ", ".join(str(a) for a in allowed)
                raise argparse.ArgumentTypeError(f"{part.strip()!r} is not one of {options}")
            picked.append(value)
        return picked

    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.othership",
        description="Write traces of the other (independent) virtual ship with ground truth.",
    )
    parser.add_argument("--out", required=True, type=Path, help="folder for the traces")
    parser.add_argument("--seeds", type=_seeds, default=_seeds("0-23"), help="e.g. 0-23 or 3,5")
    parser.add_argument("--rates", type=_choices((80, 10), int), default=[80, 10])
    parser.add_argument(
        "--tables", type=_choices(("mat", "piezo", "both"), str), default=["mat", "piezo", "both"]
    )
    parser.add_argument(
        "--calibration",
        choices=CALIBRATIONS,
        default="wizard",
        help="wizard: scales solved so a piece reads right in total (bosun's wizard); "
        "cell: each zone's cell alone, its neighbours' share on top",
    )
    args = parser.parse_args(argv)
    combos = [(r, t) for r, t in COMBOS if r in args.rates and t in args.tables]
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is a file, not a folder")
    args.out.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    for seed in args.seeds:
        rate, table = combos[seed % len(combos)]
        written = write_trace(args.out, seed, rate, table, calibration=args.calibration)
        c = written.counts
        print(
            f"{written.name}: {c.get('places', 0)} placed, {c.get('falls', 0)} falls, "
            f"{c.get('shifts', 0)} shifts"
        )
    print(f"{len(args.seeds)} traces in {time.perf_counter() - began:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
