"""`bosun ship add|rotate|remove|list`: pair ships with bosun's broker (their credentials);
`bosun ship --gpio CONFIG`: be a ship (a Raspberry Pi with HX711s, commands/ship_gpio.py).

`add` makes a ship's user and password (kept in bosun.ships.json, owner-only) and writes the
ship's config.json for `make flash`: the broker address the ship can reach, its user and
password. A running `bosun run` gives them to its broker within seconds. Passwords are shown
masked, never in full.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bosun.bus.access import lan_address
from bosun.bus.credentials import (
    CREDENTIALS_FILE,
    BrokerCredentials,
    Credential,
    CredentialsError,
    write_private,
)
from bosun.commands import ship_gpio
from bosun.commands.argtypes import whole_number
from shipsense import protocol

SHIPS_PORT = 1883
SHIPS_TLS_PORT = 8883
FLASHED_CONFIG = Path("firmware/config.json")  # what `make flash` copies to the ship


def table_id(text: str) -> str:
    try:
        return protocol.check_table_id(text)
    except protocol.ProtocolError as why:
        raise argparse.ArgumentTypeError(str(why)) from None


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "ship",
        help="pair ships with bosun's broker (add, rotate, remove, list), or be one (--gpio)",
        description="Each ship logs in to bosun's broker with its own user and password and may "
        "only publish its own table's ship topics and read its own commands.",
    )
    p.add_argument(
        "--credentials",
        type=Path,
        default=CREDENTIALS_FILE,
        metavar="FILE",
        help=f"bosun's credentials file (default: {CREDENTIALS_FILE}, next to bosun.key)",
    )
    ship_gpio.add_arguments(p, required=False)
    # not required: `--gpio CONFIG` alone makes this machine the ship
    actions = p.add_subparsers(dest="ship_action", metavar="ACTION")
    p.set_defaults(run=lambda args: ship_gpio.run(args) if args.gpio else _usage(p))
    for name, what in (
        ("add", "make the ship's credentials (if it has none) and write its config.json"),
        ("rotate", "replace the ship's credentials and write its config.json again"),
    ):
        action = actions.add_parser(name, help=what, description=what)
        action.add_argument("table", type=table_id, metavar="TABLE")
        action.add_argument(
            "--config",
            type=Path,
            default=None,
            metavar="FILE",
            help=f"the ship's config.json to write (default: {FLASHED_CONFIG} if it is here, "
            "else TABLE.config.json)",
        )
        action.add_argument(
            "--broker",
            default=None,
            metavar="ADDR",
            help="the address ships reach this computer at (default: its LAN address)",
        )
        action.add_argument(
            "--port",
            type=whole_number(1, 65535),
            default=None,
            help=f"the ships' port of bosun's broker (bosun run --ships; default {SHIPS_PORT}, "
            f"{SHIPS_TLS_PORT} with --tls)",
        )
        action.add_argument(
            "--tls",
            action="store_true",
            help="the ship connects with TLS (bosun run --ships-tls) and verifies bosun's CA",
        )
        action.set_defaults(run=_pairing(add if name == "add" else rotate))
    remove_parser = actions.add_parser("remove", help="forget the ship's credentials")
    remove_parser.add_argument("table", type=table_id, metavar="TABLE")
    remove_parser.set_defaults(run=_pairing(remove))
    actions.add_parser("list", help="the paired ships (passwords masked)").set_defaults(
        run=_pairing(list_ships)
    )


def _pairing(action):
    """`action`, refused when --gpio asked this machine to be a ship as well."""

    def run(args: argparse.Namespace) -> int:
        if args.gpio:
            print(
                f"bosun ship: --gpio runs a ship; {args.ship_action} pairs one: use one or the "
                "other",
                file=sys.stderr,
            )
            return 2
        return action(args)

    return run


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_usage(sys.stderr)
    print(
        "bosun ship: say what to do: add, rotate, remove or list, or --gpio CONFIG",
        file=sys.stderr,
    )
    return 2


def _open(args: argparse.Namespace) -> BrokerCredentials | None:
    try:
        return BrokerCredentials.open(args.credentials)
    except (CredentialsError, OSError) as why:
        print(f"bosun ship: {why}", file=sys.stderr)
        return None


def ship_config(
    base: dict, table: str, url: str, credential: Credential, ca: str | None = None
) -> dict:
    """`base` (the ship's config.json) with the table, the broker and the ship's login."""
    config = dict(base)
    mqtt = dict(config.get("mqtt") or {})
    mqtt.update({"url": url, "user": credential.user, "password": credential.password, "ca": ca})
    config.update({"table": table, "link": config.get("link", "mqtt"), "mqtt": mqtt})
    return config


def broker_url(host: str, tls: bool, port: int | None = None) -> str:
    """Where a ship dials bosun's broker: `host` on the ships' port (its default for TLS)."""
    scheme, default = ("mqtts", SHIPS_TLS_PORT) if tls else ("mqtt", SHIPS_PORT)
    return f"{scheme}://{host}:{port or default}"


def _write_config(args: argparse.Namespace, credential: Credential) -> int:
    host = args.broker or lan_address()
    if host is None:
        print("bosun ship: cannot tell this computer's LAN address: give --broker", file=sys.stderr)
        return 1
    path = args.config or (
        FLASHED_CONFIG if FLASHED_CONFIG.exists() else Path(f"{args.table}.config.json")
    )
    base: dict = {"version": 1}
    if path.exists():
        try:
            base = json.loads(path.read_text())
        except (OSError, ValueError) as why:
            print(f"bosun ship: cannot read {path}: {why}", file=sys.stderr)
            return 1
        if not isinstance(base, dict):
            print(f"bosun ship: {path} is not a JSON object", file=sys.stderr)
            return 1
    ca = None
    if args.tls:
        from bosun.bus.tls import ShipsTls

        tls = ShipsTls(args.credentials.resolve().parent)  # the CA beside the credentials
        tls.ensure([host])
        ca = tls.ca_pem()
    url = broker_url(host, args.tls, args.port)
    config = ship_config(base, args.table, url, credential, ca)
    try:
        write_private(path, json.dumps(config, indent=2) + "\n")
    except OSError as why:
        print(f"bosun ship: cannot write {path}: {why}", file=sys.stderr)
        return 1
    print(f"ship {args.table}: user {credential.user}, password {credential.masked}")
    print(f"  wrote {path}: broker {url} (flash it: make flash PORT=...)")
    print(f"  {path} now holds the ship's password: keep it out of version control")
    return 0


def add(args: argparse.Namespace) -> int:
    credentials = _open(args)
    if credentials is None:
        return 1
    return _write_config(args, credentials.add(args.table))


def rotate(args: argparse.Namespace) -> int:
    credentials = _open(args)
    if credentials is None:
        return 1
    if credentials.for_table(args.table) is None:
        print(
            f"bosun ship: {args.table} is not paired (bosun ship add {args.table})", file=sys.stderr
        )
        return 1
    return _write_config(args, credentials.rotate(args.table))


def remove(args: argparse.Namespace) -> int:
    credentials = _open(args)
    if credentials is None:
        return 1
    if not credentials.remove(args.table):
        print(f"bosun ship: {args.table} is not paired", file=sys.stderr)
        return 1
    print(f"ship {args.table}: credentials removed; it can no longer log in")
    return 0


def list_ships(args: argparse.Namespace) -> int:
    credentials = _open(args)
    if credentials is None:
        return 1
    if not credentials.ships:
        print("no ships paired (bosun ship add TABLE)")
    for table, credential in sorted(credentials.ships.items()):
        print(f"{table}\tuser {credential.user}\tpassword {credential.masked}")
    return 0
