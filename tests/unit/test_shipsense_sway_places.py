"""Light pieces on a swaying ship with strong crosstalk (issue 11, the zoo's `sway` family):
the zone a place is booked on, and what the zones read afterwards."""

from __future__ import annotations

import pytest
from test_shipsense_detector import ITEMS, assert_one_place, detect, detect_excerpt, of_type
from test_shipsense_signals import ShipSignal

from bosun.sim import ShipParams, VirtualShip
from bosun.sim.zoo import level_named
from shipsense.detector import Detector


@pytest.mark.parametrize("rate_hz", [80, 10])
@pytest.mark.parametrize(
    ("heavy_zone", "light_zone"), [(4, 1), (2, 4), (8, 6), (6, 8), (3, 1), (7, 9)]
)
def test_a_light_piece_after_a_heavy_one_goes_on_its_own_zone_not_where_crosstalk_left_its_share(
    rate_hz, heavy_zone, light_zone
):
    # a 12 % share of the boat shows on each neighbour of its zone (and its zone reads that
    # much less): booked on the boat's zone alone, the share read as a change on the next
    # loading and put the rat on a neighbour of where it rests (zoo-sway-20300, 6668 ms)
    signal = ShipSignal(seconds=9.0, noise_g=0.05, rate_hz=rate_hz, seed=rate_hz + heavy_zone)
    signal.crosstalk_fraction = 0.12
    signal.place(heavy_zone, 11.8, 1000.0, press_g=10.0)
    signal.place(light_zone, 2.6, 4000.0, press_g=0.0)
    places = of_type(detect(signal, ITEMS), "place")
    assert [(p["zone"], p["item"]) for p in places] == [(heavy_zone, "boat"), (light_zone, "rat")]


@pytest.mark.parametrize("rate_hz", [80, 10])
def test_a_piece_that_was_there_before_falls_right_after_a_heavy_one_joined_it(rate_hz):
    # the zones' levels are re-measured at rest with their neighbours' shares; a loss from
    # the zone just loaded is still the older piece falling, not a hand lifting off the boat
    signal = ShipSignal(seconds=9.0, noise_g=0.05, rate_hz=rate_hz, seed=5)
    signal.crosstalk_fraction = 0.12
    signal.place(1, 2.6, 1000.0, press_g=0.0)
    signal.place(1, 11.8, 3500.0, press_g=0.0)
    signal.fall(1, 2.6, 5500.0)
    events = detect(signal, ITEMS)
    places = of_type(events, "place")
    assert [(p["zone"], p["item"]) for p in places] == [(1, "rat"), (1, "boat")]
    (fall,) = of_type(events, "fall")
    assert (fall["zones"], fall["items"]) == ([1], ["rat"])
    assert of_type(events, "stay") == []


@pytest.mark.parametrize(("seed", "gap_ms"), [(20316, 1100.0), (20300, 1300.0), (20302, 1100.0)])
def test_a_second_piece_loaded_before_the_ship_rests_is_weighed_against_the_first_ones_share(
    seed, gap_ms
):
    # RR9: a boat on a yard zone right after a chest, in the same episode (no rest between
    # to re-measure the zones), on a ship of the zoo's `sway` family at 10 SPS. The boat's
    # zone reads it less the share its three neighbours feel: with the chest's share still
    # on zone 8's committed level, the boat showed there as under half of itself (through
    # the sway), was taken for a load a hand spread over zones and never placed
    # (zoo-sway-20316 at 10 SPS, 147028 ms)
    params = ShipParams.draw(level_named("sway"), seed, rate_sps=10, table="piezo")
    ship = VirtualShip(params, seed)
    for at_ms, zone, item in ((500.0, 1, "crate"), (3500.0, 10, "barrel"), (6500.0, 3, "plank")):
        ship.place(zone, item, at_ms=at_ms, press_g=0.0)  # the ship rocks: its modes are learned
    ship.place(8, "chest", at_ms=10000.0, press_g=12.0, press_ms=400.0)
    ship.place(8, "boat", at_ms=10000.0 + gap_ms, press_g=9.0, press_ms=500.0)
    detector = Detector(rate_hz=10, table="piezo", items=dict(params.item_grams))
    events = []
    while ship.now_ms < 16000.0:
        sample = ship.next_sample()
        events += detector.feed(sample.t_ms, list(sample.zones_g), sample.table_g, sample.impact)
    places = [(e["zone"], e["item"]) for e in of_type(events, "place")]
    assert places == [(1, "crate"), (10, "barrel"), (3, "plank"), (8, "chest"), (8, "boat")]
    assert of_type(events, "fall", "shift", "touch") == []


def test_rr8_a_crate_that_set_the_hull_rocking_is_placed_once_it_rocked_a_window_after_the_let_go():
    # issue 11 (the second ship's seed 1305, 10 SPS, a mat): a crate pressed at 50 g onto yard
    # 5 set the hull rocking; the total swung through 3.4 g, dying away to 1 g over 3 s,
    # never three samples within the still band. The rocking test asked for a swing
    # within 15 % of the level over 2.4 s from the hand's coming; the crate was placed 3.2 s
    # after the let-go, past the time a person would take. Let go of a weighing window ago,
    # its level steady about the swing and fitting a piece well, it is placed there
    events = detect_excerpt(
        "othership_1305_a_crate_let_go_on_yard_5_sets_the_hull_rocking_for_seconds", 10, "mat"
    )
    place = assert_one_place(events, 5, "crate", 7.785)
    assert place["decided_ms"] - 97067.8 < 2500  # the let-go, as the second ship recorded it
    assert of_type(events, "fall", "shift", "touch") == []


@pytest.mark.parametrize(
    ("item", "zone", "swing_g", "seed"),
    [("rat", 7, 0.8, 0), ("rat", 7, 1.0, 0), ("rat", 7, 1.2, 0), ("barrel", 6, 1.2, 2)],
)
def test_rr8_at_10_sps_a_piece_whose_let_go_set_the_hull_rocking_is_placed_within_two_seconds(
    item, zone, swing_g, seed
):
    # the seed 1305 case on the house ship: the piece's let-go sets the total swinging at
    # 2.8 Hz, dying away over seconds; a rat's swing is far more than 15 % of it
    signal = ShipSignal(rate_hz=10, seconds=8.0, noise_g=0.08, table="mat", seed=seed)
    let_go = signal.place(zone, ITEMS[item], 1000.0, press_g=30.0, press_ms=500.0)
    signal.ring(zone - 1, swing_g, let_go + 100.0, hz=2.8, tau_ms=8000.0)
    events = detect(signal, ITEMS)
    (place,) = of_type(events, "place")
    assert (place["zone"], place["item"]) == (zone, item)
    assert place["decided_ms"] - let_go < 2000
    assert of_type(events, "fall", "shift", "touch") == []
