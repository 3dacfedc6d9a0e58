"""The virtual ship's sensors: HX711 noise, glitches, drift, creep, crosstalk, settling, rates."""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import replace

import pytest

from bosun.sim import ShipParams, VirtualShip
from bosun.sim.params import HandParams, SensorParams

STEP_HANDS = HandParams(set_ms=(0.5, 0.5))  # a piece's weight comes on at once: a clean step


def ship_with(rate: int = 80, table: str = "both", seed: int = 0, **sensor_fields) -> VirtualShip:
    params = ShipParams.quiet(rate_sps=rate, table=table)
    params = replace(params, sensors=replace(params.sensors, **sensor_fields), hands=STEP_HANDS)
    return VirtualShip(params, seed)


def run_for(ship: VirtualShip, ms: float) -> list:
    until = ship.now_ms + ms
    samples = [ship.next_sample()]
    while samples[-1].t_ms < until:
        samples.append(ship.next_sample())
    return samples


def column(samples: list, zone: int) -> list[float]:
    return [s.zones_g[zone - 1] for s in samples]


def test_noise_rms_matches_each_channels_parameter():
    noise = (0.02, 0.3) + (0.0,) * 8 + (0.15,)
    samples = run_for(ship_with(noise_g_rms=noise), 40_000)
    assert statistics.pstdev(column(samples, 1)) == pytest.approx(0.02, rel=0.06)
    assert statistics.pstdev(column(samples, 2)) == pytest.approx(0.3, rel=0.06)
    assert statistics.fmean(column(samples, 2)) == pytest.approx(0.0, abs=0.02)
    assert set(column(samples, 3)) == {0.0}
    assert statistics.pstdev(s.table_g for s in samples) == pytest.approx(0.15, rel=0.06)


def test_levels_draw_noise_in_range_and_quieter_at_10_sps_per_the_datasheet():
    fast = ShipParams.draw("hard", seed=4, rate_sps=80).sensors.noise_g_rms
    slow = ShipParams.draw("hard", seed=4, rate_sps=10).sensors.noise_g_rms
    assert all(0.1 <= n <= 0.3 for n in fast[:10])
    for n80, n10 in zip(fast, slow, strict=True):
        assert n10 == pytest.approx(n80 * 50 / 90, abs=1e-4)  # 50 nV vs 90 nV rms
    normal = ShipParams.draw("normal", seed=4).sensors.noise_g_rms
    assert all(0.02 <= n <= 0.1 for n in normal[:10])


def test_glitches_are_single_samples_of_tens_of_grams():
    ship = ship_with(glitch_per_min=300.0, glitch_g=(10.0, 60.0))  # ~1 in 16 samples
    samples = run_for(ship, 60_000)
    readings = [v for s in samples for v in (*s.zones_g, s.table_g)]
    outliers = [v for v in readings if v != 0.0]
    # every glitch shows in exactly one reading: one channel, one sample, nothing after
    assert 200 <= len(outliers) == ship.glitch_count <= 400
    assert all(10.0 <= abs(v) <= 60.0 for v in outliers)
    assert any(v < 0 for v in outliers) and any(v > 0 for v in outliers)


def test_without_a_mat_glitches_stay_on_the_zones():
    ship = ship_with(table="piezo", glitch_per_min=600.0)
    samples = run_for(ship, 10_000)
    assert all(s.table_g is None for s in samples)
    assert ship.glitch_count > 20


def test_drift_runs_at_tenths_of_a_gram_a_minute_and_stays_bounded():
    drift = (0.3, -0.2) + (0.0,) * 9
    ship = ship_with(drift_g_per_min=drift, drift_period_min=40.0, rate=10)
    samples = run_for(ship, 120_000)
    at_one_minute = next(s for s in samples if s.t_ms == 60_000.0)
    assert at_one_minute.zones_g[0] == pytest.approx(0.3, rel=0.01)
    assert at_one_minute.zones_g[1] == pytest.approx(-0.2, rel=0.01)
    assert samples[-1].zones_g[0] == pytest.approx(0.6, rel=0.02)
    assert samples[-1].zones_g[2] == 0.0
    bound_g = 0.3 * 40 / (2 * math.pi)  # the sine's amplitude: under 2 g after six hours too
    ship._next_index = 6 * 3600 * 10  # jump to six hours in (computing them takes seconds)
    later = [ship.next_sample().zones_g[0] for _ in range(3000)]
    assert max(abs(g) for g in later) <= bound_g + 1e-9


