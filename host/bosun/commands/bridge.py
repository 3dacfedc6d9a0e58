"""`bosun bridge --serial PORT --table ID [--mqtt URL]`: a ship on USB serial, onto the broker."""

from __future__ import annotations

import argparse
import signal
import sys

from bosun.bus.access import broker_access
from bosun.bus.credentials import CREDENTIALS_FILE, BrokerCredentials, CredentialsError
from bosun.bus.serial_bridge import SerialBridge
from bosun.commands.argtypes import add_broker_arguments, whole_number
from shipsense import protocol


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "bridge",
        help="forward a ship's USB serial line to the MQTT broker and back",
        description='For venues without usable WiFi: the ship (config.json link "serial") '
        "writes its MQTT messages as JSON lines on USB; this publishes them under "
        "bosun/<table>/ and writes the host's commands back. Runs until Ctrl-C; waits for "
        "the port if the ship is not plugged in yet.",
    )
    p.add_argument("--serial", required=True, metavar="PORT", help="e.g. /dev/ttyUSB0")
    p.add_argument("--table", required=True, metavar="ID", help="the ship's table id")
    add_broker_arguments(p, default="mqtt://127.0.0.1:1883")
    p.add_argument(
        "--baud",
        type=whole_number(300, 4_000_000),
        default=115200,
        help="serial speed (default 115200)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        protocol.check_table_id(args.table)
    except protocol.ProtocolError as error:
        print(f"bosun bridge: {error}", file=sys.stderr)
        return 2
    try:
        access = broker_access(args.mqtt, args.mqtt_password_file, args.mqtt_ca)
        if access.user is None and CREDENTIALS_FILE.exists():
            # beside a bosun that paired this ship: log in as the ship (bosun ship add)
            credential = BrokerCredentials(CREDENTIALS_FILE).for_table(args.table)
            if credential is not None:
                access = access.with_login(credential.user, credential.password)
    except (ValueError, CredentialsError) as error:
        print(f"bosun bridge: {error}", file=sys.stderr)
        return 2
    bridge = SerialBridge(
        args.serial,
        args.table,
        access.url,
        args.baud,
        log=lambda line: print(line, flush=True),
        access=access,
    )
    signal.signal(signal.SIGTERM, lambda *_: bridge.stop())
    return bridge.run()
