"""A host's view of one table's ship on a real broker: what it publishes, and commands to it."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from shipsense import protocol
from support.polling import CEILING_S


class ShipHost:
    """Subscribed to bosun/<table>/ship/#; waits on what arrives, sends `ship/cmd`."""

    def __init__(self, broker, table: str) -> None:
        self.table = table
        self.messages: list[tuple[str, dict]] = []
        self._changed = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *_: c.subscribe(f"bosun/{table}/ship/#", qos=1)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def _on_message(self, _client, _userdata, msg) -> None:
        name = msg.topic.split("/", 2)[2]
        if name != protocol.CMD:
            with self._changed:
                self.messages.append((name, json.loads(msg.payload)))
                self._changed.notify_all()

    def of(self, name: str) -> list[dict]:
        with self._changed:
            return [payload for topic, payload in self.messages if topic == name]

    def wait_for(self, found: Callable[[], Any], timeout_s: float = CEILING_S) -> Any:
        with self._changed:
            value = self._changed.wait_for(found, timeout=timeout_s)
        assert value, f"not seen; last messages: {self.messages[-6:]}"
        return value

    def command(self, payload: dict | bytes) -> None:
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.client.publish(protocol.topic(self.table, protocol.CMD), raw, qos=1)

    def result(self, cmd_id: str | None) -> dict:
        return self.wait_for(lambda: [r for r in self.of(protocol.RESULT) if r["id"] == cmd_id])[0]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
