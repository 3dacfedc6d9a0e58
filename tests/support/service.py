"""Run the real referee service in a background thread, and talk to it as a ship would."""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import paho.mqtt.client as mqtt

from bosun.bus.mqtt import send_without_delay
from bosun.service import Service, ServiceOptions
from bosun.tables import TableConfig

# CEILING_S: a ceiling on waiting for something the service does promptly (start, stop, an
# answer, a table view changing after an input). Its promises are milliseconds
# (bench/README.md); the ceiling only stops a test that hangs: one for the whole suite.
from support.polling import CEILING_S, until

# A ceiling on a whole game played through the service (30-90 s on a quiet machine): it only
# stops a game that hangs; each step of the game has its own wait.
WHOLE_GAME_CEILING_S = 900.0


def service_options(
    broker_url: str, tmp_path: Path, tables: list[TableConfig] | tuple = (), **more: Any
) -> ServiceOptions:
    """A service on the test's broker with a fresh SQLite store and any free web port."""
    return ServiceOptions(
        tables=list(tables),
        db_url=f"sqlite:///{tmp_path / 'bosun.db'}",
        mqtt_url=broker_url,
        http_port=0,
        **more,
    )


@contextmanager
def with_virtual_table(
    options: ServiceOptions,
    *,
    seed: int = 0,
    game: str = "riffraff",
    people: tuple[str, ...] = (),
    firmware: int = 0,
    baseline: bool = False,
    start_timeout_s: float = CEILING_S,
    decision_s: int | None = 0,
) -> Iterator[tuple[RunningService, Any]]:
    """The service with one virtual table, demo-1 (ann, bob, cy, or as `game` seats it): its
    ship or harbour on the broker and its bots. `people` hold their seats from the start
    (their bots never move). Yields once the ship is online, or with `baseline` once the
    detector has learnt the empty ship (a piece in its first half second reads as weight
    leaving: people sit down a while after it boots). `decision_s`: the table's decision
    timer (0, the tests' default: off; None: a virtual table's own, a minute)."""
    from bosun.demo.runner import add_virtual_tables

    with RunningService(options) as service:

        async def start():
            tables = await add_virtual_tables(
                service.service, 1, seed=seed, game=game, firmware=firmware
            )
            for player in people:  # before the bots' first step
                tables[0].claim(player, True)
            if decision_s is not None:  # people in tests think as long as the test needs
                service.service.tables["demo-1"].set_decision_timer(decision_s)
            return tables

        tables = asyncio.run_coroutine_threadsafe(start(), service.loop).result(start_timeout_s)
        try:
            if baseline:
                service.wait_for(
                    "demo-1", lambda s: (s["ship"]["weights"] or {}).get("t_ms", 0) > 2000
                )
            else:
                service.wait_for("demo-1", lambda s: s["ship"]["online"])
            yield service, tables[0]
        finally:
            for table in tables:
                service._on_loop(table.stop(), CEILING_S)


class RunningService:
    """`bosun run` in-process: its own asyncio loop in a thread; `.call(fn)` runs on it.

    Leaving it stops the service as Ctrl-C would (`Service.stop`, bounded step by step), then
    cancels whatever the test left running on the loop, as `asyncio.run` does."""

    def __init__(self, options: ServiceOptions) -> None:
        self.options = options
        self.loop = asyncio.new_event_loop()
        self.service = Service(options)
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> RunningService:
        self._thread.start()
        try:
            self._on_loop(self.service.start(), CEILING_S)
        except BaseException:
            self._end_loop()
            raise
        self.http = httpx.Client(base_url=self.service.http_url, timeout=CEILING_S)
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()
        try:
            self._on_loop(self.service.stop(), CEILING_S)
        finally:
            self._end_loop()

    def _on_loop(self, coro: Any, timeout_s: float) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout_s)

    def _end_loop(self) -> None:
        async def cancel_leftovers() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.loop.shutdown_asyncgens()

        try:
            self._on_loop(cancel_leftovers(), CEILING_S)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(CEILING_S)
            self.service.join_workers()
            self.loop.close()

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run `fn` on the service's loop (where the referees live) and return its result."""

        async def run() -> Any:
            return fn()

        return self._on_loop(run(), CEILING_S)

    @property
    def key(self) -> str:
        return self.options.operator_key

    def seats(self, table_id: str) -> dict[str, str]:
        response = self.http.get(f"/api/tables/{table_id}/seats", params={"key": self.key})
        response.raise_for_status()
        return response.json()["seats"]

    def table(self, table_id: str) -> dict[str, Any]:
        return self.http.get(f"/api/tables/{table_id}").json()

    def wait_for(
        self, table_id: str, condition: Callable[[dict], bool], timeout_s: float = CEILING_S
    ) -> dict:
        """Poll the public table view until `condition` holds (or fail with the last view)."""
        return until(lambda: self.table(table_id), condition, timeout_s)

    def act(self, token: str, **request: Any) -> httpx.Response:
        """A seat's request, as its page sends it; the answer as it came."""
        return self.http.post(f"/api/seat/{token}", json=request)

    def play(self, token: str, **request: Any) -> dict[str, Any]:
        """A seat's request that must be accepted; the seat's snapshot after it."""
        response = self.act(token, **request)
        assert response.status_code == 200, response.text
        return response.json()


