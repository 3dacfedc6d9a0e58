"""A load cell's zero that steps (issue 11, the zoo's `wear` family): a knock shifts a cell by
0.2-1.0 g, lighter than any piece, and it stays. The ship's level moves with it: the next
place is weighed from where the zones now stand, not from the level before the step, and
the step is no piece (no place, no fall, no shift)."""

from __future__ import annotations

import pytest
from support.zoo_ship import NO_WEAR, scripted_rows, zoo_params
from test_shipsense_detector import ITEMS, of_type

from bosun.sim import VirtualShip
from shipsense.detector import Detector


def stepped_session(
    seed: int, rate: int, script: list[dict], step: tuple[float, int, float], seconds: float = 6.0
) -> list[tuple]:
    """Rows of a `wear` ship (no power-up settling, no random steps or drift, no hops) whose
    zone `step[1]` (1-based) steps by `step[2]` grams at `step[0]` ms, through the HX711's
    filter (its four conversion periods at the rate)."""
    params = zoo_params("wear", seed, rate, "mat", **NO_WEAR)
    rows = scripted_rows(VirtualShip(params, seed), script, seconds)
    at_ms, zone, grams = step
    settle_ms = 4000.0 / rate
    for t_ms, zones_g, _, _ in rows:
        zones_g[zone - 1] += grams * min(max((t_ms - at_ms) / settle_ms, 0.0), 1.0)
    return rows


def detect(rows: list[tuple], rate: int) -> list[dict]:
    detector = Detector(rate_hz=rate, table="mat", items=ITEMS)
    events: list[dict] = []
    for row in rows:
        events.extend(detector.feed(*row))
    return events


def placed(events: list[dict]) -> list[tuple]:
    return [(p["zone"], p["item"]) for p in of_type(events, "place")]


def test_a_step_that_stood_before_a_place_began_is_the_level_the_piece_is_weighed_from():
    # zoo-wear-20709 at 10 SPS: zone 1's zero steps up 1 g and stands for half a second,
    # then a hand presses a bottle onto zone 6. The episode the step began saw the load rise
    # from it: weighed from the old level the bottle carried the step (4.3 g, a sailor) and
    # the zone the step was on (zone 1, where the episode began), and it was only decided
    # at the next touch
    script = [{"at_ms": 3000, "action": "place", "zone": 6, "item": "bottle", "press_g": 4.0}]
    rows = stepped_session(20709, 10, script, (2450.0, 1, 1.0))
    events = detect(rows, 10)
    assert placed(events) == [(6, "bottle")]
    assert of_type(events, "fall", "shift") == []


@pytest.mark.parametrize("seed", [20706, 20707])
def test_a_loss_lighter_than_any_piece_then_a_place_is_a_stay_and_the_place(seed):
    # zoo-wear-20706 at 80 SPS: zone 9's zero steps down 0.94 g, noticed leaving, and a
    # barrel comes onto zone 1 120 ms later: the weight "came back" (a shift 9 -> 1 of 3.8 g
    # and a plank on zone 9); the loss is no piece and stays, the barrel is placed from it
    script = [{"at_ms": 2680, "action": "place", "zone": 1, "item": "barrel", "press_g": 0}]
    rows = stepped_session(seed, 80, script, (2550.0, 9, -0.94))
    events = detect(rows, 80)
    assert placed(events) == [(1, "barrel")]
    assert of_type(events, "fall", "shift") == []
    assert [e["grams"] for e in of_type(events, "stay")] == [pytest.approx(0.94, abs=0.15)]


@pytest.mark.parametrize(("seed", "step_g"), [(20713, 0.7), (20721, -0.63), (20713, -0.8)])
def test_a_step_near_the_trigger_is_where_the_ship_rests_before_the_next_place(seed, step_g):
    # zoo-wear-20713 at 80 SPS: a step about as large as the trigger started episode after
    # episode that ended back "at rest" (or as a `stay`) without moving the levels; the ship
    # never rested long enough to be re-measured, and a sailor placed 2.4 s later was
    # weighed from the stale level (a plank with the step up, a bottle with it down)
    script = [{"at_ms": 4400, "action": "place", "zone": 10, "item": "sailor", "press_g": 0}]
    rows = stepped_session(seed, 80, script, (2000.0, 5, step_g), seconds=7.0)
    events = detect(rows, 80)
    assert placed(events) == [(10, "sailor")]
    assert of_type(events, "fall", "shift") == []
