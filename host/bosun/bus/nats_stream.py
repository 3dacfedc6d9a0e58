"""The cluster's transport: ship messages from a NATS JetStream stream, commands back on NATS.

Ships keep speaking MQTT, to any NATS server's MQTT listener; NATS maps the topic
`bosun/t1/ship/event` to the subject `bosun.t1.ship.event`. The stream `STREAM` keeps every
ship message (bounded by count, bytes and age; the oldest go first), so a referee that takes
a table over reads what the ship sent while nobody refereed it: `follow(table)` delivers the
table's messages from its ship's last status on (the status names the boot, without which the
ship link refuses its events; what the store already holds of it is dropped there as a
duplicate, and what the stream no longer holds the link asks the ship for again).

Commands go out as plain NATS messages on `bosun.<table>.ship.cmd`, which NATS hands to the
ship's MQTT subscription (at QoS 0: a NATS publisher has no MQTT session; the link asks again
for what it misses). Everything runs on the service's loop; every queue is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from nats.aio.client import Client as NATS
from nats.errors import SlowConsumerError
from nats.js.api import ConsumerConfig, DeliverPolicy, DiscardPolicy, StorageType, StreamConfig
from nats.js.errors import BadRequestError, NotFoundError, ServiceUnavailableError

from bosun.bus.limits import LogThrottle
from bosun.bus.mqtt import ShipMessage, ShipMessageSink
from shipsense import protocol

log = logging.getLogger(__name__)
FIRST = asyncio.FIRST_COMPLETED

STREAM = "BOSUN_SHIPS"
STREAM_SUBJECTS = [f"{protocol.ROOT}.*.ship.>"]  # the commands too: one filter a table
STREAM_MAX_MESSAGES = 1_000_000
STREAM_MAX_BYTES = 256 * 1024 * 1024
STREAM_MAX_AGE_S = 24 * 3600.0
TABLE_PENDING_MESSAGES = 4096  # a table's messages waiting for the loop (nats-py's queue)
TABLE_PENDING_BYTES = 8 * 1024 * 1024
OUTBOX_MESSAGES = 4096  # commands waiting to be written to NATS; beyond, dropped and logged
DEFAULT_PORT = 4222
MAX_SERVERS = 16
STREAM_REQUEST_S = 5.0  # one JetStream request's answer
# A table's consumer says it is alive this often when idle. nats-py makes a new one after two
# heartbeats missed (the server that held it died) and tries again as often: at its default
# of 5 s a game stood still for up to 21 s after a NATS node was killed, and over a minute on
# a busy machine while JetStream elected new leaders (bench/README, "Cluster failover")
FOLLOW_HEARTBEAT_S = 1.0
STREAM_READY_S = 30.0  # how long a starting referee waits for JetStream to make its stream
REPLICAS = 3  # copies of the stream in a cluster of three servers or more
STREAM_NAME_IN_USE = 10058  # JetStream's error code: a stream of that name, other settings


@dataclass(frozen=True)
class NatsAccess:
    """Where the cluster's NATS servers are and how bosun logs in (never anonymously)."""

    servers: tuple[str, ...]
    user: str
    password: str = field(repr=False)

    @property
    def shown(self) -> str:
        return ",".join(self.servers)


