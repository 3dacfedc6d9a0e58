"""Parameters of the virtual ship: one field an effect, levels `normal` and `hard`, item weights.

A `Level` holds ranges; `ShipParams.draw(level, seed, ...)` turns them into one concrete
ship (this ship's noise per zone, drift per channel, crosstalk per pair, sway frequencies),
the way every real ship differs a little from the next. `ShipParams.quiet()` is a ship with
every effect off; tests switch on one effect at a time with `dataclasses.replace`.

Channels: 0..9 are zones 1..10, 10 is the table mat.

`ShipParams.harbour(seed)` is the same load cells used as Montego Bay's harbour: a dock on
each hull zone (1-4), only barrels, no drop sensor (see `harbour` below).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace

from shipsense.geometry import NEIGHBOURS
from shipsense.pieces import BARREL_G, ITEM_GRAMS, ITEMS

__all__ = ["ITEMS", "ITEM_GRAMS"]  # re-exported: bosun.sim's users get the pieces from here

# Montego Bay's harbour (the `harbour` preset): 16 barrels a player (MB16) for up to 4 players
# are on hand.
HARBOUR_ITEM_GRAMS = {"barrel": BARREL_G}
HARBOUR_BARRELS = 64

TABLE_KINDS = ("mat", "piezo", "both", "none")
RATES_SPS = (10, 80)  # HX711 RATE pin low / high

# HX711 datasheet: input-referred noise 50 nV rms at 10 SPS, 90 nV at 80 SPS.
NOISE_RATIO_10_TO_80 = 50.0 / 90.0

Range = tuple[float, float]


@dataclass(frozen=True)
class SensorParams:
    """One ship's load cells and HX711s: noise, glitches, drift, creep, crosstalk."""

    noise_g_rms: tuple[float, ...] = (0.0,) * 11  # per channel, at the ship's sample rate
    glitch_per_min: float = 0.0  # single-sample glitches, whole ship (all channels)
    glitch_g: Range = (10.0, 60.0)  # size of a glitch, either sign
    # Thermal drift per channel, signed: the reading starts drifting at this rate at t = 0
    # and wanders as a slow sine of `drift_period_min` (bounded over a six-hour session).
    drift_g_per_min: tuple[float, ...] = (0.0,) * 11
    drift_period_min: float = 40.0
    creep_fraction: float = 0.0  # reading rises by this fraction of the load ...
    creep_tau_s: float = 60.0  # ... with this time constant (and recovers when unloaded)
    # (zone_a, zone_b, fraction): that fraction of a's load shows on b, and of b's on a;
    # the total is conserved (the loaded cell reads that much less).
    crosstalk: tuple[tuple[int, int, float], ...] = ()
    piezo_min_mj: float = 1.0  # impact energy the piezo comparator needs (at gain 1)
    piezo_ship_impact_probability: float = 0.0  # a piece landing on the deck trips the piezo
    # The zoo's sensor effects (bosun.sim.zoo); all off by default, so `normal` and `hard`
    # ships (and every corpus drawn from them) stay exactly as they were.
    # Each channel's reading / true grams: its calibration's scale factor is off by this much
    # (1.05: a 20 g piece reads 21 g), on everything the cell feels; noise, drift and glitches
    # are in grams already.
    calibration: tuple[float, ...] = (1.0,) * 11
    # A first-order lag behind the HX711's own filter (an input RC filter, a slowly settling
    # cell): on its own it brings a step within 1 % of its size in this many conversion
    # periods, on top of the datasheet's four (0: none).
    settle_lag_periods: float = 0.0
    # The piezo's sensitivity (voltage for a given strike): its comparator trips when
    # gain x sqrt(m g h / piezo_min_mj) >= 1, so the energy it needs is piezo_min_mj / gain^2.
    piezo_gain: float = 1.0
    # The table rings after a strike: the piezo's signal swings at this frequency, decaying with
    # this time constant, and the comparator trips again on every swing still above its
    # threshold (decay 0: no ringing).
    piezo_ring_hz: float = 100.0
    piezo_ring_decay_ms: float = 0.0
    # The `wear` family's effects (bosun.sim.zoo), all off by default like the zoo's above.
    # After power-up the HX711s read far off and settle in: each channel's first readings are
    # off by its error here, decaying to nothing by `power_up_settle_ms` (0: settled at once).
    power_up_error_g: tuple[float, ...] = (0.0,) * 11
    power_up_settle_ms: float = 0.0
    # A knock shifts a zone's load cell: its zero steps, this often (whole ship) ...
    zero_step_per_min: float = 0.0
    zero_step_g: Range = (0.0, 0.0)  # ... by this much, either sign
    # Each channel's gain drifts (temperature) smoothly to 1 + this by `gain_drift_s`, then
    # stays (0: none).
    gain_drift: tuple[float, ...] = (0.0,) * 11
    gain_drift_s: float = 180.0
    # A strike this many times the comparator's threshold or more saturates the piezo: its
    # output stays high for a time drawn from `piezo_latch_ms` (0: it never saturates).
    piezo_saturate_strength: float = 0.0
    piezo_latch_ms: Range = (50.0, 300.0)

    def __post_init__(self) -> None:
        for name in (
            "noise_g_rms",
            "drift_g_per_min",
            "calibration",
            "power_up_error_g",
            "gain_drift",
        ):
            values = getattr(self, name)
            if len(values) != 11 or not all(math.isfinite(v) for v in values):
                raise ValueError(f"{name} needs 11 finite numbers (10 zones, then the mat)")
        if not all(0.5 <= c <= 2.0 for c in self.calibration):
            raise ValueError("calibration factors must be 0.5-2")
        if not 0 <= self.settle_lag_periods <= 100:
            raise ValueError("settle_lag_periods must be 0-100")
        if not 0 < self.piezo_gain <= 100 or not 0 < self.piezo_ring_hz <= 100_000:
            raise ValueError("piezo_gain must be 0-100 and piezo_ring_hz 0-100000, above 0")
        if not 0 <= self.piezo_ring_decay_ms <= 10_000:
            raise ValueError("piezo_ring_decay_ms must be 0-10000")
        if not 0 <= self.power_up_settle_ms <= 10_000 or not 0 <= self.zero_step_per_min <= 600:
            raise ValueError("power_up_settle_ms must be 0-10000 and zero_step_per_min 0-600")
        if not all(-0.5 <= d <= 0.5 for d in self.gain_drift) or self.gain_drift_s <= 0:
            raise ValueError("gain_drift must be within +-0.5, over a gain_drift_s above 0")
        if self.piezo_saturate_strength < 0 or min(self.piezo_latch_ms) < 0:
            raise ValueError("piezo_saturate_strength and piezo_latch_ms cannot be negative")
        if min(self.noise_g_rms) < 0:
            raise ValueError("noise_g_rms cannot be negative")
        if not 0 <= self.glitch_per_min <= 60_000 or not 0 <= self.creep_fraction <= 0.1:
            raise ValueError("glitch_per_min must be 0-60000 and creep_fraction 0-0.1")
        if self.creep_tau_s <= 0 or self.drift_period_min <= 0:
            raise ValueError("creep_tau_s and drift_period_min must be above 0")
        if not 0 <= self.piezo_ship_impact_probability <= 1:
            raise ValueError("piezo_ship_impact_probability must be 0-1")

    @property
    def piezo_threshold_mj(self) -> float:
        """The strike energy (m g h, mJ) that trips this piezo's comparator."""
        return self.piezo_min_mj / (self.piezo_gain * self.piezo_gain)


