"""Commands from the host (`ship/cmd`): checked first, then applied whole or not at all.

Every command gets exactly one result on `ship/result` (shipsense.protocol.result_message).
tare, calibrate and weigh measure for MEASURE_MS first and answer afterwards; the others
answer at once. Anything malformed, unknown or impossible is refused with the reason and
changes nothing: calibration and config are changed in a copy, saved to flash, and only
then put in use.

Ships obey only the host (the broker lets nobody else publish a ship's commands), and even the
host only in maintenance for what changes the game or the ship's network: tare, calibrate,
weigh, set (wifi.*, mqtt.*, ...) and restart (`protocol.MAINTENANCE_COMMANDS`). Maintenance
starts when the ship's maintenance button is pressed (config.json `maintenance_button`: a GPIO
pulled low by the button, e.g. 0 for the DevKitC's BOOT button; null: none) or with
`{"cmd": "maintenance", "on": true}`, which the host's calibration wizard sends; it ends with
`"on": false`, at a restart, or by itself `protocol.MAINTENANCE_S` after it started or after
its last maintenance command, so a forgotten wizard never leaves the ship open.
"""

from shipcore import calibration, settings
from shipsense import protocol

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from typing import Literal

    from machine import Pin

    from shipcore.core import ShipCore

MEASURE_MS = 500
# A reading this spread out (grams, max - min, or a fraction of a calibration weight) is a
# hand on the ship, not a calibration. Noise alone spreads 40 readings over ~2 g at worst.
STEADY_G = 3.0
STEADY_FRACTION = 0.02
MIN_COUNTS_PER_G = 1.0
MIN_ITEM_G = 0.2


class Measurement:
    """Averages the raw counts of some channels over the next `needed` settled samples."""

    def __init__(self, msg: dict, channels: "list[int]", needed: int) -> None:
        self.msg = msg
        self.channels = channels
        self.needed = needed
        self.sums = [0] * len(channels)
        # None until the first sample, then ints: add fills them before mean or spread
        self.low: list = [None] * len(channels)
        self.high: list = [None] * len(channels)
        self.count = 0

    def add(self, values: "list[int]") -> bool:
        for i, ch in enumerate(self.channels):
            raw = values[ch]
            self.sums[i] += raw
            if self.low[i] is None or raw < self.low[i]:
                self.low[i] = raw
            if self.high[i] is None or raw > self.high[i]:
                self.high[i] = raw
        self.count += 1
        return self.count >= self.needed

    def mean(self, i: int) -> float:
        return self.sums[i] / self.count

    def spread(self, i: int) -> int:
        return self.high[i] - self.low[i]


