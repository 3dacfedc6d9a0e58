"""`bosun run`: start the referee service (broker, store, tables, web) and keep it running."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import secrets
import signal
import sys
from pathlib import Path

from rich.console import Console

from bosun.commands.argtypes import broker_url, whole_number
from bosun.service import Service, ServiceOptions
from bosun.store import default_db_url
from bosun.tables import TableConfigError, load_tables

DEFAULT_TABLES_FILE = Path("bosun.toml")
OPERATOR_KEY_FILE = Path("bosun.key")


def operator_key() -> str:
    """$BOSUN_OPERATOR_KEY, else the key kept in ./bosun.key (made on first run, owner-only)."""
    if key := os.environ.get("BOSUN_OPERATOR_KEY"):
        return key
    if OPERATOR_KEY_FILE.exists():
        return OPERATOR_KEY_FILE.read_text().strip()
    key = secrets.token_urlsafe(12)
    OPERATOR_KEY_FILE.touch(mode=0o600)
    OPERATOR_KEY_FILE.write_text(key + "\n")
    return key


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "run",
        help="run the referee service",
        description="Start the broker (or use --mqtt), the store, a referee for every table "
        "in the tables file, and the web API; Ctrl-C stops it cleanly.",
    )
    p.add_argument(
        "--tables", type=Path, help=f"tables file (default: {DEFAULT_TABLES_FILE} if present)"
    )
    p.add_argument(
        "--db", default=None, help="store URL (default: sqlite:///bosun.db or $BOSUN_DB)"
    )
    p.add_argument(
        "--mqtt", type=broker_url, default=None, help="use this broker, e.g. mqtt://host:1883"
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="web address to listen on (0.0.0.0 for phones)"
    )
    p.add_argument(
        "--port",
        type=whole_number(0, 65535),
        default=8000,
        help="web port (default 8000, 0 = any free)",
    )
    p.add_argument(
        "--demo",
        type=whole_number(1, 20),
        nargs="?",
        const=2,
        default=0,
        metavar="N",
        help="add N virtual Riff Raff tables (default 2) and a Montego Bay harbour, with bot "
        "players; join a seat to play",
    )
    p.add_argument(
        "--firmware",
        action="store_true",
        help="with --demo: the first virtual ship runs the real firmware in MicroPython on "
        "the virtual board",
    )
    p.set_defaults(run=run)


def load_configured_tables(path: Path | None) -> list:
    if path is None:
        path = DEFAULT_TABLES_FILE if DEFAULT_TABLES_FILE.exists() else None
    return load_tables(path) if path is not None else []


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        tables = load_configured_tables(args.tables)
    except TableConfigError as why:
        console.print(f"[red]bosun run:[/] {why}")
        return 2
    tables_file = args.tables or (DEFAULT_TABLES_FILE if DEFAULT_TABLES_FILE.exists() else None)
    options = ServiceOptions(
        tables=tables,
        db_url=args.db or default_db_url(),
        mqtt_url=args.mqtt,
        http_host=args.host,
        http_port=args.port,
        operator_key=operator_key(),
        tables_file=str(tables_file) if tables_file and tables else None,
    )
    demo_tables = args.demo or (2 if args.firmware else 0)
    return asyncio.run(serve(options, console, demo_tables, firmware=args.firmware))


async def serve(
    options: ServiceOptions, console: Console, demo_tables: int = 0, firmware: bool = False
) -> int:
    service = Service(options)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await service.start()
        if demo_tables:
            from bosun.demo.runner import add_virtual_tables

            await add_virtual_tables(service, demo_tables, firmware=int(firmware))
            # and one Montego Bay table beside them: the same load cells as a harbour
            await add_virtual_tables(service, 1, game="montego-bay", first=demo_tables + 1)
    except (OSError, ConnectionError, ValueError, RuntimeError) as why:
        # RuntimeError: no MicroPython for --firmware, or the virtual board did not boot
        console.print(f"[red]bosun run: could not start:[/] {why}")
        await service.stop()  # also the virtual tables that did start
        return 1
    announce(service, console)
    await stop.wait()
    console.print("stopping ...")
    await service.stop()  # tables, bots, boards, web, MQTT, store, broker: in that order
    console.print("stopped; everything is in the store.")
    return 0


def announce(service: Service, console: Console) -> None:
    key = service.options.operator_key
    console.print("[bold]bosun is running[/]")
    console.print(f"  broker    {service.mqtt_url}  ({service.broker_kind})")
    console.print(f"  store     {service.options.db_url}")
    console.print(f"  web       {service.http_url}/?key={key}")
    console.print(f"  API       {service.http_url}/api/docs")
    if not service.tables:
        console.print("  tables    none configured (write bosun.toml, or try --demo)")
    for runtime in service.tables.values():
        players = ", ".join(runtime.config.player_names)
        if runtime.virtual is None:
            kind = "real ship"
        elif runtime.config.game == "montego-bay":
            kind = "virtual harbour, bots until you join"
        elif hasattr(runtime.virtual.node, "board"):
            kind = "the firmware on a virtual board, bots until you join"
        else:
            kind = "virtual ship, bots until you join"
        console.print(
            f"  table     {runtime.config.id}: {runtime.config.game} for {players} ({kind})"
        )
    console.print("Ctrl-C stops.")
    with contextlib.suppress(Exception):
        sys.stderr.flush()
