"""The zoo of ships (bosun.sim.zoo): families draw within their documented ranges, and what a
family adds is off elsewhere, so the corpora drawn before it stay sample for sample the same."""

from __future__ import annotations

import hashlib
import json

import pytest

from bosun.sim import ShipParams, VirtualShip, random_session
from bosun.sim.params import NOISE_RATIO_10_TO_80
from bosun.sim.trace_io import format_sample
from bosun.sim.zoo import FAMILIES, level_named

# Fingerprints of 60 s sessions (CSV rows and truth), taken before the zoo's sensor effects
# existed (commit 258e40e); a default that changed any sample or record changes them.
BEFORE_SENSOR_EFFECTS = {
    ("normal", 1, 80, "both"): "a18979d194079b5f",
    ("hard", 2, 10, "both"): "46682c5dc294e9d3",
    ("rough", 3, 80, "piezo"): "0a9dc81101b9ebad",
    ("mixed", 4, 10, "mat"): "765f6f06358970a2",
}


def fingerprint(level: str, seed: int, rate: int, table: str, seconds: float) -> str:
    """A random session's fingerprint: its CSV rows and truth, hashed (16 hex digits)."""
    lv = level_named(level)
    ship = VirtualShip(ShipParams.draw(lv, seed, rate_sps=rate, table=table), seed)
    digest = hashlib.sha256()
    for sample in random_session(ship, lv, seconds, seed):
        digest.update(format_sample(sample).encode() + b"\n")
    digest.update(json.dumps(ship.truth_json(), sort_keys=True).encode())
    return digest.hexdigest()[:16]


# ... and of the families whose topples and cascades `knocks` builds on, taken before it
# existed (commit 4d9c54a).
BEFORE_KNOCKS = {
    ("topples", 5, 80, "mat"): "e22e7e77ac4d9176",
    ("cascades", 6, 10, "both"): "fd4a762a25678457",
}

# ... and of `knocks` and `mixed`, taken before `jostles` existed (commit 2e9b152).
BEFORE_JOSTLES = {
    ("knocks", 7, 80, "both"): "40732776630bf08b",
    ("mixed", 8, 10, "piezo"): "1bd38e9563ee3725",
}


FINGERPRINTS = BEFORE_SENSOR_EFFECTS | BEFORE_KNOCKS | BEFORE_JOSTLES


@pytest.mark.parametrize("level, seed, rate, table", sorted(FINGERPRINTS))
def test_sessions_of_the_presets_and_earlier_families_are_unchanged(level, seed, rate, table):
    found = fingerprint(level, seed, rate, table, 60.0)
    assert found == FINGERPRINTS[(level, seed, rate, table)]


def test_a_knocks_topple_takes_cargo_along_as_it_goes():
    """A piece that topples off as it is let go takes 1-2 pieces aboard along (the other
    ship's did, 70 times in 271): one fall record, the toppled piece first, leaving at its
    let-go, each other piece leaving topple_knock_gap_ms (30-400) after the last, give or take
    the time its weight takes to go (slide_ms)."""
    knocks = level_named("knocks")
    assert knocks.hands.topple_probability == 0.15 and knocks.hands.topple_knock_share == 0.5
    cascades, topples = 0, 0
    for seed in range(8):
        ship = VirtualShip(ShipParams.draw(knocks, seed, rate_sps=10, table="mat"), seed)
        for _ in random_session(ship, knocks, 180.0, seed):
            pass
        records = ship.truth_json()
        let_go = {r["piece"]: r["t_ms"] for r in records if r["type"] == "place"}
        for fall in (r for r in records if r["type"] == "fall"):
            first, *rest = fall["pieces"]
            if abs(first["start_ms"] - let_go.get(first["piece"], -1e9)) > 50.0:
                continue  # not a topple at release
            topples += 1
            if not rest:
                continue
            cascades += 1
            assert len(rest) <= 2
            leaves = [p["leave_ms"] for p in fall["pieces"]]
            slide = knocks.hands.slide_ms[1]
            for before, after in zip(leaves, leaves[1:], strict=False):
                assert 30.0 - slide <= after - before <= 400.0 + slide
    assert topples >= 8 and 0.2 * topples <= cascades <= 0.8 * topples


