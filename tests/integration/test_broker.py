"""The private mosquitto broker that `bosun run` and the tests start."""

from __future__ import annotations

import queue

import paho.mqtt.client as mqtt
import pytest
from support.service import CEILING_S

from bosun.bus.broker import BrokerError, MosquittoBroker


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
