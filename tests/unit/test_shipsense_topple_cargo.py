"""A piece that toppled off as it was let go while cargo on another zone went over (issue
11: cascades; RR8 places, RR11 falls).

The mat weighs what landed; the ship saw a rise vanish and cargo leave. What the mat took
beyond the cargo, or all it holds where the cargo missed it, is the toppled piece
(detector_vanished). These scenes are ones where it was lost: from the second ship's traces
(excerpts in tests/unit/data) and drawn on the house ship; each fails without its change.
"""

from __future__ import annotations

import pytest
from test_shipsense_detector import ITEMS, detect, detect_excerpt, of_type
from test_shipsense_signals import ShipSignal


def test_rr11_a_toppled_piece_is_placed_though_the_cargos_fall_reads_its_zone_too():
    # the second ship's seed 1217 (10 SPS, both sensors): a bottle let go on yard 10 toppled
    # onto the mat at once, and the boat on yard 9 went over and was caught. The boat's fall
    # read yards 9 and 10 (the bottle going rang yard 10). Cargo that left the zone where
    # the load vanished was taken for a hand's own cargo, which the mat may hold, so the
    # bottle the mat held was never placed. Now only cargo from that zone alone is
    name = "othership_1217_a_bottle_topples_off_yard_10_onto_the_mat_as_the_boat_on_9_is_caught"
    events = detect_excerpt(name, 10, "both")
    places = [(e["zone"], e["item"]) for e in of_type(events, "place")]
    assert (10, "bottle") in places
    falls = sorted(e["items"] for e in of_type(events, "fall"))
    assert falls == [["boat"], ["bottle"]]


@pytest.mark.parametrize("table", ["mat", "both"])
@pytest.mark.parametrize("gap_ms", [250.0, 300.0])
@pytest.mark.parametrize(
    ("toppled", "cargo"),
    [((10, "bottle"), (9, "boat")), ((8, "bottle"), (6, "crate"))],
    ids=["bottle, boat", "bottle, crate"],
)
def test_rr11_at_80_sps_a_toppled_piece_still_falling_as_cargo_leaves_is_what_the_mat_holds(
    table, gap_ms, toppled, cargo
):
    # a bottle let go topples off at once; cargo on another zone leaves `gap_ms` after the
    # let-go and is caught, before the bottle reaches the mat. The ship had ended its
    # episode, the rise waiting for the table; the cargo leaving before the mat felt
    # anything made it a touch, and the bottle the mat then weighed was never placed
    (zone, item), (cargo_zone, cargo_item) = toppled, cargo
    signal = ShipSignal(rate_hz=80, seconds=7.0, seed=0, noise_g=0.1, table=table)
    signal.place(cargo_zone, ITEMS[cargo_item], 500.0)
    let_go = signal.place(zone, ITEMS[item], 3000.0, press_g=15.0)
    signal.fall(zone, ITEMS[item], let_go + 20.0, slide_ms=60.0)
    signal.fall(cargo_zone, ITEMS[cargo_item], let_go + gap_ms, outcome="caught")
    events = of_type(detect(signal, ITEMS), "place", "fall", "touch")
    assert [(e["zone"], e["item"]) for e in of_type(events, "place")] == [
        (cargo_zone, cargo_item),
        (zone, item),
    ]
    assert of_type(events, "touch") == []
    falls = sorted((e["zones"], e["items"]) for e in of_type(events, "fall"))
    assert falls == sorted([([zone], [item]), ([cargo_zone], [cargo_item])])


@pytest.mark.parametrize("table", ["mat", "both"])
@pytest.mark.parametrize("outcome", ["landed", "bounced"])
@pytest.mark.parametrize("gap_ms", [200.0, 250.0])
def test_rr11_at_80_sps_a_hand_that_lifted_away_as_cargo_fell_places_nothing(
    table, outcome, gap_ms
):
    # the guard: a hand presses yard 8 and lifts away (nothing let go of), and the crate on
    # quarter 6 goes over `gap_ms` after it lifted. What the mat takes is the crate, or
    # nothing: no piece toppled off yard 8, and the touch is sent
    signal = ShipSignal(rate_hz=80, seconds=7.0, seed=0, noise_g=0.1, table=table)
    signal.place(6, ITEMS["crate"], 500.0)
    signal.touch([8], 18.0, 3000.0, length_ms=400.0)
    signal.fall(6, ITEMS["crate"], 3400.0 + gap_ms, outcome=outcome)
    events = detect(signal, ITEMS)
    cargo = of_type(events, "place", "fall")
    assert [(e["type"], e.get("zone"), e.get("item") or e.get("items")) for e in cargo] == [
        ("place", 6, "crate"),
        ("fall", None, ["crate"]),
    ]
    assert [e["zones"] for e in of_type(events, "touch")] == [[8]]
