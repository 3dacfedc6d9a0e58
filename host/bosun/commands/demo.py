"""`bosun demo [--game G] --games N --tables T`: bots play whole games on virtual tables
through the broker and the full service; a JSON summary is the last line of stdout.

Each game's kit says how its virtual table is built (bosun.demo.runner): Riff Raff tables are
virtual ships; Montego Bay tables are the same load cells as a harbour, where the bots move
barrels (bosun.demo.harbour)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bosun.commands.argtypes import broker_url, number, whole_number
from bosun.games import registry
from bosun.service import Service, ServiceOptions
from bosun.store import StoreError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "demo",
        help="bots play games on virtual tables through the whole service",
        description="Start the service with T virtual ships and bot players; play N games on "
        "each; print a JSON summary (with every referee decision that differed from the "
        "simulator's truth) as the last line; exit 0 when every game ended.",
    )
    games = [kit.name for kit in registry.kits() if kit.virtual is not None]
    p.add_argument(
        "--game",
        choices=games,
        default=games[0],
        help=f"the game the virtual tables play (default {games[0]})",
    )
    p.add_argument(
        "--games", type=whole_number(1, 1000), default=1, help="games a table (default 1)"
    )
    p.add_argument(
        "--tables", type=whole_number(1, 50), default=1, help="virtual tables (default 1)"
    )
    p.add_argument("--seed", type=whole_number(0, 2**31), default=0, help="random seed (default 0)")
    p.add_argument(
        "--speed",
        type=number(0.1, 20.0, "times real time"),
        default=4.0,
        help="times real time (default 4; 1 to watch)",
    )
    p.add_argument(
        "--firmware",
        action="store_true",
        help="the ships run the real firmware in MicroPython on the virtual board "
        "(Riff Raff, in real time: --speed 1)",
    )
    p.add_argument("--db", help="store URL (default: a throwaway SQLite file)")
    p.add_argument("--mqtt", type=broker_url, help="use this broker instead of a private one")
    p.add_argument(
        "--timeout",
        type=whole_number(10, 86400),
        default=3600,
        help="give up after this many seconds",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.firmware:
        from bosun.demo.runner import firmware_games

        if args.game not in firmware_games():
            ships = " and ".join(registry.kit(game).title for game in firmware_games())
            title = registry.kit(args.game).title
            print(
                f"bosun demo: --firmware runs {ships} ships (no firmware table for {title})",
                file=sys.stderr,
            )
            return 2
        args.speed = 1.0  # the board keeps the firmware's real 80 SPS period
    with tempfile.TemporaryDirectory(prefix="bosun-demo-") as scratch:
        db_url = args.db or f"sqlite:///{Path(scratch) / 'demo.db'}"
        options = ServiceOptions(
            tables=[], db_url=db_url, mqtt_url=args.mqtt, http_port=0, time_scale=args.speed
        )
        return asyncio.run(play(args, options))


async def play(args: argparse.Namespace, options: ServiceOptions) -> int:
    from bosun.board import BoardError, MicroPythonMissing
    from bosun.demo.runner import add_virtual_tables

    console = Console(stderr=True)
    service = Service(options)
    try:
        await service.start()
    except (OSError, ConnectionError, ValueError, RuntimeError, StoreError) as why:
        # one line, however long: e.g. a damaged --db
        console.print(f"[red]bosun demo: could not start:[/] {why}", soft_wrap=True)
        return 1
    tables = []
    try:
        try:
            tables = await add_virtual_tables(
                service,
                args.tables,
                seed=args.seed,
                games=args.games,
                game=args.game,
                firmware=args.tables if args.firmware else 0,
            )
        except (BoardError, MicroPythonMissing, ValueError) as why:
            console.print(f"[red]bosun demo: could not start:[/] {why}")
            return 1
        total = args.games * args.tables
        progress = Progress(
            TextColumn("games"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + args.timeout
        with progress:
            task = progress.add_task("games", total=total)
            while (done := sum(min(len(t.finished), args.games) for t in tables)) < total:
                progress.update(task, completed=done)
                if loop.time() > deadline:
                    break
                await asyncio.sleep(0.2)  # progress display refresh, nothing waits on it
            progress.update(task, completed=done)
    finally:
        await service.stop()  # the virtual tables first, then web, MQTT, store, broker
    games = [tally.summary() for table in tables for tally in table.finished[: args.games]]
    ended = len(games) == args.games * args.tables
    mismatches = sum(len(g["mismatches"]) for g in games)
    console.print(
        f"{len(games)} games on {args.tables} virtual tables ({args.game}); "
        f"{mismatches} referee decisions differed from the truth"
        + ("" if ended else f"; gave up after {args.timeout} s")
    )
    print(json.dumps({"games": games}))
    sys.stdout.flush()
    return 0 if ended else 1