@contextmanager
def online_ship(service: RunningService, broker, table_id: str = "t1") -> Iterator[BrokerShip]:
    """A test ship for `table_id` on `broker`, once the service sees it online."""
    ship = BrokerShip(broker.host, broker.port, table_id)
    try:
        service.wait_for(table_id, lambda s: s["ship"]["online"])
        yield ship
    finally:
        ship.close()


class BrokerShip:
    """A ship on the broker as the firmware behaves: birth/LWT, events with (boot, seq)."""

    def __init__(
        self,
        broker_host: str,
        broker_port: int,
        table_id: str,
        boot: str = "b1",
        login: tuple[str, str] | None = None,
    ):
        self.table_id = table_id
        self.boot = boot
        self.seq = 0
        self.commands: queue.Queue = queue.Queue()
        self.sent: dict[int, dict] = {}  # its outbox: every event it numbered, by seq
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.will_set(self.topic("ship/status"), b'{"online":false}', qos=1, retain=True)
        self.client.on_message = lambda _c, _u, m: self._command(json.loads(m.payload))
        self.client.on_connect = lambda client, *_: send_without_delay(client)
        if login is not None:
            self.client.username_pw_set(*login)
        self.client.connect(broker_host, broker_port, keepalive=5)
        self.client.subscribe(self.topic("ship/cmd"), qos=1)
        self.client.loop_start()
        self.publish("ship/status", {"online": True, "fw": "test", "boot": boot}, retain=True)

    def topic(self, name: str) -> str:
        return f"bosun/{self.table_id}/{name}"

    def _command(self, command: dict) -> None:
        """As the firmware does: `status` says how many events it numbered, `resend` sends
        again what its outbox holds (on paho's thread: nothing here waits)."""
        if command.get("cmd") == "status":
            status = {"online": True, "fw": "test", "boot": self.boot, "seq": self.seq}
            self.client.publish(self.topic("ship/status"), json.dumps(status), 1, retain=True)
        elif command.get("cmd") == "resend" and command.get("boot") == self.boot:
            for seq in range(command["from"], command["to"] + 1):
                if seq in self.sent:
                    self.client.publish(self.topic("ship/event"), json.dumps(self.sent[seq]), 1)
        self.commands.put(command)

    def publish(self, name: str, message: Any, retain: bool = False, raw: bytes | None = None):
        payload = raw if raw is not None else json.dumps(message).encode()
        self.client.publish(self.topic(name), payload, qos=1, retain=retain).wait_for_publish(5)

    def event(self, kind: str, t_ms: float, seq: int | None = None, **fields: Any) -> dict:
        if seq is None:
            self.seq += 1
            seq = self.seq
        message = {"type": kind, "t_ms": t_ms, "decided_ms": t_ms, "boot": self.boot, "seq": seq}
        message.update(fields)
        self.sent[seq] = message
        self.publish("ship/event", message)
        return message

    def next_led(self, timeout_s: float = CEILING_S, show: str | None = None) -> dict:
        deadline = time.monotonic() + timeout_s
        while True:
            command = self.commands.get(timeout=max(0.01, deadline - time.monotonic()))
            if command.get("cmd") == "led" and (show is None or command["show"] == show):
                return command

    def drop_connection(self) -> None:
        """Vanish without a goodbye, so the broker sends the last will."""
        self.client._sock.close() if self.client._sock else None  # noqa: SLF001

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