@dataclass(frozen=True)
class SwayParams:
    """The ship rocking on its ball joint: two damped modes (roll, pitch)."""

    hz: tuple[float, float] = (1.0, 1.3)  # roll, pitch: 0.5-2 Hz
    decay_s: float = 1.5  # amplitude time constant
    g_per_g: float = 0.0  # grams of sway per zone for each gram of sudden load change
    max_g: float = 3.0  # cap on any zone's sway
    vertical_fraction: float = 0.03  # the total is only nearly constant: this much bobs

    def __post_init__(self) -> None:
        if not all(0 < f <= 50 for f in self.hz) or len(self.hz) != 2:
            raise ValueError(f"sway hz needs two frequencies of 0-50 Hz, not {self.hz}")
        if self.decay_s <= 0 or self.g_per_g < 0 or self.max_g < 0:
            raise ValueError("sway decay_s must be above 0, g_per_g and max_g not negative")


@dataclass(frozen=True)
class HandParams:
    """What hands and pieces do, as ranges; each action draws its own values from these."""

    press_probability: float = 0.0  # a placement is pressed down before letting go
    press_g: Range = (0.0, 0.0)  # extra force of the pressing hand
    press_ms: Range = (100.0, 600.0)  # from the start of the press until the hand has left
    set_ms: Range = (40.0, 120.0)  # the piece's weight comes onto the zone over this time
    ring_fraction: Range = (0.0, 0.0)  # released piece rings: amplitude / piece weight
    ring_hz: Range = (8.0, 15.0)
    ring_decay_ms: Range = (40.0, 120.0)
    slide_ms: Range = (5.0, 40.0)  # a leaving piece's weight goes over this time
    fall_slowdown: Range = (1.0, 1.08)  # flight time / free-fall time (tumbling, rubbing)
    impact_factor: Range = (0.0, 0.0)  # landing spike peak / piece weight, from the top yard
    impact_hz: Range = (18.0, 30.0)  # mat / deck resonance excited by an impact
    impact_decay_ms: Range = (15.0, 35.0)
    bounce_rest_ms: Range = (0.0, 200.0)  # a bouncing piece stays on the mat this long
    touch_g: Range = (3.0, 20.0)  # a brushing hand's peak force
    touch_ms: Range = (80.0, 300.0)
    knock_ripple_g: Range = (1.0, 6.0)  # mat ripple of a knock on the table
    knock_sway_g: Range = (0.2, 1.0)  # sway impulse a knock gives the ship
    # Behaviours of the zoo (bosun.sim.zoo); all off by default, so `normal` and `hard`
    # sessions (and every corpus drawn from them) stay exactly as they were.
    deck_slide_share: float = 0.0  # of the shifts, the share that are a deck piece sliding
    # or tumbling to a neighbouring quarter (0-1; the rest drop from a yard)
    deck_tumble_ms: Range = (100.0, 150.0)  # the tumbling piece is part unloaded this long
    deck_unload_fraction: Range = (0.4, 1.0)  # ... by this share of its weight (1: in the air)
    topple_probability: float = 0.0  # a placed piece topples off the moment it is let go
    topple_knock_share: float = 0.0  # of those, the share that take 1-2 pieces aboard along
    topple_knock_gap_ms: Range = (30.0, 400.0)  # ... each leaving this long after the last
    cascade_probability: float = 0.0  # a placement sets off 2-3 pieces on other zones ...
    cascade_gap_ms: Range = (100.0, 400.0)  # ... falling this far apart
    jostle_probability: float = 0.0  # a placement jostles the ship: a piece at rest falls ...
    jostle_ms: Range = (-300.0, 600.0)  # ... starting this long after the let-go (before it:
    # while the hand still presses), alone or setting off 1-2 more (as any fall)
    # The mat rocks on its cell after a landing: a slow ring of this share of the landing
    # piece's weight (from the top yard; less from lower down), on top of the landing's spike.
    mat_ring_fraction: Range = (0.0, 0.0)
    mat_ring_hz: Range = (3.0, 10.0)
    mat_ring_decay_ms: Range = (80.0, 300.0)
    # A landed piece hops on the mat before it rests (the `wear` family): this many times
    # (drawn whole, inclusive), each hop this long in the air; its weight leaves the mat and
    # comes back, and the last landing is where it rests.
    hop_count: tuple[int, int] = (0, 0)
    hop_air_ms: Range = (20.0, 120.0)

    def __post_init__(self) -> None:
        for name in (
            "deck_slide_share",
            "topple_probability",
            "topple_knock_share",
            "cascade_probability",
            "jostle_probability",
        ):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be 0-1, not {getattr(self, name)}")
        low, high = self.deck_unload_fraction
        if not 0.0 < low <= high <= 1.0:
            raise ValueError(f"deck_unload_fraction must lie in (0, 1], not {low}-{high}")
        if not 0 <= self.hop_count[0] <= self.hop_count[1] <= 10 or min(self.hop_air_ms) <= 0:
            raise ValueError("hop_count must be 0-10 (low, high) and hop_air_ms above 0")


