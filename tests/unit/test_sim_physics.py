"""The virtual ship's physics: hands, ringing, sway, falls, shifts, catches, bounces, knocks."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from bosun.sim import ShipParams, VirtualShip
from bosun.sim.params import HandParams, SensorParams, SwayParams
from shipsense.geometry import ZONE_HEIGHT_M, drop_ms

GENTLE = HandParams(set_ms=(0.5, 0.5))  # no press, no ringing, no impact spikes


def make_ship(
    hands: HandParams = GENTLE,
    sway: SwayParams | None = None,
    rate: int = 80,
    sensors: SensorParams | None = None,
) -> VirtualShip:
    params = replace(ShipParams.quiet(rate_sps=rate), hands=hands)
    if sway is not None:
        params = replace(params, sway=sway)
    if sensors is not None:
        params = replace(params, sensors=sensors)
    return VirtualShip(params, seed=11)


def run_until(ship: VirtualShip, t_ms: float) -> list:
    samples = []
    while ship.now_ms < t_ms or not samples:
        samples.append(ship.next_sample())
    return samples


def test_a_placed_piece_rests_from_when_the_hand_leaves_with_its_true_weight():
    ship = make_ship()
    placed = ship.place(7, "barrel", at_ms=100.0)
    samples = run_until(ship, placed.t_ms + 500)
    assert placed.start_ms == 100.0 and placed.t_ms > placed.start_ms
    assert samples[-1].zones_g[6] == pytest.approx(placed.grams)
    assert ship.aboard(7)[0].id == placed.piece == "barrel#1"


def test_the_loading_hand_presses_before_letting_go():
    ship = make_ship()
    placed = ship.place(5, "rat", press_g=30.0, press_ms=800.0)
    assert placed.t_ms - placed.start_ms >= 800.0  # up to a second of pressing
    samples = run_until(ship, placed.t_ms + 300)
    pressing = [s.zones_g[4] for s in samples if s.t_ms < placed.t_ms]
    assert max(pressing) == pytest.approx(placed.grams + 30.0, rel=0.06)  # with tremor
    assert samples[-1].zones_g[4] == pytest.approx(placed.grams)
    record = placed.to_json()
    assert record["press_g"] == 30.0 and record["type"] == "place"


def test_the_released_piece_rings_then_rests():
    hands = replace(GENTLE, ring_fraction=(0.4, 0.4), ring_hz=(10.0, 10.0))
    ship = make_ship(hands)
    placed = ship.place(2, "boat", press_g=0.0)
    samples = run_until(ship, placed.done_ms + 100)
    after = [s.zones_g[1] - placed.grams for s in samples if s.t_ms > placed.t_ms + 20]
    assert max(after) > 0.5 and min(after) < -0.5  # it swings both ways about its weight
    assert abs(after[-1]) < 0.02


def test_sway_moves_load_between_zones_at_half_to_two_hertz_while_the_total_stays():
    sway = SwayParams(hz=(1.2, 0.8), decay_s=2.0, g_per_g=0.3, max_g=3.0, vertical_fraction=0.02)
    ship = make_ship(sway=sway)
    placed = ship.place(9, "chest", press_g=10.0)
    samples = run_until(ship, placed.t_ms + 8000)
    settled = [s for s in samples if s.t_ms > placed.t_ms + 100]
    port = [s.zones_g[4] for s in settled]  # zone 5 holds nothing: all it shows is sway
    assert 0.5 < max(port) <= 3.0 and min(port) < -0.5  # up to a few grams per zone
    totals = [sum(s.zones_g) for s in settled]
    assert max(abs(t - placed.grams) for t in totals) < 0.1 * max(abs(p) for p in port)
    crossings = [
        a.t_ms
        for a, b in zip(settled, settled[1:], strict=False)
        if a.zones_g[4] < 0 <= b.zones_g[4]
    ]
    period_ms = (crossings[-1] - crossings[0]) / (len(crossings) - 1)
    assert period_ms == pytest.approx(1000 / 1.2, rel=0.05)  # roll mode: zone 5 has no pitch
    first, last = settled[: len(settled) // 4], settled[-len(settled) // 4 :]
    assert max(abs(s.zones_g[4]) for s in last) < 0.25 * max(abs(s.zones_g[4]) for s in first)


def test_a_piece_from_the_top_yard_needs_about_250_ms_to_reach_the_table_or_the_deck():
    ship = make_ship()
    ship.preload(9, "rat")
    ship.preload(10, "bottle")
    fall = ship.fall(ship.find(9), "landed")
    flight = fall.pieces[0].land_us - fall.pieces[0].leave_us
    assert 263_000 <= flight <= 263_000 * 1.08 + 1000
    shift = ship.shift(ship.find(10), to_zone=2)
    assert 239_000 <= shift.land_us - shift.t_us <= 239_000 * 1.08 + 1000
    assert drop_ms(ZONE_HEIGHT_M[9]) == pytest.approx(263.3, abs=0.5)


def test_a_shift_moves_the_weight_to_a_lower_zone_and_keeps_it_aboard():
    hands = replace(GENTLE, impact_factor=(4.0, 4.0))
    ship = make_ship(hands)
    rat = ship.preload(9, "rat")
    shift = ship.shift(rat, to_zone=3)
    samples = run_until(ship, shift.done_ms + 200)
    assert samples[0].zones_g[8] == pytest.approx(rat.grams)
    assert samples[-1].zones_g[8] == pytest.approx(0.0, abs=1e-9)
    assert samples[-1].zones_g[2] == pytest.approx(rat.grams)
    landing = [s.zones_g[2] for s in samples if shift.land_ms <= s.t_ms <= shift.land_ms + 60]
    assert max(landing) > 1.5 * rat.grams  # the landing spike on the deck
    in_flight = [sum(s.zones_g) for s in samples if shift.t_ms + 40 < s.t_ms < shift.land_ms]
    assert in_flight and max(in_flight) < 0.05  # while it drops it weighs on nothing
    assert all(s.table_g == 0.0 for s in samples)  # it never reached the table
    assert ship.aboard(3) == [rat] and shift.to_json()["from"] == 9


def test_a_shift_only_goes_down_from_a_yard():
    ship = make_ship()
    ship.preload(1, "rat")
    ship.preload(7, "boat")
    with pytest.raises(ValueError, match="only pieces on a yard"):
        ship.shift(ship.find(1))
    with pytest.raises(ValueError, match="can drop onto 5, 1, 3, not 9"):
        ship.shift(ship.find(7), to_zone=9)


def test_rr12_a_caught_piece_never_reaches_the_mat():
    hands = replace(GENTLE, impact_factor=(5.0, 5.0))
    ship = make_ship(hands)
    chest = ship.preload(8, "chest")
    fall = ship.fall(chest, "caught")
    samples = run_until(ship, fall.t_ms + 2000)
    assert all(s.table_g == 0.0 for s in samples)
    assert not any(s.impact for s in samples)
    assert samples[-1].zones_g[7] == pytest.approx(0.0, abs=1e-9)
    piece = fall.to_json()["pieces"][0]
    assert piece["outcome"] == "caught" and piece["land_ms"] is None
    assert chest.where == "supply"


def test_a_landed_piece_hits_the_mat_fires_the_piezo_and_stays():
    hands = replace(GENTLE, impact_factor=(5.0, 5.0))
    ship = make_ship(hands)
    boat = ship.preload(10, "boat")
    fall = ship.fall(boat, "landed")
    samples = run_until(ship, fall.done_ms + 300)
    land_ms = fall.pieces[0].land_us / 1000
    fired = [s.t_ms for s in samples if s.impact]
    assert len(fired) == 1 and land_ms <= fired[0] < land_ms + 12.5
    assert max(s.table_g for s in samples) > 1.5 * boat.grams  # the impact spike
    assert samples[-1].table_g == pytest.approx(boat.grams)
    assert boat.where == "mat"


def test_a_bounce_shows_on_the_mat_and_leaves():
    hands = replace(GENTLE, impact_factor=(3.0, 3.0), bounce_rest_ms=(150.0, 150.0))
    ship = make_ship(hands)
    crate = ship.preload(6, "crate")
    fall = ship.fall(crate, "bounced")
    samples = run_until(ship, fall.done_ms + 300)
    piece = fall.to_json()["pieces"][0]
    on_mat = [s.table_g for s in samples if piece["land_ms"] + 60 < s.t_ms < piece["off_mat_ms"]]
    assert on_mat and min(on_mat) > 0.5 * crate.grams
    assert sum(s.impact for s in samples) == 1
    assert samples[-1].table_g == pytest.approx(0.0, abs=1e-9)
    assert crate.where == "supply"


def test_pieces_fall_together_or_one_after_another():
    ship = make_ship()
    for zone, item in ((5, "rat"), (7, "plank"), (9, "chest")):
        ship.preload(zone, item)
    together = ship.fall([ship.find(5), ship.find(7)], ["landed", "landed"], gaps_ms=[10.0])
    leaves = [p.leave_us for p in together.pieces]
    assert leaves[1] - leaves[0] == 10_000
    later = ship.fall(ship.find(9), "landed", at_ms=2000.0)
    samples = run_until(ship, later.done_ms + 200)
    assert samples[-1].table_g == pytest.approx(sum(p.grams for p in ship.on_mat()))
    assert sum(samples[-1].zones_g) == pytest.approx(0.0, abs=1e-9)
    record = together.to_json()
    assert record["zones"] == [5, 7] and record["items"] == ["rat", "plank"]
    assert record["t_ms"] == record["pieces"][0]["leave_ms"]
    assert record["grams"] == pytest.approx(sum(p["grams"] for p in record["pieces"]), abs=1e-3)


def test_a_knock_on_the_table_fires_the_piezo_ripples_the_mat_and_moves_no_weight():
    sway = SwayParams(g_per_g=0.2)
    ship = make_ship(sway=sway)
    barrel = ship.preload(2, "barrel")
    knock = ship.knock(at_ms=500.0, ripple_g=6.0)
    samples = run_until(ship, 4000)
    assert sum(s.impact for s in samples) == 1
    mat = [s.table_g for s in samples]
    assert max(mat) > 2.0 and min(mat) < -1.0 and abs(mat[-1]) < 1e-6
    assert all(sum(s.zones_g) == pytest.approx(barrel.grams, abs=0.2) for s in samples)
    moved = [abs(s.zones_g[0]) for s in samples if s.t_ms > knock.t_ms]
    assert max(moved) > 0.05  # the ship shudders
    assert samples[-1].zones_g[1] == pytest.approx(barrel.grams, abs=0.05)


def test_a_hand_brushing_the_ship_is_a_transient_and_nothing_changes():
    ship = make_ship()
    ship.preload(3, "sailor")
    before = run_until(ship, 200)[-1]
    touch = ship.touch(zones=[3, 4], peak_g=25.0, duration_ms=250.0)
    samples = run_until(ship, touch.done_ms + 300)
    assert max(s.zones_g[2] for s in samples) > before.zones_g[2] + 20.0
    assert max(s.zones_g[3] for s in samples) > 5.0
    assert samples[-1].zones_g == pytest.approx(before.zones_g)
    assert touch.to_json() == {
        "type": "touch",
        "t_ms": touch.t_ms,
        "end_ms": touch.t_ms + 250.0,
        "zones": [3, 4],
        "peak_g": 25.0,
    }


def test_a_collecting_hand_takes_the_pieces_off_the_mat():
    ship = make_ship()
    ship.preload(1, "rat")
    ship.fall(ship.find(1), "landed")
    run_until(ship, 1000)
    collect = ship.collect()
    samples = run_until(ship, collect.done_ms + 200)
    assert max(s.table_g for s in samples) > 2.0  # the hand presses on the mat
    assert samples[-1].table_g == pytest.approx(0.0, abs=1e-9)
    assert collect.items == ["rat"] and not ship.on_mat()


def test_piezo_misses_light_impacts_below_its_threshold():
    ship = make_ship(sensors=SensorParams(piezo_min_mj=2.0))
    ship.preload(1, "rat")  # 2.6 g from 6 cm: 1.5 mJ
    ship.preload(9, "boat")  # 11.8 g from 34 cm: 39 mJ
    ship.fall(ship.find(1), "landed")
    samples = run_until(ship, 1000)
    assert not any(s.impact for s in samples)
    ship.fall(ship.find(9), "landed")
    assert sum(s.impact for s in run_until(ship, 2000)) == 1
    assert 2.6 * 9.81 * 0.06 < 2.0 < 11.8 * 9.81 * 0.34  # the energies the test relies on


def test_forces_are_exact_without_sensor_effects():
    ship = make_ship(rate=10)
    ship.preload(4, "boat")
    forces = ship.forces_at(50.0)
    assert forces[3] == pytest.approx(ship.find(4).grams) and len(forces) == 11
    assert math.fsum(forces) == pytest.approx(ship.find(4).grams)


def test_a_piezo_half_as_sensitive_needs_four_times_the_energy_and_twice_a_quarter():
    ship = make_ship(sensors=SensorParams(piezo_min_mj=2.0, piezo_gain=0.5))  # needs 8 mJ
    ship.preload(5, "rat")  # 2.6 g from 20 cm: 5.1 mJ
    ship.preload(9, "boat")  # 11.8 g from 34 cm: 39 mJ
    ship.fall(ship.find(5), "landed")
    assert not any(s.impact for s in run_until(ship, 1000))
    ship.fall(ship.find(9), "landed")
    assert sum(s.impact for s in run_until(ship, 2000)) == 1
    keen = make_ship(sensors=SensorParams(piezo_min_mj=2.0, piezo_gain=2.0))  # needs 0.5 mJ
    keen.preload(1, "rat")  # 1.5 mJ
    keen.fall(keen.find(1), "landed")
    assert sum(s.impact for s in run_until(keen, 1000)) == 1


def fired_after_strike(sensors: SensorParams, zone: int, item: str) -> tuple[float, list[float]]:
    """When a piece from `zone` landed, and the times of the samples the piezo fired in."""
    ship = make_ship(sensors=sensors)
    fall = ship.fall(ship.preload(zone, item), "landed", at_ms=100.0)
    samples = run_until(ship, 1000)
    return fall.pieces[0].land_us / 1000, [s.t_ms for s in samples if s.impact]


def test_a_ringing_table_trips_the_piezo_on_until_the_ring_dies_away():
    ringing = SensorParams(piezo_min_mj=1.0, piezo_ring_hz=200.0, piezo_ring_decay_ms=20.0)
    land_ms, fired = fired_after_strike(ringing, 9, "boat")  # 39 mJ: 6.2x the threshold
    ring_ms = 20.0 * math.log(math.sqrt(11.8 * 9.81 * 0.34))  # above the threshold: 37 ms
    assert land_ms <= fired[0] < land_ms + 12.5
    assert fired == [fired[0] + 12.5 * k for k in range(len(fired))]  # every sample, then none
    assert land_ms + ring_ms - 12.5 <= fired[-1] < land_ms + ring_ms + 12.5
    assert len(fired_after_strike(replace(ringing, piezo_ring_decay_ms=0.0), 9, "boat")[1]) == 1
    assert len(fired_after_strike(ringing, 1, "rat")[1]) == 1  # 1.5 mJ: dies away at once
    ship = make_ship(sensors=ringing)
    ship.knock(at_ms=100.0)
    assert 2 <= sum(s.impact for s in run_until(ship, 1000)) <= 3  # 3x: 22 ms of ringing


def test_the_mat_rocks_on_after_a_landing_then_holds_the_pieces_weight():
    hands = replace(
        GENTLE, mat_ring_fraction=(0.3, 0.3), mat_ring_hz=(5.0, 5.0), mat_ring_decay_ms=(200, 200)
    )
    ship = make_ship(hands)
    boat = ship.preload(10, "boat")
    fall = ship.fall(boat, "landed", at_ms=100.0)
    land_ms = fall.pieces[0].land_us / 1000
    assert fall.done_ms >= land_ms + 1200  # six time constants: rung out
    samples = run_until(ship, fall.done_ms + 200)
    rocking = [s.table_g - boat.grams for s in samples if land_ms + 20 < s.t_ms < land_ms + 400]
    assert max(rocking) > 0.15 * boat.grams and min(rocking) < -0.1 * boat.grams
    assert samples[-1].table_g == pytest.approx(boat.grams)
    still = make_ship()
    fall = still.fall(still.preload(10, "boat"), "landed", at_ms=100.0)
    # the landing's weight and the HX711's filter have settled 70 ms on: nothing rocks
    later = [s for s in run_until(still, 1000) if s.t_ms > fall.pieces[0].land_us / 1000 + 70]
    assert all(s.table_g == pytest.approx(boat.grams) for s in later)
