"""The host's MQTT link: ship messages in, commands and game state out (DESIGN.md topics).

paho runs its network loop in its own thread; every message is handed to the asyncio loop
through a bounded queue (`ShipInbox`), so the referee sees one message at a time on one
thread, and a ship (or anyone) sending faster than the loop takes messages costs a fixed
amount of memory: what does not fit is dropped and counted by table, and the tables are
told. The referee depends only on the `ShipMessageSink` callback and `publish`, not on
paho: another transport (a NATS cluster's MQTT listener, a serial bridge) can feed the same
code.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import paho.mqtt.client as mqtt

from bosun.bus import access as broker_access
from bosun.bus.access import BrokerAccess
from bosun.bus.limits import CappedCounter
from shipsense import protocol

log = logging.getLogger(__name__)

INBOX_MESSAGES = 4096  # ship messages waiting for the loop; beyond, new ones are dropped
INBOX_BATCH = 256  # messages handed on in one turn of the loop (pages' requests go between)
INBOX_TURN_S = 0.02  # and for at most this long a turn
DROPS_BY_TABLE = 64  # table names whose dropped messages are counted (oldest forgotten)

# What the host subscribes to: every table's ship topics (shipsense.protocol.SHIP_TOPICS).
SUBSCRIPTIONS = [(f"{protocol.ROOT}/+/{name}", 1) for name in protocol.SHIP_TOPICS]


@dataclass(frozen=True)
class ShipMessage:
    """A message a ship sent: its table id, topic name (`ship/event`, ...) and raw payload."""

    table_id: str
    name: str
    payload: bytes


ShipMessageSink = Callable[[ShipMessage], None]
DropSink = Callable[[str, int], None]  # (table id, how many were dropped), on the loop


class ShipInbox:
    """A bounded queue from a network thread to the asyncio loop.

    `put` (any thread) never blocks and never grows the loop's own queue by more than one
    callback: the loop is woken once, then takes up to INBOX_BATCH messages a turn and
    wakes itself again while any are left, so HTTP requests and timers run in between. A
    message that finds the inbox full is dropped and counted for its table; the count is
    handed to `on_dropped` on the loop with the next batch.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        sink: ShipMessageSink,
        on_dropped: DropSink | None = None,
        capacity: int = INBOX_MESSAGES,
        held: bool = False,
    ) -> None:
        """`held`: keep what arrives (bounded as ever) until `release()`."""
        self._loop = loop
        self._sink = sink
        self._on_dropped = on_dropped
        self.capacity = capacity
        self._messages: deque[ShipMessage] = deque()
        self._lock = threading.Lock()
        self._scheduled = held  # (held: as if a delivery were due, so none is scheduled)
        self._held = held
        self._drops = CappedCounter(DROPS_BY_TABLE)  # since the last batch, under the lock
        self.dropped = 0  # every message dropped, in all
        self.delivered = 0

    def __len__(self) -> int:
        return len(self._messages)

    def release(self) -> None:
        """Deliver what was kept while held, and from now on as it arrives (call on the loop)."""
        with self._lock:
            if not self._held:
                return
            self._held = False
            if not self._messages:
                self._scheduled = False
                return
        self._loop.call_soon(self._deliver)

    def put(self, message: ShipMessage) -> None:
        with self._lock:
            if len(self._messages) >= self.capacity:
                self.dropped += 1
                self._drops.add(message.table_id)
                return
            self._messages.append(message)
            if self._scheduled:
                return
            self._scheduled = True
        with contextlib.suppress(RuntimeError):  # the loop has closed: the service is gone
            self._loop.call_soon_threadsafe(self._deliver)

    def _deliver(self) -> None:
        with self._lock:
            batch = [self._messages.popleft() for _ in range(min(INBOX_BATCH, len(self._messages)))]
            drops, self._drops = self._drops, CappedCounter(DROPS_BY_TABLE)
        deadline_s = time.monotonic() + INBOX_TURN_S
        for taken, message in enumerate(batch, 1):
            try:
                self._sink(message)
            except Exception:  # the sink's bug must not stall every later message
                log.exception("a %s message for %r failed", message.name, message.table_id[:40])
            if time.monotonic() > deadline_s and taken < len(batch):
                with self._lock:  # the rest waits for the next turn, first in the queue
                    self._messages.extendleft(reversed(batch[taken:]))
                batch = batch[:taken]
                break
        self.delivered += len(batch)
        if self._on_dropped is not None:
            for table_id, count in drops.items():
                self._on_dropped(table_id, count)
        with self._lock:
            if not self._messages:
                self._scheduled = False
                return
        self._loop.call_soon(self._deliver)


