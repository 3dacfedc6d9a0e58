"""The private mosquitto broker that `bosun run` and the tests start."""

from __future__ import annotations

import queue
import socket

import paho.mqtt.client as mqtt
import pytest
from support.service import CEILING_S

from bosun.bus.broker import (
    LOWEST_FREE_PICK,
    BrokerError,
    MosquittoBroker,
    ephemeral_ports,
    free_port,
    port_is_free,
)


def connected_client(broker: MosquittoBroker, received: queue.Queue) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.on_message = lambda _c, _u, msg: received.put((msg.topic, msg.payload, msg.retain))
    client.connect(broker.host, broker.port)
    client.loop_start()
    return client


def test_a_message_goes_round_and_retained_ones_wait(mosquitto):
    received: queue.Queue = queue.Queue()
    publisher = connected_client(mosquitto, received)
    publisher.publish(
        "bosun/t1/ship/status", b'{"online":true}', qos=1, retain=True
    ).wait_for_publish(5)
    subscriber = connected_client(mosquitto, received)
    subscriber.subscribe("bosun/t1/#", qos=1)
    assert received.get(timeout=CEILING_S) == ("bosun/t1/ship/status", b'{"online":true}', True)
    publisher.publish("bosun/t1/ship/event", b"{}", qos=1)
    assert received.get(timeout=CEILING_S)[0] == "bosun/t1/ship/event"
    for client in (publisher, subscriber):
        client.loop_stop()
        client.disconnect()


def test_the_broker_restarts_on_the_same_port(mosquitto):
    port = mosquitto.port
    mosquitto.restart()
    assert mosquitto.running and mosquitto.port == port
    received: queue.Queue = queue.Queue()
    client = connected_client(mosquitto, received)
    client.subscribe("x", qos=1)
    client.publish("x", b"1", qos=1)
    assert received.get(timeout=CEILING_S)[1] == b"1"
    client.loop_stop()
    client.disconnect()


def test_a_busy_port_is_a_clear_error(mosquitto):
    with pytest.raises(BrokerError, match="already in use"):
        MosquittoBroker(port=mosquitto.port).start(timeout_s=1.0)


def test_free_ports_are_below_the_ephemeral_range_and_never_handed_out_twice():
    # An outgoing connection draws its source port from the ephemeral range, and could take
    # a port the kernel picked with bind(0) before the broker binds it (seen in CI:
    # "Address already in use").
    low, _high = ephemeral_ports()
    ports = [free_port() for _ in range(300)]
    assert len(set(ports)) == len(ports)
    assert all(LOWEST_FREE_PICK <= port < low for port in ports)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", ports[0]))
        taken.listen()
        assert not port_is_free("127.0.0.1", ports[0])


def test_with_no_room_below_the_ephemeral_range_the_kernel_picks(tmp_path, monkeypatch):
    kernel_low, kernel_high = ephemeral_ports()
    whole = tmp_path / "ip_local_port_range"
    whole.write_text("1024\t65535\n")
    monkeypatch.setattr("bosun.bus.broker.EPHEMERAL_RANGE", whole)
    assert ephemeral_ports() == (1024, 65535)
    port = free_port()
    assert port_is_free("127.0.0.1", port) and kernel_low <= port <= kernel_high
    whole.write_text("not a range")
    assert ephemeral_ports() == (32768, 60999)
