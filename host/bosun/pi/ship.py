"""`run_gpio_ship(config_path)`: a ship on a Raspberry Pi, the firmware's loop in CPython.

The same core as the ESP32 (shipcore.core.ShipCore: load cells, detector, commands, outbox)
reads the HX711s through the firmware's driver on the Pi's GPIO (lines.py) and publishes the
same MQTT messages through paho: events and results from the outbox at QoS 1 (an entry
counts as delivered at the broker's PUBACK; paho sends what is in flight again after a
reconnect), weights and trace at QoS 0, the status retained with the last will
`{"online":false}`. One thread samples (paced by the amplifiers' DOUT, as on the ESP32),
paho's network thread only queues commands (a bounded queue) and acknowledgements.

Linux is not a real-time system: a clock pulse can be stretched by the scheduler. The
driver measures every pulse; a train with a pulse over 50 us is thrown away, and over 60 us
(the HX711 powered down) the amplifiers' settling readings are discarded too; a train held
up between pulses for over a quarter of the period is thrown away and the amplifiers reset
(lines.PiBus). How often that happens under load is measured by bench/pi_timing.py
(bench/README.md: "Raspberry Pi ship").
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import paho.mqtt.client as mqtt

from bosun.pi import config as pi_config
from bosun.pi.lines import GpioLines, PiBus, import_gpiod
from shipcore import settings
from shipcore.core import ShipCore
from shipcore.outbox import DELIVERED, IN_FLIGHT, WAITING
from shipsense import protocol

READY_TIMEOUT_PERIODS = 2
SLEEP_IF_AHEAD_US = 2500
MAX_PENDING_COMMANDS = 64
MAX_IN_FLIGHT = 20
DEFAULT_CHIP = "/dev/gpiochip0"
REALTIME_PRIORITY = 10


class MonotonicClock:
    """The core's clock: milliseconds that never wrap."""

    @staticmethod
    def ticks_ms() -> int:
        return time.monotonic_ns() // 1_000_000

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b

    @staticmethod
    def ticks_add(a: int, b: int) -> int:
        return a + b


