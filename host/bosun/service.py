"""`bosun run`: the broker, the store, a referee for every table, and the HTTP API, together.

Everything runs on one asyncio loop: ship messages arrive from the MQTT thread through a
bounded inbox (bus/mqtt.py), HTTP requests are served by uvicorn on the same loop, so each table's
referee sees one input at a time. Nothing that waits runs on the loop: starting and stopping
the broker, opening the store (migrations), joining the MQTT thread and closing the store
happen in worker threads, so every table and page keeps going meanwhile.

A stop is ordered and bounded: the tables stop deciding, then the virtual tables' bots and
ships stop, then the pages' live streams end and the web server, then Home Assistant is told
(when it is told anything), then the MQTT link, the store and last the broker. Each step has
its own time limit; one that overruns is named in the log and the stop goes on, so Ctrl-C
always ends. A start that fails stops what it started.

Without a broker URL the broker is bosun's own mosquitto, closed to all but bosun and the
paired ships (bus/broker.py, bus/credentials.py): bosun logs in on a loopback listener, the
ships on theirs, each with its own user; virtual tables' ships too, with credentials made for
the run. A `bosun ship add` while bosun runs reaches the broker within CREDENTIALS_CHECK_S.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shutil
import socket
import threading
from collections.abc import Awaitable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import uvicorn

from bosun.bus.access import BrokerAccess, broker_access, lan_address
from bosun.bus.broker import (
    BrokerSecurity,
    MosquittoBroker,
    find_mosquitto,
    free_port,
    wait_for_free_port,
)
from bosun.bus.credentials import BrokerCredentials, Credential
from bosun.bus.limits import CappedCounter, LogThrottle
from bosun.bus.mqtt import MqttBus, ShipMessage, parse_broker_url
from bosun.games import registry
from bosun.home_assistant.bridge import HomeAssistant
from bosun.home_assistant.settings import HomeAssistantSettings
from bosun.referee.clock import LoopClock
from bosun.referee.entry_writer import EntryWriter
from bosun.referee.runtime import TableRuntime
from bosun.referee.traces import TraceWriter
from bosun.referee.view import TableView
from bosun.store import Store
from bosun.tables import TableConfig
from shipsense import protocol

log = logging.getLogger(__name__)

# How long each step of a stop may take before the stop goes on without it.
STOP_VIRTUAL_S = 10.0  # a firmware board powers off and joins its threads (5 s each at most)
STOP_STREAMS_S = 2.0  # live pages' streams end at their next wake-up
STOP_WEB_S = 5.0  # requests in flight finish (uvicorn's graceful shutdown)
STOP_BUS_S = 5.0
STOP_STORE_S = 5.0
STOP_BROKER_S = 10.0  # mosquitto gets 5 s to exit on SIGTERM, then SIGKILL
CREDENTIALS_CHECK_S = 2.0  # how often the credentials file is looked at (`bosun ship add`)
FOREIGN_TABLES = 64  # names of tables not ours whose messages are counted (oldest forgotten)
WORKER_THREADS = 8  # the loop's helpers for blocking work (store reads, joins, QR codes)


def started_threads(count: int, name: str) -> ThreadPoolExecutor:
    """A thread pool whose `count` threads all run already. Handing work to a pool that must
    first start a thread waits until the new thread runs — on a busy machine longer than the
    loop may be held — so the service's pools start theirs before the loop needs them."""
    pool = ThreadPoolExecutor(max_workers=count, thread_name_prefix=name)
    all_running = threading.Barrier(count)
    for started in [pool.submit(all_running.wait) for _ in range(count)]:
        started.result()
    return pool


