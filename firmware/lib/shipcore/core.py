"""The ship without pins or sockets: config -> load cells -> detector -> commands -> outbox.

`ShipCore` takes one HX711 pulse train at a time (`sample`), the host's commands
(`on_command`) and a clock (MicroPython's `time` module on the ESP32; on CPython any object
with ticks_ms, ticks_diff and ticks_add), and makes every message the ship sends: events and
command results are numbered into the outbox (QoS 1, kept across outages, the link drains
it), weights and trace batches go to `send`, the status to `set_status`. ship.py wires it to
the ESP32's pins and network; the host's virtual ships (bosun.demo) and the Raspberry Pi
ship (bosun.pi) run this very class under CPython, so there is one ship, not two.
"""

import os
import sys

from shipcore import calibration, settings
from shipcore.commands import Commands
from shipcore.loadcells import LoadCells
from shipcore.outbox import Outbox
from shipsense import protocol

try:
    from sys import print_exception
except ImportError:  # CPython
    from traceback import print_exception

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Callable

    from hardware import Clock
    from shipcore.hx711 import HX711Bus
    from shipsense.detector import Detector

FW_VERSION = "0.1.0"


def boot_id() -> str:
    return "".join(f"{b:02x}" for b in os.urandom(4))


def firmware_name() -> str:
    version = ".".join(str(n) for n in sys.implementation.version[:3])
    name = "MicroPython" if sys.implementation.name == "micropython" else "Python"
    return f"bosun-ship {FW_VERSION} ({name} {version}, {sys.platform})"


