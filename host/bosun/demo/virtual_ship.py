"""A virtual ship on the network: the firmware's own ship core under CPython, fed by the
simulator, carried by paho.

`shipcore.core.ShipCore` is the class the ESP32 runs (config, load cells, detector, commands,
outbox); here its HX711 bus is the simulator's grams turned into counts by the virtual
board's load cell models (`bosun.board.analog`: each cell its own offset, scale and a few
counts of noise), its clock is the simulated ship's, its config.json and calibration.json
live in a temporary directory, and paho publishes what it queues: events and results from the
outbox at QoS 1, weights and trace at QoS 0, the status retained with the last will
`{"online":false}`. So calibration through the wizard, `set`, `resend`, `trace`, `led` and
`restart` behave exactly as on a ship, because they are the ship's code.

It runs on the service's asyncio loop at the service clock's pace (real time, or faster for
tests), so game actions can be injected between samples as bots or people decide; paho's
network thread delivers commands to the loop, and no paho call made here waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from bosun.board import analog
from bosun.bus.access import BrokerAccess, as_access
from bosun.bus.mqtt import ClientThread, send_without_delay
from bosun.demo.hands import HandLoad, Hands
from bosun.sim import ShipParams, VirtualShip
from shipcore import settings
from shipcore.core import ShipCore
from shipcore.hx711 import RAW_MAX, RAW_MIN
from shipcore.outbox import DELIVERED, WAITING
from shipsense import geometry, protocol

log = logging.getLogger(__name__)

TICK_S = 0.02  # real seconds between sample batches
# At most this much CPU a batch: a ship that fell behind (a busy machine) catches up over
# several batches instead of holding the event loop, and every table and page meanwhile.
BATCH_BUDGET_S = 0.02
WEIGHTS_EVERY_MS = 500
WARM_UP_MS = 1000  # the detector's warm-up (600 ms) and then some, before going live
TRACE_ROWS_A_BATCH = 16  # ~2.5 kB a message, under the protocol's 4 kB
MAX_PENDING_COMMANDS = 64  # commands received but not yet handled on the loop
MAX_QUEUED_PUBLISHES = 1024  # paho's own queue while the broker is slow
# An event handed to the broker holds the service's clock back (`lived_ms`) until the host has
# taken it, for at most this much ship time. On a busy machine the broker and the host's
# queue lag behind the ship: a referee's window must not close on an event already on its way
# (a piece's `land` after its `fall`). A host that never takes it holds nothing for long.
HOLD_UNTAKEN_MS = 3000


class SimClock:
    """The core's clock: the simulated ship's time in ms (it never wraps)."""

    def __init__(self, ship: VirtualShip) -> None:
        self._ship = ship

    def ticks_ms(self) -> float:
        return self._ship.now_ms

    @staticmethod
    def ticks_diff(a: float, b: float) -> float:
        return a - b

    @staticmethod
    def ticks_add(a: float, b: float) -> float:
        return a + b


class CellsBus:
    """The HX711 bus as LoadCells reads it: one conversion a channel, set before each train."""

    def __init__(self, channels: int) -> None:
        self.values = [0] * channels
        self.active = (1 << channels) - 1
        self.powered_down = False
        self.longest_high_us = 0

    def set_active(self, mask: int) -> None:
        self.active = mask

    def read(self) -> bool:
        return True


class RecordingLeds:
    """The ship's LED strip as far as a virtual ship has one: the last show commanded."""

    def __init__(self, node: VirtualShipNode) -> None:
        self._node = node
        self.link_up = False

    def set_show(self, msg: dict[str, Any], now_ms: float) -> None:
        self._node.led = msg

    def set_brightness(self, brightness: float) -> None:
        pass


class NodeCore(ShipCore):
    """The ship core with the node's paho client as its link."""

    def __init__(self, node: VirtualShipNode, *args: Any, **kwargs: Any) -> None:
        self._node = node
        self.live = False  # warming up: nothing goes out yet
        super().__init__(*args, **kwargs)

    def send(self, name: str, payload: bytes) -> None:
        if self.live:
            self._node.publish(name, payload)

    def set_status(self, payload: bytes) -> None:
        if self.live:
            self._node.set_status(payload)


