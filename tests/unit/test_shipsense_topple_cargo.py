"""A piece that toppled off as it was let go while cargo on another zone went over (issue
11: cascades; RR8 places, RR11 falls).

The mat weighs what landed; the ship saw a rise vanish and cargo leave. What the mat took
beyond the cargo, or all it holds where the cargo missed it, is the toppled piece
(detector_vanished). These scenes are ones where it was lost: from the second ship's traces
(excerpts in tests/unit/data) and drawn on the house ship; each fails without its change.
"""

from __future__ import annotations

from test_shipsense_detector import detect_excerpt, of_type


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
