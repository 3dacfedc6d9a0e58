"""`bosun tables`: the configured tables, with their ship's status from the running service."""

from __future__ import annotations

import argparse
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from bosun.commands.run import load_configured_tables
from bosun.tables import TableConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "tables",
        help="list the tables and their ships' status",
        description="List the tables of the tables file (and any virtual ones) with the status "
        "of their ship and game, as the running service (`bosun run`) sees them.",
    )
    p.add_argument("--tables", type=Path, help="tables file (default: ./bosun.toml if present)")
    p.add_argument(
        "--service", default="http://127.0.0.1:8000", help="the running service's web address"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False, soft_wrap=True)
    try:
        configured = {t.id: t for t in load_configured_tables(args.tables)}
    except TableConfigError as why:
        console.print(f"[red]bosun tables:[/] {why}")
        return 2
    live: dict[str, dict] = {}
    try:
        response = httpx.get(f"{args.service.rstrip('/')}/api/tables", timeout=5)
        response.raise_for_status()
        live = {t["id"]: t for t in response.json()}
        reached = True
    except (httpx.HTTPError, ValueError):
        reached = False
    if not configured and not live:
        console.print("no tables: write bosun.toml (see the README), or run `bosun run --demo`")
        if not reached:
            console.print(f"[yellow]and no service answers at {args.service}[/]")
        return 0 if reached else 1
    listing = Table("table", "game", "players", "ship", "game now")
    for table_id in [*configured, *[t for t in live if t not in configured]]:
        config, status = configured.get(table_id), live.get(table_id)
        game = config.game if config else status["game"]
        players = ", ".join(config.player_names if config else status["players"])
        if status is None:
            ship, now = ("unknown" if not reached else "not refereed"), "-"
        else:
            ship = "[green]online[/]" if status["ship_online"] else "[red]offline[/]"
            now = f"round {status['round']}, {status['phase']}" if status["phase"] else "-"
        listing.add_row(table_id, game, players, ship, now)
    console.print(listing)
    if not reached:
        console.print(
            f"[yellow]the service is not running at {args.service}[/]: ship status unknown"
        )
        return 1
    return 0
