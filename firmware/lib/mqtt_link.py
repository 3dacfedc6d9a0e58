"""The MQTT link to the host: never blocks the sample loop, never loses an event.

Why a small client of our own rather than umqtt or mqtt_as:
- umqtt.simple (frozen into the ESP32 images) blocks in connect() and in every QoS 1
  publish until the PUBACK, sends no keepalive pings (so the broker never notices a dead
  ship and the last will never fires) and does not resubscribe after a reconnect;
  umqtt.robust only retries around it. A blocked publish would stall the 80 SPS loop.
- mqtt_as is the model of a reliable link (keepalive, reconnect, QoS 1 retransmission)
  but it is built on asyncio tasks and manages WiFi itself; our loop is paced by the HX711
  and does network work only in the slack between conversions.
So this link is a state machine polled from the sample loop: a non-blocking socket, each
packet written in one piece (TCP_NODELAY set too, against the 40 ms delayed-ACK stall),
at most MAX_IN_FLIGHT QoS 1 publishes unacknowledged, keepalive pings, reconnects with
exponential backoff, a clean session with the command subscription made again on every
connect, the retained birth on `ship/status` and the retained last will `{"online":false}`.
Events live in the outbox until the broker acknowledges them; after a reconnect whatever
was in flight is sent again (the host drops duplicates by boot and seq).

With `tls` (an `mqtts://` URL) the socket is wrapped once TCP is up, without a blocking
handshake: mbedTLS does the handshake a step at a time inside the link's own reads and writes
(which return None meanwhile). The broker's certificate must be signed by `ca` (the PEM of
bosun's CA, config.json `mqtt.ca`) and name the address in the URL; there is no fallback to
plain MQTT and no unverified TLS.
"""

import errno
import select
import socket
import time

import mqttlite

from shipsense import protocol

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    import ssl
    from collections.abc import Callable

    from wifi import Wifi

    from shipcore.outbox import Outbox

BACKOFF_FIRST_MS = 250
CONNECT_TIMEOUT_MS = 5000
MAX_IN_FLIGHT = 10
MAX_OUT_BYTES = 8192
READ_BYTES = 1024
IPPROTO_TCP = 6
TCP_NODELAY = 1


