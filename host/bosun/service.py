"""`bosun run`: the broker, the store, a referee for every table, and the HTTP API, together.

Everything runs on one asyncio loop: ship messages arrive from the MQTT thread through
`call_soon_threadsafe`, HTTP requests are served by uvicorn on the same loop, so each table's
referee sees one input at a time.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import Counter
from dataclasses import dataclass, field

import uvicorn

from bosun.bus.broker import MosquittoBroker, find_mosquitto, free_port
from bosun.bus.mqtt import MqttBus, ShipMessage, parse_broker_url
from bosun.referee.clock import LoopClock
from bosun.referee.runtime import TableRuntime
from bosun.referee.traces import TraceWriter
from bosun.referee.view import TableView
from bosun.store import Store
from bosun.tables import TableConfig
from shipsense import protocol

log = logging.getLogger(__name__)


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


class Service:
    """The running referee service; `await start()`, then `await stop()`."""

    def __init__(self, options: ServiceOptions) -> None:
        self.options = options
        self.tables: dict[str, TableView] = {}  # what the web and the commands see
        self.runtimes: dict[str, TableRuntime] = {}  # the tables themselves (and tests)
        self.broker_kind = "external"
        self.mqtt_url: str | None = options.mqtt_url
        self.http_url: str | None = None
        self.foreign_messages: Counter[str] = Counter()
        self._broker: MosquittoBroker | None = None
        self._embedded = None
        self._bus: MqttBus | None = None
        self._store: Store | None = None
        self._traces: TraceWriter | None = None
        self._http: uvicorn.Server | None = None
        self._http_task: asyncio.Task | None = None
        self.clock: LoopClock | None = None

    @property
    def store(self) -> Store:
        return self._store

    @property
    def bus(self) -> MqttBus:
        return self._bus

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.clock = LoopClock(loop, self.options.time_scale)
        await self._start_broker()
        self._store = Store.open(self.options.db_url)
        self._traces = TraceWriter(self._store, self.clock)
        self._bus = MqttBus(self.mqtt_url, loop, self._route)
        await loop.run_in_executor(None, self._bus.start)
        for config in self.options.tables:
            self.add_table(config)
        await self._start_http()

    def add_table(self, config: TableConfig, fresh: bool = False) -> TableView:
        """Referee `config`'s table: resume its unfinished game, or (`fresh`) start anew."""
        if config.id in self.tables:
            raise ValueError(f"table {config.id!r} is already refereed")
        runtime = TableRuntime(config, self._store, self._bus, self.clock, self._traces)
        self.runtimes[config.id] = runtime
        self.tables[config.id] = view = TableView(runtime)
        if fresh:
            runtime.start_fresh()
        else:
            runtime.resume_or_start()
        return view

    @property
    def broker_address(self) -> tuple[str, int]:
        return parse_broker_url(self.mqtt_url)

    async def _start_broker(self) -> None:
        if self.mqtt_url:
            return
        if find_mosquitto():
            self._broker = MosquittoBroker().start()
            self.mqtt_url, self.broker_kind = self._broker.url, "mosquitto (private)"
            return
        from bosun.bus.embedded_broker import EmbeddedBroker

        log.warning("mosquitto is not installed: using the slower in-process broker")
        self._embedded = await EmbeddedBroker().start()
        self.mqtt_url = self._embedded.url
        self.broker_kind = "in-process (install mosquitto for real use)"

    async def _start_http(self) -> None:
        from bosun.web.app import create_app

        app = create_app(
            self.tables,
            self.options.operator_key,
            store=self._store,
            tables_file=self.options.tables_file,
        )
        port = self.options.http_port or free_port(self.options.http_host)
        config = uvicorn.Config(
            app,
            host=self.options.http_host,
            port=port,
            log_level="warning",
            lifespan="off",
            access_log=False,
        )
        self._http = uvicorn.Server(config)
        self._http.install_signal_handlers = lambda: None  # the command owns Ctrl-C
        self._http_task = asyncio.create_task(self._http.serve())
        while not self._http.started:
            if self._http_task.done():
                self._http_task.result()  # raises the reason (e.g. the port is taken)
                raise OSError(f"the web server on port {port} stopped at once")
            await asyncio.sleep(0.01)  # uvicorn offers no started event to wait on
        self.http_url = f"http://{self.options.http_host}:{port}"

    def _route(self, message: ShipMessage) -> None:
        runtime = self.runtimes.get(message.table_id)
        if runtime is None:
            self.foreign_messages[message.table_id] += 1
            if self.foreign_messages[message.table_id] == 1:
                try:
                    protocol.check_table_id(message.table_id)
                    why = "no such table here"
                except protocol.ProtocolError as problem:
                    why = str(problem)
                log.warning("ignoring messages for table %r: %s", message.table_id[:40], why)
            return
        try:
            runtime.link.receive(message.name, message.payload)
        except Exception:  # one table's bug must not stop the others
            log.exception("table %s failed on a %s message", message.table_id, message.name)
            runtime.report_failure(f"a {message.name} message from the ship")

    async def stop(self) -> None:
        for runtime in self.runtimes.values():
            runtime.close()
        if self._traces is not None:
            self._traces.close()
        if self._http is not None:
            self._http.should_exit = True
            await self._http_task
        if self._bus is not None:
            self._bus.stop()
        if self._store is not None:
            self._store.close()
        if self._broker is not None:
            self._broker.close()
        if self._embedded is not None:
            await self._embedded.stop()
