"""The virtual ship: pieces, hands and falls in, HX711 samples out, one sample at a time.

Actions start at the ship's current time (the last sample's) or later, and everything they
set in motion (a hand pressing, a piece in the air) is scheduled then; samples are drawn in
time order. So a script can schedule ahead, and a bot can decide after every sample.
See `bosun.sim` for the API in brief and `bosun.sim.truth` for the ground-truth records.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from bosun.sim.impacts import KNOCK_STRENGTH, ShipImpacts
from bosun.sim.params import ShipParams
from bosun.sim.pieces import Piece, calibrated_item_grams, make_pieces
from bosun.sim.sensors import CHANNELS, LoadCellBank, Piezo
from bosun.sim.shifts import LAND_MS, ShipShifts
from bosun.sim.signals import DampedSine, Pulse, Ramp, Sway
from bosun.sim.truth import (
    Collect,
    Fall,
    FallingPiece,
    Knock,
    Placement,
    Touch,
    TruthRecord,
)
from shipsense.geometry import (
    MAT_CHANNEL,
    NEIGHBOURS,
    ZONE_HEIGHT_M,
    ZONE_LEVER,
    ZONES,
    check_zone,
    drop_ms,
)

OUTCOMES = ("landed", "caught", "bounced")
EVAL_STEP_US = 12_500  # forces are evaluated every 12.5 ms within a conversion period


class Sample(NamedTuple):
    """One row of a trace: grams per zone (z1..z10), mat grams or None, piezo 0/1 or None."""

    t_ms: float
    zones_g: tuple[float, ...]
    table_g: float | None
    impact: int | None


class VirtualShip(ShipShifts, ShipImpacts):
    """A Riff Raff ship on the table, with its sensors; deterministic for a seed.

    `VirtualShip(ShipParams.draw("normal", seed, rate_sps=80, table="both"), seed)`.
    """

    def __init__(self, params: ShipParams | None = None, seed: int | str = 0):
        self.params = params if params is not None else ShipParams.draw("normal", seed)
        self.seed = seed
        self.rate_sps = self.params.rate_sps
        self._rng = random.Random(f"{seed}/physics")
        self.pieces = make_pieces(
            self.params.item_grams,
            self.params.pieces_per_item,
            self.params.piece_scatter,
            seed,
        )
        self._by_id = {p.id: p for p in self.pieces}
        self.records: list[TruthRecord] = []
        self._placements: dict[str, Placement] = {}  # piece id -> its latest placement

        self._base = [0.0] * CHANNELS  # settled forces per channel
        self._ramps: list[Ramp] = []
        self._transients: list[Pulse | DampedSine] = []
        sway = self.params.sway
        self._sway = Sway(
            [ZONE_LEVER[z] for z in ZONES],
            sway.hz,
            sway.decay_s,
            sway.g_per_g,
            sway.max_g,
            sway.vertical_fraction,
        )
        self._diag = [1.0] * 10
        self._leaks: list[tuple[int, int, float]] = []  # (reading zone, loaded zone, fraction)
        for zone_a, zone_b, fraction in self.params.sensors.crosstalk:
            check_zone(zone_a)
            check_zone(zone_b)
            if zone_a == zone_b or not 0.0 <= fraction < 0.2:
                raise ValueError(f"crosstalk {zone_a}-{zone_b} of {fraction} is not possible")
            self._leaks += [(zone_b - 1, zone_a - 1, fraction), (zone_a - 1, zone_b - 1, fraction)]
            self._diag[zone_a - 1] -= fraction
            self._diag[zone_b - 1] -= fraction
        sensors = self.params.sensors
        worn = sensors.power_up_settle_ms or sensors.zero_step_per_min or any(sensors.gain_drift)
        self._bank = LoadCellBank(
            sensors,
            self.params.has_mat,
            random.Random(f"{seed}/noise"),
            random.Random(f"{seed}/wear-cells") if worn else None,  # the `wear` family only
        )
        self._piezo = Piezo(
            sensors.piezo_ring_hz,
            sensors.piezo_ring_decay_ms,
            sensors.piezo_saturate_strength,
            sensors.piezo_latch_ms,
            random.Random(f"{seed}/wear-piezo"),
        )
        self._hop_rng = random.Random(f"{seed}/wear-hops")  # drawn from only if pieces hop
        self._period_us = 1_000_000 // self.rate_sps
        self._next_index = 0
        self._last_us: int | None = None  # time of the last sample (conversion)
        self._latest: Sample | None = None
        self._asked_us = 0  # latest time sample_at was asked for
        self.busy_until_us = 0
        self.samples = 0

    # ---- what is where ------------------------------------------------------------------

    @property
    def now_ms(self) -> float:
        """The ship's clock: the last reading's time (0 before the first)."""
        return self.now_us / 1000.0

    @property
    def now_us(self) -> int:
        return 0 if self._last_us is None else self._last_us

    @property
    def period_us(self) -> int:
        """The sample period in microseconds (rounded down for rates that do not divide 1e6)."""
        return self._period_us

    @property
    def glitch_count(self) -> int:
        """Single-sample glitches put into the readings so far."""
        return self._bank.glitches

    @property
    def busy_until_ms(self) -> float:
        """When everything set in motion so far is over (pieces rested, landed, rung out)."""
        return self.busy_until_us / 1000.0

    @property
    def settled(self) -> bool:
        """Nothing is moving any more (sway may still be dying away)."""
        return self.now_us >= self.busy_until_us

    def aboard(self, zone: int | None = None) -> list[Piece]:
        """Pieces on the ship (or on one zone), including ones still being loaded."""
        return [p for p in self.pieces if p.aboard and (zone is None or p.zone == zone)]

    def on_mat(self) -> list[Piece]:
        return [p for p in self.pieces if p.where == "mat"]

    def supply(self, item: str | None = None) -> list[Piece]:
        return [p for p in self.pieces if p.where == "supply" and item in (None, p.item)]

    def piece(self, ref: Piece | str) -> Piece:
        """A piece of this ship's set by id ("barrel#2") or itself; ValueError if unknown."""
        piece = self._by_id.get(ref) if isinstance(ref, str) else ref
        if not isinstance(piece, Piece) or self._by_id.get(piece.id) is not piece:
            raise ValueError(f"no such piece: {ref!r}")
        return piece

    def find(self, zone: int, item: str | None = None) -> Piece:
        """The most recently readied piece (of `item`) on `zone`; ValueError if there is none."""
        candidates = [p for p in self.aboard(check_zone(zone)) if item in (None, p.item)]
        if not candidates:
            what = f"no {item}" if item else "nothing"
            raise ValueError(f"{what} aboard zone {zone}")
        return max(candidates, key=lambda p: p.ready_us)

    def calibrated_item_grams(self) -> dict[str, float]:
        """Grams per item type as a calibration of this game set would measure them."""
        return calibrated_item_grams(self.pieces)

    def truth(self) -> list[TruthRecord]:
        """Everything scheduled so far, in order of `t_ms` (records may lie in the future)."""
        return sorted(self.records, key=lambda r: r.t_us)

    def truth_json(self) -> list[dict]:
        return [record.to_json() for record in self.truth()]

    # ---- actions ------------------------------------------------------------------------

    def preload(self, zone: int, item: str) -> Piece:
        """Before the first sample: a piece that has rested on `zone` for long (no truth)."""
        if self._last_us is not None:
            raise ValueError("preload is only possible before the first sample")
        piece = self._take_from_supply(item, 0)
        piece.where, piece.zone, piece.ready_us = "aboard", check_zone(zone), 0
        self._base[zone - 1] += piece.grams
        return piece

    def place(
        self,
        zone: int,
        item: str,
        at_ms: float | None = None,
        press_g: float | None = None,
        press_ms: float | None = None,
    ) -> Placement:
        """A hand loads a piece of `item` onto `zone`: weight comes on, press, let go, ring."""
        zone = check_zone(zone)
        t0 = self._start_us(at_ms)
        piece = self._take_from_supply(item, t0)
        hands, rng, channel = self.params.hands, self._rng, zone - 1
        weight = piece.grams
        set_us = self._draw_us(hands.set_ms)
        if press_g is None:
            pressed = rng.random() < hands.press_probability
            press_g = rng.uniform(*hands.press_g) if pressed else 0.0
        if not 0.0 <= press_g <= 500.0:
            raise ValueError(f"press_g must be 0-500 g, not {press_g}")
        press_us = self._draw_us(hands.press_ms) if press_ms is None else round(press_ms * 1000)
        if not 0 <= press_us <= 10_000_000:
            raise ValueError(f"press_ms must be 0-10000 ms, not {press_ms}")

        self._add_ramp(channel, t0, t0 + set_us, weight)
        self._sway.impulse(t0 + set_us, zone, 0.5 * weight)
        if press_g > 0.0 and press_us > 0:
            press_start = t0 + set_us // 2
            rise_us = round(press_us * rng.uniform(0.2, 0.4))
            fall_us = min(self._draw_us((20.0, 60.0)), max(press_us - rise_us, 1))
            hold_us = press_us - rise_us - fall_us
            pulse = Pulse(channel, press_start, rise_us, hold_us, fall_us, press_g)
            self._transients.append(pulse)
            self._sway.impulse(press_start + rise_us, zone, 0.5 * press_g)
            release = max(pulse.t1_us, t0 + set_us)
        else:
            press_g = 0.0
            release = t0 + set_us + self._draw_us((30.0, 150.0))  # the hand steadies it
        # Let go: the ship springs back from the press and the piece rings on its zone.
        self._sway.impulse(release, zone, -(press_g + 0.3 * weight))
        ring_g = weight * rng.uniform(*hands.ring_fraction) + 0.2 * press_g
        done = release
        if ring_g > 0.0 and hands.ring_fraction[1] > 0.0:
            tau = self._draw_us(hands.ring_decay_ms)
            self._transients.append(
                DampedSine(channel, release, ring_g, rng.uniform(*hands.ring_hz), tau)
            )
            done = release + 5 * tau
        piece.where, piece.zone, piece.ready_us = "aboard", zone, release
        record = Placement(
            t_us=release,
            start_us=t0,
            zone=zone,
            item=piece.item,
            piece=piece.id,
            grams=weight,
            press_g=press_g,
            done_us=done,
        )
        self._placements[piece.id] = record
        return self._record(record)

    def fall(
        self,
        pieces: Piece | str | Sequence[Piece | str],
        outcomes: str | Sequence[str] = "landed",
        at_ms: float | None = None,
        gaps_ms: Sequence[float] | None = None,
    ) -> Fall:
        """Pieces leave the ship, one after another `gaps_ms` apart (default: together).

        `outcomes` (one for all, or one a piece): `landed` on the mat/table, `caught` by a
        hand (never lands), `bounced` (hits the mat and leaves it again).
        """
        chosen = self._resolve_pieces(pieces)
        t0 = self._start_us(at_ms)
        outcome_list = [outcomes] * len(chosen) if isinstance(outcomes, str) else list(outcomes)
        if len(outcome_list) != len(chosen):
            raise ValueError(f"{len(chosen)} pieces fall but {len(outcome_list)} outcomes given")
        for outcome in outcome_list:
            if outcome not in OUTCOMES:
                raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
        if gaps_ms is None:
            gaps_us = [self._draw_us((0.0, 20.0)) for _ in chosen[1:]]
        else:
            gaps_us = [round(g * 1000) for g in gaps_ms]
            if len(gaps_us) != len(chosen) - 1 or any(not 0 <= g <= 60_000_000 for g in gaps_us):
                raise ValueError(f"gaps_ms needs {len(chosen) - 1} gaps of 0-60000 ms")
        self._check_ready(chosen, t0)

        hands, rng = self.params.hands, self._rng
        falling: list[FallingPiece] = []
        done = t0
        leave = t0 + self._draw_us(hands.slide_ms)
        for index, (piece, outcome) in enumerate(zip(chosen, outcome_list, strict=True)):
            if index:
                leave += gaps_us[index - 1]
            start = max(t0, leave - self._draw_us(hands.slide_ms))
            zone = piece.zone
            self._leave_zone(piece, start, leave)
            height = ZONE_HEIGHT_M[zone]
            land = leave + round(drop_ms(height) * rng.uniform(*hands.fall_slowdown) * 1000)
            land_us: int | None = None
            off_mat_us: int | None = None
            hops: list[tuple[int, int]] = []
            piece_done = land
            if outcome == "caught":
                piece.where, piece.zone, piece.ready_us = "supply", None, leave
                piece_done = leave
            else:
                land_us = land
                piece_done = self._impact(MAT_CHANNEL, land, piece.grams, height, to_table=True)
                if outcome == "landed":
                    self._add_ramp(MAT_CHANNEL, land, land + round(LAND_MS * 1000), piece.grams)
                    rest = land
                    if hands.hop_count[1]:  # it hops before it rests (the `wear` family)
                        hops, hopped_us = self._hops(piece.grams, land)
                        rest = hops[-1][1] if hops else land
                        piece_done = max(piece_done, hopped_us)
                    piece.where, piece.zone, piece.ready_us = "mat", None, rest
                else:
                    rest_us = self._draw_us(hands.bounce_rest_ms)
                    on_us = land + 5_000
                    self._add_ramp(MAT_CHANNEL, land, on_us, piece.grams)
                    self._add_ramp(
                        MAT_CHANNEL, on_us + rest_us, on_us + rest_us + 20_000, -piece.grams
                    )
                    off_mat_us = on_us + rest_us + 20_000
                    piece_done = max(piece_done, off_mat_us)
                    piece.where, piece.zone, piece.ready_us = "supply", None, off_mat_us
            done = max(done, piece_done)
            falling.append(
                FallingPiece(
                    piece=piece.id,
                    item=piece.item,
                    zone=zone,
                    grams=piece.grams,
                    start_us=start,
                    leave_us=leave,
                    outcome=outcome,
                    land_us=land_us,
                    off_mat_us=off_mat_us,
                    hops_us=hops,
                )
            )
        return self._record(Fall(pieces=falling, done_us=done))

    def touch(
        self,
        zones: Iterable[int] | None = None,
        at_ms: float | None = None,
        peak_g: float | None = None,
        duration_ms: float | None = None,
    ) -> Touch:
        """A hand brushes the ship: a push on one or two zones, then it rocks; nothing changes."""
        hands, rng = self.params.hands, self._rng
        if zones is None:
            one_zone = rng.random() < 0.7
            zone_list = [rng.choice(ZONES)] if one_zone else list(rng.choice(NEIGHBOURS))
        else:
            zone_list = [check_zone(z) for z in zones]
            if not zone_list:
                raise ValueError("a touch needs at least one zone")
        t0 = self._start_us(at_ms)
        peak = rng.uniform(*hands.touch_g) if peak_g is None else float(peak_g)
        if not 0.0 < peak <= 500.0:
            raise ValueError(f"peak_g must be above 0 and at most 500 g, not {peak}")
        length = self._draw_us(hands.touch_ms) if duration_ms is None else round(duration_ms * 1e3)
        if not 1_000 <= length <= 10_000_000:
            raise ValueError(f"duration_ms must be 1-10000 ms, not {duration_ms}")
        rise = round(length * rng.uniform(0.3, 0.45))
        fall = round(length * rng.uniform(0.3, 0.45))
        end = t0
        for index, zone in enumerate(zone_list):
            share = 1.0 if index == 0 else rng.uniform(0.3, 0.8)
            pulse = Pulse(zone - 1, t0, rise, length - rise - fall, fall, peak * share)
            self._transients.append(pulse)
            end = max(end, pulse.t1_us)
        self._sway.impulse(t0 + rise, zone_list[0], 0.5 * peak)
        self._sway.impulse(end, zone_list[0], -peak)
        return self._record(Touch(t_us=t0, end_us=end, zones=zone_list, peak_g=peak, done_us=end))

    def knock(self, at_ms: float | None = None, ripple_g: float | None = None) -> Knock:
        """A knock on the table: the piezo fires, the mat ripples, the ship shudders."""
        hands, rng = self.params.hands, self._rng
        t0 = self._start_us(at_ms)
        ripple = rng.uniform(*hands.knock_ripple_g) if ripple_g is None else float(ripple_g)
        if not 0.0 <= ripple <= 500.0:
            raise ValueError(f"ripple_g must be 0-500 g, not {ripple}")
        self._piezo.hit(t0, KNOCK_STRENGTH * self.params.sensors.piezo_gain)
        tau = self._draw_us((30.0, 100.0))
        self._transients.append(DampedSine(MAT_CHANNEL, t0, ripple, rng.uniform(15, 30), tau))
        if self.params.sway.g_per_g > 0.0:
            kick = [rng.uniform(*hands.knock_sway_g) * rng.choice((-1, 1)) for _ in range(2)]
            self._sway.push(t0, kick[0], kick[1])
        for zone in ZONES:
            load = sum(p.grams for p in self.aboard(zone))
            if load:  # the pieces aboard hop a little
                self._transients.append(DampedSine(zone - 1, t0, 0.05 * load, 20.0, 30_000))
        return self._record(Knock(t_us=t0, ripple_g=ripple, done_us=t0 + 6 * tau))

    def collect(
        self, pieces: Sequence[Piece | str] | None = None, at_ms: float | None = None
    ) -> Collect:
        """A hand takes pieces (default: all) off the mat: a light press, then they are gone."""
        t0 = self._start_us(at_ms)
        if pieces is None:
            chosen = [p for p in self.on_mat() if p.ready_us <= t0]
        else:
            chosen = [self.piece(p) for p in pieces]
        if not chosen:
            raise ValueError("nothing on the mat to collect")
        for piece in chosen:
            if piece.where != "mat" or piece.ready_us > t0:
                raise ValueError(f"{piece.id} is not lying on the mat")
        rng = self._rng
        press = Pulse(
            MAT_CHANNEL,
            t0,
            self._draw_us((40.0, 100.0)),
            self._draw_us((50.0, 250.0)),
            self._draw_us((30.0, 80.0)),
            rng.uniform(2.0, 8.0),
        )
        self._transients.append(press)
        lift = press.t1_us
        for piece in chosen:
            self._add_ramp(MAT_CHANNEL, lift, lift + 30_000, -piece.grams)
            lift += self._draw_us((0.0, 150.0))
            piece.where, piece.zone, piece.ready_us = "supply", None, lift + 30_000
        end = lift + 30_000
        record = Collect(
            t_us=end,
            pieces=[p.id for p in chosen],
            items=[p.item for p in chosen],
            grams=sum(p.grams for p in chosen),
            done_us=end,
        )
        return self._record(record)

    # ---- sampling -----------------------------------------------------------------------

    def next_sample(self) -> Sample:
        """The next conversion: t = index / rate, exact for any session length."""
        t_us = self._next_index * 1_000_000 // self.rate_sps
        self._next_index += 1
        self._latest = self._sample(t_us)
        return self._latest

    def sample_at(self, t_ms: float) -> Sample:
        """The latest conversion at `t_ms`, for a reader with its own pace (a virtual board).

        The HX711s convert at the ship's rate whatever the reader does: a read before the next
        conversion gives the same sample again, a late read skips conversions. Reads must not
        go back in time.
        """
        t_us = self._time_us(t_ms, "t_ms")
        if t_us < self._asked_us:
            raise ValueError(f"t_ms={t_ms} is before the last reading ({self._asked_us / 1e3})")
        if t_us < 0:
            raise ValueError(f"t_ms={t_ms} is before the first conversion at 0")
        self._asked_us = t_us
        while self._next_index * 1_000_000 // self.rate_sps <= t_us:
            self.next_sample()
        assert self._latest is not None
        return self._latest

    def forces_at(self, t_ms: float) -> tuple[float, ...]:
        """Noiseless grams on the 10 zone cells and the mat at `t_ms` >= now (no HX711 effects)."""
        t_us = self._time_us(t_ms, "t_ms")
        if t_us < self.now_us:
            raise ValueError(f"t_ms={t_ms} is before the ship's clock ({self.now_ms} ms)")
        return tuple(self._forces(t_us, peek=True))

    def _sample(self, t_us: int) -> Sample:
        prev = t_us - self._period_us
        steps = max(1, round(self._period_us / EVAL_STEP_US))
        if steps == 1:
            averaged = self._forces(t_us - self._period_us // 2)
        else:  # a long conversion (10 SPS) averages the forces over its whole period
            averaged = [0.0] * CHANNELS
            for step in range(steps):
                forces = self._forces(prev + (2 * step + 1) * self._period_us // (2 * steps))
                for i in range(CHANNELS):
                    averaged[i] += forces[i]
            averaged = [value / steps for value in averaged]
        self._prune(t_us)
        readings = self._bank.read(averaged, t_us, self._period_us)
        impact = self._piezo.read(prev, t_us)
        self._last_us = t_us
        self.samples += 1
        params = self.params
        return Sample(
            t_us / 1000.0,
            tuple(readings[:10]),
            readings[MAT_CHANNEL] if params.has_mat else None,
            impact if params.has_piezo else None,
        )

    def _forces(self, t_us: int, peek: bool = False) -> list[float]:
        load = self._base[:]
        for ramp in self._ramps:
            if t_us > ramp.t0_us:
                load[ramp.channel] += ramp.at(t_us)
        for shape in self._transients:
            if shape.t0_us < t_us < shape.t1_us:
                load[shape.channel] += shape.at(t_us)
        diag = self._diag
        zones = [diag[i] * load[i] for i in range(10)]
        for reading, loaded, fraction in self._leaks:
            zones[reading] += fraction * load[loaded]
        self._sway.add_to(zones, t_us, peek)
        zones.append(load[MAT_CHANNEL])
        return zones

    def _prune(self, t_us: int) -> None:
        if self._ramps:
            kept = []
            for ramp in self._ramps:
                if ramp.t1_us <= t_us:
                    self._base[ramp.channel] += ramp.delta_g
                else:
                    kept.append(ramp)
            self._ramps = kept
        if self._transients:
            self._transients = [s for s in self._transients if s.t1_us > t_us]

    # ---- helpers ------------------------------------------------------------------------

    def _record(self, record):
        self.records.append(record)
        self.busy_until_us = max(self.busy_until_us, record.done_us)
        return record

    def _time_us(self, t_ms: float, name: str) -> int:
        if isinstance(t_ms, bool) or not isinstance(t_ms, int | float) or not math.isfinite(t_ms):
            raise ValueError(f"{name} must be a finite number of milliseconds, not {t_ms!r}")
        return round(t_ms * 1000)

    def _start_us(self, at_ms: float | None) -> int:
        if at_ms is None:
            return self.now_us
        t_us = self._time_us(at_ms, "at_ms")
        if t_us < self.now_us:
            raise ValueError(f"at_ms={at_ms} is in the past: the ship is at {self.now_ms} ms")
        return t_us

    def _draw_us(self, range_ms: tuple[float, float]) -> int:
        return round(self._rng.uniform(*range_ms) * 1000)

    def _add_ramp(self, channel: int, t0_us: int, t1_us: int, delta_g: float) -> None:
        self._ramps.append(Ramp(channel, t0_us, max(t1_us, t0_us + 1), delta_g))

    def _resolve_pieces(self, refs: Piece | str | Sequence[Piece | str]) -> list[Piece]:
        if isinstance(refs, Piece | str):
            refs = [refs]
        chosen = [self.piece(ref) for ref in refs]
        if not chosen:
            raise ValueError("name at least one piece")
        if len({p.id for p in chosen}) != len(chosen):
            raise ValueError("a piece is named twice")
        for piece in chosen:
            if not piece.aboard:
                raise ValueError(f"{piece.id} is not aboard (it is {piece.where})")
        return chosen

    def _check_ready(self, pieces: list[Piece], t0_us: int) -> None:
        for piece in pieces:
            if piece.ready_us > t0_us:
                raise ValueError(
                    f"{piece.id} is still moving until {piece.ready_us / 1000} ms "
                    f"(asked to leave at {t0_us / 1000} ms)"
                )

    def _take_from_supply(self, item: str, t_us: int) -> Piece:
        if item not in self.params.item_grams:
            raise ValueError(f"unknown item {item!r}; items: {', '.join(self.params.item_grams)}")
        for piece in self.pieces:
            if piece.item == item and piece.where == "supply" and piece.ready_us <= t_us:
                return piece
        raise ValueError(f"no {item} left in the supply (all are aboard or on the mat)")

    def _leave_zone(self, piece: Piece, start_us: int, leave_us: int) -> None:
        self._add_ramp(piece.zone - 1, start_us, leave_us, -piece.grams)
        self._sway.impulse(leave_us, piece.zone, -piece.grams)
        placement = self._placements.get(piece.id)
        if placement is not None and placement.left_us is None:
            placement.left_us = start_us
        piece.where, piece.ready_us = "moving", leave_us
