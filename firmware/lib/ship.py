"""The ship on the ESP32: the ship core on real pins and a network link. One loop, no threads.

The core (shipcore.core.ShipCore: config, load cells, detector, commands, outbox) is the
same class the host's virtual ships run; this module adds what only a board has: the HX711
pins, the piezo, the LEDs, WiFi and the MQTT (or serial) link, the watchdog, heap care.
Each period of the loop (12.5 ms at 80 SPS):
1. wait until every working amplifier has a conversion ready; meanwhile do the network,
   LED and status work, and sleep when there is none (that idle time is the loop's slack);
2. read every channel in one pulse train, calibrate, feed the detector (`ShipCore.sample`);
3. number its events (boot, seq) into the outbox, feed running measurements, feed the
   watchdog.
An amplifier that is not ready within READY_TIMEOUT_PERIODS periods is not waited for: the
others are read, and LoadCells faults the silent one if it stays silent.
"""

import gc
import sys
import time

import machine
from leds import Leds
from loopstats import LoopStats
from piezo import Piezo
from watchdog import Watchdog

from shipcore import calibration, settings
from shipcore.core import ShipCore
from shipcore.hx711 import HX711Bus

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Callable

    from mqtt_link import MqttLink
    from serial_link import SerialLink
    from wifi import Wifi

    # what _import_link loaded: the link's class, and Wifi's for an MQTT link
    LinkClasses = tuple[type[SerialLink], None] | tuple[type[MqttLink], type[Wifi]]

READY_TIMEOUT_PERIODS = 2
LED_FRAME_MS = 40
SLEEP_IF_AHEAD_US = 2500
IMPACT_RECENT_MS = 1000
# Heap an event takes in the outbox, with room to spare: measured ~205 bytes on 32-bit
# MicroPython (the ESP32) and ~281 on the 64-bit unix port (bosun.board.heap).
OUTBOX_EVENT_BYTES = 256 if sys.maxsize < 2**32 else 512
RESET_CAUSES = {
    getattr(machine, "PWRON_RESET", -1): "power on",
    getattr(machine, "HARD_RESET", -2): "hard reset",
    getattr(machine, "WDT_RESET", -3): "watchdog",
    getattr(machine, "DEEPSLEEP_RESET", -4): "deep sleep",
    getattr(machine, "SOFT_RESET", -5): "soft reset",
}


def _reset_cause() -> str:
    try:
        return RESET_CAUSES.get(machine.reset_cause(), "unknown")
    except AttributeError:
        return "unknown"


