"""A virtual ship on the network: the simulator's load cells through the shipsense detector,
spoken over MQTT exactly as the firmware speaks it (birth and last will, events with boot and
seq at QoS 1, weights, a result for every command).

It runs on the service's asyncio loop at the service clock's pace (real time, or faster for
tests), so game actions can be injected between samples as bots or people decide.

Calibration (the dashboard's wizard) works as on the firmware (firmware/lib/commands.py):
`tare`, `calibrate` and `weigh` average the next MEASURE_MS of samples in raw HX711 counts,
refuse an unsteady reading, and answer on `ship/result` with the same data. Each channel has
its own true tare and scale (drawn from the seed); the node starts calibrated to them, so its
grams are the simulator's until a calibration changes them. The wizard's hands (a known
weight, or a piece from the supply, set down on a zone) are loads the node adds to a zone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from typing import Any

import paho.mqtt.client as mqtt

from bosun.bus.mqtt import ClientThread, send_without_delay
from bosun.sim import ShipParams, VirtualShip
from shipsense import protocol
from shipsense.detector import Detector

log = logging.getLogger(__name__)

TICK_S = 0.02  # real seconds between sample batches
# At most this much CPU a batch: a ship that fell behind (a busy machine) catches up over
# several batches instead of holding the event loop, and every table and page meanwhile.
BATCH_BUDGET_S = 0.02
WEIGHTS_EVERY_MS = 500
WARM_UP_MS = 1000  # the detector's warm-up (600 ms) and then some, before going live
TRACE_ROWS_A_BATCH = 16  # ~2.5 kB a message, under the protocol's 4 kB
CHANNELS = 11  # zones 1-10, then the mat
# As firmware/lib/commands.py: measure this long; a spread above STEADY_G (tare, weigh) or
# STEADY_FRACTION of the step (calibrate) is a hand on the ship, not a reading.
MEASURE_MS = 500
STEADY_G = 3.0
STEADY_FRACTION = 0.02
MIN_COUNTS_PER_G = 1.0
MIN_ITEM_G = 0.2
NOMINAL_COUNTS_PER_G = 420.0  # firmware/config.json default_counts_per_g
HAND_RAMP_MS = 120.0  # the wizard's hand sets a weight down over this long


class Measurement:
    """Raw counts of some channels averaged over the next `needed` samples (firmware's)."""

    def __init__(self, command: dict[str, Any], channels: list[int], needed: int) -> None:
        self.command = command
        self.channels = channels
        self.needed = needed
        self.sums = [0.0] * len(channels)
        self.low = [float("inf")] * len(channels)
        self.high = [float("-inf")] * len(channels)
        self.count = 0

    def add(self, raw: list[float]) -> bool:
        for i, channel in enumerate(self.channels):
            value = raw[channel]
            self.sums[i] += value
            self.low[i] = min(self.low[i], value)
            self.high[i] = max(self.high[i], value)
        self.count += 1
        return self.count >= self.needed

    def mean(self, i: int) -> float:
        return self.sums[i] / self.count

    def spread(self, i: int) -> float:
        return self.high[i] - self.low[i]


class HandLoad:
    """Something the calibration wizard's hand set on a zone: a weight or a game piece."""

    def __init__(self, what: str, grams: float, start_ms: float, piece: str | None = None):
        self.what = what
        self.grams = grams
        self.start_ms = start_ms
        self.piece = piece  # the supply piece's id while it lies on the zone

    def at(self, t_ms: float) -> float:
        if t_ms <= self.start_ms:
            return 0.0
        return self.grams * min(1.0, (t_ms - self.start_ms) / HAND_RAMP_MS)


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
        params: ShipParams | None = None,
    ) -> None:
        """`params` replaces the ship drawn from `level` (e.g. `ShipParams.harbour`)."""
        self.table_id = table_id
        self.scale = scale
        if params is None:
            params = ShipParams.draw(level, seed, rate_sps=80, table=table_sensor)
        self.params = params
        self.seed = seed
        self.games = 0
        self.ship = VirtualShip(self.params, seed)
        self.items = self.ship.calibrated_item_grams()
        self.detector = Detector(
            rate_hz=self.params.rate_sps, n_zones=10, table=self.params.table, items=self.items
        )
        self.warm_up()
        self.boot = secrets.token_hex(4)
        self.seq = 0
        self._restart = False
        self.tracing = False
        self._trace_rows: list[list] = []
        self.events: list[dict[str, Any]] = []  # everything the detector said, in order
        self.led: dict[str, Any] | None = None  # the last LED command the host sent
        self.commands = 0
        self._weights_due_ms = 0.0
        # The cells' true tare (counts) and scale (counts a gram), and the node's calibration.
        cells = random.Random(f"{seed}/cells")
        self.true_tare = [cells.randint(-300_000, 300_000) for _ in range(CHANNELS)]
        self.true_counts_per_g = [
            NOMINAL_COUNTS_PER_G * cells.uniform(0.95, 1.05) for _ in range(CHANNELS)
        ]
        self.tare = list(self.true_tare)
        self.counts_per_g = list(self.true_counts_per_g)
        self.hand_loads: dict[int, HandLoad] = {}  # channel -> what the wizard's hand put there
        self.measurement: Measurement | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"bosun-virtual-{table_id}-{self.boot}",
            protocol=mqtt.MQTTv311,
        )
        self.client.will_set(self._topic(protocol.STATUS), protocol.LWT_PAYLOAD, qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_command
        self._network = ClientThread(self.client, broker, keepalive_s=10)

    def _topic(self, name: str) -> str:
        return protocol.topic(self.table_id, name)

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = self._loop.create_task(self._run())

    async def stop(self) -> None:
        """Stop sampling, say goodbye to the broker (it keeps the last birth) and join paho's
        thread, off the event loop."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await asyncio.to_thread(self._network.stop)

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        send_without_delay(client)
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
            if command["cmd"] in ("tare", "calibrate", "weigh") and self._loop is not None:
                # measured on the sample loop; answered when the measurement is done
                self._loop.call_soon_threadsafe(self._start_measurement, command)
                return
            if command["cmd"] == "led":
                self.led = command
            elif command["cmd"] == "trace":
                self.tracing = command["on"]
            result = protocol.result_message(command.get("id"), command["cmd"], True)
        self._send_result(result)

    def _send_result(self, result: dict[str, Any]) -> None:
        self.client.publish(self._topic(protocol.RESULT), protocol.encode(result), qos=1)

    # -- calibration, as the firmware does it ----------------------------------------------

    def grams(self, channel: int, raw: float) -> float:
        """Calibrated grams of a raw reading, with the node's present calibration."""
        return (raw - self.tare[channel]) / self.counts_per_g[channel]

    def raw(self, channel: int, true_g: float) -> float:
        """The HX711 counts the cell gives for `true_g` grams."""
        return self.true_tare[channel] + true_g * self.true_counts_per_g[channel]

    def _calibrated(self, channel: int) -> bool:
        return (
            self.tare[channel] == self.true_tare[channel]
            and self.counts_per_g[channel] == self.true_counts_per_g[channel]
        )

    def _channel(self, zone: Any) -> tuple[int | None, str | None]:
        if zone == "mat":
            if self.params.table not in ("mat", "both"):
                return None, f"there is no mat load cell (drop_sensor is {self.params.table})"
            return CHANNELS - 1, None
        if not 1 <= zone <= 10:
            return None, f"zone {zone} does not exist (zones 1-10)"
        return zone - 1, None

    @staticmethod
    def _name(channel: int) -> str:
        return "mat" if channel == CHANNELS - 1 else f"z{channel + 1}"

    def _start_measurement(self, command: dict[str, Any]) -> None:
        name = command["cmd"]
        refuse = lambda why: self._send_result(  # noqa: E731
            protocol.result_message(command.get("id"), name, False, why)
        )
        if self.measurement is not None:
            busy = self.measurement.command
            refuse(f"busy measuring for {busy['cmd']} (id {busy.get('id')!r}); try again")
            return
        if name == "tare":
            zones = command.get("zones")
            if zones is None:
                has_mat = self.params.table in ("mat", "both")
                channels = list(range(CHANNELS if has_mat else CHANNELS - 1))
            else:
                channels = []
                for zone in zones:
                    channel, problem = self._channel(zone)
                    if problem:
                        refuse("tare: " + problem)
                        return
                    channels.append(channel)
        else:
            channel, problem = self._channel(command["zone"])
            if problem:
                refuse(f"{name}: {problem}")
                return
            channels = [channel]
        needed = max(3, MEASURE_MS * self.ship.rate_sps // 1000)
        self.measurement = Measurement(command, channels, needed)

    def _finish_measurement(self, m: Measurement) -> None:
        command, name = m.command, m.command["cmd"]
        cmd_id = command.get("id")
        for i, channel in enumerate(m.channels):
            if name == "calibrate":
                step = abs(m.mean(i) - self.tare[channel]) or 1.0
                steady = m.spread(i) <= STEADY_FRACTION * step
                spread_g = m.spread(i) * command["grams"] / step
            else:
                spread_g = m.spread(i) / abs(self.counts_per_g[channel])
                steady = spread_g <= STEADY_G
            if not steady:
                why = (
                    f"{self._name(channel)} was not steady ({spread_g:.2f} g spread): "
                    "keep hands off the ship and try again"
                )
                self._send_result(protocol.result_message(cmd_id, name, False, why))
                return
        data: dict[str, Any] = {}
        if name == "tare":
            tared = {}
            for i, channel in enumerate(m.channels):
                self.tare[channel] = int(m.mean(i))
                tared[self._name(channel)] = self.tare[channel]
            data["tare"] = tared
        elif name == "calibrate":
            channel = m.channels[0]
            change = m.mean(0) - self.tare[channel]
            counts_per_g = change / command["grams"]
            if abs(counts_per_g) < MIN_COUNTS_PER_G:
                why = (
                    f"{self._name(channel)} changed by only {change:.0f} counts for "
                    f"{command['grams']} g: is the weight on that zone?"
                )
                self._send_result(protocol.result_message(cmd_id, name, False, why))
                return
            self.counts_per_g[channel] = counts_per_g
            data["zone"] = command["zone"]
            data["counts_per_g"] = counts_per_g
        else:
            channel = m.channels[0]
            grams = self.grams(channel, m.mean(0)) / command.get("count", 1)
            if grams < MIN_ITEM_G:
                why = f"{self._name(channel)} holds {grams:.2f} g: put the piece on it"
                self._send_result(protocol.result_message(cmd_id, name, False, why))
                return
            self.items = {**self.items, command["item"]: grams}
            self.detector.set_items(dict(self.items))
            data["item"] = command["item"]
            data["grams"] = grams
        self._send_result(protocol.result_message(cmd_id, name, True, None, data))

    # -- the calibration wizard's hands ------------------------------------------------------

    def put_weight(self, zone: int, grams: float) -> None:
        """A hand sets a known calibration weight of `grams` on `zone` (1-10 or "mat")."""
        channel, problem = self._channel(zone)
        if problem:
            raise ValueError(problem)
        if not 1 <= grams <= 5000:
            raise ValueError("a calibration weight is 1 to 5000 g")
        if channel in self.hand_loads:
            raise ValueError(f"zone {zone} already holds the {self.hand_loads[channel].what}")
        self.hand_loads[channel] = HandLoad(f"{grams:g} g weight", grams, self.ship.now_ms)

    def put_piece(self, zone: int, item: str, count: int = 1) -> None:
        """A hand sets `count` pieces of `item` from the supply on `zone` to be weighed."""
        channel, problem = self._channel(zone)
        if problem:
            raise ValueError(problem)
        if channel in self.hand_loads:
            raise ValueError(f"zone {zone} already holds the {self.hand_loads[channel].what}")
        pieces = self.ship.supply(item)
        if len(pieces) < count:
            raise ValueError(f"only {len(pieces)} {item} pieces are off the ship")
        chosen = pieces[:count]
        for piece in chosen:
            piece.where = "moving"  # in the wizard's hand, not in the supply
        self.hand_loads[channel] = HandLoad(
            f"{count} {item}" if count > 1 else item,
            sum(p.grams for p in chosen),
            self.ship.now_ms,
            piece=",".join(p.id for p in chosen),
        )

    def take_off(self, zone: int) -> None:
        """The hand takes back what it set on `zone` (a weight or pieces, back to the supply)."""
        channel, problem = self._channel(zone)
        if problem:
            raise ValueError(problem)
        load = self.hand_loads.pop(channel, None)
        if load is None:
            raise ValueError(f"nothing of the wizard's lies on zone {zone}")
        self._return_pieces(load)

    def _return_pieces(self, load: HandLoad) -> None:
        for piece_id in (load.piece or "").split(","):
            if piece_id:
                piece = self.ship.piece(piece_id)
                piece.where, piece.zone = "supply", None

    def clear_ship(self) -> int:
        """Hands take every piece off the ship and the mat (before taring); how many."""
        ship = self.ship
        at_ms = max(ship.now_ms, ship.busy_until_ms)
        aboard = [p for p in ship.aboard() if p.ready_us <= at_ms * 1000]
        if aboard:
            ship.fall(aboard, "caught", at_ms=at_ms)
        resting = ship.on_mat()
        if resting:
            ship.collect(resting, at_ms=max(at_ms, ship.busy_until_ms))
        for load in self.hand_loads.values():
            self._return_pieces(load)
        self.hand_loads.clear()
        return len(aboard) + len(resting)

    def hands(self) -> dict[str, str]:
        """What the wizard's hand has put where: {"3": "100 g weight", "mat": ...}."""
        return {
            ("mat" if channel == CHANNELS - 1 else str(channel + 1)): load.what
            for channel, load in sorted(self.hand_loads.items())
        }

    def warm_up(self) -> None:
        """Let the detector learn the empty ship (its first ~600 ms) before anyone acts."""
        while self.ship.now_ms < WARM_UP_MS:
            sample = self.ship.next_sample()
            self.detector.feed(sample.t_ms, sample.zones_g, sample.table_g, sample.impact)

    def new_game(self) -> None:
        """Between games the players clear the ship and it starts afresh: a new boot."""
        self.games += 1
        self.ship = VirtualShip(self.params, f"{self.seed}/game{self.games}")
        self.detector = Detector(rate_hz=80, n_zones=10, table=self.params.table, items=self.items)
        self.boot, self.seq, self._weights_due_ms = secrets.token_hex(4), 0, 0.0
        self.warm_up()
        self.hand_loads.clear()
        self.measurement = None
        self._restart = True
        self._on_connect(self.client, None, None, None, None)  # the birth of the new boot

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.to_thread(self._network.start)
        while True:
            self._restart = False
            start_real, start_ship_ms = loop.time(), self.ship.now_ms
            while not self._restart:
                target_ms = start_ship_ms + (loop.time() - start_real) * 1000 * self.scale
                caught_up = self.advance_to(target_ms, budget_s=BATCH_BUDGET_S)
                await asyncio.sleep(TICK_S if caught_up else 0)

    def advance_to(self, t_ms: float, budget_s: float | None = None) -> bool:
        """Read samples up to ship time `t_ms`, run the detector, publish what it says; with
        `budget_s`, stop after about that much CPU. True once the ship is at `t_ms`."""
        ship, detector = self.ship, self.detector
        period_ms = 1000 / ship.rate_sps
        give_up_at = None if budget_s is None else time.monotonic() + budget_s
        count = 0
        while ship.now_ms + period_ms <= t_ms:
            count += 1
            if give_up_at is not None and count % 16 == 0 and time.monotonic() > give_up_at:
                self._publish_trace()
                return False
            sample = ship.next_sample()
            if self.hand_loads or self.measurement is not None or not self._all_calibrated():
                sample = self._through_cells(sample)
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
        return True

    def _all_calibrated(self) -> bool:
        return all(self._calibrated(channel) for channel in range(CHANNELS))

    def _through_cells(self, sample):
        """The sample as the node's cells and calibration give it: hand loads added, raw
        counts measured for a pending command, grams from the node's calibration."""
        true_g = [*sample.zones_g, sample.table_g if sample.table_g is not None else 0.0]
        for channel, load in self.hand_loads.items():
            true_g[channel] += load.at(sample.t_ms)
        raw = [self.raw(channel, g) for channel, g in enumerate(true_g)]
        m = self.measurement
        if m is not None and m.add(raw):
            self.measurement = None
            self._finish_measurement(m)
        grams = [
            true_g[c] if self._calibrated(c) else self.grams(c, raw[c]) for c in range(CHANNELS)
        ]
        table_g = None if sample.table_g is None else grams[-1]
        return sample._replace(zones_g=tuple(grams[:-1]), table_g=table_g)

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