@dataclass
class ServiceOptions:
    tables: list[TableConfig]
    db_url: str = "sqlite:///bosun.db"
    mqtt_url: str | None = None
    http_host: str = "127.0.0.1"
    http_port: int = 8000
    time_scale: float = 1.0
    operator_key: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    tables_file: str | None = None  # where the calibration wizard saves item weights
    # an external broker's password (never in a URL) and the CA to trust for mqtts://
    mqtt_password: str | None = field(default=None, repr=False)
    mqtt_ca_file: str | None = None
    # the private broker: where the ships' listener is (None: loopback on any free port,
    # for virtual ships only) and the file of credentials and ports (None: this run only)
    ships_listener: tuple[str, int] | None = None
    credentials_file: str | None = None
    ships_tls: bool = False  # mqtts on the ships' listener, with the CA bosun makes
    # MQTT discovery for Home Assistant; None or not enabled: nothing is sent to it
    home_assistant: HomeAssistantSettings | None = None


class TableObserver(Protocol):
    """Watches every table the service referees (Home Assistant's bridge does)."""

    def table_added(self, view: TableView) -> None:
        """A table is refereed from now on; its view says what changes."""

    def ship_event(self, table_id: str, event: dict[str, Any]) -> None:
        """An event the table received from its ship: checked, new, in the ship's order."""


class ObservedShip:
    """A table as its ship link's listener, telling the observers each event it received
    (after the table, whatever the table made of it). The rest goes to the table alone."""

    def __init__(self, table: TableRuntime, observers: list[TableObserver]) -> None:
        self._table = table
        self._observers = observers

    def ship_event(self, event: dict[str, Any]) -> None:
        try:
            self._table.ship_event(event)
        finally:
            for observer in self._observers:
                try:
                    observer.ship_event(self._table.config.id, event)
                except Exception:  # an observer's bug must not cost the table its event
                    log.exception("an observer failed on a ship event")

    def __getattr__(self, name: str) -> Any:  # ship_status, ship_trace, ...: the table's
        return getattr(self._table, name)


