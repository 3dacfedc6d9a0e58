"""The shipsense detector where the HX711 barely shows a rest: 10 SPS tip-offs, hands and
pieces in quick succession, and the evidence a decision is taken from (detection round 3).

At 10 SPS the HX711 needs 300-400 ms to show a step, so a piece that tips off half a second
after the hand left is seen at rest for two samples only. Each test below but the hand
brushing after a short rest failed on the round-2 detector in some of its cases; that one
guards what holding a short rest must not break.
"""

from __future__ import annotations

import pytest
from test_shipsense_detector import detect_excerpt, of_type
from test_shipsense_signals import ShipSignal

from bosun.sim.params import ITEM_GRAMS
from shipsense.detector import Detector

ITEMS = dict(ITEM_GRAMS)  # the game set's weights (RR2), as calibrated


def detect(signal: ShipSignal) -> list[dict]:
    detector = Detector(rate_hz=signal.rate_hz, table=signal.table, items=ITEMS)
    events: list[dict] = []
    for t_ms, zones_g, table_g, impact in signal.rows():
        events.extend(detector.feed(t_ms, zones_g, table_g, impact))
    return events


def cargo_events(events: list[dict]) -> list[tuple]:
    """(type, zone, item or items) of every place and fall, in order."""
    return [
        (e["type"], e.get("zone"), e.get("item") or e.get("items"))
        for e in events
        if e["type"] in ("place", "fall")
    ]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("rest_ms", [420, 480])
def test_rr11_at_10_sps_a_piece_seen_at_rest_for_two_samples_then_tipping_off_is_a_place_and_a_fall(
    seed, rest_ms
):
    signal = ShipSignal(rate_hz=10, seconds=5.0, noise_g=0.1, seed=seed)
    hand_left = signal.place(7, 11.8, 500.0, press_g=25.0, press_ms=400.0)
    signal.fall(7, 11.8, hand_left + rest_ms, slide_ms=40.0, flight_ms=200.0)
    events = detect(signal)
    assert cargo_events(events) == [("place", 7, "boat"), ("fall", None, ["boat"])]
    place = events[[e["type"] for e in events].index("place")]
    assert place["grams"] == pytest.approx(11.8, abs=1.0)
    assert abs(place["t_ms"] - hand_left) <= 300
    assert not [e for e in events if e["type"] == "touch"]


@pytest.mark.parametrize("seed", range(8))
def test_rr9_at_10_sps_a_second_piece_loaded_soon_after_the_first_rested_briefly_is_a_second_place(
    seed,
):
    # the first crate is seen still for two samples before the second hand presses: each
    # is placed and weighed within the benchmark's tolerance (two samples weigh the first
    # too roughly to always tell a crate from a barrel, 1.5 g apart)
    # (the ringing is small: at 10 SPS the HX711 averages it over each 100 ms conversion)
    signal = ShipSignal(rate_hz=10, seconds=6.0, noise_g=0.2, seed=seed)
    first_left = signal.place(7, 7.6, 500.0, press_g=25.0, press_ms=400.0, ring_g=0.5)
    signal.place(7, 6.1, first_left + 450.0, press_g=30.0, press_ms=450.0, ring_g=0.5)
    places = [e for e in detect(signal) if e["type"] == "place"]
    assert [p["zone"] for p in places] == [7, 7]
    assert places[0]["grams"] == pytest.approx(7.6, abs=1.0)  # max(1 g, 12%), as scored
    assert places[1]["grams"] == pytest.approx(6.1, abs=1.0)
    assert abs(places[0]["t_ms"] - first_left) <= 300


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rr10_at_10_sps_a_hand_brushing_the_ship_after_a_short_rest_leaves_one_place_of_the_piece(
    seed,
):
    # the two samples before the hand came are held, not placed: what rests once the hand
    # has gone is the piece
    signal = ShipSignal(rate_hz=10, seconds=6.0, noise_g=0.1, seed=seed)
    hand_left = signal.place(7, 4.4, 500.0, press_g=25.0, press_ms=400.0)
    signal.touch([3], 12.0, hand_left + 300.0, length_ms=300.0)
    events = detect(signal)
    assert cargo_events(events) == [("place", 7, "sailor")]


