"""bench/detection's scorer: a place decided rightly is matched to the record it fits."""

from __future__ import annotations

from bench.detection.score import score_trace


def _place(t_ms: float, zone: int, grams: float, item: str) -> dict:
    return {
        "type": "place",
        "t_ms": t_ms,
        "zone": zone,
        "grams": grams,
        "item": item,
        "piece": f"{item}#1",
        "left_ms": t_ms + 60000.0,
    }


def _event(decided_ms: float, zone: int, grams: float, item: str) -> dict:
    return {
        "type": "place",
        "t_ms": decided_ms - 700.0,
        "decided_ms": decided_ms,
        "zone": zone,
        "grams": grams,
        "item": item,
    }


def test_a_missed_piece_does_not_take_the_next_piece_placed_on_its_zone():
    # a sailor missed, a chest on the same zone 1.1 s later found: one miss, one found, not
    # the chest's place read as the sailor's wrong one and the chest missed (zoo-topples 20101)
    truth = [_place(16614.0, 7, 4.377, "sailor"), _place(17749.0, 7, 9.127, "chest")]
    score = score_trace(truth, [_event(18600.0, 7, 9.09, "chest")])
    assert (score.place_tp, score.place_grams_wrong, score.spurious_place) == (1, 0, 0)
    assert score.latency_place == [18600.0 - 17749.0]
    assert [m.split(" at ")[0] for m in score.misses] == [" place missed"]


def test_of_two_places_that_fit_a_record_the_one_decided_after_the_hand_left_is_its_own():
    # a piece on z9 reported on z10 just before a second piece lands on z10 (extra 2029): the
    # second piece takes the place decided after its hand left, the first its wrong one
    truth = [_place(4545.0, 9, 4.341, "sailor"), _place(8310.0, 10, 4.182, "sailor")]
    events = [_event(7400.0, 10, 4.43, "sailor"), _event(9637.5, 10, 4.09, "sailor")]
    score = score_trace(truth, events)
    assert (score.place_tp, score.place_zone_wrong, score.spurious_place) == (1, 1, 0)
    assert score.latency_place == [9637.5 - 8310.0]


def test_a_place_that_fits_no_record_in_its_window_is_wrong_once_and_never_right():
    truth = [_place(1000.0, 3, 5.0, "plank")]
    score = score_trace(truth, [_event(1800.0, 3, 9.0, "chest")])
    assert (score.place_tp, score.place_grams_wrong, score.spurious_place) == (0, 1, 0)