class Commands:
    """Turns command payloads into actions on the ship and result messages."""

    def __init__(self, ship: "ShipCore", button: "Pin | None" = None) -> None:
        self.ship = ship
        self.clock = ship.clock  # MicroPython's time on the ESP32; the host's clock elsewhere
        self.measurement: Measurement | None = None
        self.handled = 0
        self.refused = 0
        self.maintenance_until_ms: int | None = (
            None  # ticks_ms when maintenance ends; None: not in it
        )
        self._pressed_ms: int | None = (
            None  # when the button was pressed (its interrupt), not yet taken
        )
        if button is None:
            gpio = ship.config.get("maintenance_button") if hasattr(ship, "config") else None
            if gpio is not None:
                import machine

                button = machine.Pin(gpio, machine.Pin.IN, machine.Pin.PULL_UP)
        if button is not None:
            button.irq(handler=self._on_button, trigger=2)  # IRQ_FALLING: pressed (to ground)

    def _on_button(self, _pin: object) -> None:
        self._pressed_ms = self.clock.ticks_ms()  # a small int: nothing allocated in the interrupt

    def in_maintenance(self, now_ms: int) -> bool:
        """True while the ship obeys the MAINTENANCE_COMMANDS (and the window is renewed)."""
        pressed_ms = self._pressed_ms
        if pressed_ms is not None:
            self._pressed_ms = None
            self.maintenance_until_ms = self.clock.ticks_add(
                pressed_ms, protocol.MAINTENANCE_S * 1000
            )
        until = self.maintenance_until_ms
        if until is None:
            return False
        if self.clock.ticks_diff(until, now_ms) <= 0:
            self.maintenance_until_ms = None
            return False
        return True

    def _result(
        self, msg: dict, ok: bool, error: "str | None" = None, data: "dict | None" = None
    ) -> dict:
        self.handled += 1
        if not ok:
            self.refused += 1
        return protocol.result_message(msg.get("id"), msg.get("cmd"), ok, error, data)

    def handle(self, payload: bytes, now_ms: int) -> "dict | None":
        """The result for `payload`, or None if it comes later (a measurement started)."""
        try:
            msg = protocol.parse_command(payload)
        except protocol.CommandError as error:
            self.handled += 1
            self.refused += 1
            return protocol.result_message(error.cmd_id, error.name, False, error.problem)
        name = msg["cmd"]
        if name in protocol.MAINTENANCE_COMMANDS:
            if not self.in_maintenance(now_ms):
                return self._result(
                    msg,
                    False,
                    name + ": only in maintenance (press the ship's maintenance button, or "
                    "calibrate from the host's wizard)",
                )
            # each one renews the window: a wizard in use never runs out
            self.maintenance_until_ms = self.clock.ticks_add(now_ms, protocol.MAINTENANCE_S * 1000)
        try:
            return getattr(self, "_" + name)(msg, now_ms)
        except Exception as error:  # a bug must not stop the ship: refuse and report it
            return self._result(msg, False, f"{name} failed inside the ship: {error!r}")

    # --- measuring commands ---------------------------------------------------------------

    def _channel(self, zone: "int | Literal['mat']") -> "tuple[int, None] | tuple[None, str]":
        ship = self.ship
        if zone == "mat":
            if not ship.cells.has_mat:
                return None, "there is no mat load cell (drop_sensor is " + ship.drop_sensor + ")"
            return ship.cells.zones, None
        if not 1 <= zone <= ship.cells.zones:
            return None, f"zone {zone} does not exist (zones 1-{ship.cells.zones})"
        return zone - 1, None

    def _start(self, msg: dict, channels: "list[int]") -> "dict | None":
        ship = self.ship
        if self.measurement is not None:
            busy = self.measurement.msg
            return self._result(
                msg, False, f"busy measuring for {busy['cmd']} (id {busy.get('id')!r}); try again"
            )
        for ch in channels:
            if ship.cells.fault[ch]:
                return self._result(
                    msg,
                    False,
                    f"{ship.cells.name(ch)} is faulted ({ship.cells.fault[ch]}): fix it first",
                )
        needed = max(3, MEASURE_MS * ship.rate_hz // 1000)
        self.measurement = Measurement(msg, channels, needed)
        return None

    def _tare(self, msg: dict, now_ms: int) -> "dict | None":
        cells = self.ship.cells
        zones = msg.get("zones")
        if zones is None:
            channels = list(range(cells.channels))
        else:
            channels = []
            for zone in zones:
                found = self._channel(zone)
                if found[0] is None:
                    return self._result(msg, False, "tare: " + found[1])
                channels.append(found[0])
        return self._start(msg, channels)

    def _calibrate(self, msg: dict, now_ms: int) -> "dict | None":
        found = self._channel(msg["zone"])
        if found[0] is None:
            return self._result(msg, False, "calibrate: " + found[1])
        ch = found[0]
        if self.ship.cal.tare[ch] is None:
            return self._result(msg, False, "calibrate: tare the empty zone first")
        return self._start(msg, self._with_other_zones(ch))

    def _weigh(self, msg: dict, now_ms: int) -> "dict | None":
        found = self._channel(msg["zone"])
        if found[0] is None:
            return self._result(msg, False, "weigh: " + found[1])
        ch = found[0]
        if self.ship.cal.tare[ch] is None:
            return self._result(msg, False, "weigh: tare the empty zone first")
        return self._start(msg, self._with_other_zones(ch))

    def _with_other_zones(self, ch: int) -> "list[int]":
        """`ch`, then for a zone every other tared, working zone: a weight on one zone shows
        a share on its neighbours (crosstalk), which calibrate measures and weigh adds."""
        ship = self.ship
        if ch >= ship.cells.zones:
            return [ch]
        others = range(ship.cells.zones)
        return [ch] + [
            z
            for z in others
            if z != ch and ship.cal.tare[z] is not None and not ship.cells.fault[z]
        ]

    def on_sample(self, values: "list[int]") -> "dict | None":
        """Called once a settled sample with the raw counts; the result when one is done."""
        m = self.measurement
        if m is None or not m.add(values):
            return None
        self.measurement = None
        ship = self.ship
        msg = m.msg
        cal = ship.cal.copy()
        for i, ch in enumerate(m.channels):
            if ship.cells.fault[ch]:
                return self._result(msg, False, f"{ship.cells.name(ch)} faulted while measuring")
            if msg["cmd"] == "calibrate" and i == 0:
                # The scale is not known yet: judge the spread against the weight's own step.
                tare = cal.tare[ch]
                assert tare is not None  # _calibrate refuses an untared zone
                step = abs(m.mean(i) - tare) or 1
                steady = m.spread(i) <= STEADY_FRACTION * step
                spread_g = m.spread(i) * msg["grams"] / step
            else:
                spread_g = m.spread(i) / abs(cal.counts_per_g[ch])
                steady = spread_g <= STEADY_G
            if not steady:
                return self._result(
                    msg,
                    False,
                    f"{ship.cells.name(ch)} was not steady ({spread_g:.2f} g spread): "
                    "keep hands off the ship and try again",
                )
        data = {}
        if msg["cmd"] == "tare":
            tared = {}
            for i, ch in enumerate(m.channels):
                cal.tare[ch] = int(m.mean(i))
                tared[ship.cells.name(ch)] = cal.tare[ch]
            data["tare"] = tared
        elif msg["cmd"] == "calibrate":
            ch = m.channels[0]
            tare = cal.tare[ch]
            assert tare is not None  # _calibrate refuses an untared zone
            counts_per_g = (m.mean(0) - tare) / msg["grams"]
            if abs(counts_per_g) < MIN_COUNTS_PER_G:
                return self._result(
                    msg,
                    False,
                    f"{ship.cells.name(ch)} changed by only {m.mean(0) - tare:.0f} counts "
                    f"for {msg['grams']} g: is the weight on that zone?",
                )
            cal.calibrated[ch] = True
            if ch < ship.cells.zones:
                problem = self._respond(cal, m, msg["grams"])
                if problem:
                    return self._result(msg, False, problem)
                data["shares"] = self._shares(cal, ch)
            else:
                cal.counts_per_g[ch] = counts_per_g
            data["zone"] = msg["zone"]
            data["counts_per_g"] = cal.counts_per_g[ch]
        else:
            ch = m.channels[0]
            grams = self._weighed(cal, m)
            if isinstance(grams, str):
                return self._result(msg, False, grams)
            grams /= msg.get("count", 1)
            if grams < MIN_ITEM_G:
                return self._result(
                    msg, False, f"{ship.cells.name(ch)} holds {grams:.2f} g: put the piece on it"
                )
            cal.items[msg["item"]] = grams
            data["item"] = msg["item"]
            data["grams"] = grams
        try:
            calibration.save(cal, ship.calibration_path)
        except OSError as error:
            return self._result(msg, False, f"could not save the calibration to flash: {error}")
        ship.use_calibration(cal)
        return self._result(msg, True, None, data)

    def _respond(
        self, cal: "calibration.Calibration", m: Measurement, grams: float
    ) -> "str | None":
        """Book what `grams` on zone m.channels[0] put on every zone's cell and solve the
        zones' scales from it (calibration.solve_scales); None, or why not."""
        ship = self.ship
        ch = m.channels[0]
        response = [0.0] * ship.cells.zones
        for i, other in enumerate(m.channels):
            tare = cal.tare[other]
            assert tare is not None  # _with_other_zones takes tared zones only
            response[other] = (m.mean(i) - tare) / grams
            share = response[other] / cal.counts_per_g[other]
            if other != ch and abs(share) > calibration.MAX_SHARE:
                return (
                    f"{ship.cells.name(other)} read {share * 100:.0f} % of the weight on "
                    f"{ship.cells.name(ch)}: take everything else off the ship and try again"
                )
        cal.response[ch] = response
        return calibration.solve_scales(cal)

    def _weighed(self, cal: "calibration.Calibration", m: Measurement) -> "float | str":
        """Grams on zone m.channels[0]: its own cell's and the shares calibration found on
        its neighbours (anything else on the ship is left out), or why not."""
        ch = m.channels[0]
        tare = cal.tare[ch]
        assert tare is not None  # _weigh refuses an untared zone
        own = (m.mean(0) - tare) / cal.counts_per_g[ch]
        shares = self._shares(cal, ch) if ch < self.ship.cells.zones else {}
        grams = own
        for i, other in enumerate(m.channels):
            if str(other + 1) not in shares:
                continue
            tare = cal.tare[other]
            assert tare is not None  # _with_other_zones takes tared zones only
            share = (m.mean(i) - tare) / cal.counts_per_g[other]
            if abs(share) > calibration.MAX_SHARE * abs(own) + STEADY_G:
                return (
                    f"{self.ship.cells.name(other)} holds {share:.1f} g: take it off and weigh "
                    "again"
                )
            grams += share
        return grams

    def _shares(self, cal: "calibration.Calibration", ch: int) -> dict:
        """{zone: share} of a weight on zone ch+1 that another zone reads (1 % or more)."""
        response = cal.response[ch]
        out = {}
        if response is None:
            return out
        for other in range(self.ship.cells.zones):
            share = response[other] / cal.counts_per_g[other]
            if other != ch and abs(share) >= 0.01:
                out[str(other + 1)] = round(share, 3)
        return out

    # --- immediate commands ---------------------------------------------------------------

    def _set(self, msg: dict, now_ms: int) -> dict:
        ship = self.ship
        key = msg["key"]
        changed, problem, restart = settings.set_value(ship.config, key, msg["value"])
        if problem:
            return self._result(msg, False, "set: " + problem)
        try:
            settings.save(changed, ship.config_path)
        except OSError as error:
            return self._result(msg, False, f"set: could not save config.json: {error}")
        if not restart:
            ship.apply_setting(changed, key)
        return self._result(msg, True, None, {"key": key, "restart_needed": restart})

    def _led(self, msg: dict, now_ms: int) -> dict:
        zone = msg.get("zone")
        if zone is not None and zone > self.ship.cells.zones:
            return self._result(
                msg, False, f"led: zone {zone} does not exist (zones 1-{self.ship.cells.zones})"
            )
        if self.ship.leds is None:
            return self._result(msg, False, "led: this ship has no LEDs (leds.count is 0)")
        self.ship.leds.set_show(msg, now_ms)
        return self._result(msg, True)

    def _resend(self, msg: dict, now_ms: int) -> dict:
        ship = self.ship
        data = {"boot": msg["boot"], "from": msg["from"], "to": msg["to"]}
        if msg["boot"] != ship.boot:
            # Events of an earlier boot died with it: say so, so the host stops asking.
            data["resent"] = 0
            data["missing"] = [[msg["from"], msg["to"]]]
            data["note"] = f"boot {msg['boot']} is not this boot ({ship.boot})"
            return self._result(msg, True, None, data)
        count, missing = ship.outbox.resend(msg["from"], msg["to"])
        data["resent"] = count
        data["missing"] = missing
        return self._result(msg, True, None, data)

    def _trace(self, msg: dict, now_ms: int) -> dict:
        self.ship.trace_on = msg["on"]
        return self._result(msg, True, None, {"on": msg["on"]})

    def _status(self, msg: dict, now_ms: int) -> dict:
        self.ship.status_due_ms = now_ms
        return self._result(msg, True)

    def _maintenance(self, msg: dict, now_ms: int) -> dict:
        if msg["on"]:
            self.maintenance_until_ms = self.clock.ticks_add(now_ms, protocol.MAINTENANCE_S * 1000)
        else:
            self.maintenance_until_ms = None
            self._pressed_ms = None
        return self._result(
            msg,
            True,
            None,
            {"on": msg["on"], "seconds": protocol.MAINTENANCE_S if msg["on"] else 0},
        )

    def _restart(self, msg: dict, now_ms: int) -> dict:
        self.ship.restart_at_ms = self.ship.clock.ticks_add(now_ms, 300)
        return self._result(msg, True)