@dataclass(frozen=True)
class ShipParams:
    """Everything that makes one virtual ship: sampling, sensors, sway, hands, pieces."""

    rate_sps: int = 80
    table: str = "both"  # mat | piezo | both | none
    sensors: SensorParams = field(default_factory=SensorParams)
    sway: SwayParams = field(default_factory=SwayParams)
    hands: HandParams = field(default_factory=HandParams)
    item_grams: dict[str, float] = field(default_factory=lambda: dict(ITEM_GRAMS))
    piece_scatter: float = 0.0  # relative SD of a piece's weight around its type's
    pieces_per_item: int = 4  # RR2: one of each per player, up to 4 players

    def __post_init__(self) -> None:
        if isinstance(self.rate_sps, bool) or not isinstance(self.rate_sps, int):
            raise ValueError(f"rate_sps must be a whole number, not {self.rate_sps!r}")
        if not 1 <= self.rate_sps <= 1000:
            raise ValueError(f"rate_sps must be 1-1000, not {self.rate_sps}")
        if self.table not in TABLE_KINDS:
            raise ValueError(f"table must be one of {', '.join(TABLE_KINDS)}, not {self.table!r}")
        for item, grams in self.item_grams.items():
            if not 0 < grams < 1000:
                raise ValueError(f"item {item!r} must weigh 0-1000 g, not {grams}")
        if self.pieces_per_item < 1:
            raise ValueError("pieces_per_item must be at least 1")

    @property
    def has_mat(self) -> bool:
        return self.table in ("mat", "both")

    @property
    def has_piezo(self) -> bool:
        return self.table in ("piezo", "both")

    @classmethod
    def quiet(cls, rate_sps: int = 80, table: str = "both") -> ShipParams:
        """A ship with every effect off: exact weights, no noise, no sway, gentle hands."""
        return cls(rate_sps=rate_sps, table=table)

    @classmethod
    def draw(
        cls, level: str | Level, seed: int | str = 0, rate_sps: int = 80, table: str = "both"
    ) -> ShipParams:
        """One concrete ship from a level's ranges; the same seed gives the same ship."""
        if isinstance(level, str) and level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        lv = LEVELS[level] if isinstance(level, str) else level
        rng = random.Random(f"{seed}/ship")
        scale = 1.0 if rate_sps >= 80 else NOISE_RATIO_10_TO_80
        noise = [rng.uniform(*lv.noise_g_rms) * scale for _ in range(10)]
        noise.append(rng.uniform(*lv.mat_noise_g_rms) * scale)
        drift = [rng.uniform(-1.0, 1.0) * lv.drift_g_per_min for _ in range(11)]
        crosstalk = tuple((a, b, round(rng.uniform(*lv.crosstalk), 4)) for a, b in NEIGHBOURS)
        sensors = SensorParams(
            noise_g_rms=tuple(round(n, 4) for n in noise),
            glitch_per_min=lv.glitch_per_min,
            glitch_g=lv.glitch_g,
            drift_g_per_min=tuple(round(d, 4) for d in drift),
            creep_fraction=lv.creep_fraction,
            creep_tau_s=lv.creep_tau_s,
            crosstalk=crosstalk,
            piezo_min_mj=lv.piezo_min_mj,
            piezo_ship_impact_probability=lv.piezo_ship_impact_probability,
            **_draw_zoo_sensors(lv, seed),
            **_draw_wear_sensors(lv, seed),
        )
        sway = SwayParams(
            hz=(round(rng.uniform(*lv.sway_hz), 3), round(rng.uniform(*lv.sway_hz), 3)),
            decay_s=round(rng.uniform(*lv.sway_decay_s), 3),
            g_per_g=lv.sway_g_per_g,
            max_g=lv.sway_max_g,
            vertical_fraction=lv.sway_vertical_fraction,
        )
        return cls(
            rate_sps=rate_sps,
            table=table,
            sensors=sensors,
            sway=sway,
            hands=lv.hands,
            piece_scatter=lv.piece_scatter,
        )

    @classmethod
    def harbour(cls, seed: int | str = 0, level: str = "normal", rate_sps: int = 80) -> ShipParams:
        """Montego Bay's harbour on the ship's load cells: docks 1-4 are zones 1-4, the
        pieces are HARBOUR_BARRELS barrels of HARBOUR_ITEM_GRAMS, and there is no drop
        sensor (a barrel taken off a dock goes back to its owner's hand, it does not fall).
        Noise, drift, sway and hands are the level's, as drawn for the ship."""
        ship = cls.draw(level, seed, rate_sps=rate_sps, table="none")
        return replace(ship, item_grams=dict(HARBOUR_ITEM_GRAMS), pieces_per_item=HARBOUR_BARRELS)