class MqttLink:
    """Keeps one MQTT session up; `service(now_ms)` does a little work and returns quickly."""

    def __init__(
        self,
        host: str,
        port: int,
        table: str,
        client_id: str,
        outbox: "Outbox",
        on_command: "Callable[[bytes], object]",
        keepalive_s: int = 15,
        backoff_max_s: "int | float" = 15,
        user: "str | None" = None,
        password: "str | None" = None,
        wifi: "Wifi | None" = None,
        log: "Callable[[str], object]" = print,
        tls: bool = False,
        ca: "str | None" = None,
    ) -> None:
        self.host = host
        self.tls = tls
        self.ca = ca
        self._ssl_context: ssl.SSLContext | None = None
        self.port = port
        self.client_id = client_id
        self.outbox = outbox
        self.on_command = on_command
        self.keepalive_ms = keepalive_s * 1000
        self.keepalive_s = keepalive_s
        self.backoff_max_ms = int(backoff_max_s * 1000)
        self.user = user
        self.password = password
        self.wifi = wifi
        self.log = log
        self.topics: dict[str, str] = {}
        for name in protocol.SHIP_TOPICS:
            self.topics[name] = protocol.topic(table, name)
        self.cmd_topic = protocol.topic(table, protocol.CMD)
        self.state = "down"
        self.sock = None
        self.poller = select.poll()
        self.parser = mqttlite.Parser()
        self._out: list[bytes] = []
        self._out_pos = 0
        self._out_bytes = 0
        self._in_flight: dict[int, list] = {}
        self._control_ids: dict[int, bool] = {}
        self._packet_id = 0
        self._address: tuple | None = None
        self.backoff_ms = BACKOFF_FIRST_MS
        now = time.ticks_ms()
        self.next_attempt_ms = now
        self.state_ms = now
        self.last_rx_ms = now
        self.last_tx_ms = now
        self.ping_sent_ms: int | None = None
        self.status_payload: bytes | None = None
        self.on_connect: Callable[[], object] | None = (
            None  # called once connected: the ship sends a fresh birth
        )
        self.connects = 0
        self.drops = 0
        self.dropped_qos0 = 0
        self.last_error: str | None = None
        self._last_logged: str | None = None

    @property
    def up(self) -> bool:
        return self.state == "up"

    def describe(self) -> str:
        if self.up:
            return f"connected to {self.host}:{self.port}"
        return f"not connected to {self.host}:{self.port} ({self.last_error or self.state})"

    # --- outgoing -------------------------------------------------------------------------

    def set_status(self, payload: bytes) -> None:
        """The retained status (also the birth on every connect); sent now if connected."""
        self.status_payload = payload
        if self.up:
            self._publish_status(payload)

    def _publish_status(self, payload: bytes) -> None:
        # Acknowledged, but not kept across a reconnect: the birth is sent on every connect.
        packet_id = self._new_id()
        self._control_ids[packet_id] = True
        self._queue(mqttlite.publish(self.topics[protocol.STATUS], payload, 1, True, packet_id))

    def publish(self, name: str, payload: bytes) -> bool:
        """A QoS 0 message (weights, trace): sent if connected and not backed up, else dropped."""
        if not self.up or self._out_bytes > MAX_OUT_BYTES:
            self.dropped_qos0 += 1
            return False
        self._queue(mqttlite.publish(self.topics[name], payload))
        return True

    def _new_id(self) -> int:
        self._packet_id = self._packet_id % 65535 + 1
        while self._packet_id in self._in_flight or self._packet_id in self._control_ids:
            self._packet_id = self._packet_id % 65535 + 1
        return self._packet_id

    def _queue(self, packet: bytes) -> None:
        self._out.append(packet)
        self._out_bytes += len(packet)

    # --- the state machine ----------------------------------------------------------------

    def service(self, now_ms: int) -> bool:
        """Advance the connection; True if it did any work (so the loop does not sleep)."""
        if self.wifi is not None and not self.wifi.up:
            if self.state != "down":
                self._drop(now_ms, "WiFi is down")
            return False
        if self.state == "down":
            if time.ticks_diff(now_ms, self.next_attempt_ms) >= 0:
                self._open(now_ms)
                return True
            return False
        if self.state != "up" and time.ticks_diff(now_ms, self.state_ms) > CONNECT_TIMEOUT_MS:
            self._drop(now_ms, f"no answer from {self.host}:{self.port} within 5 s")
            return True
        worked = False
        for _obj, event in self.poller.poll(0):
            if self.state == "connecting":
                if event & (select.POLLERR | select.POLLHUP):
                    self._drop(now_ms, "the broker refused the connection")
                    return True
                if event & select.POLLOUT:
                    if self.tls and not self._start_tls(now_ms):
                        return True
                    self._send_connect(now_ms)
                    worked = True
                continue
            if event & select.POLLIN:
                worked = self._receive(now_ms) or worked
                if self.state == "down":
                    return True
            elif event & (select.POLLERR | select.POLLHUP):
                self._drop(now_ms, "the connection broke")
                return True
        if self.state == "up":
            worked = self._send_events(now_ms) or worked
            self._keepalive(now_ms)
        if self._out and self.state != "connecting":
            worked = self._flush(now_ms) or worked
        return worked

    def _open(self, now_ms: int) -> None:
        try:
            if self._address is None:
                # DNS blocks; an IP address in mqtt.url avoids it. Resolved once a boot.
                self._address = socket.getaddrinfo(self.host, self.port)[0][-1]
            sock = socket.socket()
            sock.setblocking(False)
            try:  # noqa: SIM105 (no contextlib on the ESP32)
                sock.setsockopt(IPPROTO_TCP, TCP_NODELAY, 1)
            except (OSError, TypeError, ValueError):
                pass  # not every port offers it; packets leave in one write anyway
            try:
                sock.connect(self._address)
            except OSError as error:
                if error.args[0] not in (errno.EINPROGRESS, errno.EAGAIN):
                    sock.close()
                    raise
        except OSError as error:
            self._address = None
            self._drop(now_ms, f"cannot reach {self.host}:{self.port}: {error}")
            return
        self.sock = sock
        self.poller.register(sock, select.POLLOUT)
        self.state = "connecting"
        self.state_ms = now_ms

    def _tls_context(self, ca: str) -> "ssl.SSLContext":
        """The client context verifying against `ca` (bosun's CA); made once a boot."""
        if self._ssl_context is None:
            import binascii
            import ssl

            lines = [line.strip() for line in ca.split("\n")]
            body = "".join(line for line in lines if line and not line.startswith("-----"))
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(cadata=binascii.a2b_base64(body))
            self._ssl_context = context
        return self._ssl_context

    def _start_tls(self, now_ms: int) -> bool:
        """Wrap the connected socket in TLS; False (and the link dropped) if it cannot be."""
        if not self.ca:
            self._drop(now_ms, "mqtts:// needs mqtt.ca (bosun ship add --tls writes it)")
            return False
        sock = self.sock
        assert isinstance(sock, socket.socket)  # connecting: the TCP socket _open made
        try:
            context = self._tls_context(self.ca)
            self.poller.unregister(sock)
            self.sock = context.wrap_socket(
                sock, server_hostname=self.host, do_handshake_on_connect=False
            )
        except (OSError, ValueError) as error:
            self._drop(now_ms, f"TLS could not start: {error}")
            return False
        self.poller.register(self.sock, select.POLLIN)
        return True

    def _send_connect(self, now_ms: int) -> None:
        self.poller.modify(self.sock, select.POLLIN)
        self.state = "connack"
        self.state_ms = now_ms
        self._queue(
            mqttlite.connect(
                self.client_id,
                self.keepalive_s,
                self.topics[protocol.STATUS],
                protocol.LWT_PAYLOAD,
                self.user,
                self.password,
            )
        )
        self._flush(now_ms)

    def _flush(self, now_ms: int) -> bool:
        wrote = False
        while self._out:
            assert self.sock is not None  # _drop, which closes the socket, empties _out
            packet = self._out[0]
            try:
                n = self.sock.send(memoryview(packet)[self._out_pos :])
            except OSError as error:
                if error.args[0] == errno.EAGAIN:
                    break
                self._drop(now_ms, f"sending failed: {error}")
                return True
            except ValueError as error:  # MicroPython's ssl: a refused certificate
                self._drop(now_ms, "TLS refused the broker: " + str(error).strip())
                return True
            if not n:
                break
            wrote = True
            self.last_tx_ms = now_ms
            self._out_pos += n
            if self._out_pos >= len(packet):
                self._out.pop(0)
                self._out_bytes -= len(packet)
                self._out_pos = 0
        if self.sock is not None:
            self.poller.modify(self.sock, select.POLLIN | (select.POLLOUT if self._out else 0))
        return wrote

    def _receive(self, now_ms: int) -> bool:
        assert self.sock is not None  # polled: the socket is registered while it is open
        try:
            data = self.sock.recv(READ_BYTES)
        except OSError as error:
            if error.args[0] == errno.EAGAIN:
                return False
            self._drop(now_ms, f"receiving failed: {error}")
            return True
        except ValueError as error:  # MicroPython's ssl: a refused certificate
            self._drop(now_ms, "TLS refused the broker: " + str(error).strip())
            return True
        if data is None:  # TLS: the handshake or a record is not complete yet
            return False
        if not data:
            self._drop(now_ms, "the broker closed the connection")
            return True
        self.last_rx_ms = now_ms
        self.parser.feed(data)
        try:
            while self.state != "down":
                packet = self.parser.next()
                if packet is None:
                    break
                self._handle(packet, now_ms)
        except mqttlite.MqttError as error:
            self._drop(now_ms, f"bad packet from the broker: {error}")
        return True

    def _handle(self, packet: "tuple[int, int, bytes]", now_ms: int) -> None:
        kind, flags, body = packet
        if kind == mqttlite.CONNACK:
            code = body[1] if len(body) >= 2 else 255
            if code != 0:
                reason = mqttlite.CONNACK_REASONS.get(code, f"CONNACK code {code}")
                self._drop(now_ms, reason)
                return
            self._connected(now_ms)
        elif kind == mqttlite.PUBACK:
            packet_id = mqttlite.packet_id_of(body)
            entry = self._in_flight.pop(packet_id, None)
            if entry is not None:
                self.outbox.delivered(entry)
            else:
                self._control_ids.pop(packet_id, None)
        elif kind == mqttlite.PUBLISH:
            topic, payload, qos, packet_id = mqttlite.parse_publish(flags, body)
            if qos:
                self._queue(mqttlite.puback(packet_id))
            if topic == self.cmd_topic:
                self.on_command(bytes(payload))
        elif kind == mqttlite.SUBACK:
            packet_id = mqttlite.packet_id_of(body)
            self._control_ids.pop(packet_id, None)
            if len(body) >= 3 and body[2] == 0x80:
                self.last_error = "the broker refused the command subscription"
                self.log("mqtt: " + self.last_error)
        elif kind == mqttlite.PINGRESP:
            self.ping_sent_ms = None

    def _connected(self, now_ms: int) -> None:
        self.state = "up"
        self.state_ms = now_ms
        self.backoff_ms = BACKOFF_FIRST_MS
        self.connects += 1
        self.last_error = None
        self.ping_sent_ms = None
        packet_id = self._new_id()
        self._control_ids[packet_id] = True
        self._queue(mqttlite.subscribe(packet_id, self.cmd_topic, 1))
        if self.on_connect is not None:
            self.on_connect()
        elif self.status_payload is not None:
            self._publish_status(self.status_payload)
        self._last_logged = None
        self.log(f"mqtt: connected to {self.host}:{self.port} as {self.client_id}")

    def _send_events(self, now_ms: int) -> bool:
        sent = False
        while len(self._in_flight) < MAX_IN_FLIGHT and self._out_bytes < MAX_OUT_BYTES:
            entry = self.outbox.next_waiting()
            if entry is None:
                break
            packet_id = self._new_id()
            self._queue(mqttlite.publish(self.topics[entry[1]], entry[2], 1, False, packet_id))
            self._in_flight[packet_id] = entry
            self.outbox.sent(entry, now_ms)
            sent = True
        return sent

    def _keepalive(self, now_ms: int) -> None:
        if self.ping_sent_ms is not None:
            if time.ticks_diff(now_ms, self.ping_sent_ms) > self.keepalive_ms:
                self._drop(now_ms, "the broker did not answer a ping")
            return
        half = self.keepalive_ms // 2
        if (
            time.ticks_diff(now_ms, self.last_tx_ms) >= half
            or time.ticks_diff(now_ms, self.last_rx_ms) >= half
        ):
            self._queue(mqttlite.pingreq())
            self.ping_sent_ms = now_ms

    def _drop(self, now_ms: int, reason: str) -> None:
        if self.sock is not None:
            try:  # noqa: SIM105
                self.poller.unregister(self.sock)
            except (OSError, KeyError, ValueError):
                pass
            try:  # noqa: SIM105
                self.sock.close()
            except OSError:
                pass
            self.sock = None
        was_up = self.state == "up"
        self.state = "down"
        self.outbox.requeue()
        self._in_flight = {}
        self._control_ids = {}
        self._out = []
        self._out_pos = 0
        self._out_bytes = 0
        self.parser = mqttlite.Parser()
        self.last_error = reason
        # Exponential backoff with jitter, so a roomful of ships do not reconnect in step.
        jitter = self.backoff_ms // 4
        if jitter:
            jitter = time.ticks_ms() % jitter
        wait_ms = self.backoff_ms + jitter
        self.next_attempt_ms = time.ticks_add(now_ms, wait_ms)
        self.backoff_ms = min(self.backoff_ms * 2, self.backoff_max_ms)
        if was_up:
            self.drops += 1
        if reason != self._last_logged:
            self.log(f"mqtt: {reason}; trying again in {wait_ms} ms")
            self._last_logged = reason

    def close(self) -> None:
        """A clean goodbye: the broker does not publish the last will for it."""
        if self.up:
            self._queue(mqttlite.disconnect())
            self._flush(time.ticks_ms())
        self._drop(time.ticks_ms(), "closed")
