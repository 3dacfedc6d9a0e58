"""`bosun detect TRACE.csv [--items ITEMS.json]`: the shipsense detector over a recorded trace."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from shipsense.offline import detect_trace, items_from_json
from shipsense.trace import TraceError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "detect",
        help="run the ship's detector over a trace CSV; prints one JSON event a line",
        description=(
            "Run the shipsense detector (the very code the ESP32 runs) over a trace CSV and "
            "print its events, one JSON object a line. Prints the same as "
            "`micropython firmware/tools/detect.py TRACE.csv [ITEMS.json]`."
        ),
    )
    p.add_argument("trace", type=Path, metavar="TRACE.csv", help="trace in DESIGN.md's CSV")
    p.add_argument(
        "--items",
        type=Path,
        metavar="ITEMS.json",
        help='grams per item type, e.g. {"rat": 2.6, "boat": 11.8}: names places and falls',
    )
    p.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"bosun detect: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    items = None
    if args.items is not None:
        try:
            obj = json.loads(args.items.read_text(encoding="utf-8"))
        except OSError as error:
            return _fail(f"cannot read items file {args.items}: {error.strerror}")
        except (ValueError, UnicodeDecodeError) as error:
            return _fail(f"{args.items}: items file is not valid JSON ({error})")
        try:
            items = items_from_json(obj)
        except ValueError as error:
            return _fail(f"{args.items}: {error}")
    try:
        trace = args.trace.open(encoding="utf-8", newline="")
    except OSError as error:
        return _fail(f"cannot read trace file {args.trace}: {error.strerror}")
    out = sys.stdout
    try:
        with trace:
            detect_trace(trace, items, lambda line: out.write(line + "\n"))
    except TraceError as error:
        out.flush()
        return _fail(f"{args.trace}: {error}")
    except UnicodeDecodeError:
        out.flush()
        return _fail(f"{args.trace}: is not UTF-8 text")
    return 0