def test_levels_draw_drift_of_tenths_of_a_gram_a_minute():
    for level, limit in (("normal", 0.15), ("hard", 0.5)):
        drift = ShipParams.draw(level, seed=1).sensors.drift_g_per_min
        assert all(abs(d) <= limit for d in drift)
        assert max(abs(d) for d in drift) >= limit / 4


def test_creep_rises_a_fraction_of_a_percent_under_load_and_recovers_when_unloaded():
    params = ShipParams.quiet()
    params = replace(
        params,
        item_grams={"anvil": 200.0},
        pieces_per_item=1,
        hands=STEP_HANDS,
        sensors=SensorParams(creep_fraction=0.005, creep_tau_s=10.0),
    )
    ship = VirtualShip(params)
    placed = ship.place(3, "anvil")
    first = run_for(ship, 1_000)[-1].zones_g[2]
    loaded = run_for(ship, 60_000)[-1].zones_g[2]
    assert first == pytest.approx(200.0 * (1 + 0.005 * (1 - math.exp(-1.0 / 10))), rel=1e-3)
    assert loaded == pytest.approx(201.0, abs=0.01)  # 0.5 % of 200 g after 6 time constants
    ship.fall(ship.piece(placed.piece), "caught")
    just_after = run_for(ship, 1_000)[-1].zones_g[2]
    assert 0.8 < just_after < 1.0  # the crept part recovers slowly, like a real cell
    assert abs(run_for(ship, 60_000)[-1].zones_g[2]) < 0.01


def test_crosstalk_shows_a_few_percent_on_neighbours_and_keeps_the_total():
    ship = ship_with(crosstalk=((1, 2, 0.03), (1, 3, 0.02), (5, 7, 0.04)))
    placed = ship.place(1, "boat", press_g=0.0)
    end = run_for(ship, 1_000)[-1]
    grams = placed.grams
    assert end.zones_g[0] == pytest.approx(grams * 0.95)
    assert end.zones_g[1] == pytest.approx(grams * 0.03)
    assert end.zones_g[2] == pytest.approx(grams * 0.02)
    assert end.zones_g[3] == 0.0  # not a neighbour of 1
    assert sum(end.zones_g) == pytest.approx(grams)


def test_levels_draw_crosstalk_of_a_few_percent_between_neighbours():
    crosstalk = ShipParams.draw("normal", seed=2).sensors.crosstalk
    assert {(a, b) for a, b, _ in crosstalk} >= {(1, 2), (5, 6), (7, 9)}
    assert all(0.01 <= f <= 0.03 for _, _, f in crosstalk)


@pytest.mark.parametrize("rate, settle_ms", [(80, 50.0), (10, 400.0)])
def test_a_step_settles_in_four_periods_as_the_hx711_datasheet_says(rate, settle_ms):
    ship = ship_with(rate=rate)
    run_for(ship, 1_000)
    placed = ship.place(4, "crate", press_g=0.0)
    samples = run_for(ship, 2_000)
    grams = placed.grams
    started = next(s.t_ms for s in samples if s.zones_g[3] > 0.0)
    settled = next(s.t_ms for s in samples if s.zones_g[3] == pytest.approx(grams))
    assert settled - started <= settle_ms
    assert settled - started >= settle_ms / 2  # not instantaneous: the filter takes time
    assert samples[-1].zones_g[3] == pytest.approx(grams)


@pytest.mark.parametrize("rate, period_ms", [(80, 12.5), (10, 100.0)])
def test_samples_come_at_the_chosen_rate(rate, period_ms):
    samples = run_for(ship_with(rate=rate), 5_000)
    times = [s.t_ms for s in samples]
    assert times[0] == 0.0
    assert all(b - a == period_ms for a, b in zip(times, times[1:], strict=False))