@pytest.mark.parametrize("rate_hz", [10, 80])
def test_rr8_a_glitch_on_the_very_first_sample_does_not_hide_the_first_place(rate_hz):
    # the glitch filter cannot judge the first sample; the empty ship is a median
    signal = ShipSignal(rate_hz=rate_hz, seconds=5.0, noise_g=0.1, seed=3)
    signal.glitch(3, 70.0, 0.0)
    signal.place(9, 7.6, 1200.0, press_g=0.0)
    events = detect(signal)
    assert cargo_events(events) == [("place", 9, "crate")]
    assert [e for e in events if e["type"] == "place"][0]["grams"] == pytest.approx(7.6, abs=0.4)


@pytest.mark.parametrize("seed", [0, 1, 2, 4])
def test_rr11_a_light_piece_leaving_too_gently_to_be_noticed_at_10_sps_is_still_a_fall(seed):
    # noisy cells: a rat's 2.6 g going is below the leaving threshold, but the loss stands
    # still long enough to weigh; the next piece is then weighed from the right level
    signal = ShipSignal(rate_hz=10, seconds=9.0, noise_g=0.15, seed=seed)
    hand_left = signal.place(7, 2.6, 800.0, press_g=20.0)
    signal.fall(7, 2.6, hand_left + 800.0, outcome="caught", slide_ms=120.0)
    signal.place(2, 6.1, hand_left + 5000.0, press_g=20.0)
    events = detect(signal)
    assert [(t, z) for t, z, _ in cargo_events(events)] == [
        ("place", 7),
        ("fall", None),
        ("place", 2),
    ]
    assert cargo_events(events)[2] == ("place", 2, "barrel")


@pytest.mark.parametrize("seed", [0, 2])
def test_rr11_at_10_sps_a_deck_piece_that_fell_stays_fallen_when_a_hand_loads_the_ship_next(seed):
    # a piece leaving the deck has nowhere aboard to land: the weight coming back is the
    # next loading, not the piece returning (no shift, no stay)
    signal = ShipSignal(rate_hz=10, seconds=8.0, noise_g=0.15, seed=seed)
    hand_left = signal.place(3, 7.6, 500.0, press_g=20.0)
    signal.fall(3, 7.6, hand_left + 1500.0, outcome="caught", slide_ms=30.0)
    signal.place(2, 6.1, hand_left + 1900.0, press_g=28.0)
    events = detect(signal)
    assert cargo_events(events) == [
        ("place", 3, "crate"),
        ("fall", None, ["crate"]),
        ("place", 2, "barrel"),
    ]
    assert not [e for e in events if e["type"] in ("shift", "stay")]


@pytest.mark.parametrize("seed", range(5))
def test_rr8_a_place_is_zoned_where_it_rested_though_cargo_leaves_its_zone_before_it_is_decided(
    seed,
):
    # a bottle is placed on the boat's zone; the boat tips off before the bottle is weighed
    # enough: the zones are read over the bottle's still stretch, not the samples since
    signal = ShipSignal(rate_hz=10, seconds=9.0, noise_g=0.12, seed=seed)
    signal.place(1, 11.8, 500.0, press_g=15.0)
    hand_left = signal.place(1, 3.3, 3500.0, press_g=8.0)
    signal.fall(1, 11.8, hand_left + 500.0, outcome="caught")
    assert cargo_events(detect(signal)) == [
        ("place", 1, "boat"),
        ("place", 1, "bottle"),
        ("fall", None, ["boat"]),
    ]


@pytest.mark.parametrize("seed", range(5))
def test_a_hand_brushing_the_ship_with_a_still_top_of_a_third_of_a_second_is_a_touch(seed):
    # at 80 SPS a 600 ms brush holds still for ~300 ms: not a piece that rested and left
    signal = ShipSignal(rate_hz=80, seconds=4.0, noise_g=0.15, seed=seed)
    signal.touch([2], 5.6, 1000.0, length_ms=600.0)
    events = detect(signal)
    assert cargo_events(events) == []
    assert [e["type"] for e in events if e["type"] == "touch"] == ["touch"]


