"""A piece that rested still on its zone, not yet decided, then slid or dropped onto another
zone: a place where it rested and a shift (issue 11, detector_slide)."""

from __future__ import annotations

import pytest
from test_shipsense_detector import ITEMS, detect, of_type
from test_shipsense_signals import ShipSignal


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    ("rate_hz", "table"), [(10, "piezo"), (10, "mat"), (80, "mat"), (80, "piezo"), (80, "both")]
)
@pytest.mark.parametrize(("item", "source", "target"), [("sailor", 5, 3), ("plank", 6, 2)])
def test_a_piece_put_down_unpressed_that_drops_before_its_wait_is_placed_then_shifted(
    item, source, target, rate_hz, table, seed
):
    # zoo `mixed` (20523-10sps-mixed-both at 47583): a 4.7 g sailor put down on zone 5 with no
    # press rested still some 0.8 s -- under the wait a load with no release seen must hold
    # before it is placed (a hand may still be on it) -- then dropped onto zone 3. The place
    # was never decided on 5; the load on 3 was taken as the same loading, and no place and no
    # shift came out. A person sees it put down on 5 and moved to 3. With a table that weighs
    # (a mat, or the piezo at 80 SPS) the load gone from 5 waited for the table's word at
    # once (8084120): a touch, then a place on 3. It waits for its zone's landing clock
    # first (detector_gone.may_yet_land)
    grams = ITEMS[item]
    signal = ShipSignal(rate_hz=rate_hz, seconds=6.0, noise_g=0.1, table=table, seed=seed)
    signal.place(source, grams, 500.0, press_g=0.0)
    signal.shift(source, target, grams, 1300.0, flight_ms=200.0)
    events = detect(signal, ITEMS)
    assert of_type(events, "fall") == [], events  # a drop may be seen leaving, then landing
    (place,) = of_type(events, "place")
    assert (place["zone"], place["item"]) == (source, item), place
    assert place["grams"] == pytest.approx(grams, abs=0.5)
    (shift,) = of_type(events, "shift")
    assert (shift["from"], shift["to"], shift["item"]) == (source, target, item), shift
    assert 1200.0 <= shift["t_ms"] <= 1700.0, shift  # when it went, not when it was decided
