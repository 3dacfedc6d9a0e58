"""The other ship's physical parameters: named ranges, drawn once per trace from its seed.

Every number the model uses lives here with its unit and range, so a reader can judge the
physics in one place. Lengths are in cm, forces in grams-force (g), times in ms unless the
name says `_s` or `_hz`.
"""

import math
import random
from dataclasses import dataclass, field

ZONES = tuple(range(1, 11))
DECK_ZONES = (1, 2, 3, 4)
YARD_ZONES = (5, 6, 7, 8, 9, 10)

# Nominal grams of a typical piece of each item (RR2), before the per-trace set scale.
ITEM_GRAMS = {
    "boat": 12.4,
    "barrel": 6.1,
    "bottle": 4.3,
    "crate": 7.6,
    "chest": 9.2,
    "plank": 5.2,
    "sailor": 3.5,
    "rat": 2.4,
}

# Zone positions relative to the ball joint (RR1): x fore(+)/aft(-), y starboard(+)/port(-),
# h height above the joint. Odd zones are port, even starboard; the yards sit on the mast.
ZONE_XYH_CM = {
    1: (4.5, -3.0, 3.0),
    2: (4.5, 3.0, 3.0),
    3: (-4.5, -3.0, 3.0),
    4: (-4.5, 3.0, 3.0),
    5: (0.5, -5.5, 11.0),
    6: (0.5, 5.5, 11.0),
    7: (0.5, -4.5, 16.0),
    8: (0.5, 4.5, 16.0),
    9: (0.5, -3.5, 21.0),
    10: (0.5, 3.5, 21.0),
}

# Neighbouring cells whose frames share wood (a load on one bends the other a little).
# Weight 1.0: adjacent; 0.3: diagonal or only loosely joined.
NEIGHBOUR_PAIRS = {
    (1, 2): 1.0,
    (3, 4): 1.0,
    (1, 3): 1.0,
    (2, 4): 1.0,
    (1, 4): 0.3,
    (2, 3): 0.3,
    (5, 6): 1.0,
    (7, 8): 1.0,
    (9, 10): 1.0,
    (5, 7): 1.0,
    (7, 9): 1.0,
    (6, 8): 1.0,
    (8, 10): 1.0,
    (1, 5): 0.3,
    (2, 6): 0.3,
}

# Deck slides go to a neighbouring quarter; a yard piece drops onto the deck below its side
# or onto the lower yard on the same side (RR13: it now lies on the lower zone).
SHIFT_TARGETS = {
    1: (2, 3),
    2: (1, 4),
    3: (1, 4),
    4: (2, 3),
    5: (1, 3),
    6: (2, 4),
    7: (5, 1, 3),
    8: (6, 2, 4),
    9: (7, 5, 1),
    10: (8, 6, 2),
}

