"""The `bosun` command: one subcommand a module in bosun.commands."""

from __future__ import annotations

import argparse
import importlib
import sys

from bosun import bosun_version

# Each module defines `register(subparsers)`; the parser it adds sets `run(args) -> int`.
COMMANDS = (
    "replay",
    "play",
    "simulate",
    "detect",
    "export",
    "run",
    "simulate_trace",
    "demo",
    "bridge",
    "tables",
    "ship",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bosun", description="A referee for physical tabletop games."
    )
    parser.add_argument("--version", action="version", version=f"bosun {bosun_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"bosun.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
