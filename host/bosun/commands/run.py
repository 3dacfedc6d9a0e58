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

from bosun.bus.access import broker_access, lan_address
from bosun.bus.credentials import CREDENTIALS_FILE
from bosun.commands.argtypes import add_broker_arguments, listen_address, whole_number
from bosun.service import Service, ServiceOptions
from bosun.store import StoreError, default_db_url
from bosun.tables import TableConfigError, TablesFile, load_tables_file

DEFAULT_TABLES_FILE = Path("bosun.toml")
OPERATOR_KEY_FILE = Path("bosun.key")
SHIPS_PORT = 1883  # where real ships find the broker unless --ships says otherwise
SHIPS_TLS_PORT = 8883


def operator_key() -> str:
    """$BOSUN_OPERATOR_KEY, else the key kept in ./bosun.key (made on first run, owner-only)."""
    if key := os.environ.get("BOSUN_OPERATOR_KEY"):
        return key
    if OPERATOR_KEY_FILE.exists():
        if OPERATOR_KEY_FILE.stat().st_mode & 0o077:  # made by an older bosun: owner-only now
            OPERATOR_KEY_FILE.chmod(0o600)
        return OPERATOR_KEY_FILE.read_text().strip()
    key = secrets.token_urlsafe(12)
    # created owner-only from the first byte (umask cannot widen it; no window at 0644)
    descriptor = os.open(OPERATOR_KEY_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(key + "\n")
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
    add_broker_arguments(p)
    p.add_argument(
        "--ships",
        type=listen_address,
        default=None,
        metavar="ADDR:PORT",
        help=f"where bosun's broker listens for ships (default 0.0.0.0:{SHIPS_PORT}, "
        f"{SHIPS_TLS_PORT} with --ships-tls, when bosun.toml has tables; loopback only for "
        "virtual tables)",
    )
    p.add_argument(
        "--ships-tls",
        action="store_true",
        help="ships connect with TLS (mqtts), verifying the CA bosun makes (bosun ship add --tls)",
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
        help="add N virtual tables of bosun's first game (Riff Raff; default 2) and one of each "
        "other game (a Montego Bay harbour), with bot players; join a seat to play",
    )
    p.add_argument(
        "--firmware",
        action="store_true",
        help="with --demo: the first virtual ship runs the real firmware in MicroPython on "
        "the virtual board",
    )
    p.add_argument(
        "--home-assistant",
        action="store_true",
        help="publish every table to Home Assistant by MQTT discovery (on the broker, or the "
        "tables file's [home_assistant] broker); off unless this or that section's enabled",
    )
    p.add_argument(
        "--cluster",
        metavar="URLS",
        default=None,
        help="be one referee of a cluster: nats://USER@host:4222[,nats://host2:4222...] "
        "(NATS with JetStream and its MQTT listener for the ships; needs --db postgresql://)",
    )
    p.add_argument(
        "--cluster-password-file",
        metavar="FILE",
        default=None,
        help="the NATS user's password, on the file's first line (else $BOSUN_NATS_PASSWORD)",
    )
    p.set_defaults(run=run)


def load_configured_tables(path: Path | None) -> list:
    return load_settings(path).table


def load_settings(path: Path | None) -> TablesFile:
    """The tables file's contents (no file: no tables, default settings)."""
    if path is None:
        path = DEFAULT_TABLES_FILE if DEFAULT_TABLES_FILE.exists() else None
    return load_tables_file(path) if path is not None else TablesFile()


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = load_settings(args.tables)
    except TableConfigError as why:
        console.print(f"[red]bosun run:[/] {why}")
        return 2
    tables = settings.table
    if args.cluster is not None:
        from bosun.commands.run_cluster import run_cluster

        return run_cluster(args, tables, console, operator_key)
    if args.cluster_password_file:
        console.print("[red]bosun run:[/] --cluster-password-file goes with --cluster URLS")
        return 2
    home_assistant = settings.home_assistant
    if args.home_assistant:
        home_assistant = home_assistant.model_copy(update={"enabled": True})
    tables_file = args.tables or (DEFAULT_TABLES_FILE if DEFAULT_TABLES_FILE.exists() else None)
    access = None
    if args.mqtt is not None:
        try:
            access = broker_access(args.mqtt, args.mqtt_password_file, args.mqtt_ca)
        except ValueError as why:
            console.print(f"[red]bosun run:[/] {why}")
            return 2
    elif args.mqtt_password_file or args.mqtt_ca:
        console.print("[red]bosun run:[/] --mqtt-password-file and --mqtt-ca go with --mqtt URL")
        return 2
    default_port = SHIPS_TLS_PORT if args.ships_tls else SHIPS_PORT
    ships = args.ships or (("0.0.0.0", default_port) if tables else None)
    options = ServiceOptions(
        tables=tables,
        db_url=args.db or default_db_url(),
        mqtt_url=access.url if access else None,
        mqtt_password=access.password if access else None,
        mqtt_ca_file=access.ca_file if access else None,
        http_host=args.host,
        http_port=args.port,
        operator_key=operator_key(),
        tables_file=str(tables_file) if tables_file and tables else None,
        ships_listener=ships,
        credentials_file=str(CREDENTIALS_FILE),
        ships_tls=args.ships_tls,
        home_assistant=home_assistant,
    )
    demo_tables = args.demo or (2 if args.firmware else 0)
    if demo_tables:  # imported here, not on the event loop: it brings every game's simulator
        import bosun.demo.runner  # noqa: F401
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
            from bosun.demo.runner import add_virtual_tables, virtual_games

            first, *others = virtual_games()
            await add_virtual_tables(service, demo_tables, game=first, firmware=int(firmware))
            for n, game in enumerate(others):  # and one table of every other game beside them
                await add_virtual_tables(service, 1, game=game, first=demo_tables + n + 1)
    except (OSError, ConnectionError, ValueError, RuntimeError, StoreError) as why:
        # RuntimeError: no MicroPython for --firmware, or the virtual board did not boot;
        # StoreError: a damaged or empty store (nothing else has started yet); ValueError
        # also a broken credentials file (bosun.ships.json)
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
    if service.ships_url:
        ships = service.ships_url
        if "://127." in ships:
            why = "this computer only: virtual ships"
        elif (lan := lan_address()) and "://0.0.0.0:" in ships:
            ships = ships.replace("0.0.0.0", lan)
            why = "on every address; pair a ship: bosun ship add TABLE"
        else:
            why = "pair a ship: bosun ship add TABLE"
        console.print(f"  ships     {ships}  ({why})")
    console.print(f"  store     {service.options.db_url}")
    console.print(f"  web       {service.http_url}/?key={key}")
    console.print(f"  API       {service.http_url}/api/docs")
    if service.home_assistant is not None:
        bridge = service.home_assistant
        where = bridge.settings.discovery_prefix
        console.print(f"  Home Assistant  discovery under {where}/ on {redacted(bridge.url)}")
    if not service.tables:
        console.print("  tables    none configured (write bosun.toml, or try --demo)")
    for table in service.tables.values():
        players = ", ".join(table.config.player_names)
        console.print(f"  table     {table.id}: {table.game} for {players} ({table.describe()})")
    credentials = service.credentials
    unpaired = [
        t.id for t in service.tables.values() if credentials and not credentials.for_table(t.id)
    ]
    if unpaired and service.ships_url and "://127." not in service.ships_url:
        console.print(f"  [yellow]not paired yet:[/] {', '.join(unpaired)} (bosun ship add TABLE)")
    console.print("Ctrl-C stops.")
    with contextlib.suppress(Exception):
        sys.stderr.flush()


def redacted(url: str) -> str:
    """A broker URL without its password, for the terminal."""
    scheme, _, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    return f"{scheme}://{userinfo.partition(':')[0]}@{host}" if at else url