def parse_cluster_urls(text: str, password: str | None) -> NatsAccess:
    """`nats://USER@host:4222[,nats://host2:4222...]` and the password (from a file, never the
    command line); ValueError saying what is wrong."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items or len(items) > MAX_SERVERS:
        raise ValueError(f"--cluster needs 1 to {MAX_SERVERS} NATS URLs, nats://USER@host:port")
    servers, users = [], set()
    for item in items:
        try:
            parts = urlsplit(item)
            port = parts.port or DEFAULT_PORT
        except ValueError as why:
            raise ValueError(f"{item!r} is not a NATS URL: {why}") from None
        if parts.scheme not in ("nats", "tls") or not parts.hostname:
            raise ValueError(f"{item!r} is not a NATS URL like nats://USER@host:{DEFAULT_PORT}")
        if parts.password is not None:
            raise ValueError("no password in a URL on the command line: --cluster-password-file")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"{item!r}: a NATS URL has no path or query")
        if parts.username:
            users.add(parts.username)
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        servers.append(f"{parts.scheme}://{host}:{port}")
    if len(users) != 1:
        raise ValueError("name bosun's NATS user once, the same in every URL: nats://USER@host")
    if not password:
        raise ValueError("the NATS servers must know bosun: give --cluster-password-file")
    return NatsAccess(tuple(servers), users.pop(), password)


def subject(topic: str) -> str:
    """The NATS subject of an MQTT topic of ours (`bosun/t1/ship/cmd` -> `bosun.t1.ship.cmd`)."""
    parts = topic.split("/")
    if any(not part or any(c in part for c in ". *>\t\r\n") for part in parts):
        raise ValueError(f"topic {topic[:80]!r} has no NATS subject")
    return ".".join(parts)


def ship_subject_parts(name: str) -> tuple[str, str] | None:
    """(table, topic name) of a ship's subject like `bosun.t1.ship.event`, else None."""
    parts = name.split(".")
    if len(parts) != 4 or parts[0] != protocol.ROOT or parts[2] != "ship":
        return None
    topic_name = f"ship/{parts[3]}"
    return (parts[1], topic_name) if topic_name in protocol.SHIP_TOPICS else None


