"""The ship's load cells: raw HX711 counts to calibrated grams, and every broken channel found.

A channel is faulted (a `fault` event naming its zone) when
- it stays not ready for NOT_READY_FAULT_MS (the amplifier lost power or its DOUT wire),
- it reads the HX711 clamp value (0x7FFFFF or 0x800000) SATURATED_READINGS times in a row
  (overload, a broken bridge wire, a cell wired backwards at full scale), or
- it returns the very same 24-bit value for STUCK_MS: a live 24-bit converter always
  shows a few counts of noise, so an unchanging value is a stuck DOUT line.
A faulted channel is no longer waited for; its grams hold the last good value, so a dead
amplifier can never look like cargo leaving the ship. It is checked on every train and,
after RECOVER_READINGS good readings, a `recovered` event says it is back.
Zones with no tare (no calibration yet) are tared from their first AUTO_TARE_READINGS
settled readings.
"""

from shipcore.hx711 import RAW_MAX, RAW_MIN, SETTLE_READINGS

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from shipcore.calibration import Calibration
    from shipcore.hx711 import HX711Bus

NOT_READY_FAULT_MS = 250
SATURATED_READINGS = 8
STUCK_MS = 2000
RECOVER_READINGS = 8
AUTO_TARE_READINGS = 16


class LoadCells:
    """Zone cells (channels 0..zones-1) and the optional mat cell (channel `zones`)."""

    def __init__(
        self,
        bus: "HX711Bus",
        calibration: "Calibration",
        zones: int,
        has_mat: bool,
        rate_hz: int,
    ) -> None:
        self.bus = bus
        self.cal = calibration
        self.zones = zones
        self.has_mat = has_mat
        self.channels = zones + (1 if has_mat else 0)
        self.period_ms = 1000 // rate_hz
        self.zones_g = [0.0] * zones
        self.table_g: float | None = 0.0 if has_mat else None
        self.fault: list[str | None] = [None] * self.channels  # None or the reason
        self._discard = [SETTLE_READINGS] * self.channels
        self._not_ready_ms = [0] * self.channels
        self._saturated = [0] * self.channels
        self._same = [0] * self.channels
        self._last_raw: list[int | None] = [None] * self.channels
        self._good = [0] * self.channels
        self._stuck_readings = max(4, STUCK_MS // self.period_ms)
        self._tare_sum = [0] * self.channels
        self._tare_n = [0] * self.channels
        self.auto_tared: list[str] = []
        self.active_mask = (1 << self.channels) - 1
        bus.set_active(self.active_mask)
        self.discarded_trains = 0
        self.settled = False

    def name(self, channel: int) -> str:
        return "mat" if channel == self.zones else "z" + str(channel + 1)

    def _event(self, kind: str, channel: int, t_ms: int, reason: "str | None", detail: str) -> dict:
        return {
            "type": kind,
            "t_ms": t_ms,
            "decided_ms": t_ms,
            "zone": None if channel == self.zones else channel + 1,
            "sensor": self.name(channel),
            "reason": reason,
            "detail": detail,
        }

    def _set_fault(
        self, channel: int, reason: str, t_ms: int, detail: str, events: "list[dict]"
    ) -> None:
        self.fault[channel] = reason
        self._good[channel] = 0
        self.active_mask &= ~(1 << channel)
        self.bus.set_active(self.active_mask)
        events.append(self._event("fault", channel, t_ms, reason, detail))

    def settle_all(self) -> None:
        """After a possible power-down of every chip: discard their settling readings."""
        for ch in range(self.channels):
            self._discard[ch] = SETTLE_READINGS

    def sample(self, t_ms: int, not_ready_mask: int, elapsed_ms: int) -> "list[dict]":
        """Read one train. `not_ready_mask`: channels whose DOUT was still high (timed out).

        Returns the fault/recovered events it caused (a list, usually empty).
        """
        events: list[dict] = []
        self.settled = False
        if not self.bus.read():
            self.discarded_trains += 1
            if self.bus.powered_down:
                self.settle_all()
            return events
        values = self.bus.values
        settled = True
        for ch in range(self.channels):
            if not_ready_mask & (1 << ch):
                if self.fault[ch] is None:
                    settled = False
                self._not_ready_ms[ch] += elapsed_ms
                self._good[ch] = 0
                if self.fault[ch] is None and self._not_ready_ms[ch] >= NOT_READY_FAULT_MS:
                    self._set_fault(
                        ch,
                        "not_ready",
                        t_ms,
                        f"no conversion for {self._not_ready_ms[ch]} ms: check the "
                        "amplifier's power and its DOUT wire",
                        events,
                    )
                continue
            if self.fault[ch] == "not_ready" and self._not_ready_ms[ch]:
                self._discard[ch] = SETTLE_READINGS  # it just powered up again
            self._not_ready_ms[ch] = 0
            raw = values[ch]
            if self._discard[ch]:
                self._discard[ch] -= 1
                self._last_raw[ch] = None
                if self.fault[ch] is None:
                    settled = False
                continue
            if raw in (RAW_MAX, RAW_MIN):
                self._saturated[ch] += 1
                self._good[ch] = 0
                if self.fault[ch] is None and self._saturated[ch] >= SATURATED_READINGS:
                    self._set_fault(
                        ch,
                        "saturated",
                        t_ms,
                        f"reads the HX711 limit {raw}: overload or a broken load cell wire",
                        events,
                    )
                continue
            self._saturated[ch] = 0
            if raw == self._last_raw[ch]:
                self._same[ch] += 1
                if self.fault[ch] is None and self._same[ch] >= self._stuck_readings:
                    self._set_fault(
                        ch,
                        "stuck",
                        t_ms,
                        f"the same value {raw} for {self._same[ch] * self.period_ms} ms: "
                        "DOUT stuck or the amplifier hung",
                        events,
                    )
                    continue
            else:
                self._same[ch] = 0
            self._last_raw[ch] = raw
            if self.fault[ch] is not None:
                if self._same[ch]:
                    self._good[ch] = 0
                    continue
                self._good[ch] += 1
                if self._good[ch] < RECOVER_READINGS:
                    continue
                reason = self.fault[ch]
                self.fault[ch] = None
                self.active_mask |= 1 << ch
                self.bus.set_active(self.active_mask)
                events.append(
                    self._event("recovered", ch, t_ms, reason, "readings are plausible again")
                )
            if self.cal.tare[ch] is None:
                self._tare_sum[ch] += raw
                self._tare_n[ch] += 1
                if self._tare_n[ch] >= AUTO_TARE_READINGS:
                    self.cal.tare[ch] = self._tare_sum[ch] // self._tare_n[ch]
                    self.auto_tared.append(self.name(ch))
                continue
            grams = self.cal.grams(ch, raw)
            if ch < self.zones:
                self.zones_g[ch] = grams
            else:
                self.table_g = grams
        # Every working channel's reading of this train is a settled conversion (measurements
        # use only such trains; faulted channels are refused by them anyway).
        self.settled = settled
        return events

    def faults(self) -> "list[tuple[str, str | None]]":
        """[(sensor name, reason)] of the faulted channels."""
        return [(self.name(ch), self.fault[ch]) for ch in range(self.channels) if self.fault[ch]]