def _draw_zoo_sensors(lv: Level, seed: int | str) -> dict:
    """The zoo's sensor effects for one ship, from their own random stream (so a level
    without them draws every other value as before); {} when the level has none."""
    zoo = (lv.calibration_error, lv.settle_lag_periods, lv.piezo_gain, lv.piezo_ring_decay_ms)
    if zoo == (0.0, (0.0, 0.0), (1.0, 1.0), (0.0, 0.0)):  # none of them
        return {}
    rng = random.Random(f"{seed}/zoo-sensors")
    error = lv.calibration_error
    return {
        "calibration": tuple(round(1.0 + rng.uniform(-error, error), 4) for _ in range(11)),
        "settle_lag_periods": round(rng.uniform(*lv.settle_lag_periods), 3),
        # log-uniform: as likely half as sensitive as twice
        "piezo_gain": round(math.exp(rng.uniform(*map(math.log, lv.piezo_gain))), 3),
        "piezo_ring_hz": round(rng.uniform(*lv.piezo_ring_hz), 1),
        "piezo_ring_decay_ms": round(rng.uniform(*lv.piezo_ring_decay_ms), 2),
    }


def _draw_wear_sensors(lv: Level, seed: int | str) -> dict:
    """The `wear` family's sensor effects for one ship, from their own random stream; {}
    when the level has none (so every other family draws exactly as before)."""
    wear = (lv.power_up_settle_ms, lv.zero_step_per_min, lv.gain_drift, lv.piezo_saturate_strength)
    if wear == ((0.0, 0.0), 0.0, 0.0, (0.0, 0.0)):  # none of them
        return {}
    rng = random.Random(f"{seed}/wear-sensors")
    errors = [rng.uniform(*lv.power_up_error_g) * rng.choice((-1.0, 1.0)) for _ in range(11)]
    return {
        "power_up_error_g": tuple(round(e, 3) for e in errors),
        "power_up_settle_ms": round(rng.uniform(*lv.power_up_settle_ms), 1),
        "zero_step_per_min": lv.zero_step_per_min,
        "zero_step_g": lv.zero_step_g,
        "gain_drift": tuple(
            round(rng.uniform(-lv.gain_drift, lv.gain_drift), 4) for _ in range(11)
        ),
        "gain_drift_s": lv.gain_drift_s,
        "piezo_saturate_strength": round(rng.uniform(*lv.piezo_saturate_strength), 3),
        "piezo_latch_ms": lv.piezo_latch_ms,
    }