class NatsBus:
    """One NATS connection for the referee: tables followed on the stream, commands out."""

    def __init__(
        self,
        access: NatsAccess,
        sink: ShipMessageSink,
        on_lost: Callable[[str], None] | None = None,
    ) -> None:
        self.access = access
        self.url = access.shown
        self._sink = sink
        self._on_lost = on_lost  # the connection is gone for good (nats-py gave up)
        self._nc = None
        self._js = None
        self._follows: dict[str, Any] = {}  # table id -> its JetStream subscription
        self._outbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(OUTBOX_MESSAGES)
        self._sender: asyncio.Task | None = None
        self._warnings = LogThrottle(log)
        self.dropped_commands = 0
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_error: str | None = None  # what nats-py said last, for a failed start
        self._refused = asyncio.Event()  # the servers refused bosun's login while starting

    async def start(self, timeout_s: float = 10.0) -> None:
        """Connect and make sure the stream exists; ConnectionError saying why not."""
        self._loop = asyncio.get_running_loop()
        self._nc = NATS()
        try:
            connecting = asyncio.ensure_future(
                self._nc.connect(
                    servers=list(self.access.servers),
                    user=self.access.user,
                    password=self.access.password,
                    name="bosun-referee",
                    connect_timeout=2,
                    reconnect_time_wait=0.5,
                    max_reconnect_attempts=-1,  # NATS going away later: wait for it
                    allow_reconnect=True,
                    error_cb=self._error,
                    closed_cb=self._closed,
                    pending_size=4 * 1024 * 1024,
                )
            )
            refused = asyncio.ensure_future(self._refused.wait())
            await asyncio.wait({connecting, refused}, timeout=timeout_s, return_when=FIRST)
            refused.cancel()
            if not connecting.done():  # a wrong login is not retried into a long wait
                connecting.cancel()
                raise ConnectionError(self._last_error or f"no answer within {timeout_s:g} s")
            connecting.result()
            self._js = self._nc.jetstream(timeout=STREAM_REQUEST_S)
            deadline = time.monotonic() + STREAM_READY_S
            while True:  # a cluster that just started elects its JetStream leaders first
                try:
                    await self._add_stream()
                    break
                except (
                    TimeoutError,
                    ServiceUnavailableError,
                ):  # nats-py's timeouts are TimeoutError
                    if time.monotonic() > deadline:
                        raise
        except Exception as why:  # nats-py raises many kinds; each means "no cluster here"
            await self.stop()
            said = str(why) or self._last_error or f"no answer within {timeout_s:g} s"
            raise ConnectionError(f"no NATS JetStream at {self.url}: {said}") from None
        self._sender = asyncio.create_task(self._send_commands())

    async def _add_stream(self) -> None:
        """The ships' stream, kept on three servers when the cluster has three or more (one
        server lost loses no message); one made before, by another referee, is used as it is."""
        servers = len(self._nc.servers)
        config = StreamConfig(
            name=STREAM,
            subjects=STREAM_SUBJECTS,
            storage=StorageType.FILE,
            max_msgs=STREAM_MAX_MESSAGES,
            max_bytes=STREAM_MAX_BYTES,
            max_age=STREAM_MAX_AGE_S,
            discard=DiscardPolicy.OLD,
            num_replicas=REPLICAS if servers >= REPLICAS else 1,
        )
        try:
            await self._js.add_stream(config)
        except BadRequestError as why:
            if why.err_code != STREAM_NAME_IN_USE:
                raise
            log.warning("the stream %s exists with other settings: using it as it is", STREAM)

    @property
    def connected(self) -> bool:
        return self._nc is not None and self._nc.is_connected

    async def follow(self, table_id: str) -> None:
        """Deliver `table_id`'s ship messages to the sink, from its ship's last status on."""
        protocol.check_table_id(table_id)
        if table_id in self._follows:
            return
        start = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
        try:
            last = await self._js.get_last_msg(STREAM, f"{protocol.ROOT}.{table_id}.ship.status")
            start = ConsumerConfig(
                deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=last.seq
            )
        except NotFoundError:
            pass  # the ship never said a word the stream still holds: all it holds
        self._follows[table_id] = await self._js.subscribe(
            f"{protocol.ROOT}.{table_id}.ship.>",
            stream=STREAM,  # named: no trip to ask which stream holds the subject
            cb=self._deliver,
            ordered_consumer=True,  # in stream order; a gap (a dropped message) restarts it there
            idle_heartbeat=FOLLOW_HEARTBEAT_S,
            config=start,
            pending_msgs_limit=TABLE_PENDING_MESSAGES,
            pending_bytes_limit=TABLE_PENDING_BYTES,
        )

    async def unfollow(self, table_id: str) -> None:
        sub = self._follows.pop(table_id, None)
        if sub is not None:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()

    async def _deliver(self, msg) -> None:
        parts = ship_subject_parts(msg.subject)
        if parts is None:
            return  # our own commands, kept in the stream beside the ship's messages
        try:
            self._sink(ShipMessage(parts[0], parts[1], bytes(msg.data)))
        except Exception:  # the sink's bug must not stop the table's later messages
            log.exception("a %s message for %r failed", parts[1], parts[0])

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None:
        """Thread-safe. Retained: NATS keeps no MQTT retained message for a NATS publisher;
        the pages read state from the referee, not from the broker."""
        name = subject(topic)
        if self._loop is not None and not _on_loop(self._loop):
            self._loop.call_soon_threadsafe(self._queue, name, payload)
        else:
            self._queue(name, payload)

    def _queue(self, name: str, payload: bytes) -> None:
        try:
            self._outbox.put_nowait((name, payload))
        except asyncio.QueueFull:
            self.dropped_commands += 1
            self._warnings.warning(
                _now_ms(), "the NATS outbox is full: dropping a message to %s", name
            )

    async def _send_commands(self) -> None:
        while True:
            name, payload = await self._outbox.get()
            try:
                await self._nc.publish(name, payload)
            except Exception as why:  # noqa: BLE001 - gone or full: logged, the game goes on
                self.dropped_commands += 1
                self._warnings.warning(_now_ms(), "could not publish to %s: %s", name, why)

    async def _error(self, error: Exception) -> None:
        self._last_error = str(error)[:200] or type(error).__name__
        if not self.connected and "authorization" in self._last_error.lower():
            self._refused.set()
        if isinstance(error, SlowConsumerError):
            self._warnings.warning(
                _now_ms(), "a table's messages came faster than the loop took them"
            )
            return
        if not self._stopping:
            self._warnings.warning(_now_ms(), "NATS: %s", error)

    async def _closed(self) -> None:
        if not self._stopping and self._on_lost is not None:
            self._on_lost("the NATS connection closed")

    async def stop(self) -> None:
        self._stopping = True
        if self._sender is not None:
            # what the tables decided last goes out before the connection closes
            with contextlib.suppress(Exception):
                while not self._outbox.empty() and self.connected:
                    name, payload = self._outbox.get_nowait()
                    await self._nc.publish(name, payload)
            self._sender.cancel()
        for table_id in list(self._follows):
            await self.unfollow(table_id)
        if self._nc is not None:
            with contextlib.suppress(Exception):
                await self._nc.drain()
            with contextlib.suppress(Exception):
                await self._nc.close()


def _now_ms() -> float:
    return time.monotonic() * 1000


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