class PahoLink:
    """The ship's MQTT session through paho: what the ESP32's mqtt_link does, for a Pi."""

    def __init__(self, core: ShipCore, url: str, client_id: str, log: Callable[[str], None]):
        self.core = core
        self.host, self.port = settings.parse_mqtt_url(url)
        self.log = log
        table = core.table
        self.topics = {name: protocol.topic(table, name) for name in protocol.SHIP_TOPICS}
        self.cmd_topic = protocol.topic(table, protocol.CMD)
        self.commands: queue.Queue[bytes] = queue.Queue(MAX_PENDING_COMMANDS)
        self.dropped_commands = 0
        self._acked: collections.deque[int] = collections.deque()
        self._in_flight: dict[int, list] = {}
        self.status: bytes | None = None
        self.connects = 0
        config = core.config["mqtt"]
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311
        )
        if config["user"] is not None:
            self.client.username_pw_set(config["user"], config["password"])
        if settings.uses_tls(url):  # mqtts://: the broker's certificate checked against mqtt.ca
            self.client.tls_set_context(ssl.create_default_context(cadata=config["ca"]))
        self.client.will_set(self.topics[protocol.STATUS], protocol.LWT_PAYLOAD, qos=1, retain=True)
        self.client.max_inflight_messages_set(MAX_IN_FLIGHT)
        backoff_s = max(1, int(config["backoff_max_s"]))
        self.client.reconnect_delay_set(1, backoff_s)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish
        self._keepalive_s = config["keepalive_s"]

    @property
    def up(self) -> bool:
        return self.client.is_connected()

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=self._keepalive_s)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()  # a clean goodbye: the broker keeps the last status
        self.client.loop_stop()

    # paho's network thread: queue, never touch the core.

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self.log(f"mqtt: {self.host}:{self.port} refused the ship: {reason_code}")
            return
        self.connects += 1
        client.subscribe(self.cmd_topic, qos=1)
        if self.status is not None:  # the birth: the latest status, retained
            client.publish(self.topics[protocol.STATUS], self.status, qos=1, retain=True)
        self.log(f"mqtt: connected to {self.host}:{self.port}")

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self.log(f"mqtt: disconnected ({reason_code}); paho reconnects")

    def _on_message(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        if message.topic != self.cmd_topic:
            return
        try:
            self.commands.put_nowait(bytes(message.payload))
        except queue.Full:
            self.dropped_commands += 1

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        self._acked.append(mid)

    # the sampling thread

    def publish(self, name: str, payload: bytes) -> None:
        """QoS 0 (weights, trace): sent if connected, else dropped."""
        if self.up:
            self.client.publish(self.topics[name], payload)

    def set_status(self, payload: bytes) -> None:
        self.status = payload
        if self.up:
            self.client.publish(self.topics[protocol.STATUS], payload, qos=1, retain=True)

    def service(self) -> bool:
        """Commands in, acknowledgements noted, the outbox's waiting entries out; True if
        anything was done."""
        worked = False
        while True:
            try:
                payload = self.commands.get_nowait()
            except queue.Empty:
                break
            self.core.on_command(payload)
            worked = True
        outbox = self.core.outbox
        while self._acked:
            entry = self._in_flight.pop(self._acked.popleft(), None)
            if entry is not None and entry[3] == IN_FLIGHT:
                outbox.delivered(entry)
        if not self.up:
            return worked
        for entry in outbox.entries:
            if len(self._in_flight) >= MAX_IN_FLIGHT:
                break
            if entry[3] != WAITING:
                continue
            info = self.client.publish(self.topics[entry[1]], entry[2], qos=1)
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                break
            outbox.sent(entry, 0)
            self._in_flight[info.mid] = entry
            worked = True
        return worked


class PiCore(ShipCore):
    """The ship core with a paho link."""

    link: PahoLink
    bus: PiBus

    def send(self, name: str, payload: bytes) -> None:
        self.link.publish(name, payload)

    def set_status(self, payload: bytes) -> None:
        self.link.set_status(payload)

    def status_extra(self) -> dict[str, Any]:
        extra = super().status_extra()
        extra["hx711"]["read"] = "gpiod"
        extra["hx711"]["stretched_pulses"] = self.bus.stretched_pulses
        extra["hx711"]["slow_trains"] = self.bus.slow_trains
        extra["link"] = {
            "kind": "mqtt",
            "up": self.link.up,
            "state": f"{'connected' if self.link.up else 'not connected'} to "
            f"{self.link.host}:{self.link.port}",
            "connects": self.link.connects,
            "drops": max(0, self.link.connects - 1),
        }
        extra["outbox"]["delivered"] = sum(1 for e in self.outbox.entries if e[3] == DELIVERED)
        return extra


class PiShip:
    """The sample loop: wait for the amplifiers, read, hand the train to the core."""

    def __init__(
        self,
        config_path: str,
        chip: str = DEFAULT_CHIP,
        gpiod: ModuleType | None = None,
        log: Callable[[str], None] = print,
    ) -> None:
        config, problems = pi_config.load(config_path)
        folder = Path(config_path).resolve().parent
        pins = config["pins"]
        douts = list(pins["hx711_dout"])
        if config["drop_sensor"] in ("mat", "both"):
            douts.append(pins["mat_dout"])
        self.lines = GpioLines(gpiod or import_gpiod(), chip, pins["hx711_sck"], douts)
        try:
            bus = self.lines.bus(config["hx711_gain"], config["sample_rate_hz"])
            self.core = PiCore(
                config,
                problems,
                bus,
                MonotonicClock(),
                str(config_path),
                str(folder / "calibration.json"),
                log,
            )
            uid = self.core.boot
            self.core.link = PahoLink(
                self.core, config["mqtt"]["url"], f"bosun-{self.core.table}-pi-{uid}", log
            )
        except BaseException:
            self.lines.release()
            raise
        self.bus = bus
        self.period_us = self.core.period_us
        self._last_ready_ns = time.perf_counter_ns()
        self._start_ms = MonotonicClock.ticks_ms()

    def run(self, stop: threading.Event, realtime: bool = False) -> bool:
        """Sample until `stop` is set; True if the host asked for a restart instead.
        `realtime`: this thread (not paho's) under SCHED_FIFO, so that the scheduler
        stretches far fewer clock pulses (bench/README.md: "Raspberry Pi ship")."""
        core = self.core
        core.link.start()
        core.publish_status()
        if realtime:
            self._realtime(core.log)
        try:
            while not stop.is_set():
                self.step(stop)
                restart_at = core.restart_at_ms
                if restart_at is not None and MonotonicClock.ticks_ms() >= restart_at:
                    core.log("restarting as the host asked")
                    return True
            return False
        finally:
            if realtime:
                with contextlib.suppress(OSError):
                    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
            core.link.stop()
            self.lines.release()

    @staticmethod
    def _realtime(log: Callable[[str], None]) -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REALTIME_PRIORITY))
        except OSError as error:
            log(
                f"realtime scheduling refused ({error.strerror}): run as root or with "
                "CAP_SYS_NICE (systemd: CPUSchedulingPolicy=fifo); clock pulses are "
                "stretched more often without it"
            )

    def _background(self) -> bool:
        core = self.core
        worked = core.link.service()
        if core.periodic(MonotonicClock.ticks_ms()):
            worked = True
        return worked

    def step(self, stop: threading.Event) -> None:
        """One sample period: wait for every working amplifier (doing the network and the
        periodic messages meanwhile), read the train, feed the core."""
        bus, cells = self.bus, self.core.cells
        self._background()
        period_us = self.period_us
        timeout_us = READY_TIMEOUT_PERIODS * period_us
        by_clock = cells.active_mask == 0
        timed_out = False
        while (by_clock or not bus.ready()) and not stop.is_set():
            since_us = (time.perf_counter_ns() - self._last_ready_ns) // 1000
            if by_clock and since_us >= period_us:
                break
            if since_us > timeout_us:
                timed_out = True
                break
            if self._background():
                continue
            # close to the conversion: shorter naps (a conversion's data waits until the
            # next one, 12.5 ms), never a spin that would starve paho's thread
            time.sleep(0.001 if period_us - since_us > SLEEP_IF_AHEAD_US else 0.0002)
        if stop.is_set():
            return  # stopping: no train to read (a DOUT still high would read as -1)
        now_ns = time.perf_counter_ns()
        elapsed_us = (now_ns - self._last_ready_ns) // 1000
        self._last_ready_ns = now_ns
        not_ready = 0
        if timed_out or cells.active_mask != (1 << cells.channels) - 1:
            not_ready = bus.not_ready()
        t_ms = MonotonicClock.ticks_ms() - self._start_ms
        self.core.sample(t_ms, not_ready, elapsed_us // 1000)


def run_gpio_ship(
    config_path: str,
    chip: str = DEFAULT_CHIP,
    gpiod: ModuleType | None = None,
    stop: threading.Event | None = None,
    log: Callable[[str], None] = print,
    realtime: bool = False,
) -> None:
    """Run a Raspberry Pi ship from `config_path` until `stop` is set; a `restart` from the
    host starts it afresh (config and calibration read again, a new boot). `gpiod`: the
    libgpiod v2 module, or a stand-in with its API (tests); `realtime`: sample under
    SCHED_FIFO (PiShip.run). ConfigError if the config
    cannot run a ship, RuntimeError if gpiod is missing."""
    stop = stop or threading.Event()
    while PiShip(config_path, chip, gpiod, log).run(stop, realtime):
        pass