@dataclass(frozen=True)
class Level:
    """Ranges a ship is drawn from, and how busy and how close the random session plays."""

    name: str
    noise_g_rms: Range  # per zone, at 80 SPS (10 SPS is quieter, per the datasheet)
    mat_noise_g_rms: Range
    glitch_per_min: float
    glitch_g: Range
    drift_g_per_min: float  # each channel drifts at a rate within +-this
    creep_fraction: float
    creep_tau_s: float
    crosstalk: Range
    sway_hz: Range
    sway_decay_s: Range
    sway_g_per_g: float
    sway_max_g: float
    sway_vertical_fraction: float
    piezo_min_mj: float
    piezo_ship_impact_probability: float
    hands: HandParams
    piece_scatter: float
    # the random session
    idle_s: Range  # quiet time after an action has finished
    rest_before_tip_s: Range  # a tipping load: from the hand leaving to the first piece leaving
    sequence_gap_ms: Range  # pieces falling one after another
    together_gap_ms: Range  # pieces falling together
    overlap_probability: float  # a touch or knock lands while something else happens
    # The zoo's sensor effects (bosun.sim.zoo), drawn per ship; off unless a family sets them.
    calibration_error: float = 0.0  # each channel's scale factor within 1 +- this
    settle_lag_periods: Range = (0.0, 0.0)
    piezo_gain: Range = (1.0, 1.0)
    piezo_ring_hz: Range = (100.0, 100.0)
    piezo_ring_decay_ms: Range = (0.0, 0.0)
    # The `wear` family's sensor effects (bosun.sim.zoo), drawn per ship; off unless set.
    power_up_error_g: Range = (0.0, 0.0)  # each channel's first reading off by this, either sign
    power_up_settle_ms: Range = (0.0, 0.0)  # ... settling in within this long
    zero_step_per_min: float = 0.0  # a zone's zero steps this often (whole ship) ...
    zero_step_g: Range = (0.0, 0.0)  # ... by this much, either sign
    gain_drift: float = 0.0  # each channel's gain drifts to within 1 +- this ...
    gain_drift_s: float = 180.0  # ... over this long
    piezo_saturate_strength: Range = (0.0, 0.0)  # strikes this strong latch the piezo ...
    piezo_latch_ms: Range = (50.0, 300.0)  # ... high for this long