# name: (low, high, meaning). Uniform draws; `draw_params` documents any coupling.
RANGES = {
    "noise_sd_10sps_g": (0.02, 0.10, "HX711 white noise at 10 SPS; 80 SPS is x2.8 (sqrt 8)"),
    "drift_walk_g_rt_s": (0.002, 0.012, "random-walk drift of a cell's zero, g per sqrt(s)"),
    "drift_slope_g_min": (-0.05, 0.05, "warm-up drift of a cell's zero, g per minute"),
    "glitch_per_sample": (0.0, 1.5e-4, "chance a sample is one wild value (bit slip)"),
    "gain_error": (-0.05, 0.05, "per-zone calibration gain error (fraction)"),
    "crosstalk_max": (0.02, 0.15, "largest fraction of a load read on a neighbouring cell"),
    "platform_deck_g": (3.0, 8.0, "mass riding on a deck cell (tared, but it accelerates)"),
    "platform_yard_g": (1.5, 5.0, "mass riding on a yard cell"),
    "deck_f_hz": (25.0, 45.0, "deck cell + frame resonance"),
    "deck_zeta": (0.10, 0.35, "deck resonance damping ratio"),
    "yard_f_hz": (8.0, 20.0, "yard arm bending resonance (springy wood)"),
    "yard_zeta": (0.05, 0.20, "yard resonance damping ratio"),
    "shear_deck": (0.005, 0.03, "deck cell cross-axis sensitivity (fraction of lateral force)"),
    "shear_yard": (0.03, 0.15, "yard cell cross-axis sensitivity"),
    "roll_f_hz": (0.3, 4.0, "ship's rocking frequency about the fore-aft axis"),
    "pitch_f_hz": (0.3, 4.0, "ship's rocking frequency about the port-starboard axis"),
    "roll_zeta": (0.05, 0.30, "roll damping ratio (the joint's friction)"),
    "pitch_zeta": (0.05, 0.30, "pitch damping ratio"),
    "roll_deg_per_gcm": (0.006, 0.03, "static roll per g*cm of off-centre load (spring)"),
    "pitch_deg_per_gcm": (0.004, 0.02, "static pitch per g*cm of off-centre load"),
    "ship_scale": (0.9, 1.15, "size of this ship relative to the nominal geometry"),
    "joint_above_table_cm": (4.0, 8.0, "height of the ball joint above the table"),
    "mat_f_hz": (6.0, 20.0, "table mat's ringing frequency"),
    "mat_ring_ms": (100.0, 500.0, "time for a landing's ringing to fall to ~5 % (3 tau)"),
    "mat_noise_10sps_g": (0.04, 0.20, "mat white noise at 10 SPS (x2.8 at 80 SPS)"),
    "mat_gain_error": (-0.03, 0.03, "mat calibration gain error"),
    "piezo_threshold_mj": (1.5, 5.0, "impact energy that trips the piezo comparator"),
    "piezo_hold_ms": (20.0, 80.0, "one-shot length of a piezo trip"),
    "piezo_spurious_per_min": (0.0, 0.3, "electrical false trips per minute"),
    "clock_rate_error": (-0.01, 0.01, "HX711 oscillator error (fraction of the rate)"),
    "clock_jitter_ms": (0.0, 0.5, "sd of the time stamp of a sample"),
    "item_scale": (0.97, 1.03, "this set's pieces against the nominal grams"),
    "piece_spread": (0.01, 0.04, "sd of one piece against its item (fraction)"),
}


def _uniform(rng: random.Random, name: str) -> float:
    low, high, _ = RANGES[name]
    return rng.uniform(low, high)


@dataclass
class ShipParams:
    """One trace's physical constants (see RANGES for meaning and range)."""

    rate_sps: int
    table: str
    values: dict[str, float]
    gain: dict[int, float]  # 1 + gain error, per zone
    crosstalk: dict[tuple[int, int], float]  # (source, reader): fraction
    noise_sd_g: dict[int, float]  # per zone at this rate
    drift_slope_g_min: dict[int, float]  # per channel (11 = the mat)
    platform_g: dict[int, float]
    zone_f_hz: dict[int, float]
    zone_zeta: dict[int, float]
    shear: dict[int, float]
    xyh_cm: dict[int, tuple[float, float, float]]
    item_grams: dict[str, float] = field(default_factory=dict)
    # How the ship was calibrated (CALIBRATIONS): per zone, the factor its cell's reading is
    # scaled by on top of its gain error, and what a gram resting on it reads over all zones.
    calibration: str = "cell"
    scale: dict[int, float] = field(default_factory=dict)
    reads: dict[int, float] = field(default_factory=dict)

    def __getattr__(self, name: str) -> float:
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)

    def drop_height_cm(self, zone: int) -> float:
        """Height a piece falls from this zone to the table."""
        return self.joint_above_table_cm + self.xyh_cm[zone][2] + 1.0

    def mat_omega_zeta(self) -> tuple[float, float]:
        omega = 2 * math.pi * self.mat_f_hz
        return omega, min(0.7, 3.0 / (omega * self.mat_ring_ms / 1000.0))

    def calibrated_items(self) -> dict[str, float]:
        """What an average zone reads for a typical piece of each item (items.json)."""
        mean_gain = sum(self.reads.values()) / len(self.reads)
        return {item: round(grams * mean_gain, 2) for item, grams in self.item_grams.items()}


