"""`bosun run --cluster URLS --db postgresql://...`: one referee of a cluster (bosun.cluster)."""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Callable

from rich.console import Console

from bosun.bus.access import read_password_file
from bosun.store import default_db_url
from bosun.tables import TableConfig

PASSWORD_ENV = "BOSUN_NATS_PASSWORD"
# what a cluster's referee does not do: the ships' broker is NATS, the tables are real ones
NOT_IN_A_CLUSTER = {
    "mqtt": "--mqtt",
    "mqtt_password_file": "--mqtt-password-file",
    "mqtt_ca": "--mqtt-ca",
    "ships": "--ships",
    "ships_tls": "--ships-tls",
    "demo": "--demo",
    "firmware": "--firmware",
    "home_assistant": "--home-assistant",
}


def run_cluster(
    args: argparse.Namespace,
    tables: list[TableConfig],
    console: Console,
    operator_key: Callable[[], str],
) -> int:
    from bosun.bus.nats_stream import parse_cluster_urls
    from bosun.cluster.service import ClusterOptions
    from bosun.service import ServiceOptions
    from bosun.store.leases import libpq_url

    given = [flag for name, flag in NOT_IN_A_CLUSTER.items() if getattr(args, name, None)]
    if given:
        console.print(f"[red]bosun run:[/] {', '.join(given)} cannot go with --cluster")
        return 2
    if not tables:
        console.print("[red]bosun run:[/] a cluster referees the tables of bosun.toml: none there")
        return 2
    db_url = args.db or default_db_url()
    try:
        libpq_url(db_url)
        if args.cluster_password_file is not None:
            password = read_password_file(args.cluster_password_file, "NATS")
        else:
            password = os.environ.get(PASSWORD_ENV)
        access = parse_cluster_urls(args.cluster, password)
    except ValueError as why:
        console.print(f"[red]bosun run:[/] {why}")
        return 2
    options = ServiceOptions(
        tables=tables,
        db_url=db_url,
        http_host=args.host,
        http_port=args.port,
        operator_key=operator_key(),
    )
    return asyncio.run(serve_cluster_with(options, ClusterOptions(access), console))


async def serve_cluster_with(options, cluster, console: Console) -> int:
    from bosun.cluster.service import ClusterService, serve_cluster

    return await serve_cluster(ClusterService(options, cluster), console)
