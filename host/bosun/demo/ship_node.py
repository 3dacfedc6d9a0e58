"""A virtual ship on the network: the simulator's load cells through the shipsense detector,
spoken over MQTT exactly as the firmware speaks it (birth and last will, events with boot and
seq at QoS 1, weights, a result for every command).

It runs on the service's asyncio loop at the service clock's pace (real time, or faster for
tests), so game actions can be injected between samples as bots or people decide.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from typing import Any

import paho.mqtt.client as mqtt

from bosun.sim import ShipParams, VirtualShip
from shipsense import protocol
from shipsense.detector import Detector

log = logging.getLogger(__name__)

TICK_S = 0.02  # real seconds between sample batches
WEIGHTS_EVERY_MS = 500
TRACE_ROWS_A_BATCH = 16  # ~2.5 kB a message, under the protocol's 4 kB


class VirtualShipNode:
    """A simulated ship with its detector, publishing to `bosun/<table>/ship/...`."""

    def __init__(
        self,
        table_id: str,
        broker: tuple[str, int],
        seed: int | str = 0,
        table_sensor: str = "both",
        level: str = "normal",
        scale: float = 1.0,
    ) -> None:
        self.table_id = table_id
        self.scale = scale
        self.params = ShipParams.draw(level, seed, rate_sps=80, table=table_sensor)
        self.seed = seed
        self.games = 0
        self.ship = VirtualShip(self.params, seed)
        self.items = self.ship.calibrated_item_grams()
        self.detector = Detector(rate_hz=80, n_zones=10, table=table_sensor, items=self.items)
        self.boot = secrets.token_hex(4)
        self.seq = 0
        self._restart = False
        self.tracing = False
        self._trace_rows: list[list] = []
        self.events: list[dict[str, Any]] = []  # everything the detector said, in order
        self.led: dict[str, Any] | None = None  # the last LED command the host sent
        self.commands = 0
        self._weights_due_ms = 0.0
        self._task: asyncio.Task | None = None
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"bosun-virtual-{table_id}-{self.boot}",
            protocol=mqtt.MQTTv311,
        )
        self.client.will_set(self._topic(protocol.STATUS), protocol.LWT_PAYLOAD, qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_command
        self._broker = broker

    def _topic(self, name: str) -> str:
        return protocol.topic(self.table_id, name)

    def start(self) -> None:
        self.client.connect(self._broker[0], self._broker[1], keepalive=10)
        self.client.loop_start()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.client.disconnect()  # a clean goodbye: the broker keeps the last birth
        self.client.loop_stop()

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        client.subscribe(self._topic(protocol.CMD), qos=1)
        birth = protocol.status_message(
            True, fw="virtual-ship", boot=self.boot, config={"rate_sps": 80}, problems=[]
        )
        client.publish(self._topic(protocol.STATUS), protocol.encode(birth), qos=1, retain=True)

    def _on_command(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        self.commands += 1
        try:
            command = protocol.check_command(protocol.decode(message.payload, "command"))
        except protocol.CommandError as why:
            result = protocol.result_message(why.cmd_id, why.name, False, why.problem)
        except protocol.ProtocolError as why:
            result = protocol.result_message(None, None, False, str(why))
        else:
            if command["cmd"] == "led":
                self.led = command
            elif command["cmd"] == "trace":
                self.tracing = command["on"]
            result = protocol.result_message(command.get("id"), command["cmd"], True)
        client.publish(self._topic(protocol.RESULT), protocol.encode(result), qos=1)

    def new_game(self) -> None:
        """Between games the players clear the ship and it starts afresh: a new boot."""
        self.games += 1
        self.ship = VirtualShip(self.params, f"{self.seed}/game{self.games}")
        self.detector = Detector(rate_hz=80, n_zones=10, table=self.params.table, items=self.items)
        self.boot, self.seq, self._weights_due_ms = secrets.token_hex(4), 0, 0.0
        self._restart = True
        self._on_connect(self.client, None, None, None, None)  # the birth of the new boot

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._restart = False
            start_real, start_ship_ms = loop.time(), self.ship.now_ms
            while not self._restart:
                target_ms = start_ship_ms + (loop.time() - start_real) * 1000 * self.scale
                self.advance_to(target_ms)
                await asyncio.sleep(TICK_S)

    def advance_to(self, t_ms: float) -> None:
        """Read samples up to ship time `t_ms`, run the detector, publish what it says."""
        ship, detector = self.ship, self.detector
        period_ms = 1000 / ship.rate_sps
        while ship.now_ms + period_ms <= t_ms:
            sample = ship.next_sample()
            if self.tracing:
                self._trace_rows.append(
                    [sample.t_ms, *sample.zones_g, sample.table_g, sample.impact]
                )
            for event in detector.feed(sample.t_ms, sample.zones_g, sample.table_g, sample.impact):
                self._publish_event(event)
            if sample.t_ms >= self._weights_due_ms:
                self._weights_due_ms = sample.t_ms + WEIGHTS_EVERY_MS
                weights = protocol.weights_message(
                    self.boot, sample.t_ms, detector.zone_grams(), sample.table_g
                )
                self.client.publish(self._topic(protocol.WEIGHTS), protocol.encode(weights))
        self._publish_trace()

    def _publish_trace(self) -> None:
        for start in range(0, len(self._trace_rows), TRACE_ROWS_A_BATCH):
            rows = self._trace_rows[start : start + TRACE_ROWS_A_BATCH]
            batch = protocol.trace_message(self.boot, rows)
            self.client.publish(self._topic(protocol.TRACE), protocol.encode(batch))
        self._trace_rows = []

    def _publish_event(self, event: dict[str, Any]) -> None:
        self.seq += 1
        message = protocol.event_message(event, self.boot, self.seq)
        self.events.append(message)
        self.client.publish(self._topic(protocol.EVENT), protocol.encode(message), qos=1)
        log.debug("%s: %s", self.table_id, json.dumps(message))