# --- round 4: a hand's load coming or going is not a piece's --------------------------------


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_rr13_at_10_sps_weight_coming_back_after_longer_than_any_landing_is_a_new_load_not_a_shift(
    seed,
):
    # a crate falls off zone 7 and is caught; half a second after it left, a hand presses a
    # barrel onto zone 3, a zone below: a piece from zone 7 lands within ~0.25 s, so the
    # load coming back is the next loading (a place), not the crate landing (a shift)
    signal = ShipSignal(rate_hz=10, seconds=8.0, noise_g=0.15, seed=seed)
    hand_left = signal.place(7, 7.6, 500.0, press_g=20.0)
    gone = signal.fall(7, 7.6, hand_left + 1500.0, outcome="caught", slide_ms=30.0)
    signal.place(3, 6.1, gone + 500.0, press_g=25.0)
    events = detect(signal)
    assert cargo_events(events) == [
        ("place", 7, "crate"),
        ("fall", None, ["crate"]),
        ("place", 3, "barrel"),
    ]
    assert not [e for e in events if e["type"] in ("shift", "stay")]


@pytest.mark.parametrize(
    ("seed", "gap_ms", "touch_g", "touch_ms"),
    [(2, 100.0, 6.0, 250.0), (0, 100.0, 10.0, 250.0), (3, 200.0, 6.0, 150.0)],
)
def test_rr9_a_hand_brushing_a_loaded_zone_as_a_piece_settles_elsewhere_is_not_weighed_with_it(
    seed, gap_ms, touch_g, touch_ms
):
    # at 10 SPS the brush on zone 6 (a boat aboard) blends with the crate's first still
    # samples on zone 10; when it goes, zone 6 is back where it stood, not below: a hand
    # went, not cargo. The crate is what stays (was: crate and hand placed as one heavier
    # piece, then the hand's going a stay or a fall)
    signal = ShipSignal(rate_hz=10, seconds=10.0, noise_g=0.15, seed=seed)
    signal.place(6, 11.8, 500.0, press_g=15.0)
    signal.place(10, 4.4, 3000.0, press_g=15.0)
    hand_left = signal.place(10, 7.6, 6000.0, press_g=30.0)
    signal.touch([6], touch_g, hand_left + gap_ms, length_ms=touch_ms)
    events = detect(signal)
    assert cargo_events(events) == [
        ("place", 6, "boat"),
        ("place", 10, "sailor"),
        ("place", 10, "crate"),
    ]
    assert not [e for e in events if e["type"] in ("stay", "leaving")]


@pytest.mark.parametrize("seed", [0, 2, 3, 4])
@pytest.mark.parametrize("gap_ms", [350.0, 450.0])
def test_rr13_at_10_sps_a_crate_pressed_below_a_yard_soon_after_a_chest_fell_from_it_is_no_shift(
    seed, gap_ms
):
    # the chest leaves zone 5 for the table; 0.35-0.45 s later a hand presses a crate onto
    # zone 3 (below zone 5) while another brushes zones 2 and 4. The chest would have landed
    # on zone 3 within ~0.2 s: the load coming back is the crate, the brushing hand's going
    # no fall (was: a shift 5 -> 3 and a light false fall)
    signal = ShipSignal(rate_hz=10, seconds=9.0, noise_g=0.2, seed=seed)
    hand_left = signal.place(5, 9.4, 500.0, press_g=20.0)
    gone = signal.fall(5, 9.4, hand_left + 1500.0, slide_ms=40.0, flight_ms=250.0)
    signal.place(3, 7.6, gone + gap_ms, press_g=25.0, press_ms=400.0)
    signal.touch([2, 4], 6.0, gone + gap_ms + 100.0, length_ms=500.0)
    events = detect(signal)
    assert cargo_events(events) == [
        ("place", 5, "chest"),
        ("fall", None, ["chest"]),
        ("place", 3, "crate"),
    ]
    assert not [e for e in events if e["type"] in ("shift", "stay")]


