"""The zoo's `wear` family (bosun.sim.zoo): pieces hopping on the mat, calibration that changes
during a session (zero steps, gain drift), the HX711s' unsettled readings after power-up and a
saturating piezo. Each shows in the signal of a `wear` ship and not in the same ship with that
one effect switched off; the truth is the same either way; no other family or preset has any
of them, and their sessions are sample for sample what they were before the family existed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_sim_zoo import fingerprint

from bosun.sim import ShipParams, VirtualShip, scripted_session
from bosun.sim.params import LEVELS, HandParams, SensorParams
from bosun.sim.zoo import FAMILIES, level_named

WEAR = FAMILIES["wear"]

# Fingerprints of 30 s sessions (CSV rows and truth) of every preset and older family, taken
# on commit 89749c7, before the `wear` family existed; a default that changed any sample, any
# random draw or any truth record of theirs changes them.
BEFORE_WEAR = {
    ("normal", 11, 80, "both"): "c8110fd86aaf2e9f",
    ("hard", 12, 10, "both"): "fb6eeee5d16e9d0d",
    ("slides", 13, 80, "mat"): "520488a937c5725e",
    ("topples", 14, 10, "piezo"): "ff765be0424beeaa",
    ("cascades", 15, 80, "both"): "49abf4189abba822",
    ("sway", 16, 10, "mat"): "d9ff0ff40d9ed873",
    ("rough", 17, 80, "piezo"): "4f776e53ba3ec491",
    ("mixed", 18, 10, "both"): "bfd82321b0a4794e",
    ("sensors", 19, 80, "both"): "6faba131e84ed406",
}


@pytest.mark.parametrize("level, seed, rate, table", sorted(BEFORE_WEAR))
def test_sessions_of_the_presets_and_other_families_are_unchanged(level, seed, rate, table):
    assert fingerprint(level, seed, rate, table, 30.0) == BEFORE_WEAR[(level, seed, rate, table)]


@pytest.mark.parametrize("name", sorted({*LEVELS, *FAMILIES} - {"wear"}))
def test_no_other_family_or_preset_has_any_wear(name):
    ship = ShipParams.draw(level_named(name), 5)
    default = SensorParams()
    for field in ("power_up_settle_ms", "zero_step_per_min", "gain_drift"):
        assert getattr(ship.sensors, field) == getattr(default, field)
    assert ship.sensors.piezo_saturate_strength == 0.0
    assert ship.hands.hop_count == HandParams().hop_count == (0, 0)


def test_the_wear_family_draws_each_ship_within_its_ranges():
    ships = [ShipParams.draw(WEAR, seed).sensors for seed in range(40)]
    errors = [abs(e) for s in ships for e in s.power_up_error_g]
    assert all(20.0 <= e <= 500.0 for e in errors)
    settles = [s.power_up_settle_ms for s in ships]
    assert all(0.0 <= ms <= 400.0 for ms in settles) and max(settles) > 300.0
    drifts = [d for s in ships for d in s.gain_drift]
    assert all(abs(d) <= 0.03 for d in drifts) and min(drifts) < -0.025 and max(drifts) > 0.025
    strengths = [s.piezo_saturate_strength for s in ships]
    assert all(2.5 <= x <= 5.0 for x in strengths)
    for s in ships:
        assert s.zero_step_per_min == 2.0 and s.zero_step_g == (0.2, 1.0)
        assert s.piezo_latch_ms == (50.0, 300.0) and s.gain_drift_s == 180.0
    assert WEAR.hands.hop_count == (0, 3) and WEAR.hands.hop_air_ms == (20.0, 120.0)
    # based on `normal`: everything else is normal's
    assert WEAR.noise_g_rms == LEVELS["normal"].noise_g_rms
    assert replace(WEAR.hands, hop_count=(0, 0)) == LEVELS["normal"].hands


def _wear_ship(seed: int, rate: int = 80, table: str = "both", **off) -> ShipParams:
    """A `wear` ship, with the named sensor fields (or `hop_count`) set as given."""
    params = ShipParams.draw(WEAR, seed, rate_sps=rate, table=table)
    hops = off.pop("hop_count", None)
    if hops is not None:
        params = replace(params, hands=replace(params.hands, hop_count=hops))
    return replace(params, sensors=replace(params.sensors, **off))


def _run(params: ShipParams, seed: int, script: list[dict], seconds: float, preload=()):
    ship = VirtualShip(params, seed)
    for zone, item in preload:
        ship.preload(zone, item)
    return ship, list(scripted_session(ship, script, seconds))


def test_a_landed_piece_hops_on_the_mat_and_rests_with_its_whole_weight():
    script = [
        {"at_ms": 1000, "action": "place", "zone": 10, "item": "boat", "press_g": 0},
        {"at_ms": 3000, "action": "fall", "pieces": [[10, "boat"]], "outcomes": "landed"},
    ]
    hopped = [0, 0]
    for seed in range(12):
        worn = _wear_ship(seed, power_up_settle_ms=0.0, zero_step_per_min=0.0)
        ship, samples = _run(worn, seed, script, 6.0)
        calm, calm_samples = _run(
            replace(worn, hands=replace(worn.hands, hop_count=(0, 0))), seed, script, 6.0
        )
        (fall,) = [r for r in ship.truth_json() if r["type"] == "fall"]
        assert [r for r in ship.truth_json() if r["type"] != "fall"] == [
            r for r in calm.truth_json() if r["type"] != "fall"
        ]
        piece = fall["pieces"][0]
        hops = piece.get("hops", [])
        assert 0 <= len(hops) <= 3
        assert all(20.0 <= on - off <= 120.0 + 0.01 for off, on in hops)
        boat = ship.piece(piece["piece"])
        assert boat.where == "mat" and boat.grams == piece["grams"]
        # rests from the last landing, with its whole weight (as without hops)
        assert boat.ready_us / 1000 == pytest.approx(hops[-1][1] if hops else piece["land_ms"])
        assert samples[-1].table_g == pytest.approx(piece["grams"], abs=0.6)
        if not hops:
            continue
        hopped[0] += 1
        # the mat's reading gives back much of the weight in the air, where the calm ship's
        # (the same ship, the same landing, no hops) stays on
        air = [
            a.table_g - b.table_g
            for a, b in zip(samples, calm_samples, strict=True)
            if hops[0][0] + 10 <= a.t_ms <= hops[0][1] + 25
        ]
        assert min(air) < -0.3 * piece["grams"]
        hopped[1] += min(air) < -0.6 * piece["grams"]
    assert hopped[0] >= 6 and hopped[1] >= 2  # most hop, and long hops show most of it


def test_hops_strike_the_table_again():
    # a boat off the top yard lands hard; one of its hops off a sensitive piezo trips it again
    script = [
        {"at_ms": 1000, "action": "place", "zone": 10, "item": "boat", "press_g": 0},
        {"at_ms": 3000, "action": "fall", "pieces": [[10, "boat"]], "outcomes": "landed"},
    ]
    for seed in range(40):
        worn = _wear_ship(seed, piezo_saturate_strength=0.0, piezo_gain=2.0)
        ship, samples = _run(worn, seed, script, 6.0)
        hops = ship.truth_json()[-1]["pieces"][0].get("hops", [])
        if hops and hops[0][1] - hops[0][0] > 90:  # 15 mm up: 1.7 mJ, over 0.25 mJ
            break
    else:
        pytest.fail("no seed gave a long hop")
    struck = [s.t_ms for s in samples if s.impact]
    assert any(hops[0][1] <= t <= hops[0][1] + 12.5 for t in struck)
    calm, calm_samples = _run(
        replace(worn, hands=replace(worn.hands, hop_count=(0, 0))), seed, script, 6.0
    )
    assert len(struck) > len([s for s in calm_samples if s.impact])


def test_a_zones_zero_steps_now_and_then_and_the_truth_does_not_know():
    seed = 7
    worn = _wear_ship(seed, power_up_settle_ms=0.0)
    steady = _wear_ship(seed, power_up_settle_ms=0.0, zero_step_per_min=0.0)
    script = [{"at_ms": 1000, "action": "place", "zone": 3, "item": "rat"}]
    ship, samples = _run(worn, seed, script, 120.0)
    steady_ship, steady_samples = _run(steady, seed, script, 120.0)
    assert ship.truth_json() == steady_ship.truth_json()  # a zero step is not a place
    steps = ship._bank.wear.zero_steps
    assert 2 <= len(steps) <= 9  # 2 a minute
    assert all(0.2 <= abs(g) <= 1.0 and 1 <= zone <= 10 for _, zone, g in steps)
    # only the steps differ: each zone's reading moves by the sum of its steps so far
    for sample, other in zip(samples[::40], steady_samples[::40], strict=True):
        t_us = sample.t_ms * 1000 - 100_000  # the HX711 has settled 100 ms after a step
        for zone in range(1, 11):
            moved = sum(g for at, z, g in steps if z == zone and at <= t_us)
            if any(z == zone and t_us < at <= t_us + 100_000 for at, z, _ in steps):
                continue
            assert sample.zones_g[zone - 1] - other.zones_g[zone - 1] == pytest.approx(
                moved, abs=0.05
            )
    assert [r["type"] for r in ship.truth_json()] == ["place"]


def test_a_channels_gain_drifts_over_the_session():
    seed = 3
    still = (0.0,) * 11  # no noise or thermal drift, so the cells' own reading is seen
    worn = _wear_ship(
        seed,
        power_up_settle_ms=0.0,
        zero_step_per_min=0.0,
        noise_g_rms=still,
        drift_g_per_min=still,
    )
    steady = replace(worn, sensors=replace(worn.sensors, gain_drift=(0.0,) * 11))
    preload = [(zone, "boat") for zone in (1, 2, 3, 4)]
    ship, samples = _run(worn, seed, [], 200.0, preload)
    _, steady_samples = _run(steady, seed, [], 200.0, preload)
    boat = ship.aboard(1)[0].grams
    assert samples[-1].t_ms > worn.sensors.gain_drift_s * 1000
    drift = worn.sensors.gain_drift
    assert max(abs(d) for d in drift[:4]) > 0.01
    for zone in (1, 2, 3, 4):
        start = samples[10].zones_g[zone - 1] - steady_samples[10].zones_g[zone - 1]
        end = samples[-1].zones_g[zone - 1] - steady_samples[-1].zones_g[zone - 1]
        assert start == pytest.approx(0.0, abs=0.01)
        # the whole drift by gain_drift_s, on everything the cell feels
        felt = steady_samples[-1].zones_g[zone - 1]  # a boat, its creep, its neighbours' leak
        assert felt == pytest.approx(boat, rel=0.1)
        assert end == pytest.approx(drift[zone - 1] * felt, rel=1e-6)


@pytest.mark.parametrize("rate, most", [(80, 32), (10, 4)])
def test_the_first_readings_after_power_up_are_far_off_and_settle_in(rate, most):
    for seed in range(30):
        worn = _wear_ship(seed, rate=rate, zero_step_per_min=0.0)
        settled = replace(worn, sensors=replace(worn.sensors, power_up_settle_ms=0.0))
        _, samples = _run(worn, seed, [], 3.0)
        _, settled_samples = _run(settled, seed, [], 3.0)
        off = [
            max(
                abs(a - b)
                for a, b in zip(s.zones_g + (s.table_g,), t.zones_g + (t.table_g,), strict=True)
            )
            for s, t in zip(samples, settled_samples, strict=True)
        ]
        unsettled = [s.t_ms for s, o in zip(samples, off, strict=True) if o > 0.01]
        assert off[0] >= 20.0  # far off at first
        assert all(t < worn.sensors.power_up_settle_ms for t in unsettled)
        assert len(unsettled) <= most
        assert off[: len(unsettled)] == sorted(off[: len(unsettled)], reverse=True)  # settling


def test_a_hard_strike_saturates_the_piezo_and_a_strike_meanwhile_is_not_heard_apart():
    # a boat off the top yard strikes 6.3 times the threshold, a knock 3 times: over 4 the
    # strike latches the comparator, the knock does not, and it comes 40 ms after the landing
    script = [
        {"at_ms": 1000, "action": "place", "zone": 10, "item": "boat", "press_g": 0},
        {"at_ms": 3000, "action": "fall", "pieces": [[10, "boat"]], "outcomes": "landed"},
    ]
    for seed in range(6):
        worn = _wear_ship(seed, hop_count=(0, 0), piezo_saturate_strength=4.0)
        ship, _ = _run(worn, seed, script, 6.0)
        land = ship.truth_json()[-1]["pieces"][0]["land_ms"]
        knocked = [*script, {"at_ms": land + 40.0, "action": "knock"}]
        ship, samples = _run(worn, seed, knocked, 6.0)
        ((start_us, until_us),) = ship._piezo.latched
        assert start_us / 1000 == land and 50.0 <= (until_us - start_us) / 1000 <= 300.0
        high = [s.t_ms for s in samples if s.impact]
        # one run of samples from the landing on, as long as the latch: the knock in it
        assert 0.0 <= high[0] - land < 12.5
        assert high == [high[0] + 12.5 * k for k in range(len(high))]
        assert until_us / 1000 <= high[-1] < until_us / 1000 + 12.5
        unsaturated = replace(worn, sensors=replace(worn.sensors, piezo_saturate_strength=0.0))
        _, plain = _run(unsaturated, seed, knocked, 6.0)
        heard = [s.t_ms for s in plain if s.impact]
        assert len(heard) == 2 and heard[0] == high[0] and heard[1] - heard[0] > 12.5
