"""The ship: sample at the HX711's pace, detect, publish, obey the host. One loop, no threads.

Each period of the loop (12.5 ms at 80 SPS):
1. wait until every working amplifier has a conversion ready; meanwhile do the network,
   LED and status work, and sleep when there is none (that idle time is the loop's slack);
2. read every channel in one pulse train, calibrate, feed the detector;
3. number its events (boot, seq) into the outbox, feed running measurements, feed the
   watchdog.
An amplifier that is not ready within READY_TIMEOUT_PERIODS periods is not waited for: the
others are read, and LoadCells faults the silent one if it stays silent.
"""

import gc
import os
import sys
import time

import calibration
import machine
import settings
from commands import Commands
from hx711 import HX711Bus
from leds import Leds
from loadcells import LoadCells
from loopstats import LoopStats
from outbox import Outbox
from piezo import Piezo
from watchdog import Watchdog

from shipsense import protocol

FW_VERSION = "0.1.0"
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


def _boot_id():
    return "".join(f"{b:02x}" for b in os.urandom(4))


def _reset_cause():
    try:
        return RESET_CAUSES.get(machine.reset_cause(), "unknown")
    except AttributeError:
        return "unknown"


def _firmware_name():
    version = ".".join(str(n) for n in sys.implementation.version[:3])
    return f"bosun-ship {FW_VERSION} (MicroPython {version}, {sys.platform})"