class Service:
    """The running referee service; `await start()`, then `await stop()`."""

    def __init__(self, options: ServiceOptions) -> None:
        self.options = options
        registry.kits()  # the games' kits are imported now, never on the event loop
        self.tables: dict[str, TableView] = {}  # what the web and the commands see
        self.runtimes: dict[str, TableRuntime] = {}  # the tables themselves (and tests)
        self.broker_kind = "external"
        self.mqtt_url: str | None = options.mqtt_url
        self.http_url: str | None = None
        self.foreign_messages = CappedCounter(FOREIGN_TABLES)  # by table name, not ours
        self._foreign_warnings = LogThrottle(log)
        self._broker: MosquittoBroker | None = None
        self.credentials: BrokerCredentials | None = None  # only with the private mosquitto
        self.host_access: BrokerAccess | None = None
        self._ships_access: BrokerAccess | None = None
        self._credentials_watch: asyncio.Task | None = None
        self._credentials_lock = asyncio.Lock()  # the file watch and the wizard's pairing
        self._tls_folder = None  # the CA of a run without a credentials file, removed at stop
        self._embedded = None
        self._bus: MqttBus | None = None
        self._store: Store | None = None
        self._traces: TraceWriter | None = None
        self._writer: EntryWriter | None = None
        self._http: uvicorn.Server | None = None
        self._http_task: asyncio.Task | None = None
        self._web_app = None
        self._stopping = False
        self.clock: LoopClock | None = None
        self.observers: list[TableObserver] = []
        self.home_assistant: HomeAssistant | None = None
        # made here, before any loop runs: asyncio.to_thread and the web's store reads use it
        self._workers = started_threads(WORKER_THREADS, "bosun-worker")
        self._trace_thread = started_threads(1, "bosun-traces")
        self._log_thread = started_threads(1, "bosun-log")
        # mosquitto's parent-death signal follows the thread that started it: this one lives
        # until the broker is stopped
        self._broker_thread = started_threads(1, "bosun-broker")

    @property
    def store(self) -> Store:
        return self._store

    @property
    def bus(self) -> MqttBus:
        return self._bus

    async def start(self) -> None:
        """Start everything; if any part fails, what did start is stopped and the error raised."""
        loop = asyncio.get_running_loop()
        loop.set_default_executor(self._workers)
        self.clock = LoopClock(loop, self.options.time_scale)
        try:
            # the store first: a damaged one stops the start before any broker runs
            self._store = await asyncio.to_thread(Store.open, self.options.db_url)
            await self._start_broker()
            self._traces = TraceWriter(self._store, self.clock, thread=self._trace_thread)
            self._writer = EntryWriter(self._store, loop, thread=self._log_thread)
            bus = MqttBus(
                self.mqtt_url, loop, self._route, self._dropped, self.host_access, hold=True
            )
            await asyncio.to_thread(bus.start)
            self._bus = bus
            await self._start_home_assistant(loop)
            for config in self.options.tables:
                self.add_table(config)
            bus.inbox.release()  # the ships' retained statuses find their tables
            await self._start_http()
        except BaseException:
            await self.stop()
            raise

    def add_table(self, config: TableConfig, fresh: bool = False) -> TableView:
        """Referee `config`'s table: resume its unfinished game, or (`fresh`) start anew."""
        if config.id in self.tables:
            raise ValueError(f"table {config.id!r} is already refereed")
        runtime = self._new_runtime(config)
        view = self._register(runtime)
        if fresh:
            runtime.start_fresh()
        else:
            runtime.resume_or_start()
        return view

    def _register(self, runtime: TableRuntime) -> TableView:
        """A new table's runtime among the refereed ones (its game not started yet)."""
        table_id = runtime.config.id
        self.runtimes[table_id] = runtime
        self.tables[table_id] = view = TableView(runtime)
        if self.observers:
            runtime.link.listener = ObservedShip(runtime, self.observers)
            for observer in self.observers:
                observer.table_added(view)
        return view

    def _new_runtime(self, config: TableConfig) -> TableRuntime:
        """The table's runtime, on the service's store, bus and writer (a cluster's fenced)."""
        return TableRuntime(config, self._store, self._bus, self.clock, self._traces, self._writer)

    async def _start_home_assistant(self, loop: asyncio.AbstractEventLoop) -> None:
        settings = self.options.home_assistant
        if settings is None or not settings.enabled:
            return
        # on bosun's own broker (no `broker` of its own) it logs in as bosun does
        access = self.host_access if settings.broker is None else None
        bridge = HomeAssistant(settings, settings.broker or self.mqtt_url, loop, access)
        self.home_assistant = bridge
        await bridge.start()
        self.observers.append(bridge)

    @property
    def broker_address(self) -> tuple[str, int]:
        return parse_broker_url(self.mqtt_url)

    async def _start_broker(self) -> None:
        options = self.options
        if self.mqtt_url:
            self.host_access = broker_access(self.mqtt_url, ca_file=options.mqtt_ca_file)
            self.host_access = self.host_access.with_login(
                self.host_access.user, options.mqtt_password or self.host_access.password
            )
            self.mqtt_url = self.host_access.url
            return
        if find_mosquitto():
            await self._start_private_broker()
            return
        from bosun.bus.embedded_broker import EmbeddedBroker

        if options.ships_listener is not None:
            log.warning(
                "mosquitto is not installed: real ships cannot reach the in-process broker "
                "(this computer only, no logins); install mosquitto or give --mqtt URL"
            )
        else:
            log.warning("mosquitto is not installed: using the slower in-process broker")
        self._embedded = await EmbeddedBroker().start()
        self.mqtt_url = self._embedded.url
        self.host_access = broker_access(self.mqtt_url)
        self.broker_kind = "in-process (install mosquitto for real use)"

    async def _start_private_broker(self) -> None:
        """mosquitto closed to all but the host and the paired ships: the host on a loopback
        port kept in the credentials file (the same after a restart), the ships on theirs."""
        loop = asyncio.get_running_loop()
        path = self.options.credentials_file
        credentials = await asyncio.to_thread(BrokerCredentials.open, path)
        remembered = credentials.host_port
        if remembered is not None and not await asyncio.to_thread(
            wait_for_free_port, "127.0.0.1", remembered, 5.0
        ):
            # something else took it: only bosun itself dials this one, the ships keep theirs
            log.warning("the broker's own port %d is taken; it moves to another", remembered)
            remembered = None
        if remembered is None:
            credentials.host_port = free_port()
            await asyncio.to_thread(credentials.save)
        home_assistant = self.options.home_assistant
        if home_assistant is not None and home_assistant.enabled and home_assistant.broker is None:
            # Home Assistant itself logs in to bosun's broker (on the ships' listener)
            prefix = home_assistant.discovery_prefix
            await asyncio.to_thread(credentials.add_home_assistant, prefix)
        ships_host, ships_port = self.options.ships_listener or ("127.0.0.1", free_port())
        tls = tls_folder = None
        if self.options.ships_tls:
            names = [ships_host, await asyncio.to_thread(lan_address)]
            tls_folder = await asyncio.to_thread(self._ships_tls, path)  # imports cryptography
            tls = await asyncio.to_thread(tls_folder.ensure, names)
        security = BrokerSecurity(credentials, ships_host, ships_port, tls)
        self._tls_folder = tls_folder
        broker = MosquittoBroker(port=credentials.host_port, security=security)
        self.credentials, self._broker = credentials, broker
        await loop.run_in_executor(self._broker_thread, broker.start)
        self.host_access = BrokerAccess(
            broker.host, broker.port, credentials.host.user, credentials.host.password
        )
        self.mqtt_url = self.host_access.url
        reach = "127.0.0.1" if ships_host in ("0.0.0.0", "", "::") else ships_host
        self._ships_access = BrokerAccess(
            reach, ships_port, tls=tls is not None, ca_file=str(tls.ca_file) if tls else None
        )
        self.broker_kind = "mosquitto (private: paired ships and bosun only)"
        self._credentials_watch = asyncio.create_task(self._watch_credentials())

    @staticmethod
    def _ships_tls(credentials_file: str | None):
        """The CA and broker certificate, next to the credentials file (or for this run)."""
        import tempfile
        from pathlib import Path

        from bosun.bus.tls import ShipsTls

        if credentials_file is None:
            return ShipsTls(Path(tempfile.mkdtemp(prefix="bosun-tls-")), temporary=True)
        return ShipsTls(Path(credentials_file).resolve().parent)

    @property
    def ships_url(self) -> str | None:
        """Where the ships' listener is, as configured (None: no private broker)."""
        if self._broker is None or self._broker.security is None:
            return None
        security = self._broker.security
        scheme = "mqtts" if security.tls is not None else "mqtt"
        return f"{scheme}://{security.ships_host}:{security.ships_port}"

    def ship_access(self, table_id: str) -> BrokerAccess:
        """How a ship of `table_id` on this machine (a virtual table) reaches the broker: with
        the private broker, through the ships' listener with that ship's own credentials
        (made for this run if it has none: `await ship_ready` before it connects); else as
        the host does."""
        if self.credentials is None or self._ships_access is None:
            return self.host_access
        credential = self.credentials.for_table(table_id)
        if credential is None:
            credential = self.credentials.add_passing(table_id)
        return self._ships_access.with_login(credential.user, credential.password)

    async def ship_ready(self, table_id: str) -> None:
        """Once the broker lets `ship_access(table_id)` log in (made for this run: the broker
        reads its files again); RuntimeError if it does not."""
        if self.credentials is None or table_id not in self.credentials.passing:
            return
        credential = self.credentials.passing[table_id]
        loop = asyncio.get_running_loop()
        if not await loop.run_in_executor(self._broker_thread, self._broker.reload, credential):
            raise RuntimeError(f"the broker did not take {table_id}'s new credentials")

    async def _watch_credentials(self) -> None:
        """`bosun ship add/rotate/remove` rewrite the credentials file while bosun runs: the
        broker takes the change within CREDENTIALS_CHECK_S."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(CREDENTIALS_CHECK_S)
            async with self._credentials_lock:
                if not self.credentials.changed_on_disk():
                    continue
                try:
                    await asyncio.to_thread(self.credentials.reload)
                except ValueError as why:
                    log.warning("the credentials file changed but cannot be used: %s", why)
                    continue
                try:
                    await loop.run_in_executor(self._broker_thread, self._broker.reload)
                except OSError as why:  # the broker is gone or the files cannot be written
                    log.warning("the broker could not take the new ship credentials: %s", why)
                    continue
            log.warning("ship credentials changed: the broker has the new ones")

    def ships_listener(self) -> tuple[str, int, str | None] | None:
        """The private broker's ships' listener: (address, port, its CA's path if TLS);
        None with another broker (--mqtt), where bosun pairs no ship."""
        if self.credentials is None or self._broker is None or self._broker.security is None:
            return None
        security = self._broker.security
        ca_file = str(security.tls.ca_file) if security.tls is not None else None
        return security.ships_host, security.ships_port, ca_file

    async def pair_ship(self, table_id: str, rotate: bool) -> Credential:
        """What `bosun ship add` (or `rotate`) does to the credentials file, from the running
        service (the calibration wizard); the broker lets the ship log in before this returns.
        RuntimeError if it did not."""
        credentials, broker = self.credentials, self._broker
        if credentials is None or broker is None:
            raise RuntimeError("bosun uses another broker (--mqtt): pair the ship there")
        loop = asyncio.get_running_loop()

        def change() -> Credential:
            if credentials.changed_on_disk():  # take `bosun ship add`'s work first
                credentials.reload()
            return credentials.rotate(table_id) if rotate else credentials.add(table_id)

        async with self._credentials_lock:
            credential = await loop.run_in_executor(self._broker_thread, change)
            if not await loop.run_in_executor(self._broker_thread, broker.reload, credential):
                raise RuntimeError("the broker did not take the ship's new credentials")
        log.info(
            "ship %s: credentials %s from the wizard", table_id, "rotated" if rotate else "made"
        )
        return credential

    async def _start_http(self) -> None:
        # importing the web app and building its routes' schemas takes a few hundred ms of
        # CPU: a worker thread does it while the tables go on
        app = self._web_app = await asyncio.to_thread(self._create_app)
        host = self.options.http_host
        listener = listen(host, self.options.http_port)  # OSError naming the port if taken
        port = listener.getsockname()[1]
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level="warning",
            lifespan="off",
            access_log=False,
            timeout_graceful_shutdown=STOP_WEB_S,
        )
        # uvicorn loads its protocol modules and wraps the app at the start of serve(), on
        # the loop (~20 ms of CPU): loaded here, in a worker thread, serve() skips it
        await asyncio.to_thread(config.load)
        self._http = WebServer(config)
        self._http_task = asyncio.create_task(self._http.serve(sockets=[listener]))
        while not self._http.started:
            if self._http_task.done():
                self._http_task.result()  # raises the reason
                raise OSError(f"the web server on port {port} stopped at once")
            await asyncio.sleep(0.01)  # uvicorn offers no started event to wait on
        self.http_url = f"http://{host}:{port}"

    def _create_app(self):
        from bosun.web.app import create_app

        return create_app(
            self.tables,
            self.options.operator_key,
            store=self._store,
            tables_file=self.options.tables_file,
            pairing=self,
        )

    def _route(self, message: ShipMessage) -> None:
        if self._stopping:
            return  # the tables have stopped deciding; the ship resends what is unacknowledged
        runtime = self.runtimes.get(message.table_id)
        if runtime is None:
            if self.foreign_messages.add(message.table_id) == 1:
                try:
                    protocol.check_table_id(message.table_id)
                    why = "no such table here"
                except protocol.ProtocolError as problem:
                    why = str(problem)
                self._foreign_warnings.warning(
                    self.clock.now_ms(),
                    "ignoring messages for table %r: %s",
                    message.table_id[:40],
                    why[:200],
                )
            return
        if runtime.closed:
            return  # it stopped deciding (a cluster's referee leaving): as when stopping
        try:
            runtime.link.receive(message.name, message.payload)
        except Exception:  # one table's bug must not stop the others
            log.exception("table %s failed on a %s message", message.table_id, message.name)
            runtime.report_failure(f"a {message.name} message from the ship")

    def _dropped(self, table_id: str, count: int) -> None:
        """The MQTT inbox was full: `count` messages for `table_id` never reached it."""
        runtime = self.runtimes.get(table_id)
        if runtime is not None:
            runtime.link.count_dropped(count)
            runtime.notify()
        else:
            self.foreign_messages.add(table_id, count)

    async def stop(self) -> None:
        """Stop everything in order (see the module's docstring); safe to call twice and after
        a failed start."""
        if self._stopping:
            return
        self._stopping = True
        for runtime in self.runtimes.values():
            runtime.close()
        if self._writer is not None:
            await _step("store what the ships sent last", self._writer.close_async(), STOP_STORE_S)
        if self._traces is not None:
            await _step("store the last raw samples", self._traces.close_async(), STOP_STORE_S)
        for table in self.tables.values():
            if table.virtual is not None:
                await _step(
                    f"stop {table.id}'s virtual table", table.virtual.stop(), STOP_VIRTUAL_S
                )
        await self._stop_http()
        if self.home_assistant is not None:
            bridge = self.home_assistant.stop()
            await _step("tell Home Assistant bosun stopped", bridge, STOP_BUS_S)
        if self._bus is not None:
            await _step("close the MQTT link", asyncio.to_thread(self._bus.stop), STOP_BUS_S)
        if self._store is not None:
            await _step("close the store", asyncio.to_thread(self._store.close), STOP_STORE_S)
        if self._credentials_watch is not None:
            self._credentials_watch.cancel()
        if self._broker is not None:
            loop = asyncio.get_running_loop()
            stopped = loop.run_in_executor(self._broker_thread, self._broker.close)
            await _step("stop the broker", stopped, STOP_BROKER_S)
        if self._embedded is not None:
            await _step("stop the in-process broker", self._embedded.stop(), STOP_BROKER_S)
        if self._tls_folder is not None and self._tls_folder.temporary:
            await asyncio.to_thread(shutil.rmtree, self._tls_folder.folder, True)
        self._trace_thread.shutdown(wait=False)
        self._log_thread.shutdown(wait=False)  # the loop's own executor ends with the loop
        self._broker_thread.shutdown(wait=False)

    def join_workers(self) -> None:
        """Wait for the worker threads to end, once the loop has stopped (what asyncio.run does
        at exit), from the thread that ran it: never on the loop, where starting the joining
        thread alone can wait on a crowded machine's scheduler."""
        self._workers.shutdown(wait=True)

    async def _stop_http(self) -> None:
        """End the pages' live streams first, so every response completes, then the server."""
        if self._web_app is not None:
            await _step("end the live streams", self._web_app.state.streams.close(), STOP_STREAMS_S)
        if self._http is None or self._http_task is None:
            return
        self._http.should_exit = True
        done = await _step("stop the web server", asyncio.shield(self._http_task), STOP_WEB_S + 1)
        if not done:
            self._http.force_exit = True
            self._http_task.cancel()


async def _step(what: str, work: Awaitable[Any], limit_s: float) -> bool:
    """Await one step of a stop for at most `limit_s`; an overrun or error is logged, not
    raised, so the stop goes on. True if the step finished in time."""
    try:
        await asyncio.wait_for(work, limit_s)
    except TimeoutError:
        log.warning("stopping: could not %s within %.0f s; going on without it", what, limit_s)
        return False
    except Exception:
        log.exception("stopping: could not %s", what)
        return False
    return True


class WebServer(uvicorn.Server):
    """uvicorn without its own Ctrl-C handling. uvicorn takes SIGINT/SIGTERM while it serves
    and would stop the web first, cutting the pages' streams while the tables still decide;
    the command owns the signals and `Service.stop` stops the web in its turn."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port), port 0 = any free one; OSError saying which
    port is taken, so a failed start is one clear line (uvicorn would log and exit)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as why:
        raise OSError(f"cannot listen on {host}: {why.strerror or why}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(socket.SOMAXCONN)
    except OSError as why:
        sock.close()
        raise OSError(f"the web port {port} on {host} is not free: {why.strerror}") from None
    sock.setblocking(False)
    return sock