@pytest.mark.parametrize("seed", [0, 2, 3])
@pytest.mark.parametrize("rate_hz", [10, 80])
@pytest.mark.parametrize(("source", "target", "flight_ms"), [(7, 1, 223.0), (9, 3, 258.0)])
def test_rr13_a_piece_landing_below_its_yard_after_the_longest_flight_is_still_a_shift(
    seed, rate_hz, source, target, flight_ms
):
    # guards the rule above: a piece that takes the longest fall from its yard (the landing
    # clock's flight time) comes back in time and is a shift, not a fall and a new place.
    # (Down its own side: from yard 9, port, onto quarter 3, not 4, where no piece can go)
    signal = ShipSignal(rate_hz=rate_hz, seconds=6.0, noise_g=0.15, seed=seed)
    hand_left = signal.place(source, 6.1, 500.0, press_g=20.0)
    signal.shift(source, target, 6.1, hand_left + 1500.0, flight_ms=flight_ms)
    events = detect(signal)
    assert cargo_events(events) == [("place", source, "barrel")]
    (shift,) = [e for e in events if e["type"] == "shift"]
    assert (shift["from"], shift["to"], shift["item"]) == (source, target, "barrel")


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("gap_ms", [500.0, 700.0])
@pytest.mark.parametrize("touch_g", [12.0, 17.0])
def test_rr9_at_10_sps_a_piece_rested_before_a_hand_brushed_it_is_weighed_with_that_rest_too(
    seed, gap_ms, touch_g
):
    # a sailor set down without pressing rests for half a second or more (no release seen),
    # then a hand brushes its zone: the rest is held, and once the hand has gone and the
    # load is back where it stood, the two still stretches weigh the same piece together
    # (was: weighed afresh after the hand, 2.5-4 s after the piece was put down)
    signal = ShipSignal(rate_hz=10, seconds=8.0, noise_g=0.2, seed=seed)
    hand_left = signal.place(8, 4.4, 1000.0, press_g=0.0)
    signal.touch([8], touch_g, hand_left + gap_ms, length_ms=550.0)
    events = detect(signal)
    assert cargo_events(events) == [("place", 8, "sailor")]
    (place,) = [e for e in events if e["type"] == "place"]
    assert place["decided_ms"] - hand_left <= 2300
    assert place["grams"] == pytest.approx(4.4, abs=0.53)


@pytest.mark.parametrize("seed", [0, 2, 5])
def test_rr13_at_10_sps_more_coming_back_than_went_is_a_loading_hand_not_the_piece_landing(seed):
    # as above, the crate pressed only 0.3 s after the chest left: nearly in time for a
    # landing, but the load comes back half as much again as went (the pressing hand), which
    # a landing piece does not do at 10 SPS (the HX711 averages its knock away)
    signal = ShipSignal(rate_hz=10, seconds=9.0, noise_g=0.2, seed=seed)
    hand_left = signal.place(5, 9.4, 500.0, press_g=20.0)
    gone = signal.fall(5, 9.4, hand_left + 1500.0, slide_ms=40.0, flight_ms=250.0)
    signal.place(3, 7.6, gone + 300.0, press_g=25.0, press_ms=400.0)
    signal.touch([2, 4], 6.0, gone + 400.0, length_ms=500.0)
    events = detect(signal)
    assert cargo_events(events) == [
        ("place", 5, "chest"),
        ("fall", None, ["chest"]),
        ("place", 3, "crate"),
    ]
    assert not [e for e in events if e["type"] in ("shift", "stay")]


def detect_with(signal: ShipSignal) -> tuple[list[dict], Detector]:
    detector = Detector(rate_hz=signal.rate_hz, table=signal.table, items=ITEMS)
    events: list[dict] = []
    for t_ms, zones_g, table_g, impact in signal.rows():
        events.extend(detector.feed(t_ms, zones_g, table_g, impact))
    return events, detector


@pytest.mark.parametrize(("rate_hz", "noise_g"), [(80, 0.05), (10, 0.1)])
def test_rr10_a_hand_leaving_less_than_half_the_lightest_piece_resting_is_no_place_and_no_fall(
    rate_hz, noise_g
):
    # a hand presses zone 7 and lets go of all but ~1 g (less than half the 2.6 g rat),
    # which rests there for half a second or more, then goes too: it fits no piece, so it
    # is never a place, its going never a fall, and nothing is believed aboard (round 4
    # placed it as an ambiguous rat and its going was a fall: held-back set 4's false pair)
    for seed in range(8):
        for grams, rest_ms in ((0.9, 500.0), (1.0, 500.0), (0.9, 800.0), (1.0, 800.0)):
            signal = ShipSignal(rate_hz=rate_hz, seconds=5.0, noise_g=noise_g, seed=seed)
            hand_left = signal.place(7, grams, 500.0, press_g=12.0)
            signal.step(6, -grams, hand_left + rest_ms, 30.0)
            events, detector = detect_with(signal)
            assert cargo_events(events) == [], (seed, grams, rest_ms)
            assert not any(detector.cargo.zones), (seed, grams, rest_ms)
            assert abs(sum(detector.zone_grams())) < 0.6, (seed, grams, rest_ms)


