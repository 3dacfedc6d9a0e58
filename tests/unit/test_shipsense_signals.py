"""Synthetic ship signals for the detector's tests: one physical effect at a time, by hand.

`ShipSignal` builds a trace action by action (loads, pressing hands, ringing pieces, sway,
falls, shifts, touches, knocks, glitches, noise, crosstalk, creep, drift) and renders rows
`(t_ms, zones_g, table_g, impact)` or CSV text. Deliberately simple and independent of the
virtual ship in bosun.sim, so a detector test fails for the detector's reasons only.
"""

from __future__ import annotations

import math
import random

HEADER = "t_ms,z1,z2,z3,z4,z5,z6,z7,z8,z9,z10,table_g,impact"
# Zone levers for sway (RR1 layout: odd zones port, even starboard; 1-2 fore, 3-4 aft).
ROLL = (-1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.3, 1.3, -1.6, 1.6)
PITCH = (1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
MAT = 10  # channel index of the mat


class ShipSignal:
    """A synthetic trace of `seconds` at `rate_hz`; add actions, then `rows()` or `csv()`."""

    def __init__(
        self,
        rate_hz: int = 80,
        seconds: float = 10.0,
        seed: int = 0,
        noise_g: float = 0.05,
        table: str = "both",
        hx711_filter: bool = True,
    ):
        self.rate_hz = rate_hz
        self.n = int(seconds * rate_hz)
        self.period_ms = 1000.0 / rate_hz
        self.rng = random.Random(seed)
        self.noise_g = noise_g
        self.table = table
        self.hx711_filter = hx711_filter
        self.channels = [[0.0] * self.n for _ in range(11)]
        self.impacts = [0] * self.n
        self.glitches: list[tuple[int, int, float]] = []
        self.crosstalk_fraction = 0.0
        self.drift_g_per_min = [0.0] * 11
        self.creep_fraction = 0.0

    # ---- building blocks ---------------------------------------------------------------
    def t_ms(self, i: int) -> float:
        return i * self.period_ms

    def index(self, t_ms: float) -> int:
        return max(0, min(self.n, math.ceil(t_ms / self.period_ms - 1e-9)))

    def add(self, channel: int, start_ms: float, shape) -> None:
        """Add `shape(ms since start)` to a channel from `start_ms` on (0 before)."""
        values = self.channels[channel]
        for i in range(self.index(start_ms), self.n):
            values[i] += shape(self.t_ms(i) - start_ms)

    def step(self, channel: int, grams: float, at_ms: float, ramp_ms: float = 40.0) -> None:
        self.add(channel, at_ms, lambda dt: grams * min(1.0, dt / ramp_ms) if ramp_ms else grams)

    def pulse(self, channel: int, grams: float, at_ms: float, length_ms: float) -> None:
        """A smooth push that rises, holds and lets go within `length_ms`."""
        rise = 0.3 * length_ms

        def shape(dt: float) -> float:
            if dt >= length_ms:
                return 0.0
            if dt < rise:
                return grams * 0.5 * (1 - math.cos(math.pi * dt / rise))
            if dt > length_ms - rise:
                return grams * 0.5 * (1 - math.cos(math.pi * (length_ms - dt) / rise))
            return grams

        self.add(channel, at_ms, shape)

    def ring(self, channel: int, grams: float, at_ms: float, hz: float = 11.0, tau_ms=60.0):
        self.add(
            channel,
            at_ms,
            lambda dt: grams * math.exp(-dt / tau_ms) * math.sin(2 * math.pi * hz * dt / 1000),
        )

    def sway(self, at_ms: float, roll_g: float, pitch_g: float = 0.0, hz: float = 1.2, tau_s=1.5):
        """The ship rocks: load moves between zones along the levers, the total stays."""
        for zone in range(10):
            amplitude = roll_g * ROLL[zone] + pitch_g * PITCH[zone]
            if amplitude:
                self.add(
                    zone,
                    at_ms,
                    lambda dt, a=amplitude: (
                        a * math.exp(-dt / (tau_s * 1000)) * math.sin(2 * math.pi * hz * dt / 1000)
                    ),
                )

    # ---- actions ----------------------------------------------------------------------
    def place(
        self,
        zone: int,
        grams: float,
        at_ms: float,
        press_g: float = 12.0,
        press_ms: float = 350.0,
        ring_g: float | None = None,
        sway_g: float = 0.0,
    ) -> float:
        """A hand puts a piece on `zone` (1-10), presses, lets go; returns when it let go."""
        channel = zone - 1
        self.step(channel, grams, at_ms, 60.0)
        leave = at_ms + 60.0 + 60.0
        if press_g:
            self.pulse(channel, press_g, at_ms + 30.0, press_ms)
            leave = at_ms + 30.0 + press_ms
        self.ring(channel, grams * 0.3 + 0.2 * press_g if ring_g is None else ring_g, leave)
        if sway_g:
            self.sway(leave, sway_g if ROLL[channel] > 0 else -sway_g, 0.5 * sway_g)
        return leave

    def fall(
        self,
        zone: int,
        grams: float,
        at_ms: float,
        outcome: str = "landed",
        slide_ms: float = 30.0,
        flight_ms: float = 260.0,
    ) -> float:
        """A piece leaves `zone` and lands on the mat, is caught, or bounces; returns leave."""
        self.step(zone - 1, -grams, at_ms, slide_ms)
        leave = at_ms + slide_ms
        land = leave + flight_ms
        if outcome == "caught":
            return leave
        self.ring(MAT, 4.0 * grams, land, hz=25.0, tau_ms=20.0)
        self.impacts[min(self.n - 1, self.index(land))] = 1
        self.step(MAT, grams, land, 8.0)
        if outcome == "bounced":
            self.step(MAT, -grams, land + 150.0, 20.0)
        return leave

    def shift(self, source: int, target: int, grams: float, at_ms: float, flight_ms=240.0):
        """A piece drops from `source` onto `target` (both zones) and stays aboard (RR13)."""
        self.step(source - 1, -grams, at_ms, 30.0)
        land = at_ms + 30.0 + flight_ms
        self.step(target - 1, grams, land, 8.0)
        self.ring(target - 1, 3.0 * grams, land, hz=22.0, tau_ms=25.0)
        return at_ms + 30.0

    def touch(self, zones: list[int], peak_g: float, at_ms: float, length_ms: float = 250.0):
        for zone in zones:
            self.pulse(zone - 1, peak_g, at_ms, length_ms)
        self.sway(at_ms + length_ms, 0.1 * peak_g, 0.05 * peak_g)

    def knock(self, at_ms: float, ripple_g: float = 8.0, aboard_g: float = 0.0) -> None:
        self.ring(MAT, ripple_g, at_ms, hz=22.0, tau_ms=50.0)
        self.impacts[min(self.n - 1, self.index(at_ms))] = 1
        for zone in range(10):
            self.ring(zone, 0.05 * aboard_g / 10, at_ms, hz=20.0, tau_ms=30.0)

    def glitch(self, zone: int, grams: float, at_ms: float) -> None:
        self.glitches.append((self.index(at_ms), zone - 1, grams))

    # ---- rendering ----------------------------------------------------------------------
    def rows(self) -> list[tuple[float, list[float], float | None, int | None]]:
        n = self.n
        channels = [list(c) for c in self.channels]
        if self.crosstalk_fraction:
            pairs = ((0, 1), (0, 2), (1, 3), (2, 3), (4, 5), (6, 7), (8, 9), (4, 6), (6, 8))
            f = self.crosstalk_fraction
            for i in range(n):
                load = [channels[z][i] for z in range(10)]
                for a, b in pairs:
                    channels[a][i] += f * (load[b] - load[a])
                    channels[b][i] += f * (load[a] - load[b])
        if self.creep_fraction:
            keep = math.exp(-self.period_ms / 60000.0)
            for c in range(11):
                creep = 0.0
                for i in range(n):
                    creep = self.creep_fraction * channels[c][i] * (1 - keep) + creep * keep
                    channels[c][i] += creep
        if self.hx711_filter:  # the HX711's digital filter: a step takes three samples
            for c in range(11):
                v = channels[c]
                channels[c] = [
                    (v[max(i - 3, 0)] + 11 * v[max(i - 2, 0)] + 11 * v[max(i - 1, 0)] + v[i]) / 24
                    for i in range(n)
                ]
        out = []
        for i in range(n):
            minutes = self.t_ms(i) / 60000.0
            values = [
                channels[c][i]
                + self.drift_g_per_min[c] * minutes
                + (self.rng.gauss(0.0, self.noise_g) if self.noise_g else 0.0)
                for c in range(11)
            ]
            out.append(values)
        for i, channel, grams in self.glitches:
            out[i][channel] += grams
        rows = []
        for i in range(n):
            table_g = out[i][MAT] if self.table in ("mat", "both") else None
            impact = self.impacts[i] if self.table in ("piezo", "both") else None
            rows.append((self.t_ms(i), out[i][:10], table_g, impact))
        return rows

    def csv(self) -> str:
        lines = [HEADER]
        for t_ms, zones_g, table_g, impact in self.rows():
            table = "" if table_g is None else f"{table_g:.3f}"
            hit = "" if impact is None else str(impact)
            lines.append(f"{t_ms:.3f},{','.join(f'{g:.3f}' for g in zones_g)},{table},{hit}")
        return "\n".join(lines) + "\n"


def test_a_placed_piece_adds_its_weight_and_nothing_else():
    signal = ShipSignal(seconds=3.0, noise_g=0.0)
    signal.place(7, 6.1, 500.0)
    t_ms, zones_g, table_g, impact = signal.rows()[-1]
    assert abs(zones_g[6] - 6.1) < 1e-6
    assert abs(sum(zones_g) - 6.1) < 1e-6
    assert table_g == 0.0 and impact == 0


def test_sway_moves_load_between_zones_but_keeps_the_total():
    signal = ShipSignal(seconds=3.0, noise_g=0.0)
    signal.sway(100.0, 3.0, 2.0)
    rows = signal.rows()
    assert max(abs(r[1][8]) for r in rows) > 2.0
    assert max(abs(sum(r[1])) for r in rows) < 1e-9


def test_crosstalk_shares_load_with_neighbours_and_keeps_the_total():
    signal = ShipSignal(seconds=2.0, noise_g=0.0)
    signal.crosstalk_fraction = 0.05
    signal.place(7, 10.0, 100.0, press_g=0.0, ring_g=0.0)
    zones_g = signal.rows()[-1][1]
    assert abs(zones_g[6] - 8.5) < 1e-6  # zone 7 has three neighbours
    assert abs(sum(zones_g) - 10.0) < 1e-6