class Ship(ShipCore):
    """Everything on the ESP32, wired from config.json; `run()` never returns."""

    def __init__(
        self,
        config_path: str = "config.json",
        calibration_path: str = calibration.FILE,
        log: "Callable[[str], object]" = print,
    ) -> None:
        config, problems = settings.load(config_path)
        cfg = config
        # The link's code (and the LED strip's) first: the ship cannot run without it, while a
        # detector that does not fit is only reported. Imported after the detector and the
        # outbox, from source on a small heap, their compilation can fail on a heap the
        # detector's modules fragmented and the outbox filled.
        link_classes = self._import_link(cfg)
        strip_class = None
        if cfg["leds"]["count"]:
            import neopixel  # before the core fills the heap with the detector and the outbox

            strip_class = neopixel.NeoPixel
        has_mat = cfg["drop_sensor"] in ("mat", "both")
        has_piezo = cfg["drop_sensor"] in ("piezo", "both")
        pins = cfg["pins"]
        pin_class = machine.Pin
        sck = pin_class(pins["hx711_sck"], pin_class.OUT, value=0)
        gpios = list(pins["hx711_dout"]) + ([pins["mat_dout"]] if has_mat else [])
        douts = [pin_class(gpio, pin_class.IN) for gpio in gpios]
        read_mode = cfg["hx711_read"]
        if read_mode == "auto":
            read_mode = "register" if sys.platform == "esp32" else "pins"
        self.read_mode = read_mode
        if read_mode == "register":
            bus = HX711Bus(sck, douts, cfg["hx711_gain"], gpios, machine.mem32)
        else:
            bus = HX711Bus(sck, douts, cfg["hx711_gain"])
        ShipCore.__init__(
            self,
            config,
            problems,
            bus,
            time,
            config_path,
            calibration_path,
            log,
            _reset_cause(),
        )
        self.piezo: Piezo | None = None
        if has_piezo:
            self.piezo = Piezo(pin_class(pins["piezo"], pin_class.IN), cfg["piezo_debounce_ms"])
        if strip_class is not None:  # leds.count is not 0
            strip = strip_class(pin_class(pins["led_data"], pin_class.OUT), cfg["leds"]["count"])
            self.leds = Leds(
                strip, cfg["leds"]["count"], cfg["leds"]["zones"], cfg["leds"]["brightness"]
            )
        self.wifi: Wifi | None = None
        self.link = self._make_link(link_classes)
        self.link.on_connect = self.publish_status
        self.stats = LoopStats(self.period_us)
        self.watchdog: Watchdog | None = None
        now_ms = time.ticks_ms()
        self._now_ms = now_ms
        self._last_ms = now_ms
        self._leds_due_ms = now_ms
        self._link_was_up = False
        self._last_ready_us = time.ticks_us()
        gc.collect()
        self._gc_floor = (gc.mem_free() + gc.mem_alloc()) // 5

    # --- wiring ---------------------------------------------------------------------------

    def outbox_size(self, wanted: int) -> int:
        """`wanted`, or fewer events if a full outbox would leave under a quarter of the heap.

        A WROOM's ~109 KB heap holds the default 128 events (~26 KB) with the firmware frozen
        in, but not the 1024 config.json allows: better a smaller ring, said in the status,
        than a MemoryError in the middle of an outage.
        """
        gc.collect()
        free = gc.mem_free()
        fits = (free - (free + gc.mem_alloc()) // 4) // OUTBOX_EVENT_BYTES
        if wanted <= fits:
            return wanted
        size = max(16, fits)
        self.outbox_problem = (
            f"outbox_size {wanted} does not fit this board's heap ({free // 1024} KB free): "
            f"keeping {size} events"
        )
        return size

    def _import_link(self, cfg: dict) -> "LinkClasses":
        if cfg["link"] == "serial":
            from serial_link import SerialLink

            return SerialLink, None
        import network  # noqa: F401  (built in on the ESP32; Wifi's, loaded here first)
        from mqtt_link import MqttLink
        from wifi import Wifi

        return MqttLink, Wifi

    def _make_link(self, link_classes: "LinkClasses") -> "SerialLink | MqttLink":
        cfg = self.config
        if link_classes[1] is None:
            return link_classes[0](self.outbox, self.on_command, log=self.log)
        MqttLink, Wifi = link_classes
        self.wifi = Wifi(cfg["wifi"]["ssid"], cfg["wifi"]["password"])
        host, port = settings.parse_mqtt_url(cfg["mqtt"]["url"])
        uid = "".join(f"{b:02x}" for b in machine.unique_id())
        return MqttLink(
            host,
            port,
            self.table,
            f"bosun-{self.table}-{uid}",
            self.outbox,
            self.on_command,
            keepalive_s=cfg["mqtt"]["keepalive_s"],
            backoff_max_s=cfg["mqtt"]["backoff_max_s"],
            user=cfg["mqtt"]["user"],
            password=cfg["mqtt"]["password"],
            wifi=self.wifi,
            log=self.log,
            tls=settings.uses_tls(cfg["mqtt"]["url"]),
            ca=cfg["mqtt"]["ca"],
        )

    def apply_setting(self, config: dict, key: str) -> None:
        ShipCore.apply_setting(self, config, key)
        if key == "piezo_debounce_ms" and self.piezo is not None:
            self.piezo.debounce_ms = config["piezo_debounce_ms"]

    # --- messages -------------------------------------------------------------------------

    def send(self, name: str, payload: bytes) -> None:
        self.link.publish(name, payload)

    def set_status(self, payload: bytes) -> None:
        self.link.set_status(payload)

    def problems(self) -> "list[str]":
        problems = ShipCore.problems(self)
        if self.watchdog is not None and not self.watchdog.hardware:
            problems.append("no hardware watchdog on this port")
        return problems

    def status_extra(self) -> dict:
        extra = ShipCore.status_extra(self)
        link = self.link
        extra["loop"] = self.stats.summary()
        extra["hx711"]["read"] = self.read_mode
        extra["link"] = {
            "kind": self.config["link"],
            "up": link.up,
            "state": link.describe(),
            "connects": link.connects,
            "drops": link.drops,
        }
        extra["watchdog"] = self.watchdog is not None and self.watchdog.hardware
        extra["mem_free"] = gc.mem_free()
        if self.wifi is not None:
            extra["wifi"] = self.wifi.describe()
        return extra

    def landed(self, event: dict) -> None:
        # The piezo IRQ timestamped the hit to the millisecond, finer than a sample period.
        piezo = self.piezo
        if piezo is None or not piezo.hits:
            return
        ago_ms = time.ticks_diff(self._now_ms, piezo.last_ms)
        if 0 <= ago_ms <= IMPACT_RECENT_MS:
            event["impact_ms"] = self.t_ms - ago_ms

    # --- the loop -------------------------------------------------------------------------

    def run(self) -> None:
        self.watchdog = Watchdog(self.config["watchdog_ms"])
        self.publish_status()
        self._last_ready_us = time.ticks_us()
        while True:
            try:
                self.step()
            except KeyboardInterrupt:
                self.link.close()
                raise
            except Exception as error:  # keep refereeing; the status tells the host
                self.errors += 1
                self.last_error = repr(error)
                sys.print_exception(error)
            restart_at = self.restart_at_ms
            if restart_at is not None and time.ticks_diff(time.ticks_ms(), restart_at) >= 0:
                self.restart()

    def restart(self) -> None:
        self.log("restarting as the host asked")
        self.link.close()
        machine.reset()

    def step(self) -> None:
        """One sample period: wait (doing background work), read, detect, queue."""
        ticks_us = time.ticks_us
        ticks_diff = time.ticks_diff
        bus = self.bus
        self._background()
        idle_us = 0
        timed_out = False
        timeout_us = READY_TIMEOUT_PERIODS * self.period_us
        # With every amplifier faulted there is no ready signal left: keep time by the clock.
        by_clock = self.cells.active_mask == 0
        while by_clock or not bus.ready():
            t0 = ticks_us()
            since_ready = ticks_diff(t0, self._last_ready_us)
            if by_clock and since_ready >= self.period_us:
                break
            if since_ready > timeout_us:
                timed_out = True
                break
            if self._background():
                continue
            if self.period_us - since_ready > SLEEP_IF_AHEAD_US:
                time.sleep_ms(1)
            idle_us += ticks_diff(ticks_us(), t0)
        t_ready = ticks_us()
        period_us = ticks_diff(t_ready, self._last_ready_us)
        self._last_ready_us = t_ready
        cells = self.cells
        not_ready = 0
        if timed_out or cells.active_mask != (1 << cells.channels) - 1:
            not_ready = bus.not_ready()
        now_ms = time.ticks_ms()
        self._now_ms = now_ms
        t_ms = self.t_ms + ticks_diff(now_ms, self._last_ms)
        self._last_ms = now_ms
        impact = self.piezo.take() if self.piezo is not None else None
        self.sample(t_ms, not_ready, period_us // 1000, impact)
        self.stats.add(ticks_diff(ticks_us(), t_ready), idle_us, period_us)
        if self.watchdog is not None:
            self.watchdog.feed()

    def _background(self) -> bool:
        """Network, LEDs, the core's periodic messages; True if anything was done."""
        now_ms = time.ticks_ms()
        worked = False
        if self.wifi is not None and self.wifi.service(now_ms):
            worked = True
        if self.link.service(now_ms):
            worked = True
        up = self.link.up
        if up != self._link_was_up:
            self._link_was_up = up
            if self.leds is not None:
                self.leds.link_up = up
            worked = True
        if self.leds is not None and time.ticks_diff(now_ms, self._leds_due_ms) >= 0:
            self._leds_due_ms = time.ticks_add(now_ms, LED_FRAME_MS)
            if self.leds.render(now_ms):
                worked = True
        if self.periodic(now_ms):
            worked = True
        if not worked and gc.mem_free() < self._gc_floor:
            gc.collect()
            worked = True
        return worked


def main() -> None:
    Ship().run()