# How the ship's zones were calibrated, each with a known weight on one zone at a time:
# - "cell": each zone's scale from its own cell alone; a neighbour's share (crosstalk) comes
#   on top, and a piece's total reads heavy. A piece weighs what its own zone reads.
# - "wizard": the scales solved so that a weight on any zone reads right in total over all
#   zones, as bosun's calibration wizard does (README, firmware). A piece weighs its total.
# Both keep the zone's gain error (the known weight, the cell's linearity).
CALIBRATIONS = ("wizard", "cell")


def calibrate(params: ShipParams, how: str) -> None:
    """Set params.scale and params.reads for calibration `how` (one of CALIBRATIONS)."""
    if how not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {', '.join(CALIBRATIONS)}, not {how!r}")
    params.calibration = how
    scale = {z: 1.0 for z in ZONES}
    if how == "wizard":
        # s[z] + sum over readers r of s[r] * crosstalk[(z, r)] = 1 for every loaded zone z;
        # shares are small (< 0.5 a column), so the iteration converges fast
        for _ in range(200):
            scale = {
                z: 1.0 - sum(scale[r] * xt for (s, r), xt in params.crosstalk.items() if s == z)
                for z in ZONES
            }
    params.scale = scale
    reads = {}
    for z in ZONES:
        if how == "cell":
            reads[z] = params.gain[z]
        else:
            shares = sum(
                params.gain[r] * scale[r] * xt for (s, r), xt in params.crosstalk.items() if s == z
            )
            reads[z] = params.gain[z] * scale[z] + shares
    params.reads = reads


def draw_params(
    rng: random.Random, rate_sps: int, table: str, calibration: str = "wizard"
) -> ShipParams:
    """Draw every constant of one trace's ship, cells, mat and piezo, calibrated `calibration`
    (one of CALIBRATIONS)."""
    values = {name: _uniform(rng, name) for name in RANGES}
    rate_factor = 1.0 if rate_sps == 10 else math.sqrt(8.0)
    values["mat_noise_g"] = values["mat_noise_10sps_g"] * rate_factor
    gain = {z: 1.0 + _uniform(rng, "gain_error") for z in ZONES}
    crosstalk = {}
    for (a, b), weight in NEIGHBOUR_PAIRS.items():
        crosstalk[(a, b)] = rng.uniform(0.0, values["crosstalk_max"]) * weight
        crosstalk[(b, a)] = rng.uniform(0.0, values["crosstalk_max"]) * weight
    noise = {z: values["noise_sd_10sps_g"] * rate_factor * rng.uniform(0.7, 1.3) for z in ZONES}
    slopes = {c: _uniform(rng, "drift_slope_g_min") for c in (*ZONES, 11)}
    deck = set(DECK_ZONES)
    platform, f_hz, zeta, shear = {}, {}, {}, {}
    for z in ZONES:
        kind = "deck" if z in deck else "yard"
        platform[z] = values[f"platform_{kind}_g"] * rng.uniform(0.8, 1.2)
        f_hz[z] = values[f"{kind}_f_hz"] * rng.uniform(0.85, 1.15)
        zeta[z] = values[f"{kind}_zeta"] * rng.uniform(0.8, 1.2)
        shear[z] = values[f"shear_{kind}"] * rng.uniform(0.7, 1.3)
    scale = values["ship_scale"]
    xyh = {z: (x * scale, y * scale, h * scale) for z, (x, y, h) in ZONE_XYH_CM.items()}
    items = {item: grams * values["item_scale"] for item, grams in ITEM_GRAMS.items()}
    params = ShipParams(
        rate_sps=rate_sps,
        table=table,
        values=values,
        gain=gain,
        crosstalk=crosstalk,
        noise_sd_g=noise,
        drift_slope_g_min=slopes,
        platform_g=platform,
        zone_f_hz=f_hz,
        zone_zeta=zeta,
        shear=shear,
        xyh_cm=xyh,
        item_grams=items,
    )
    calibrate(params, calibration)
    return params