class Ship:
    """Everything on the ESP32, wired from config.json; `run()` never returns."""

    def __init__(self, config_path="config.json", calibration_path=calibration.FILE, log=print):
        self.log = log
        self.config_path = config_path
        self.calibration_path = calibration_path
        self.boot = _boot_id()
        self.seq = 0
        self.fw = _firmware_name()
        self.reset_cause = _reset_cause()
        log(f"{self.fw}: boot {self.boot} after {self.reset_cause}")
        self.config, self.config_problems = settings.load(config_path)
        for problem in self.config_problems:
            log("config: " + problem)
        cfg = self.config
        self.table = cfg["table"]
        self.rate_hz = cfg["sample_rate_hz"]
        self.period_us = 1000000 // self.rate_hz
        self.zones = cfg["zones"]
        self.drop_sensor = cfg["drop_sensor"]
        has_mat = self.drop_sensor in ("mat", "both")
        has_piezo = self.drop_sensor in ("piezo", "both")
        self.cal, self.cal_problem = calibration.load(
            self.zones, cfg["default_counts_per_g"], calibration_path
        )
        if self.cal_problem:
            log("calibration: " + self.cal_problem)

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
            self.bus = HX711Bus(sck, douts, cfg["hx711_gain"], gpios, machine.mem32)
        else:
            self.bus = HX711Bus(sck, douts, cfg["hx711_gain"])
        self.cells = LoadCells(self.bus, self.cal, self.zones, has_mat, self.rate_hz)
        self.piezo = None
        if has_piezo:
            self.piezo = Piezo(pin_class(pins["piezo"], pin_class.IN), cfg["piezo_debounce_ms"])
        self.leds = None
        if cfg["leds"]["count"]:
            import neopixel

            strip = neopixel.NeoPixel(
                pin_class(pins["led_data"], pin_class.OUT), cfg["leds"]["count"]
            )
            self.leds = Leds(
                strip, cfg["leds"]["count"], cfg["leds"]["zones"], cfg["leds"]["brightness"]
            )
        # The link's code first: the ship cannot run without it, while a detector that does
        # not fit is only reported. Imported after the detector, from source on a small heap
        # the link's compilation can fail on a heap the detector's modules fragmented.
        self._link_classes = self._import_link()
        self.detector, self.detector_problem = self._make_detector()
        if self.detector_problem:
            log("detector: " + self.detector_problem)

        self.outbox_problem = None
        self.outbox = Outbox(self._outbox_size(cfg["outbox_size"]))
        if self.outbox_problem:
            log("outbox: " + self.outbox_problem)
        self.commands = Commands(self)
        self.wifi = None
        self.link = self._make_link()
        self.link.on_connect = self.publish_status
        self.stats = LoopStats(self.period_us)
        self.watchdog = None
        self.trace_on = cfg["trace"]
        self.trace_rows = []
        self._weights_sum = [0.0] * self.zones
        self._table_sum = 0.0
        self._weights_n = 0
        now_ms = time.ticks_ms()
        self.t_ms = 0
        self._last_ms = now_ms
        self.weights_due_ms = time.ticks_add(now_ms, cfg["weights_interval_ms"])
        self.status_due_ms = time.ticks_add(now_ms, cfg["status_interval_s"] * 1000)
        self._leds_due_ms = now_ms
        self.restart_at_ms = None
        self._link_was_up = False
        self._last_ready_us = time.ticks_us()
        self.errors = 0
        self.last_error = None
        self.detector_errors = 0
        gc.collect()
        self._gc_floor = (gc.mem_free() + gc.mem_alloc()) // 5

    # --- wiring ---------------------------------------------------------------------------

    def _make_detector(self):
        try:
            from shipsense.detector import Detector
        except Exception as error:  # missing or broken: the ship still reports faults
            return None, f"not available ({error!r}): only faults are reported"
        try:
            detector = Detector(
                rate_hz=self.rate_hz,
                n_zones=self.zones,
                table=self.drop_sensor,
                items=self.cal.items or None,
            )
        except Exception as error:
            return None, f"could not start: {error!r}"
        return detector, None

    def _outbox_size(self, wanted):
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

    def _import_link(self):
        if self.config["link"] == "serial":
            from serial_link import SerialLink

            return SerialLink, None
        import network  # noqa: F401  (built in on the ESP32; Wifi's, loaded here first)
        from mqtt_link import MqttLink
        from wifi import Wifi

        return MqttLink, Wifi

    def _make_link(self):
        cfg = self.config
        link_class, Wifi = self._link_classes
        self._link_classes = None
        if Wifi is None:
            return link_class(self.outbox, self._on_command, log=self.log)
        MqttLink = link_class
        self.wifi = Wifi(cfg["wifi"]["ssid"], cfg["wifi"]["password"])
        host, port = settings.parse_mqtt_url(cfg["mqtt"]["url"])
        uid = "".join(f"{b:02x}" for b in machine.unique_id())
        return MqttLink(
            host,
            port,
            self.table,
            f"bosun-{self.table}-{uid}",
            self.outbox,
            self._on_command,
            keepalive_s=cfg["mqtt"]["keepalive_s"],
            backoff_max_s=cfg["mqtt"]["backoff_max_s"],
            user=cfg["mqtt"]["user"],
            password=cfg["mqtt"]["password"],
            wifi=self.wifi,
            log=self.log,
        )

    def use_calibration(self, cal):
        """Put a new (already saved) calibration in use."""
        self.cal = cal
        self.cells.cal = cal
        self.cal_problem = None
        if self.detector is not None and cal.items:
            self.detector.set_items(dict(cal.items))

    def apply_setting(self, config, key):
        """A `set` of a live key: the saved config is now `config`."""
        self.config = config
        if key == "leds.brightness" and self.leds is not None:
            self.leds.set_brightness(config["leds"]["brightness"])
        elif key == "piezo_debounce_ms" and self.piezo is not None:
            self.piezo.debounce_ms = config["piezo_debounce_ms"]
        elif key == "trace":
            self.trace_on = config["trace"]
        elif key == "status_interval_s":
            self.status_due_ms = time.ticks_ms()

    # --- messages -------------------------------------------------------------------------

    def emit(self, event):
        """Number a detector or fault event and queue it for the host."""
        self.seq += 1
        msg = protocol.event_message(event, self.boot, self.seq)
        self.outbox.add(protocol.EVENT, protocol.encode(msg), self.seq)

    def _send_result(self, result):
        self.outbox.add(protocol.RESULT, protocol.encode(result))

    def _on_command(self, payload):
        result = self.commands.handle(payload, time.ticks_ms())
        if result is not None:
            self._send_result(result)

    def problems(self):
        """Every current problem as a sentence, for the status message."""
        problems = ["config: " + p for p in self.config_problems]
        if self.cal_problem:
            problems.append("calibration: " + self.cal_problem)
        if self.detector_problem:
            problems.append("detector: " + self.detector_problem)
        if self.outbox_problem:
            problems.append("outbox: " + self.outbox_problem)
        for name, reason in self.cells.faults():
            problems.append(f"{name} is faulted: {reason}")
        if self.outbox.lost:
            problems.append(
                f"{self.outbox.lost} events were lost when the outbox overflowed "
                f"(first seqs {self.outbox.lost_seqs})"
            )
        if self.watchdog is not None and not self.watchdog.hardware:
            problems.append("no hardware watchdog on this port")
        if self.last_error:
            problems.append(f"{self.errors} loop errors, the last: {self.last_error}")
        return problems

    def status(self):
        link = self.link
        extra = {
            "table": self.table,
            "uptime_s": self.t_ms // 1000,
            "reset_cause": self.reset_cause,
            "seq": self.seq,
            "loop": self.stats.summary(),
            "hx711": {
                "read": self.read_mode,
                "rate_hz": self.rate_hz,
                "discarded_trains": self.cells.discarded_trains,
                "longest_sck_high_us": self.bus.longest_high_us,
            },
            "link": {
                "kind": self.config["link"],
                "up": link.up,
                "state": link.describe(),
                "connects": link.connects,
                "drops": link.drops,
            },
            "outbox": {"pending": self.outbox.pending(), "lost": self.outbox.lost},
            "calibration": self.cal.summary(),
            "faults": [{"sensor": n, "reason": r} for n, r in self.cells.faults()],
            "auto_tared": list(self.cells.auto_tared),
            "watchdog": self.watchdog is not None and self.watchdog.hardware,
            "mem_free": gc.mem_free(),
        }
        if self.wifi is not None:
            extra["wifi"] = self.wifi.describe()
        return protocol.status_message(
            True,
            fw=self.fw,
            boot=self.boot,
            config=settings.summary(self.config),
            problems=self.problems(),
            extra=extra,
        )

    def publish_status(self):
        self.link.set_status(protocol.encode(self.status()))

    # --- the loop -------------------------------------------------------------------------

    def run(self):
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

    def restart(self):
        self.log("restarting as the host asked")
        self.link.close()
        machine.reset()

    def step(self):
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
        self.t_ms += ticks_diff(now_ms, self._last_ms)
        self._last_ms = now_ms
        t_ms = self.t_ms
        for event in cells.sample(t_ms, not_ready, period_us // 1000):
            self.emit(event)
        impact = self.piezo.take() if self.piezo is not None else None
        if self.detector is not None:
            try:
                for event in self.detector.feed(t_ms, cells.zones_g, cells.table_g, impact):
                    if event["type"] == "land" and self.piezo is not None and self.piezo.hits:
                        self._add_impact_time(event, now_ms)
                    self.emit(event)
            except Exception as error:
                self.detector_errors += 1
                if self.detector_errors == 1:
                    sys.print_exception(error)
                self.detector_problem = f"failed {self.detector_errors} times: {error!r}"
        if cells.settled and self.commands.measurement is not None:
            result = self.commands.on_sample(bus.values)
            if result is not None:
                self._send_result(result)
        zones_g = cells.zones_g
        sums = self._weights_sum
        for z in range(self.zones):
            sums[z] += zones_g[z]
        if cells.table_g is not None:
            self._table_sum += cells.table_g
        self._weights_n += 1
        if self.trace_on:
            row = [t_ms]
            for g in zones_g:
                row.append(round(g, 3))
            row.append(None if cells.table_g is None else round(cells.table_g, 3))
            row.append(impact)
            self.trace_rows.append(row)
        self.stats.add(ticks_diff(ticks_us(), t_ready), idle_us, period_us)
        if self.watchdog is not None:
            self.watchdog.feed()

    def _add_impact_time(self, event, now_ms):
        # The piezo IRQ timestamped the hit to the millisecond, finer than a sample period.
        ago_ms = time.ticks_diff(now_ms, self.piezo.last_ms)
        if 0 <= ago_ms <= IMPACT_RECENT_MS:
            event["impact_ms"] = self.t_ms - ago_ms

    def _background(self):
        """Network, LEDs, periodic messages; True if anything was done."""
        now_ms = time.ticks_ms()
        ticks_diff = time.ticks_diff
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
        if self.leds is not None and ticks_diff(now_ms, self._leds_due_ms) >= 0:
            self._leds_due_ms = time.ticks_add(now_ms, LED_FRAME_MS)
            if self.leds.render(now_ms):
                worked = True
        if ticks_diff(now_ms, self.weights_due_ms) >= 0:
            self.weights_due_ms = time.ticks_add(now_ms, self.config["weights_interval_ms"])
            self._publish_weights()
            worked = True
        if self.trace_rows and len(self.trace_rows) >= self.config["trace_batch"]:
            rows = self.trace_rows
            self.trace_rows = []
            self.link.publish(
                protocol.TRACE, protocol.encode(protocol.trace_message(self.boot, rows))
            )
            worked = True
        if ticks_diff(now_ms, self.status_due_ms) >= 0:
            self.status_due_ms = time.ticks_add(now_ms, self.config["status_interval_s"] * 1000)
            self.publish_status()
            worked = True
        if not worked and gc.mem_free() < self._gc_floor:
            gc.collect()
            worked = True
        return worked

    def _publish_weights(self):
        n = self._weights_n or 1
        zones_g = [s / n for s in self._weights_sum]
        table_g = self._table_sum / n if self.cells.table_g is not None else None
        faults = [ch + 1 for ch in range(self.zones) if self.cells.fault[ch]]
        for z in range(self.zones):
            self._weights_sum[z] = 0.0
        self._table_sum = 0.0
        self._weights_n = 0
        settled_g = None
        if self.detector is not None:
            try:
                settled_g = self.detector.zone_grams()
            except Exception:  # an older detector without it: the means still go out
                settled_g = None
        msg = protocol.weights_message(self.boot, self.t_ms, zones_g, table_g, faults, settled_g)
        self.link.publish(protocol.WEIGHTS, protocol.encode(msg))


def main():
    Ship().run()
