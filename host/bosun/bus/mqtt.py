"""The host's MQTT link: ship messages in, commands and game state out (DESIGN.md topics).

paho runs its network loop in its own thread; every message is handed to the asyncio loop,
so the referee sees one message at a time on one thread. The referee depends only on the
`ShipMessageSink` callback and `publish`, not on paho: another transport (a NATS cluster's
MQTT listener, a serial bridge) can feed the same code.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlparse

import paho.mqtt.client as mqtt

log = logging.getLogger(__name__)

TOPIC_ROOT = "bosun"
SHIP_SUBTOPICS = ("status", "event", "weights", "trace", "result")


@dataclass(frozen=True)
class ShipMessage:
    """A message a ship sent: its table id, kind (status/event/...) and raw payload."""

    table_id: str
    kind: str
    payload: bytes


ShipMessageSink = Callable[[ShipMessage], None]


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
    """(host, port) of mqtt://host[:port] (tcp:// too); ValueError saying what is wrong."""
    parsed = urlparse(url)
    if parsed.scheme not in ("mqtt", "tcp") or not parsed.hostname:
        raise ValueError(f"broker URL {url!r} must look like mqtt://host:1883")
    try:
        port = parsed.port or 1883
    except ValueError:
        raise ValueError(f"broker URL {url!r} has a bad port (1-65535)") from None
    return parsed.hostname, port


def ship_topic_parts(topic: str) -> tuple[str, str] | None:
    """(table_id, kind) of `bosun/<table>/ship/<kind>`, or None for anything else."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != TOPIC_ROOT or parts[2] != "ship":
        return None
    if parts[3] not in SHIP_SUBTOPICS or not parts[1]:
        return None
    return parts[1], parts[3]


class ClientThread:
    """Starts and stops a paho client's network thread from worker threads, in either order.

    Starting a thread waits until it runs and `loop_stop()` joins one: both block, so they
    never run on the event loop. A stop that comes before the start (a table stopped while
    its client was still connecting) wins: the client then never connects.
    """

    def __init__(self, client: mqtt.Client, host: str, port: int, keepalive_s: int) -> None:
        self.client = client
        self._address = (host, port, keepalive_s)
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

    def __init__(self, url: str, loop: asyncio.AbstractEventLoop, sink: ShipMessageSink) -> None:
        self.host, self.port = parse_broker_url(url)
        self.url = url
        self._loop = loop
        self._sink = sink
        self._connected = threading.Event()
        self._stopping = False
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

    def start(self, timeout_s: float = 10.0) -> None:
        self.client.connect_async(self.host, self.port, keepalive=15)
        self.client.loop_start()
        if not self._connected.wait(timeout_s):
            self.client.loop_stop()
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
            log.error("broker refused the connection: %s", reason_code)
            return
        send_without_delay(client)
        # (Re)subscribe on every connect: a broker restart forgets subscriptions.
        client.subscribe([(f"{TOPIC_ROOT}/+/ship/{kind}", 1) for kind in SHIP_SUBTOPICS])
        self._connected.set()
        log.info("connected to the broker at %s", self.url)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self._connected.clear()
        if reason_code != 0 and not self._stopping:
            log.warning("lost the broker (%s); reconnecting", reason_code)

    def _on_message(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        parts = ship_topic_parts(message.topic)
        if parts is None:
            return
        ship_message = ShipMessage(parts[0], parts[1], bytes(message.payload))
        self._loop.call_soon_threadsafe(self._sink, ship_message)