def test_a_jostle_sets_a_piece_at_rest_going_while_another_is_loaded():
    """A load jostles the ship (the other ship's falls began around another zone's load 470
    times in 2875): a piece at rest, not the one being loaded, starts to go jostle_ms
    (-300-600) from the let-go, never before the load weighs on, often while the hand still
    presses. `normal`'s own tipping waits 0.8 s or more, its next action 1 s after the ship
    settles, so a fall starting in that window is a jostle."""
    jostles = level_named("jostles")
    assert jostles.hands.jostle_probability == 0.3
    low, high = jostles.hands.jostle_ms
    slide = jostles.hands.slide_ms[1]
    loads_seen, jostled, pressed = 0, 0, 0
    for seed in range(8):
        ship = VirtualShip(ShipParams.draw(jostles, seed, rate_sps=80, table="both"), seed)
        for _ in random_session(ship, jostles, 180.0, seed):
            pass
        records = ship.truth_json()
        loads = [r for r in records if r["type"] == "place"]
        loads_seen += len(loads)
        for fall in (r for r in records if r["type"] == "fall"):
            first = fall["pieces"][0]
            begun = [r for r in loads if r["start_ms"] <= first["start_ms"]]
            load = max(begun, key=lambda r: r["start_ms"], default=None)
            if load is None or first["start_ms"] > load["t_ms"] + high + slide:
                continue  # not around a load
            jostled += 1
            gone = {p["piece"] for p in fall["pieces"]}
            assert load["piece"] not in gone
            for piece in fall["pieces"]:  # each one had been let go before the load began
                let_gos = [r["t_ms"] for r in loads if r["piece"] == piece["piece"]]
                assert max(t for t in let_gos if t <= piece["start_ms"]) <= load["start_ms"]
            assert first["start_ms"] >= max(load["start_ms"] + 50.0, load["t_ms"] + low) - 1e-3
            pressed += first["start_ms"] < load["t_ms"]
    assert 0.1 * loads_seen <= jostled <= 0.3 * loads_seen
    assert pressed >= 5


def test_the_tables_family_draws_mats_far_noisier_than_hard_and_nothing_else_changed():
    tables, normal = FAMILIES["tables"], level_named("normal")
    mats = [ShipParams.draw(tables, seed).sensors.noise_g_rms[10] for seed in range(40)]
    assert all(0.15 <= g <= 0.6 for g in mats) and max(mats) > 0.5  # hard's worst is 0.3
    slow = ShipParams.draw(tables, 3, rate_sps=10).sensors.noise_g_rms[10]
    assert slow == pytest.approx(
        ShipParams.draw(tables, 3).sensors.noise_g_rms[10] * NOISE_RATIO_10_TO_80, abs=1e-3
    )
    assert tables.noise_g_rms == normal.noise_g_rms and tables.hands == normal.hands


def test_the_sensors_family_draws_each_ship_within_its_ranges():
    ships = [ShipParams.draw(FAMILIES["sensors"], seed).sensors for seed in range(40)]
    factors = [c for s in ships for c in s.calibration]
    assert all(0.95 <= c <= 1.05 for c in factors)
    assert min(factors) < 0.96 and max(factors) > 1.04  # up to +-5 %, zone by zone
    assert len({s.calibration for s in ships}) == 40
    gains = [s.piezo_gain for s in ships]
    assert all(0.5 <= g <= 2.0 for g in gains) and min(gains) < 0.7 and max(gains) > 1.4
    assert sum(g < 1.0 for g in gains) == pytest.approx(20, abs=8)  # log-uniform around 1
    for s in ships:
        assert 0.0 <= s.settle_lag_periods <= 4.0
        assert 40.0 <= s.piezo_ring_hz <= 250.0 and 5.0 <= s.piezo_ring_decay_ms <= 60.0
        assert s.piezo_threshold_mj == pytest.approx(1.0 / s.piezo_gain**2)
    hands = FAMILIES["sensors"].hands
    assert hands.mat_ring_fraction == (0.05, 0.4) and hands.bounce_rest_ms == (0.0, 600.0)


def test_a_rings_mat_swings_several_times_a_landed_pieces_weight():
    """`rings`: a piece landing on the mat rocks it on with 3-20 times its weight (less from
    the lower zones, which it falls from slower) at 8-18 Hz; the other ship's mat swung a
    7.8 g crate's landing 50-120 g each way, `sensors`' at most 0.4 times the weight."""
    rings = level_named("rings")
    hands = rings.hands
    assert hands.mat_ring_fraction == (3.0, 20.0) and hands.mat_ring_hz == (8.0, 18.0)
    assert hands.topple_probability == 0.15
    swings = []
    for seed in range(3):
        ship = VirtualShip(ShipParams.draw(rings, seed, rate_sps=80, table="mat"), seed)
        mat = [(s.t_ms, s.table_g) for s in random_session(ship, rings, 120.0, seed)]
        for fall in (r for r in ship.truth_json() if r["type"] == "fall"):
            for piece in fall["pieces"]:
                if piece["outcome"] == "landed":
                    after = [g for t, g in mat if 20 <= t - piece["land_ms"] <= 200]
                    swings.append((max(after) - min(after)) / 2 / piece["grams"])
    swings.sort()
    assert len(swings) >= 15
    assert swings[len(swings) // 2] >= 3.0 and swings[-1] >= 8.0 and swings[0] >= 1.0
