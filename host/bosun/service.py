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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
import threading
from collections.abc import Awaitable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import uvicorn

from bosun.bus.broker import MosquittoBroker, find_mosquitto
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
            await self._start_broker()
            self._store = await asyncio.to_thread(Store.open, self.options.db_url)
            self._traces = TraceWriter(self._store, self.clock, thread=self._trace_thread)
            self._writer = EntryWriter(self._store, loop, thread=self._log_thread)
            bus = MqttBus(self.mqtt_url, loop, self._route, self._dropped)
            await asyncio.to_thread(bus.start)
            self._bus = bus
            await self._start_home_assistant(loop)
            for config in self.options.tables:
                self.add_table(config)
            await self._start_http()
        except BaseException:
            await self.stop()
            raise

    def add_table(self, config: TableConfig, fresh: bool = False) -> TableView:
        """Referee `config`'s table: resume its unfinished game, or (`fresh`) start anew."""
        if config.id in self.tables:
            raise ValueError(f"table {config.id!r} is already refereed")
        runtime = TableRuntime(
            config, self._store, self._bus, self.clock, self._traces, self._writer
        )
        self.runtimes[config.id] = runtime
        self.tables[config.id] = view = TableView(runtime)
        if self.observers:
            runtime.link.listener = ObservedShip(runtime, self.observers)
            for observer in self.observers:
                observer.table_added(view)
        if fresh:
            runtime.start_fresh()
        else:
            runtime.resume_or_start()
        return view

    async def _start_home_assistant(self, loop: asyncio.AbstractEventLoop) -> None:
        settings = self.options.home_assistant
        if settings is None or not settings.enabled:
            return
        bridge = HomeAssistant(settings, settings.broker or self.mqtt_url, loop)
        self.home_assistant = bridge
        await bridge.start()
        self.observers.append(bridge)

    @property
    def broker_address(self) -> tuple[str, int]:
        return parse_broker_url(self.mqtt_url)

    async def _start_broker(self) -> None:
        if self.mqtt_url:
            return
        if find_mosquitto():
            self._broker = MosquittoBroker()
            await asyncio.to_thread(self._broker.start)
            self.mqtt_url, self.broker_kind = self._broker.url, "mosquitto (private)"
            return
        from bosun.bus.embedded_broker import EmbeddedBroker

        log.warning("mosquitto is not installed: using the slower in-process broker")
        self._embedded = await EmbeddedBroker().start()
        self.mqtt_url = self._embedded.url
        self.broker_kind = "in-process (install mosquitto for real use)"

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
        if self._broker is not None:
            await _step("stop the broker", asyncio.to_thread(self._broker.close), STOP_BROKER_S)
        if self._embedded is not None:
            await _step("stop the in-process broker", self._embedded.stop(), STOP_BROKER_S)
        self._trace_thread.shutdown(wait=False)
        self._log_thread.shutdown(wait=False)  # the loop's own executor ends with the loop

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
