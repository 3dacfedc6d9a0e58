"""A drop in two steps (issue 11): a second piece following the first, or one piece that
unloaded its zone part way as it tipped over, then left.

The detector splits a drop that stood still a moment and went on into two falls, each
weighed on its own. What went first must be some of the cargo the zones that lost it hold
(as far as the detector knows what they hold); when it is none of it and the rest left the
same zones, it was one piece tipping over: one fall.
"""

from __future__ import annotations

import pytest
from test_shipsense_detector import ITEMS, detect, detect_excerpt, of_type
from test_shipsense_signals import MAT, ShipSignal


def test_rr13a_a_chest_that_tipped_then_fell_off_yard_7_is_one_chest():
    # issue 11 (the second ship's tuning seed 2, 80 SPS): a chest on yard 7 tipped over,
    # unloading its zone by 4 g for 60 ms, then fell. Split at the pause, it was a bottle
    # and a plank, neither of them aboard yard 7 (RR13a names each fallen piece)
    events = detect_excerpt("othership_2_a_chest_tips_then_falls_off_zone_7", 80, "both")
    (fall,) = of_type(events, "fall")
    assert (fall["zones"], fall["items"]) == ([7], ["chest"])
    assert fall["grams"] == pytest.approx(9.18, abs=1.1)


def two_steps(rate_hz: int, first_g: float, second_g: float, cargo: list[tuple[int, float]]):
    """Cargo on zone 5 (`cargo`: the pieces set down there, in turn); then zone 5 loses
    `first_g`, stands 120 ms, and loses `second_g`; the mat takes it all."""
    signal = ShipSignal(rate_hz=rate_hz, seconds=8.0, noise_g=0.1, table="both")
    at = 500.0
    for zone, grams in cargo:
        signal.place(zone, grams, at, press_g=10.0)
        at += 1800.0
    signal.step(4, -first_g, 5000.0, 20.0)
    signal.step(4, -second_g, 5140.0, 20.0)
    total = first_g + second_g
    signal.ring(MAT, 3.0 * total, 5400.0, hz=25.0, tau_ms=20.0)
    signal.impacts[signal.index(5400.0)] = 1
    signal.step(MAT, total, 5400.0, 8.0)
    return detect(signal, ITEMS)


def test_a_boat_that_tipped_part_way_then_fell_is_one_boat():
    # 4.6 g (a bottle's worth, none aboard zone 5) went first, then the rest of the 11.8 g
    # boat: one fall of the boat
    events = two_steps(80, 4.6, 7.2, [(5, 11.8)])
    (fall,) = of_type(events, "fall")
    assert (fall["zones"], fall["items"]) == ([5], ["boat"])


def test_rr13a_a_barrel_then_a_sailor_from_one_zone_are_two_falls():
    # guard rail: the barrel went first, then the sailor; each is cargo zone 5 holds, each
    # falls on its own
    events = two_steps(80, 6.1, 4.4, [(5, 6.1), (5, 4.4)])
    falls = of_type(events, "fall")
    assert [f["items"] for f in falls] == [["barrel"], ["sailor"]]


def test_rr13a_a_piece_that_weighed_between_two_kinds_then_a_barrel_are_two_falls():
    # guard rail (classic pool, extra8-7257 at 10 SPS): a crate weighed 8.7 g when placed,
    # named the nearer chest; it left reading lighter still, then the barrel beside it. What
    # went first is no chest by the chest's weight, but it is that piece as it weighed: two
    # falls, as before
    events = two_steps(80, 7.9, 6.1, [(5, 8.7), (5, 6.1)])
    falls = of_type(events, "fall")
    assert [f["grams"] for f in falls] == [pytest.approx(7.9, abs=0.5), pytest.approx(6.1, abs=0.5)]
    assert falls[1]["items"] == ["barrel"]


def test_rr13a_a_barrel_whose_last_gram_left_after_a_pause_is_one_barrel():
    # 5 g went, the drop stood 120 ms, then the last 1.1 g: lighter than any piece, so no
    # second piece; one barrel sliding off, its progress lost a moment. It was a 5.1 g plank
    # that fell and 0.9 g that stayed off
    events = two_steps(80, 5.0, 1.1, [(5, 6.1)])
    assert of_type(events, "stay") == []
    (fall,) = of_type(events, "fall")
    assert (fall["zones"], fall["items"]) == ([5], ["barrel"])
    assert fall["grams"] == pytest.approx(6.1, abs=0.5)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("slide_ms", [300.0, 500.0])
def test_rr13a_a_barrel_sliding_slowly_off_quarter_1_is_weighed_once_it_has_gone(slide_ms, seed):
    # issue 11: a piece that takes 300-500 ms to slide off its zone, in noise that hides its
    # progress from one sample to the next. It was weighed while still going (4.9 g of 6.1),
    # or split into two falls where its progress paused
    signal = ShipSignal(rate_hz=80, seconds=6.0, noise_g=0.2, table="piezo", seed=seed)
    signal.place(1, 6.1, 500.0)
    signal.fall(1, 6.1, 3000.0, slide_ms=slide_ms, flight_ms=150.0)
    (fall,) = of_type(detect(signal, ITEMS), "fall")
    assert (fall["zones"], fall["items"]) == ([1], ["barrel"])
    assert fall["grams"] == pytest.approx(6.1, rel=0.12)


def test_rr13a_a_barrel_that_slid_slowly_off_quarter_1_is_weighed_whole():
    # issue 11 (the second ship's seed 1207, 80 SPS, a piezo table): a 5.76 g barrel slid off
    # quarter 1 over 250 ms, too slowly for the drop's progress to show above the noise. The
    # fall was weighed from when the drop first looked done: 4.6 g, a bottle
    events = detect_excerpt(
        "othership_1207_a_barrel_slides_slowly_off_quarter_1_onto_a_piezo_table", 80, "piezo"
    )
    (fall,) = of_type(events, "fall")
    assert (fall["zones"], fall["items"]) == ([1], ["barrel"])
    assert fall["grams"] == pytest.approx(5.76, abs=1.0)  # max(1 g, 12 %)
