"""`bosun replay LOG.jsonl`: apply a game log and print the final public state (DESIGN.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bosun.games.match import Match, replay


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "replay",
        help="replay a game log and print the final public state",
        description="Apply LOG.jsonl one action a line; print the final public state as JSON. "
        "Rejected lines are reported on stderr; exit status 1 if any line was rejected.",
    )
    p.add_argument("log", type=Path, metavar="LOG.jsonl")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.log.is_file():
        print(f"bosun replay: {args.log}: no such file", file=sys.stderr)
        return 2
    match = Match()
    rejected = 0
    with args.log.open("rb") as lines:
        for rejection in replay(lines, match):
            rejected += 1
            print(f"line {rejection.line}: rejected: {rejection.reason}", file=sys.stderr)
    print(json.dumps(match.view(), ensure_ascii=False))
    return 1 if rejected else 0