@pytest.mark.parametrize(
    "table, has_mat, has_piezo",
    [("mat", True, False), ("piezo", False, True), ("both", True, True), ("none", False, False)],
)
def test_table_kinds_fit_the_mat_and_or_piezo(table, has_mat, has_piezo):
    ship = ship_with(table=table)
    ship.knock()
    samples = run_for(ship, 500)
    assert all((s.table_g is not None) == has_mat for s in samples)
    assert all((s.impact is not None) == has_piezo for s in samples)
    if has_piezo:
        assert sum(s.impact for s in samples) == 1
    if has_mat:
        assert max(abs(s.table_g) for s in samples) > 0.5  # the knock's ripple


@pytest.mark.parametrize(
    "make, complaint",
    [
        (lambda: ShipParams(rate_sps=0), "rate_sps must be 1-1000"),
        (lambda: ShipParams(table="carpet"), "table must be one of mat, piezo, both, none"),
        (lambda: SensorParams(noise_g_rms=(-0.1,) * 11), "noise_g_rms cannot be negative"),
        (lambda: SensorParams(noise_g_rms=(0.1,) * 10), "noise_g_rms needs 11 finite numbers"),
        (lambda: ShipParams(item_grams={"rat": 0.0}), "item 'rat' must weigh 0-1000 g"),
        (lambda: ShipParams.draw("easy"), "level must be one of normal, hard, not 'easy'"),
    ],
)
def test_impossible_parameters_are_refused_by_name(make, complaint):
    with pytest.raises(ValueError, match=re.escape(complaint)):
        make()


def test_a_zone_calibrated_5_percent_high_reads_every_weight_5_percent_heavy():
    ship = ship_with(calibration=(1.05, 1.0) + (1.0,) * 7 + (0.96, 0.97))
    crate = ship.place(1, "crate", press_g=0.0)
    boat = ship.place(2, "boat", press_g=0.0)
    ship.place(10, "chest", press_g=0.0)
    end = run_for(ship, 1_000)[-1]
    assert end.zones_g[0] == pytest.approx(1.05 * crate.grams)  # 20 g would read 21 g
    assert end.zones_g[1] == pytest.approx(boat.grams)
    chest = ship.find(10)
    assert end.zones_g[9] == pytest.approx(0.96 * chest.grams)
    ship.fall(chest, "landed")
    assert run_for(ship, 1_000)[-1].table_g == pytest.approx(0.97 * chest.grams)  # the mat's


@pytest.mark.parametrize("rate", [80, 10])
def test_a_settling_lag_brings_a_step_within_1_percent_only_after_its_periods(rate):
    period_ms = 1000.0 / rate
    ship = ship_with(rate=rate, settle_lag_periods=4.0)
    run_for(ship, 1_000)
    placed = ship.place(4, "crate", press_g=0.0)
    samples = run_for(ship, 3_000)
    grams = placed.grams
    started = next(s.t_ms for s in samples if s.zones_g[3] > 0.0)
    within = [abs(s.zones_g[3] - grams) < 0.01 * grams for s in samples]
    settled = samples[within.index(True)].t_ms
    assert all(within[within.index(True) :])  # a lag does not overshoot
    # the lag alone needs its four periods; the HX711's own filter adds up to three more
    assert 4 * period_ms <= settled - started <= 7 * period_ms
    halfway = next(s for s in samples if s.t_ms == started + 2 * period_ms)
    assert grams - halfway.zones_g[3] > 0.05 * grams  # still well short, half way
    assert samples[-1].zones_g[3] == pytest.approx(grams)


def test_the_zoo_sensor_effects_are_off_in_normal_and_hard_ships():
    for level in ("normal", "hard"):
        sensors = ShipParams.draw(level, seed=8).sensors
        assert set(sensors.calibration) == {1.0} and sensors.settle_lag_periods == 0.0
        assert sensors.piezo_gain == 1.0 and sensors.piezo_ring_decay_ms == 0.0
        assert sensors.piezo_threshold_mj == sensors.piezo_min_mj