@pytest.mark.parametrize("seed", range(4))
def test_rr10_a_hand_resting_on_a_placed_piece_and_lifted_later_is_no_fall(seed):
    # a boat is placed with ~1 g of the hand still resting on it (weighed with it: still a
    # boat), the hand lifted 2.5 s later: that loss fits no piece, it is a `stay`, not a
    # fall, and the boat is still aboard (round 4: a fall of a rat)
    signal = ShipSignal(rate_hz=80, seconds=7.0, noise_g=0.1, seed=seed)
    hand_left = signal.place(7, 11.8, 500.0, press_g=12.0)
    signal.step(6, 1.0, 500.0, 60.0)
    signal.step(6, -1.0, hand_left + 2500.0, 60.0)
    events, detector = detect_with(signal)
    assert cargo_events(events) == [("place", 7, "boat")]
    assert [e for e in events if e["type"] == "stay" and e["grams"] > 0.5]
    assert detector.cargo.zones[7] == ["boat"]
    assert sum(detector.zone_grams()) == pytest.approx(11.8, abs=0.6)


@pytest.mark.parametrize("piece", ["rat", "bottle"])
def test_rr8_at_10_sps_in_hard_noise_the_lightest_pieces_are_still_placed_and_still_fall(piece):
    # the floor under which a load is no piece (half the rat) leaves the rat itself, seen at
    # 10 SPS in the hard level's noise, a place and a fall, weighed within the benchmark's
    # tolerance (a short rest names a rat against a bottle only roughly: not checked here)
    for seed in range(8):
        signal = ShipSignal(rate_hz=10, seconds=8.0, noise_g=0.15, seed=seed)
        hand_left = signal.place(7, ITEMS[piece], 500.0, press_g=15.0)
        signal.fall(7, ITEMS[piece], hand_left + 3000.0)
        events = detect(signal)
        assert [(t, z) for t, z, _ in cargo_events(events)] == [("place", 7), ("fall", None)], seed
        for event in events:
            if event["type"] in ("place", "fall"):
                assert event["grams"] == pytest.approx(ITEMS[piece], abs=1.0), seed


@pytest.mark.parametrize(
    "name",
    [
        "othership_1413_a_barrel_pressed_onto_yard_9_creeps_up_as_it_settles",
        "othership_21_a_crate_pressed_onto_quarter_2_with_54_g_creeps_up_as_it_settles",
    ],
)
def test_rr8_at_10_sps_a_piece_still_settling_after_a_firm_press_is_one_place(name):
    # the second ship's seeds 1413 and 21 (10 SPS, mat): a barrel (a crate) pressed on with
    # 55 g stood two samples at 80 % of its weight, then the zone crept up the rest over
    # half a second, no hand near. It was placed twice: a bottle (a barrel) and a "rat" of
    # 1.2-1.4 g, though what came on fits no piece and the whole fits the one let go (RR8)
    events = detect_excerpt(name, 10, "mat")
    truth = {"1413": (9, "barrel", 5.84), "21": (2, "crate", 7.97)}[name.split("_")[1]]
    (place,) = of_type(events, "place")
    assert (place["zone"], place["item"]) == truth[:2]
    assert place["grams"] == pytest.approx(truth[2], abs=0.5)


@pytest.mark.parametrize("item", ["barrel", "crate", "chest", "boat"])
def test_rr8_at_10_sps_what_a_piece_adds_as_it_settles_after_a_short_rest_is_no_second_piece(
    item,
):
    # the scenes of seeds 1413 and 21, drawn: 1.6 g of the piece comes on 0.4 s after the
    # let-go, after the zone stood still two samples short of it; 1.6 g fits no piece
    signal = ShipSignal(rate_hz=10, seconds=6.0, noise_g=0.1, seed=0, table="mat")
    let_go = signal.place(9, ITEMS[item] - 1.6, 1000.0, press_g=50.0)
    signal.step(8, 1.6, let_go + 400.0, 150.0)
    places = [(e["zone"], e["item"]) for e in detect(signal) if e["type"] == "place"]
    assert places == [(9, item)]
