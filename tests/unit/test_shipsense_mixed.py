"""The shipsense detector on the zoo's `mixed` hands: several effects at once (issue 11)."""

from __future__ import annotations

import pytest
from test_shipsense_detector import ITEMS, detect, of_type
from test_shipsense_signals import ShipSignal


@pytest.mark.parametrize("slide_ms", [30.0, 100.0])
def test_a_pressed_piece_sliding_off_slowly_as_the_hand_lets_go_is_weighed_by_the_mat(slide_ms):
    # issue 11 (zoo-mixed-20512, 80 SPS, 113684 ms): a hand pressed a rat down with 25 g,
    # let go, and the rat slid off over 100 ms: it reached the mat later than a piece
    # toppling at once from the top yard could, counted from the let-go; counted from when
    # its zone was seen empty, in time. The ship saw hand and rat leave together (a touch)
    signal = ShipSignal(seconds=5.0, noise_g=0.1, table="mat")
    signal.step(4, 2.7, 1000.0, 60.0)  # the piece on zone 5, a hand pressing it, held still
    signal.step(4, 25.0, 1030.0, 80.0)
    signal.step(4, -25.0, 1600.0, 30.0)  # the hand lifts off ...
    left = signal.fall(5, 2.7, 1600.0, slide_ms=slide_ms, flight_ms=230.0)  # ... the rat slides
    events = detect(signal, ITEMS)
    assert of_type(events, "touch") == []
    place, fall = of_type(events, "place", "fall")
    assert (place["zone"], place["item"], fall["zones"], fall["items"]) == (5, "rat", [5], ["rat"])
    assert fall["grams"] == pytest.approx(2.7, abs=0.5)
    assert fall["decided_ms"] - left <= 700


@pytest.mark.parametrize("grams", [5.6, 5.65])
def test_a_fresh_piece_resting_undecided_while_cargo_leaves_gently_keeps_its_own_weight(grams):
    # issue 11 (zoo-mixed-20500, 80 SPS, 174264 ms): a piece weighing between a plank and a
    # barrel rested still, undecided (its weight sits on the line between them), while a rat
    # slid off another zone too gently, in the noise, to be noticed leaving; the level settled
    # lower and that was placed: the piece less the rat, and the rat's fall weighed short
    signal = ShipSignal(seconds=6.0, noise_g=0.5, table="mat")
    signal.step(6, 2.6, 300.0, 60.0)  # a rat at rest on zone 7
    hand_left = signal.place(2, grams, 1000.0, press_g=20.0, press_ms=400.0)
    signal.fall(7, 2.6, hand_left + 500.0, slide_ms=60.0, flight_ms=200.0)
    events = detect(signal, ITEMS)
    placed = [e for e in of_type(events, "place") if e["zone"] == 2]
    assert len(placed) == 1
    assert placed[0]["grams"] == pytest.approx(grams, abs=0.6)
    (fall,) = of_type(events, "fall")
    assert fall["zones"] == [7]
    assert fall["grams"] == pytest.approx(2.6, abs=0.6)
