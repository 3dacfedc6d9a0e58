"""The ship's USB serial fallback: JSON lines on a serial port <-> MQTT, both ways.

For venues without usable WiFi the ship (config.json `"link": "serial"`) writes the very
messages it would publish, one a line: `{"topic": "ship/event", "msg": {...}}`
(shipsense.protocol.encode_line). `SerialBridge` publishes each on `bosun/<table>/<topic>`
with the protocol's QoS and retain flag, and writes the host's `ship/cmd` messages back as
lines. It plays the broker's part in QoS 1 for the ship: once the broker has an event, the
bridge answers `link/ack {"seq": n}`; the ship resends what is not acknowledged. It says
`link/hello` when it starts and every `hello_s` (the ship then sends its birth and anything
undelivered), and stands in for the ship's last will: `{"online":false}` on `ship/status`
when the serial port goes away, the ship falls silent for `silence_s`, or the bridge stops.
Lines that are not JSON are the ship's console text; they are logged, not forwarded. A
command that cannot be put on the line (not a JSON object) is answered by the bridge itself
with a refusal on `ship/result`, so the host always gets its one result.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
import serial

from bosun.bus.access import BrokerAccess, parse_broker_url
from shipsense import protocol, ship_messages

RETRY_OPEN_S = 2.0
PUBLISHED_WAITING = 65536  # acknowledged message ids not yet matched (one per MQTT id)
WRITE_TIMEOUT_S = 2.0  # a line the ship does not take within this is dropped (and logged)


class SerialBridge:
    """Forwards between one ship's serial line and the broker until `stop()`."""

    def __init__(
        self,
        port: str,
        table: str,
        mqtt_url: str = "mqtt://127.0.0.1:1883",
        baudrate: int = 115200,
        hello_s: float = 3.0,
        silence_s: float = 5.0,
        log: Callable[[str], None] = print,
        open_serial: Callable[..., Any] = serial.Serial,
        access: BrokerAccess | None = None,
    ) -> None:
        self.port = port
        self.table = protocol.check_table_id(table)
        # `access` carries the ship's login and TLS (the bridge stands in for the ship)
        self.access = access if access is not None else parse_broker_url(mqtt_url)
        self.host, self.mqtt_port = self.access.host, self.access.port
        self.baudrate = baudrate
        self.hello_s = hello_s
        self.silence_s = silence_s
        self.log = log
        self._open_serial = open_serial
        self._serial: Any = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._pending_acks: dict[int, int] = {}  # MQTT message id -> event seq
        self._acks_lock = threading.Lock()
        # ids the broker acknowledged, waiting for `_send_acks` (paho's thread never waits for
        # `_acks_lock`: it calls on_publish holding its own lock, which publish() takes)
        self._published: deque[int] = deque(maxlen=PUBLISHED_WAITING)
        self.forwarded = 0
        self.commands = 0
        self.console_lines = 0
        self.bad_lines = 0
        self.ship_online = False
        self._last_line = 0.0
        self._last_hello = 0.0
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=f"bosun-bridge-{self.table}"
        )
        self.client.will_set(
            protocol.topic(self.table, protocol.STATUS), protocol.LWT_PAYLOAD, qos=1, retain=True
        )
        self.client.reconnect_delay_set(0.25, 5)
        self.access.configure(self.client)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish

    # --- MQTT side ------------------------------------------------------------------------

    def _on_connect(self, client, _userdata, _flags, reason_code, _properties) -> None:
        if reason_code.is_failure:
            self.log(f"bridge: the broker refused the connection: {reason_code}")
            return
        client.subscribe(protocol.topic(self.table, protocol.CMD), qos=1)
        self.log(f"bridge: connected to {self.access.url}")
        self._write_line(protocol.LINK_HELLO, {})  # ask the ship for a fresh birth

    def _on_message(self, _client, _userdata, message) -> None:
        self.commands += 1
        try:
            msg = protocol.decode(message.payload, "command")
        except protocol.ProtocolError as error:
            # It cannot travel as a line; the ship would refuse it anyway: answer for it.
            result = protocol.result_message(None, None, False, str(error))
            self._publish(protocol.RESULT, result)
            return
        self._write_line(protocol.CMD, msg)

    def _on_publish(self, _client, _userdata, mid, _reason_code, _properties) -> None:
        self._published.append(mid)
        self._send_acks()

    def _send_acks(self) -> None:
        """`link/ack` the events the broker has. Never waits: while the serial thread holds
        the lock (it publishes an event and notes its id), it sends them itself after."""
        if not self._acks_lock.acquire(blocking=False):
            return
        try:
            acked = []
            while self._published:
                seq = self._pending_acks.pop(self._published.popleft(), None)
                if seq is not None:
                    acked.append(seq)
        finally:
            self._acks_lock.release()
        for seq in acked:
            self._write_line(protocol.LINK_ACK, {"seq": seq})

    def _publish(self, name: str, msg: dict) -> mqtt.MQTTMessageInfo:
        qos, retain = protocol.DELIVERY[name]
        return self.client.publish(
            protocol.topic(self.table, name), protocol.encode(msg), qos=qos, retain=retain
        )

    # --- serial side ----------------------------------------------------------------------

    def _write_line(self, name: str, msg: dict) -> None:
        line = protocol.encode_line(name, msg).encode()
        with self._write_lock:
            if self._serial is None:
                return
            try:
                self._serial.write(line)  # no flush(): tcdrain has no time limit
            except (serial.SerialException, OSError) as error:
                self.log(f"bridge: writing to {self.port} failed: {error}")

    def _handle_line(self, raw: bytes) -> None:
        text = raw.decode(errors="replace").strip()
        if not text:
            return
        self._last_line = time.monotonic()
        if not text.startswith("{"):
            self.console_lines += 1
            self.log(f"ship: {text}")
            return
        try:
            name, msg = protocol.decode_line(text)
        except protocol.ProtocolError as error:
            self.bad_lines += 1
            self.log(f"bridge: ignored a line from the ship: {error}")
            return
        if name not in protocol.SHIP_TOPICS:
            self.bad_lines += 1
            self.log(f"bridge: the ship may not send {name!r}; ignored")
            return
        if name == protocol.STATUS:
            online = bool(msg.get("online"))
            if online and not self.ship_online:
                self.log(f"bridge: ship online (boot {msg.get('boot')})")
            self.ship_online = online
        if name == protocol.EVENT:
            try:
                ship_messages.check_event_envelope(msg)
            except protocol.ProtocolError as error:
                self.bad_lines += 1
                self.log(f"bridge: ignored a malformed event: {error}")
                return
            # The ack goes back once the broker has the event (on_publish).
            with self._acks_lock:
                info = self._publish(name, msg)
                self._pending_acks[info.mid] = msg["seq"]
            self._send_acks()  # any that came while it held the lock (a fast broker's)
        else:
            self._publish(name, msg)
        self.forwarded += 1

    def _mark_offline(self, why: str) -> None:
        if self.ship_online:
            self.log(f"bridge: ship offline ({why})")
        self.ship_online = False
        self._publish(protocol.STATUS, protocol.LWT)

    # --- the loop -------------------------------------------------------------------------

    def run(self) -> int:
        """Forward until `stop()` (or Ctrl-C); returns the exit status."""
        self.client.connect_async(self.host, self.mqtt_port, keepalive=15)
        self.client.loop_start()
        self.log(f"bridge: {self.port} <-> {self.access.url} table {self.table}")
        said_waiting = False
        try:
            while not self._stop.is_set():
                if self._serial is None:
                    try:
                        # a bounded write: a ship that stops reading must never hang the
                        # MQTT thread that writes the host's commands (and with it the stop)
                        opened = self._open_serial(
                            self.port, self.baudrate, timeout=0.2, write_timeout=WRITE_TIMEOUT_S
                        )
                    except (serial.SerialException, OSError) as error:
                        if not said_waiting:
                            self.log(f"bridge: cannot open {self.port} ({error}); retrying")
                            said_waiting = True
                        self._stop.wait(RETRY_OPEN_S)
                        continue
                    with self._write_lock:
                        self._serial = opened
                    said_waiting = False
                    self._last_line = time.monotonic()
                    self._last_hello = 0.0
                self._serve_serial()
        except KeyboardInterrupt:
            pass
        finally:
            self._close()
        return 0

    def _serve_serial(self) -> None:
        buffer = b""
        while not self._stop.is_set():
            now = time.monotonic()
            if now - self._last_hello >= self.hello_s:
                self._last_hello = now
                self._write_line(protocol.LINK_HELLO, {})
            if self.ship_online and now - self._last_line > self.silence_s:
                self._mark_offline(f"silent for {self.silence_s:g} s")
            try:
                chunk = self._serial.read(4096)
            except (serial.SerialException, OSError) as error:
                self.log(f"bridge: lost {self.port}: {error}")
                with self._write_lock:
                    self._serial.close()
                    self._serial = None
                self._mark_offline("serial port gone")
                return
            self._send_acks()  # none left behind by a race of the two threads
            if not chunk:
                continue
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                self._handle_line(line)
            if len(buffer) > 65536:
                self.bad_lines += 1
                buffer = b""

    def stop(self) -> None:
        self._stop.set()

    def _close(self) -> None:
        if self.client.is_connected():
            self._publish(protocol.STATUS, protocol.LWT).wait_for_publish(2)
        self.client.disconnect()  # first: it wakes the network thread that loop_stop joins
        self.client.loop_stop()
        with self._write_lock:
            if self._serial is not None:
                self._serial.close()
                self._serial = None