def send_without_delay(client: mqtt.Client) -> None:
    """Switch Nagle's algorithm off on a connected client's socket.

    MQTT packets are small and paho writes them in pieces; with Nagle on, a QoS 1 round trip
    on Linux waits ~40 ms for delayed ACKs. Call it from `on_connect` (every reconnect).
    """
    sock = client.socket()
    if sock is not None and hasattr(sock, "setsockopt"):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def parse_broker_url(url: str) -> tuple[str, int]:
    """(host, port) of mqtt[s]://[user[:password]@]host[:port]; ValueError saying what is
    wrong (never the password). `bosun.bus.access` has the whole of it, and refuses passwords
    in URLs given on a command line."""
    access = broker_access.parse_broker_url(url, allow_password=True)
    return access.host, access.port


def ship_topic_parts(topic: str) -> tuple[str, str] | None:
    """(table, name) of a ship's topic like `bosun/<table>/ship/event`, else None. The table
    is not checked here: a message for no table of ours (or no valid id) is the router's to
    count and warn about."""
    parts = topic.split("/", 2)
    if len(parts) != 3 or parts[0] != protocol.ROOT or not parts[1]:
        return None
    return (parts[1], parts[2]) if parts[2] in protocol.SHIP_TOPICS else None


class ClientThread:
    """Starts and stops a paho client's network thread from worker threads, in either order.

    Starting a thread waits until it runs and `loop_stop()` joins one: both block, so they
    never run on the event loop. A stop that comes before the start (a table stopped while
    its client was still connecting) wins: the client then never connects.
    """

    def __init__(
        self, client: mqtt.Client, broker: BrokerAccess | tuple[str, int], keepalive_s: int
    ) -> None:
        self.client = client
        access = broker_access.as_access(broker)
        access.configure(client)
        self._address = (access.host, access.port, keepalive_s)
        self._lock = threading.Lock()
        self._stopped = False

    def start(self) -> None:
        with self._lock:
            if self._stopped:
                return
            host, port, keepalive_s = self._address
            self.client.connect_async(host, port, keepalive=keepalive_s)
            self.client.loop_start()

    def stop(self) -> None:
        """A clean goodbye to the broker, then the network thread joined."""
        with self._lock:
            self._stopped = True
            self.client.disconnect()
            self.client.loop_stop()


class MqttBus:
    """One MQTT connection for the whole service, delivering ship messages on the loop."""

    def __init__(
        self,
        url: str,
        loop: asyncio.AbstractEventLoop,
        sink: ShipMessageSink,
        on_dropped: DropSink | None = None,
        access: BrokerAccess | None = None,
        hold: bool = False,
    ) -> None:
        """`hold`: deliver nothing until `inbox.release()`."""
        # `access` carries the password and TLS; `url` alone is an anonymous broker
        self.access = access if access is not None else broker_access.parse_broker_url(url)
        self.host, self.port = self.access.host, self.access.port
        self.url = self.access.url  # never the password: it goes in logs
        self._loop = loop
        # held until the service has made its tables: a retained status that came first
        # would find no table, and the ship never says it again unasked
        self.inbox = ShipInbox(loop, sink, on_dropped, held=hold)
        self._connected = threading.Event()
        self._stopping = False
        self._refused: str | None = None  # why the broker said no, for a clear start error
        self._answered = threading.Event()  # the broker accepted or refused bosun's login
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"bosun-referee-{id(self):x}",
            protocol=mqtt.MQTTv311,
        )
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(min_delay=1, max_delay=10)
        self.client.max_queued_messages_set(10000)
        self.access.configure(self.client)

    def start(self, timeout_s: float = 10.0) -> None:
        self.client.connect_async(self.host, self.port, keepalive=15)
        self.client.loop_start()
        self._answered.wait(timeout_s)
        if not self._connected.is_set():
            self._stopping = True
            self.client.disconnect()
            self.client.loop_stop()
            if self._refused is not None:
                raise ConnectionError(f"the broker at {self.url} refused bosun: {self._refused}")
            raise ConnectionError(f"no MQTT broker answered at {self.url}")

    def stop(self) -> None:
        self._stopping = True
        self.client.disconnect()
        self.client.loop_stop()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None:
        """Thread-safe; queued by paho while the broker is away."""
        self.client.publish(topic, payload, qos=qos, retain=retain)

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self._refused = str(reason_code)
            self._answered.set()
            log.error("the broker at %s refused the connection: %s", self.url, reason_code)
            return
        send_without_delay(client)
        # (Re)subscribe on every connect: a broker restart forgets subscriptions.
        client.subscribe(SUBSCRIPTIONS)
        self._connected.set()
        self._answered.set()
        log.info("connected to the broker at %s", self.url)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self._connected.clear()
        if reason_code != 0 and not self._stopping:
            log.warning("lost the broker (%s); reconnecting", reason_code)

    def _on_message(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        parts = ship_topic_parts(message.topic)
        if parts is None:
            return
        self.inbox.put(ShipMessage(parts[0], parts[1], bytes(message.payload)))