class ShipCore:
    """One ship's state and messages; the caller paces it (one `sample` a conversion)."""

    def __init__(
        self,
        config: dict,
        config_problems: "list[str]",
        bus: "HX711Bus",
        clock: "Clock",
        config_path: str = "config.json",
        calibration_path: str = calibration.FILE,
        log: "Callable[[str], object]" = print,
        reset_cause: "str | None" = None,
    ) -> None:
        self.log = log
        self.clock = clock
        self.config_path = config_path
        self.calibration_path = calibration_path
        self.boot = boot_id()
        self.seq = 0
        self.fw = firmware_name()
        self.reset_cause = reset_cause
        log(f"{self.fw}: boot {self.boot}" + (f" after {reset_cause}" if reset_cause else ""))
        self.config = config
        self.config_problems = config_problems
        for problem in config_problems:
            log("config: " + problem)
        cfg = config
        self.table = cfg["table"]
        self.rate_hz = cfg["sample_rate_hz"]
        self.period_us = 1000000 // self.rate_hz
        self.zones = cfg["zones"]
        self.drop_sensor = cfg["drop_sensor"]
        has_mat = self.drop_sensor in ("mat", "both")
        self.cal, self.cal_problem = calibration.load(
            self.zones, cfg["default_counts_per_g"], calibration_path
        )
        if self.cal_problem:
            log("calibration: " + self.cal_problem)
        self.bus = bus
        self.cells = LoadCells(bus, self.cal, self.zones, has_mat, self.rate_hz)
        self.leds = None  # an LED strip (leds.Leds or alike), set by whoever has one
        self.detector, self.detector_problem = self._make_detector()
        if self.detector_problem:
            log("detector: " + self.detector_problem)
        self.outbox_problem = None
        self.outbox = Outbox(self.outbox_size(cfg["outbox_size"]))
        if self.outbox_problem:
            log("outbox: " + self.outbox_problem)
        self.commands = Commands(self)
        self.trace_on = cfg["trace"]
        self.trace_rows = []
        self._weights_sum = [0.0] * self.zones
        self._table_sum = 0.0
        self._weights_n = 0
        now_ms = clock.ticks_ms()
        self.t_ms = 0
        self._impact_held = 0
        self.weights_due_ms = clock.ticks_add(now_ms, cfg["weights_interval_ms"])
        self.status_due_ms = clock.ticks_add(now_ms, cfg["status_interval_s"] * 1000)
        self.restart_at_ms: int | None = None
        self.errors = 0
        self.last_error = None
        self.detector_errors = 0

    # --- what the one running the core provides -------------------------------------------

    def send(self, name: str, payload: bytes) -> None:
        """A QoS 0 message (weights, trace) for the host: the link's to send or drop."""

    def set_status(self, payload: bytes) -> None:
        """The retained status (and the birth on every connect)."""

    def outbox_size(self, wanted: int) -> int:
        """How many events the outbox holds (a board short of heap may hold fewer)."""
        return wanted

    def landed(self, event: dict) -> None:
        """A `land` event before it is numbered: a piezo may add its finer impact time."""

    # --- wiring ---------------------------------------------------------------------------

    def _make_detector(self) -> "tuple[Detector | None, str | None]":
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

    def use_calibration(self, cal: "calibration.Calibration") -> None:
        """Put a new (already saved) calibration in use."""
        self.cal = cal
        self.cells.cal = cal
        self.cal_problem = None
        if self.detector is not None and cal.items:
            self.detector.set_items(dict(cal.items))

    def apply_setting(self, config: dict, key: str) -> None:
        """A `set` of a live key: the saved config is now `config`."""
        self.config = config
        if key == "leds.brightness" and self.leds is not None:
            self.leds.set_brightness(config["leds"]["brightness"])
        elif key == "trace":
            self.trace_on = config["trace"]
        elif key == "status_interval_s":
            self.status_due_ms = self.clock.ticks_ms()

    # --- messages -------------------------------------------------------------------------

    def emit(self, event: dict) -> None:
        """Number a detector or fault event and queue it for the host."""
        self.seq += 1
        msg = protocol.event_message(event, self.boot, self.seq)
        self.outbox.add(protocol.EVENT, protocol.encode(msg), self.seq)

    def _send_result(self, result: dict) -> None:
        self.outbox.add(protocol.RESULT, protocol.encode(result))

    def on_command(self, payload: bytes) -> None:
        """A `ship/cmd` payload (bytes): its result is queued now or after its measurement."""
        result = self.commands.handle(payload, self.clock.ticks_ms())
        if result is not None:
            self._send_result(result)

    def problems(self) -> "list[str]":
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
        if self.last_error:
            problems.append(f"{self.errors} loop errors, the last: {self.last_error}")
        return problems

    def status_extra(self) -> dict:
        """The status message's fields beyond `online`, `fw`, `boot`, `config`, `problems`."""
        return {
            "table": self.table,
            "uptime_s": self.t_ms // 1000,
            "reset_cause": self.reset_cause,
            "seq": self.seq,
            "hx711": {
                "rate_hz": self.rate_hz,
                "discarded_trains": self.cells.discarded_trains,
                "longest_sck_high_us": self.bus.longest_high_us,
            },
            "outbox": {"pending": self.outbox.pending(), "lost": self.outbox.lost},
            "calibration": self.cal.summary(),
            "faults": [{"sensor": n, "reason": r} for n, r in self.cells.faults()],
            "auto_tared": list(self.cells.auto_tared),
        }

    def status(self) -> dict:
        return protocol.status_message(
            True,
            fw=self.fw,
            boot=self.boot,
            config=settings.summary(self.config),
            problems=self.problems(),
            extra=self.status_extra(),
        )

    def publish_status(self) -> None:
        self.set_status(protocol.encode(self.status()))

    # --- one conversion -------------------------------------------------------------------

    def sample(
        self, t_ms: int, not_ready: int, elapsed_ms: int, impact: "int | None" = None
    ) -> None:
        """Read the train the bus has ready (`not_ready`: channels still busy), calibrate,
        detect, queue what happened. `t_ms`: ship time, ms since boot."""
        self.t_ms = t_ms
        cells = self.cells
        for event in cells.sample(t_ms, not_ready, elapsed_ms):
            self.emit(event)
        if not cells.settled:
            # A working channel gave no fresh reading (a missed conversion, the settling after
            # a power-down): its grams are the last ones. Fed to the detector as new, they
            # would say the ship held still while it may not have (a landing unseen, a fall
            # decided too soon); to the detector, the weights and the trace this train is a
            # missed conversion. A piezo hit waits for the next train.
            if impact:
                self._impact_held = 1
            return
        if self._impact_held and impact is not None:
            impact = 1
            self._impact_held = 0
        if self.detector is not None:
            try:
                for event in self.detector.feed(t_ms, cells.zones_g, cells.table_g, impact):
                    if event["type"] == "land":
                        self.landed(event)
                    self.emit(event)
            except Exception as error:
                self.detector_errors += 1
                if self.detector_errors == 1:
                    print_exception(error)
                self.detector_problem = f"failed {self.detector_errors} times: {error!r}"
        if self.commands.measurement is not None:
            result = self.commands.on_sample(self.bus.values)
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
            row = [t_ms]  # type: list
            for g in zones_g:
                row.append(round(g, 3))
            row.append(None if cells.table_g is None else round(cells.table_g, 3))
            row.append(impact)
            self.trace_rows.append(row)

    def periodic(self, now_ms: int) -> bool:
        """Weights, trace batches and the status when due; True if anything was sent."""
        ticks_diff = self.clock.ticks_diff
        worked = False
        if ticks_diff(now_ms, self.weights_due_ms) >= 0:
            self.weights_due_ms = self.clock.ticks_add(now_ms, self.config["weights_interval_ms"])
            self._publish_weights()
            worked = True
        if self.trace_rows and len(self.trace_rows) >= self.config["trace_batch"]:
            rows = self.trace_rows
            self.trace_rows = []
            self.send(protocol.TRACE, protocol.encode(protocol.trace_message(self.boot, rows)))
            worked = True
        if ticks_diff(now_ms, self.status_due_ms) >= 0:
            self.status_due_ms = self.clock.ticks_add(
                now_ms, self.config["status_interval_s"] * 1000
            )
            self.publish_status()
            worked = True
        return worked

    def _publish_weights(self) -> None:
        n = self._weights_n
        if n:
            zones_g = [s / n for s in self._weights_sum]
            table_g = self._table_sum / n if self.cells.table_g is not None else None
        else:  # no fresh train since the last: the last readings, as the cells hold them
            zones_g = list(self.cells.zones_g)
            table_g = self.cells.table_g
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
        self.send(protocol.WEIGHTS, protocol.encode(msg))
