"""A referee in a cluster: the service, with ship messages from NATS and tables it leases.

Every referee of a cluster runs `bosun run --cluster ...` with the same tables file and the
same PostgreSQL store; none starts a broker (the ships reach the NATS servers' MQTT listeners).
Every LEASE_POLL_S a referee checks that it still holds its tables (bosun.store.leases) and
tries to take each table nobody holds: a table taken is rebuilt from its log
(`resume_or_start`, as after a restart), given a `FencedStore` and an `EntryWriter` of its own,
and then followed on the stream. A referee that finds it lost a table, its leases' connection
or NATS for good stops (fail-stop): another takes its tables within a poll, and its writes were
fenced meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
from dataclasses import dataclass

from rich.console import Console

from bosun.bus.nats_stream import NatsAccess, NatsBus
from bosun.referee.clock import LoopClock
from bosun.referee.entry_writer import EntryWriter
from bosun.referee.runtime import TableRuntime
from bosun.referee.traces import TraceWriter
from bosun.service import STOP_BUS_S, STOP_STORE_S, Service, ServiceOptions, _step
from bosun.store import Store, StoreError
from bosun.store.leases import FencedStore, LeaseLost, TableLeases
from bosun.tables import TableConfig

log = logging.getLogger(__name__)

LEASE_POLL_S = 0.5  # how often a referee looks for tables nobody referees (failover time)


@dataclass(frozen=True)
class ClusterOptions:
    nats: NatsAccess
    owner: str = f"{socket.gethostname()}:{os.getpid()}"


class ClusterService(Service):
    """`Service` as one referee of a cluster; `await start()`, then `await stop()`."""

    def __init__(self, options: ServiceOptions, cluster: ClusterOptions) -> None:
        super().__init__(options)
        self.cluster = cluster
        self.broker_kind = "NATS cluster (ships on its MQTT listeners)"
        self.mqtt_url = cluster.nats.shown
        self.leases: TableLeases | None = None
        self.failed: str | None = None  # why this referee gave up (then `lost` is set)
        self.lost = asyncio.Event()
        self._nats: NatsBus | None = None
        self._fenced: dict[str, tuple[FencedStore, EntryWriter]] = {}
        self._lease_task: asyncio.Task | None = None
        self._cluster_stopping = False

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(self._workers)
        self.clock = LoopClock(loop, self.options.time_scale)
        try:
            self._store = await asyncio.to_thread(Store.open, self.options.db_url)
            self.leases = await asyncio.to_thread(
                TableLeases, self.options.db_url, self.cluster.owner
            )
            self._traces = TraceWriter(self._store, self.clock, thread=self._trace_thread)
            self._nats = NatsBus(self.cluster.nats, self._route, self._give_up)
            await self._nats.start()
            await self._start_http()
            self._lease_task = asyncio.create_task(self._keep_leases())
        except BaseException:
            await self.stop()
            raise

    @property
    def bus(self) -> NatsBus:  # type: ignore[override]
        return self._nats

    def _new_runtime(self, config: TableConfig) -> TableRuntime:
        store, writer = self._fenced[config.id]
        return TableRuntime(config, store, self._nats, self.clock, self._traces, writer)

    async def _keep_leases(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                await asyncio.to_thread(self.leases.check)
                for config in self.options.tables:
                    if config.id in self.runtimes:
                        continue
                    epoch = await asyncio.to_thread(self.leases.try_take, config.id)
                    if epoch is not None:
                        await self._take(config, epoch, loop)
            except (LeaseLost, StoreError) as why:
                self._give_up(str(why))
                return
            except Exception:  # a bug: this referee stops, the others go on
                log.exception("the lease keeper failed")
                self._give_up("the lease keeper failed (a bug, see the log)")
                return
            await asyncio.sleep(LEASE_POLL_S)

    async def _take(self, config: TableConfig, epoch: int, loop) -> None:
        """Referee `config`'s table from its log on, then follow its ship on the stream."""
        store = FencedStore(self._store, config.id, epoch)
        self._fenced[config.id] = (store, EntryWriter(store, loop, thread=self._log_thread))
        self.add_table(config)  # rebuilds the unfinished game from the log
        await self._nats.follow(config.id)
        log.warning("refereeing table %s (epoch %d)", config.id, epoch)

    def _give_up(self, why: str) -> None:
        if self.failed is None and not self._cluster_stopping:
            log.error("this referee stops: %s", why)
            self.failed = why
            self.lost.set()

    async def stop(self) -> None:
        """Stop deciding, write what is waiting, leave NATS, free the tables, then the rest."""
        if self._cluster_stopping:
            return
        self._cluster_stopping = True
        if self._lease_task is not None:
            self._lease_task.cancel()
        for runtime in self.runtimes.values():
            runtime.close()
        for table_id, (_store, writer) in self._fenced.items():
            await _step(f"store {table_id}'s last entries", writer.close_async(), STOP_STORE_S)
        if self._nats is not None:
            await _step("leave the NATS cluster", self._nats.stop(), STOP_BUS_S)
        if self.leases is not None:
            await _step("free the tables", asyncio.to_thread(self.leases.close), STOP_STORE_S)
        await super().stop()


async def serve_cluster(service: ClusterService, console: Console) -> int:
    """Run one referee until Ctrl-C (0) or until it gives up (1: another takes its tables)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await service.start()
    except (OSError, ConnectionError, ValueError, RuntimeError, StoreError) as why:
        console.print(f"[red]bosun run: could not start:[/] {why}")
        await service.stop()
        return 1
    console.print("[bold]bosun is running[/] (a referee of a cluster)")
    console.print(f"  NATS      {service.cluster.nats.shown}  (as {service.cluster.nats.user})")
    console.print(f"  store     {service.options.db_url}")
    console.print(f"  web       {service.http_url}/?key={service.options.operator_key}")
    tables = ", ".join(config.id for config in service.options.tables)
    console.print(f"  tables    {tables}: each refereed here while this referee holds it")
    console.print("Ctrl-C stops.")
    waits = [asyncio.create_task(stop.wait()), asyncio.create_task(service.lost.wait())]
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in waits:
        task.cancel()
    console.print("stopping ...")
    await service.stop()
    if service.failed is not None:
        console.print(f"[red]bosun run: this referee stopped:[/] {service.failed}")
        return 1
    console.print("stopped; everything is in the store.")
    return 0
