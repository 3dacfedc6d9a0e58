"""MQTT 3.1.1 packets as bytes, and a parser for the byte stream from the broker.

Only what the ship needs: CONNECT (with a retained QoS 1 last will), PUBLISH QoS 0/1,
PUBACK, SUBSCRIBE, PINGREQ, DISCONNECT out; CONNACK, PUBLISH, PUBACK, SUBACK, PINGRESP in.
No I/O here: `mqtt_link` owns the socket. Each packet is built into one bytes object so it
leaves in one write (no Nagle stall between a header and its body).
"""

import struct

CONNECT = 0x10
CONNACK = 0x20
PUBLISH = 0x30
PUBACK = 0x40
SUBSCRIBE = 0x82
SUBACK = 0x90
PINGREQ = 0xC0
PINGRESP = 0xD0
DISCONNECT = 0xE0

CONNACK_REASONS = {
    1: "the broker refused the protocol version",
    2: "the broker refused the client id",
    3: "the broker is unavailable",
    4: "the broker refused the user name or password",
    5: "the broker refused: not authorised",
}
MAX_PACKET = 8192


class MqttError(ValueError):
    """The broker sent something this client cannot accept."""


def _length(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n % 128
        n //= 128
        if n:
            byte |= 0x80
        out.append(byte)
        if not n:
            return bytes(out)


def _text(value: "str | bytes") -> bytes:
    data = value.encode() if isinstance(value, str) else bytes(value)
    return struct.pack("!H", len(data)) + data


def connect(
    client_id: str,
    keepalive_s: int,
    will_topic: "str | None" = None,
    will_payload: bytes = b"",
    user: "str | None" = None,
    password: "str | None" = None,
) -> bytes:
    """CONNECT with a clean session; the will, if any, is QoS 1 and retained."""
    flags = 0x02  # clean session: subscriptions are made again after every connect
    payload = _text(client_id)
    if will_topic is not None:
        flags |= 0x04 | (1 << 3) | 0x20  # will, will QoS 1, will retain
        payload += _text(will_topic) + _text(will_payload)
    if user is not None:
        flags |= 0x80
        payload += _text(user)
        if password is not None:
            flags |= 0x40
            payload += _text(password)
    body = _text("MQTT") + bytes((4, flags)) + struct.pack("!H", keepalive_s) + payload
    return bytes((CONNECT,)) + _length(len(body)) + body


def publish(
    topic: str,
    payload: bytes,
    qos: int = 0,
    retain: bool = False,
    packet_id: int = 0,
    dup: bool = False,
) -> bytes:
    header = PUBLISH | (qos << 1) | (1 if retain else 0) | (0x08 if dup else 0)
    body = _text(topic)
    if qos:
        body += struct.pack("!H", packet_id)
    body += payload
    return bytes((header,)) + _length(len(body)) + body


def puback(packet_id: int) -> bytes:
    return bytes((PUBACK, 2)) + struct.pack("!H", packet_id)


def subscribe(packet_id: int, topic: str, qos: int = 1) -> bytes:
    body = struct.pack("!H", packet_id) + _text(topic) + bytes((qos,))
    return bytes((SUBSCRIBE,)) + _length(len(body)) + body


def pingreq() -> bytes:
    return bytes((PINGREQ, 0))


def disconnect() -> bytes:
    return bytes((DISCONNECT, 0))


class Parser:
    """Collects bytes from the broker and yields whole packets as (type, flags, body)."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next(self) -> "tuple[int, int, bytes] | None":
        """The next whole packet, or None until more bytes arrive; MqttError if malformed."""
        buf = self.buffer
        if len(buf) < 2:
            return None
        length = 0
        shift = 0
        pos = 1
        while True:
            if pos >= len(buf):
                return None
            byte = buf[pos]
            length |= (byte & 0x7F) << shift
            pos += 1
            if not byte & 0x80:
                break
            shift += 7
            if shift > 21:
                raise MqttError("remaining length has more than 4 bytes")
        if length > MAX_PACKET:
            raise MqttError(f"packet of {length} bytes is too long")
        if len(buf) < pos + length:
            return None
        body = buf[pos : pos + length]
        self.buffer = buf[pos + length :]
        return buf[0] & 0xF0, buf[0] & 0x0F, body


def parse_publish(flags: int, body: bytes) -> "tuple[str, bytes, int, int]":
    """(topic, payload, qos, packet_id) of an incoming PUBLISH body."""
    if len(body) < 2:
        raise MqttError("PUBLISH too short")
    (topic_len,) = struct.unpack("!H", body[:2])
    pos = 2 + topic_len
    try:
        topic = body[2:pos].decode()
    except UnicodeError:
        raise MqttError("PUBLISH topic is not UTF-8") from None
    qos = (flags >> 1) & 3
    packet_id = 0
    if qos:
        if len(body) < pos + 2:
            raise MqttError("PUBLISH too short for its packet id")
        (packet_id,) = struct.unpack("!H", body[pos : pos + 2])
        pos += 2
    return topic, body[pos:], qos, packet_id


def packet_id_of(body: bytes) -> int:
    if len(body) < 2:
        raise MqttError("packet too short for its packet id")
    return struct.unpack("!H", body[:2])[0]