class VirtualShipNode:
    """A simulated ship run by the firmware's core, publishing to `bosun/<table>/ship/...`."""

    def __init__(
        self,
        table_id: str,
        broker: BrokerAccess | tuple[str, int],
        seed: int | str = 0,
        table_sensor: str = "both",
        level: str = "normal",
        scale: float = 1.0,
        params: ShipParams | None = None,
    ) -> None:
        """`broker`: where the ship logs in (its own login on bosun's broker, as a real ship's
        config.json has it); `params` replaces the ship drawn from `level` (e.g.
        `ShipParams.harbour`)."""
        access = as_access(broker)
        self.table_id = table_id
        self.scale = scale
        if params is None:
            params = ShipParams.draw(level, seed, rate_sps=80, table=table_sensor)
        self.params = params
        self.seed = seed
        self.games = 0
        self.ship = VirtualShip(self.params, seed)
        zones = len(geometry.ZONES)
        has_mat = self.params.table in ("mat", "both")
        self._hands = Hands(zones, has_mat)
        channels = zones + (1 if has_mat else 0)
        self.cells = analog.make_cells(zones + 1, seed)[:channels]
        # The amplifiers' own few counts of noise (a live HX711 never repeats itself for
        # long, which LoadCells' stuck-line check relies on): drawn once, then cycled.
        noise = random.Random(f"{seed}/hx711")
        self._noise = [
            round(noise.gauss(0.0, cell.noise_counts), 1) for cell in self.cells for _ in range(97)
        ]
        self._noise_at = 0
        self._offsets = [cell.offset for cell in self.cells]
        self._scales = [cell.counts_per_g for cell in self.cells]
        self.led: dict[str, Any] | None = None  # the last LED command the host sent
        self.commands = 0
        self._pending = 0
        self._pending_lock = threading.Lock()
        self._status: bytes | None = None
        self._started: tuple[float, float] | None = None  # (loop time, ship ms) sampling began
        # The host's side, once a table takes this ship's events: the highest seq of a boot
        # up to which it has taken them all (`lived_ms`).
        self.taken: Callable[[str], int] | None = None
        self.hold_untaken_ms = HOLD_UNTAKEN_MS
        self._files = tempfile.TemporaryDirectory(prefix=f"bosun-{table_id}-")
        files = Path(self._files.name)
        self.config_path = str(files / "config.json")
        self.calibration_path = str(files / "calibration.json")
        # As flashed: the table's config, and a calibration that fits the cells exactly.
        raw = {
            "table": table_id,
            "wifi": {"ssid": "virtual", "password": ""},  # (a ship without one uses serial)
            # (paho connects, with the same login: the core only shows it in its status)
            "mqtt": {
                "url": f"{'mqtts' if access.tls else 'mqtt'}://{access.host}:{access.port}",
                "user": access.user,
                "ca": Path(access.ca_file).read_text() if access.tls and access.ca_file else None,
            },
            "sample_rate_hz": self.params.rate_sps,
            "drop_sensor": self.params.table,
            "weights_interval_ms": WEIGHTS_EVERY_MS,
            "trace_batch": TRACE_ROWS_A_BATCH,
        }
        config, problems = settings.check(raw)
        if problems:
            raise ValueError(f"virtual ship {table_id}: {'; '.join(problems)}")
        settings.save(config, self.config_path)
        perfect = analog.calibration(self.cells, zones, self.ship.calibrated_item_grams())
        Path(self.calibration_path).write_text(protocol.encode(perfect).decode(), "utf-8")
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"bosun-virtual-{table_id}-{secrets.token_hex(4)}",
            protocol=mqtt.MQTTv311,
        )
        self.client.max_queued_messages_set(MAX_QUEUED_PUBLISHES)
        self.client.will_set(self._topic(protocol.STATUS), protocol.LWT_PAYLOAD, qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self._network = ClientThread(self.client, access, keepalive_s=10)
        self.core, self.bus = self._fresh(self.ship)
        self._restart = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None

    # -- the ship's core -------------------------------------------------------------------

    def _boot(self, ship: VirtualShip, bus: CellsBus) -> NodeCore:
        """Power the ship's core up: config and calibration as saved, a new boot id."""
        config, problems = settings.load(self.config_path)
        core = NodeCore(
            self,
            config,
            problems,
            bus,
            SimClock(ship),
            self.config_path,
            self.calibration_path,
            log=lambda text: log.debug("%s: %s", self.table_id, text),
        )
        core.leds = RecordingLeds(self)
        return core

    @property
    def boot(self) -> str:
        return self.core.boot

    @property
    def items(self) -> dict[str, float]:
        """The pieces' grams the ship's detector knows (its calibration's)."""
        return dict(self.core.cal.items)

    @property
    def true_counts_per_g(self) -> list[float]:
        """Each cell's true scale, which a calibration should find."""
        return [cell.counts_per_g for cell in self.cells]

    @property
    def hand_loads(self) -> dict[int, HandLoad]:
        return self._hands.loads

    def _topic(self, name: str) -> str:
        return protocol.topic(self.table_id, name)

    # -- the link ----------------------------------------------------------------------------

    def publish(self, name: str, payload: bytes) -> None:
        """QoS 0 (weights, trace): sent if connected, else dropped, as the ship's link does."""
        if self.client.is_connected():
            self.client.publish(self._topic(name), payload)

    def set_status(self, payload: bytes) -> None:
        self._status = payload
        if self.client.is_connected():
            self.client.publish(self._topic(protocol.STATUS), payload, qos=1, retain=True)

    def _drain(self) -> None:
        """Hand the outbox's waiting events and results to paho, whose QoS 1 session
        delivers them from there; while disconnected they wait in the (bounded) outbox."""
        if not self.client.is_connected():
            return
        now_ms = self.ship.now_ms
        outbox = self.core.outbox
        for entry in outbox.entries:
            if entry[3] != WAITING:
                continue
            info = self.client.publish(self._topic(entry[1]), entry[2], qos=1)
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                return  # paho's queue is full or the link just dropped: try again later
            outbox.sent(entry, now_ms)
            entry[3] = DELIVERED

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        send_without_delay(client)
        client.subscribe(self._topic(protocol.CMD), qos=1)
        status = self._status
        if status is not None:  # the birth: the latest status, retained
            client.publish(self._topic(protocol.STATUS), status, qos=1, retain=True)

    def _on_message(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        # paho's thread: the core is the loop's, so the command waits there for its turn.
        loop = self._loop
        with self._pending_lock:
            if loop is None or self._pending >= MAX_PENDING_COMMANDS:
                log.warning("%s: a command was dropped (too many waiting)", self.table_id)
                return
            self._pending += 1
        loop.call_soon_threadsafe(self._command, bytes(message.payload))

    def _command(self, payload: bytes) -> None:
        with self._pending_lock:
            self._pending -= 1
        self.commands += 1
        self.core.on_command(payload)
        self._drain()

    # -- running ---------------------------------------------------------------------------

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.core.live = True
        self.core.publish_status()
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
        await asyncio.to_thread(self._files.cleanup)

    def _fresh(self, ship: VirtualShip) -> tuple[NodeCore, CellsBus]:
        """A core booted on `ship` that has learnt it empty (its detector's first ~600 ms)
        before anyone acts. Touches nothing the running core uses: a worker thread may."""
        bus = CellsBus(len(self.cells))
        core = self._boot(ship, bus)
        target = ship.now_ms + WARM_UP_MS
        while ship.now_ms < target:
            self._feed(ship, core, bus, ())
        return core, bus

    async def new_game(self) -> None:
        """Between games the players clear the ship and it starts afresh: a new boot (made
        and warmed up in a worker thread, then put in place on the loop)."""
        games = self.games + 1
        ship = VirtualShip(self.params, f"{self.seed}/game{games}")
        core, bus = await asyncio.to_thread(self._fresh, ship)
        self.games = games
        self.ship, self.core, self.bus = ship, core, bus
        self._hands.loads.clear()
        self._restart = True
        core.live = True
        core.publish_status()  # the birth of the new boot

    def _reboot(self) -> None:
        """The host's `restart`: the same ship, a new boot whose detector learns it afresh
        while the game goes on (as the ESP32's does)."""
        self.core = self._boot(self.ship, self.bus)
        self._restart = True
        self.core.live = True
        self.core.publish_status()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.to_thread(self._network.start)
        try:
            while True:
                self._restart = False
                self._started = (loop.time(), self.ship.now_ms)
                while not self._restart:
                    caught_up = self.advance_to(self._target_ms(), budget_s=BATCH_BUDGET_S)
                    await asyncio.sleep(TICK_S if caught_up else 0)
        finally:
            self._started = None

    def _target_ms(self) -> float:
        """The ship time the scaled wall clock has reached (where sampling should be)."""
        assert self._loop is not None and self._started is not None
        start_real, start_ship_ms = self._started
        return start_ship_ms + (self._loop.time() - start_real) * 1000 * self.scale

    def behind_ms(self) -> float:
        """How far the ship's samples, and the events it sent, are behind the scaled wall
        clock (the service's clock waits for them: `LoopClock.pace_with`); 0 while it is not
        sampling."""
        if self._started is None:
            return 0.0
        return max(0.0, self._target_ms() - self.lived_ms())

    def lived_ms(self) -> float:
        """The ship time the host may see: what has been sampled, but not past the sending of
        an event the host has not taken yet (`taken`), for at most `hold_untaken_ms`."""
        now = self.ship.now_ms
        if self.taken is None:
            return now
        taken = self.taken(self.boot)
        for seq, name, _payload, state, sent_ms in self.core.outbox.entries:  # oldest first
            sent = name == protocol.EVENT and state != WAITING
            if sent and seq > taken and now - sent_ms < self.hold_untaken_ms:
                return min(now, sent_ms)
        return now

    def advance_to(self, t_ms: float, budget_s: float | None = None) -> bool:
        """Run the ship's core on the samples up to ship time `t_ms` and publish what it
        says; with `budget_s`, stop after about that much CPU. True once it is at `t_ms`."""
        period_ms = 1000 / self.ship.rate_sps
        give_up_at = None if budget_s is None else time.monotonic() + budget_s
        count = 0
        caught_up = True
        while self.ship.now_ms + period_ms <= t_ms:
            count += 1
            if give_up_at is not None and count % 16 == 0 and time.monotonic() > give_up_at:
                caught_up = False
                break
            self._feed(self.ship, self.core, self.bus, self._hands.loads.items())
            restart_at = self.core.restart_at_ms
            if restart_at is not None and self.ship.now_ms >= restart_at:
                self._reboot()  # the host's `restart`: same ship, new boot
                caught_up = False
                break
        self._drain()
        return caught_up

    def _feed(self, ship: VirtualShip, core: NodeCore, bus: CellsBus, hand_loads) -> None:
        """One conversion: the ship's next sample (with what the hands hold) through the
        cells into the core."""
        sample = ship.next_sample()
        true_g = [*sample.zones_g, sample.table_g or 0.0]
        for channel, load in hand_loads:
            true_g[channel] += load.at(sample.t_ms)
        noise = self._noise
        at = self._noise_at = (self._noise_at + 7) % (len(noise) - 16)
        channels = len(self._offsets)  # (no mat: its grams are not read)
        values = [
            round(offset + g * scale + e)
            for offset, g, scale, e in zip(
                self._offsets,
                true_g[:channels],
                self._scales,
                noise[at : at + channels],
                strict=True,
            )
        ]
        if min(values) < RAW_MIN or max(values) > RAW_MAX:  # the ADC clamps
            values = [max(RAW_MIN, min(RAW_MAX, v)) for v in values]
        bus.values[:] = values
        t_ms = round(sample.t_ms)  # whole ms since boot, as the firmware counts
        core.sample(t_ms, 0, int(1000 / ship.rate_sps), sample.impact)
        core.periodic(t_ms)

    # -- the calibration wizard's hands ------------------------------------------------------

    def put_weight(self, zone: Any, grams: float) -> None:
        """A hand sets a known calibration weight of `grams` on `zone` (1-10 or "mat")."""
        self._hands.put_weight(self.ship, zone, grams)

    def put_piece(self, zone: Any, item: str, count: int = 1) -> None:
        """A hand sets `count` pieces of `item` from the supply on `zone` to be weighed."""
        self._hands.put_piece(self.ship, zone, item, count)

    def take_off(self, zone: Any) -> None:
        """The hand takes back what it set on `zone` (a weight or pieces, back to the supply)."""
        self._hands.take_off(self.ship, zone)

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
        self._hands.clear(ship)
        return len(aboard) + len(resting)

    def hands(self) -> dict[str, str]:
        """What the wizard's hand has put where: {"3": "100 g weight", "mat": ...}."""
        return self._hands.describe()