NORMAL = Level(
    name="normal",
    noise_g_rms=(0.02, 0.10),
    mat_noise_g_rms=(0.05, 0.15),
    glitch_per_min=0.5,
    glitch_g=(10.0, 40.0),
    drift_g_per_min=0.15,
    creep_fraction=0.003,
    creep_tau_s=60.0,
    crosstalk=(0.01, 0.03),
    sway_hz=(0.8, 1.4),
    sway_decay_s=(0.8, 1.5),
    sway_g_per_g=0.12,
    sway_max_g=2.0,
    sway_vertical_fraction=0.02,
    piezo_min_mj=1.0,  # every landing on the table trips it
    piezo_ship_impact_probability=0.2,
    hands=HandParams(
        press_probability=0.7,
        press_g=(2.0, 15.0),
        press_ms=(150.0, 600.0),
        ring_fraction=(0.05, 0.25),
        slide_ms=(5.0, 40.0),
        impact_factor=(2.0, 6.0),
        bounce_rest_ms=(0.0, 200.0),
        touch_g=(3.0, 20.0),
        touch_ms=(80.0, 300.0),
        knock_ripple_g=(1.0, 6.0),
        knock_sway_g=(0.2, 0.8),
    ),
    piece_scatter=0.02,
    idle_s=(1.0, 4.0),
    rest_before_tip_s=(0.8, 2.0),
    sequence_gap_ms=(300.0, 1200.0),
    together_gap_ms=(0.0, 30.0),
    overlap_probability=0.0,
)

HARD = Level(
    name="hard",
    noise_g_rms=(0.10, 0.30),
    mat_noise_g_rms=(0.15, 0.30),
    glitch_per_min=3.0,
    glitch_g=(10.0, 80.0),
    drift_g_per_min=0.5,
    creep_fraction=0.008,
    creep_tau_s=40.0,
    crosstalk=(0.02, 0.05),
    sway_hz=(0.5, 2.0),
    sway_decay_s=(1.5, 3.0),
    sway_g_per_g=0.3,
    sway_max_g=4.0,
    sway_vertical_fraction=0.05,
    piezo_min_mj=2.0,  # a rat or bottle dropping off the deck goes unheard
    piezo_ship_impact_probability=0.6,
    hands=HandParams(
        press_probability=0.9,
        press_g=(5.0, 40.0),
        press_ms=(200.0, 1000.0),
        ring_fraction=(0.15, 0.5),
        slide_ms=(10.0, 120.0),
        impact_factor=(3.0, 10.0),
        bounce_rest_ms=(0.0, 400.0),
        touch_g=(5.0, 40.0),
        touch_ms=(80.0, 600.0),
        knock_ripple_g=(3.0, 20.0),
        knock_sway_g=(0.5, 2.0),
    ),
    piece_scatter=0.03,
    idle_s=(0.3, 2.5),
    rest_before_tip_s=(0.4, 1.2),
    sequence_gap_ms=(120.0, 700.0),
    together_gap_ms=(0.0, 60.0),
    overlap_probability=0.2,
)

LEVELS = {"normal": NORMAL, "hard": HARD}
