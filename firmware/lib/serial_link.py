"""The USB serial fallback: the same JSON messages as MQTT, one a line, for `bosun bridge`.

For venues without usable WiFi. Each line is `{"topic": "ship/event", "msg": {...}}`
(shipsense.protocol.encode_line); the bridge publishes it to the broker and writes the
host's `ship/cmd` messages back as lines. Reliability mirrors MQTT QoS 1: the bridge answers
`link/ack` {"seq": n} once the broker has an event, events not acknowledged within
ACK_TIMEOUT_MS are sent again, and `link/hello` (sent by the bridge when it starts and every
few seconds) makes the ship send its birth and everything not yet delivered. Without a
hello for HELLO_TIMEOUT_MS the link counts as down (events wait in the outbox). Lines that
are not JSON are console text for people and are ignored by the bridge.
"""

import select
import sys
import time

from shipsense import protocol

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Callable

    from hardware import Stream
    from shipcore.outbox import Outbox

ACK_TIMEOUT_MS = 3000
HELLO_TIMEOUT_MS = 15000
MAX_LINE = 4096
MAX_IN_FLIGHT = 10


class SerialLink:
    """Same interface as MqttLink: service(), up, set_status(), publish(), describe()."""

    def __init__(
        self,
        outbox: "Outbox",
        on_command: "Callable[[bytes], object]",
        stream_in: "Stream | None" = None,
        stream_out: "Stream | None" = None,
        log: "Callable[[str], object]" = print,
    ) -> None:
        self.outbox = outbox
        self.on_command = on_command
        self.stream_in = stream_in or getattr(sys.stdin, "buffer", sys.stdin)
        self.stream_out = stream_out or sys.stdout
        self.log = log
        self.poller = select.poll()
        self.poller.register(self.stream_in, select.POLLIN)
        self._line = bytearray()
        self._overlong = False
        self.last_hello_ms: int | None = None
        self.status_payload: bytes | None = None
        self.on_connect: Callable[[], object] | None = (
            None  # called when a bridge says hello: the ship sends a fresh birth
        )
        self.hellos = 0
        self.bad_lines = 0
        self.dropped_qos0 = 0
        self.connects = 0
        self.drops = 0
        self.last_error: str | None = None

    @property
    def up(self) -> bool:
        if self.last_hello_ms is None:
            return False
        return time.ticks_diff(time.ticks_ms(), self.last_hello_ms) < HELLO_TIMEOUT_MS

    def describe(self) -> str:
        if self.up:
            return "serial bridge connected"
        return "waiting for `bosun bridge` on the USB serial port"

    def _write(self, name: str, payload: bytes) -> None:
        # The payload is already JSON text: splice it in rather than parse and re-encode.
        self.stream_out.write('{"topic":"' + name + '","msg":' + payload.decode() + "}\n")

    def set_status(self, payload: bytes) -> None:
        self.status_payload = payload
        self._write(protocol.STATUS, payload)

    def publish(self, name: str, payload: bytes) -> bool:
        if not self.up:
            self.dropped_qos0 += 1
            return False
        self._write(name, payload)
        return True

    def service(self, now_ms: int) -> bool:
        worked = self._read(now_ms)
        was_up = self.up
        if not was_up:
            return worked
        self.outbox.requeue_older_than(now_ms, ACK_TIMEOUT_MS, time.ticks_diff)
        in_flight = 0
        for entry in self.outbox.entries:
            if entry[3] == 1:
                in_flight += 1
        while in_flight < MAX_IN_FLIGHT:
            entry = self.outbox.next_waiting()
            if entry is None:
                break
            self._write(entry[1], entry[2])
            worked = True
            if not entry[0]:
                self.outbox.delivered(entry)  # results carry no seq to acknowledge
                continue
            self.outbox.sent(entry, now_ms)
            in_flight += 1
        return worked

    def _read(self, now_ms: int) -> bool:
        worked = False
        for _ in range(512):
            if not self.poller.poll(0):
                break
            byte = self.stream_in.read(1)
            if not byte:
                break
            worked = True
            if isinstance(byte, str):
                byte = byte.encode()
            if byte == b"\n":
                if self._overlong:
                    self.bad_lines += 1
                    self.log(f"serial: a line longer than {MAX_LINE} bytes was ignored")
                else:
                    self._handle_line(bytes(self._line), now_ms)
                self._line = bytearray()
                self._overlong = False
            elif len(self._line) >= MAX_LINE:
                self._overlong = True
            else:
                self._line.extend(byte)
        return worked

    def _handle_line(self, line: bytes, now_ms: int) -> None:
        if not line.strip():
            return
        try:
            name, msg = protocol.decode_line(line)
        except protocol.ProtocolError as error:
            if line.strip().startswith(b"{"):
                self.bad_lines += 1
                self.log(f"serial: ignored a line: {error}")
                if b'"ship/cmd"' in line:
                    # A command so broken that its envelope failed: still answer it.
                    self.on_command(b"")
            return
        if name == protocol.LINK_HELLO:
            first = not self.up
            self.last_hello_ms = now_ms
            self.hellos += 1
            if first:
                self.connects += 1
                self.outbox.requeue()
                if self.on_connect is not None:
                    self.on_connect()
                elif self.status_payload is not None:
                    self._write(protocol.STATUS, self.status_payload)
        elif name == protocol.LINK_ACK:
            seq = msg.get("seq")
            if isinstance(seq, int) and not isinstance(seq, bool):
                self.outbox.delivered_seq(seq)
        elif name == protocol.CMD:
            self.on_command(protocol.encode(msg))

    def close(self) -> None:
        pass
