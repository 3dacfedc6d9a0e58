"""A referee in a cluster: the service, with ship messages from NATS and tables it leases.

Every referee of a cluster runs `bosun run --cluster ...` with the same tables file and the
same PostgreSQL store; none starts a broker (the ships reach the NATS servers' MQTT listeners).
Every LEASE_POLL_S a referee checks that it still holds its tables (bosun.store.leases), looks
at who else is in the cluster, and keeps its share: with N live referees and T tables, at most
ceil(T / N) tables each (`fair_share`). Below it, it takes tables nobody holds; above it (a
referee joined), it gives tables up, cleanly: it stops deciding, stores what is waiting,
leaves the table's stream, frees the lock, and the newcomer takes the table within a poll.
Which tables each keeps is rendezvous hashing (`preference`): every referee ranks the tables
its own way, so a join or a leave moves few tables and none back and forth.

A table taken is given a `FencedStore` and an `EntryWriter` of its own, rebuilt from its log
in a worker thread (`read_unfinished`, as after a restart; TAKES_AT_ONCE tables side by side),
and then followed on the stream. A referee that finds it lost a table, its leases' connection
or NATS for good stops (fail-stop): another takes its tables within a poll, and its writes
were fenced meanwhile.

Every referee serves the web for its own tables and says, at /api/cluster, which referee holds
every other one: a page whose referee gave its table up or died finds the table's new referee
there and goes on on its pages (bosun.web.cluster).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import os
import signal
import socket
from dataclasses import dataclass

from rich.console import Console

from bosun.bus.access import lan_address
from bosun.bus.nats_stream import NatsAccess, NatsBus
from bosun.referee.clock import LoopClock
from bosun.referee.entry_writer import EntryWriter
from bosun.referee.runtime import TableRuntime
from bosun.referee.traces import TraceWriter
from bosun.service import STOP_BUS_S, STOP_STORE_S, Service, ServiceOptions, _step
from bosun.store import Store, StoreError
from bosun.store.leases import FencedStore, LeaseLost, Survey, TableLeases
from bosun.tables import TableConfig

log = logging.getLogger(__name__)

LEASE_POLL_S = 0.5  # how often a referee looks for tables nobody referees (failover time)
STATUS_ASKS = 5  # polls a taken table's ship is asked for its status while none is known
TAKES_AT_ONCE = 4  # tables rebuilt from their logs side by side (each a few store reads)


def fair_share(tables: int, referees: int) -> int:
    """The most tables one of `referees` live referees holds: together they hold them all."""
    return math.ceil(tables / max(1, referees))


def table_places(
    table_ids: list[str], survey: Survey, owner: str, own_url: str, held: set[str]
) -> dict[str, str | None]:
    """Each table's referee's web address: this one's for the tables it holds now, another's
    as the last poll saw it, None while a table moves (a page asks again a moment later; a
    table this referee just gave up is never said to be here)."""
    places: dict[str, str | None] = {}
    for table_id in table_ids:
        holder = survey.holders.get(table_id)
        if table_id in held:
            places[table_id] = own_url
        elif holder is None or holder.owner == owner:
            places[table_id] = None
        else:
            places[table_id] = holder.web_url or None
    return places


def preference(owner: str, table_id: str) -> int:
    """How much `owner` wants `table_id` (rendezvous hashing): keep the most wanted, give up
    the least; every referee ranks the tables differently, and the same way every time."""
    digest = hashlib.blake2b(f"{owner}\n{table_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


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
        self.survey = Survey((), {})  # the cluster at the last poll (the pages read it)
        self.public_url = ""  # where browsers reach this referee's pages, once it serves them
        self._status_asks: dict[str, int] = {}  # table id -> times its ship was asked

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
            self.public_url = await asyncio.to_thread(self._public_url)
            await asyncio.to_thread(self.leases.announce, self.public_url)
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

    def _public_url(self) -> str:
        """Where browsers reach this referee's pages (its network address if it listens on
        every interface)."""
        host = self.options.http_host
        if host in ("0.0.0.0", "::", ""):
            host = lan_address() or "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.http_url.rsplit(':', 1)[1]}"

    def cluster_map(self) -> dict[str, object]:
        """Where each table's pages are now, as the last poll saw it (for /api/cluster)."""
        table_ids = [config.id for config in self.options.tables]
        mine = (self.cluster.owner, self.public_url, set(self.runtimes))
        tables = table_places(table_ids, self.survey, *mine)
        return {"here": self.public_url, "referees": self.referee_urls(), "tables": tables}

    def referee_urls(self) -> list[str]:
        return [r.web_url for r in self.survey.referees if r.web_url]

    def _create_app(self):
        from bosun.web.app import create_app

        return create_app(self.tables, self.options.operator_key, store=self._store, cluster=self)

    async def _keep_leases(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                await asyncio.to_thread(self.leases.check)
                self.survey = await asyncio.to_thread(self.leases.survey)
                await self._balance(loop)
                self._ask_unknown_ships()
            except (LeaseLost, StoreError) as why:
                self._give_up(str(why))
                return
            except Exception:  # a bug: this referee stops, the others go on
                log.exception("the lease keeper failed")
                self._give_up("the lease keeper failed (a bug, see the log)")
                return
            await asyncio.sleep(LEASE_POLL_S)

    async def _balance(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hold this referee's fair share: give the least wanted tables up, or take the most
        wanted of those nobody holds."""
        owner = self.cluster.owner
        share = fair_share(len(self.options.tables), len(self.survey.referees))
        held = sorted(self.runtimes, key=lambda table_id: preference(owner, table_id))
        for table_id in held[: max(0, len(held) - share)]:
            await self._release(table_id)
        free = [c for c in self.options.tables if c.id not in self.runtimes]
        free = [c for c in free if c.id not in self.survey.holders]
        free.sort(key=lambda c: preference(owner, c.id), reverse=True)
        wanted = free[: max(0, share - len(self.runtimes))]
        if not wanted:
            return
        # side by side: a dead referee's hundreds of tables go on within seconds, not one
        # after another; each is served a moment after its lock is taken (the other referees
        # send its pages here from their next look on)
        gate = asyncio.Semaphore(TAKES_AT_ONCE)

        async def take(config: TableConfig) -> None:
            async with gate:
                epoch = await asyncio.to_thread(self.leases.try_take, config.id)
                if epoch is not None:
                    await self._take(config, epoch, loop)

        try:
            async with asyncio.TaskGroup() as takes:  # one failing stops the rest: fail-stop
                for config in wanted:
                    takes.create_task(take(config))
        except ExceptionGroup as failed:  # the first reason, as a single take raised it
            raise failed.exceptions[0] from None

    def _ask_unknown_ships(self) -> None:
        """Ask each taken table's ship for its status until one is known, STATUS_ASKS times
        at most: the stream may no longer hold the status the ship sent when it connected
        (bounded by age and size), or the ship connected before the stream existed. The answer
        also says how many events the ship numbered, so none sent meanwhile is missed."""
        for table_id, asked in list(self._status_asks.items()):
            runtime = self.runtimes.get(table_id)
            if runtime is None or runtime.link.status is not None or asked >= STATUS_ASKS:
                del self._status_asks[table_id]
                continue
            self._status_asks[table_id] = asked + 1
            runtime.link.send({"cmd": "status"})

    async def _release(self, table_id: str) -> None:
        """Give a table up to another referee: stop deciding, store what waits, leave its
        stream, then free its lock (a page watching it is sent on: bosun.web.cluster)."""
        runtime = self.runtimes.pop(table_id)
        self.tables.pop(table_id, None)
        runtime.close()
        runtime.notify()  # its pages' streams end, and find where it went
        _store, writer = self._fenced[table_id]
        if not await _step(f"store {table_id}'s last entries", writer.close_async(), STOP_STORE_S):
            # not freed: this referee stops instead, and its stop waits for them once more
            raise StoreError(f"could not store table {table_id}'s last entries to give it up")
        del self._fenced[table_id]
        await self._nats.unfollow(table_id)
        await asyncio.to_thread(self.leases.release, table_id)

    async def _take(self, config: TableConfig, epoch: int, loop) -> None:
        """Referee `config`'s table from its log on, then follow its ship on the stream."""
        store = FencedStore(self._store, config.id, epoch)
        self._fenced[config.id] = (store, EntryWriter(store, loop, thread=self._log_thread))
        runtime = self._new_runtime(config)
        unfinished = await asyncio.to_thread(runtime.read_unfinished)  # the log, off the loop
        if self._cluster_stopping:
            return  # its lock goes with the others'
        self._register(runtime)
        runtime.resume(unfinished)  # a new game if none was left unfinished
        await self._nats.follow(config.id)
        self._status_asks[config.id] = 0  # asked at the next poll if the stream had no status
        log.warning("refereeing table %s (epoch %d)", config.id, epoch)

    def _give_up(self, why: str) -> None:
        if self.failed is None and not self._cluster_stopping:
            log.error("this referee stops: %s", why)
            self.failed = why
            self.lost.set()

    async def stop(self) -> None:
        """Stop deciding, write what is waiting, free the tables, leave NATS, then the rest.
        The tables are free as soon as their entries are stored: the other referees take
        them over while this one still drains its subscriptions."""
        if self._cluster_stopping:
            return
        self._cluster_stopping = True
        if self._lease_task is not None:
            self._lease_task.cancel()
        for runtime in self.runtimes.values():
            runtime.close()
        stored = (
            _step(f"store {table_id}'s last entries", writer.close_async(), STOP_STORE_S)
            for table_id, (_store, writer) in self._fenced.items()
        )
        await asyncio.gather(*stored)
        if self.leases is not None:
            await _step("free the tables", asyncio.to_thread(self.leases.close), STOP_STORE_S)
        if self._nats is not None:
            await _step("leave the NATS cluster", self._nats.stop(), STOP_BUS_S)
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
