"""The detector on a worn ship (issue 11, the zoo's `wear` family): the HX711s read far off
after power-up and settle in; the detector starts afresh once they have, instead of learning
the settling as noise (which blinded its triggers for seconds) and as the empty ship."""

from __future__ import annotations

import pytest
from support.zoo_ship import NO_WEAR, scripted_rows, zoo_params
from test_shipsense_detector import ITEMS, of_type

from bosun.sim import VirtualShip
from shipsense import detector_rest
from shipsense import detector_tuning as tuning
from shipsense.detector import Detector

PLACE_RAT = [{"at_ms": 1200, "action": "place", "zone": 3, "item": "rat", "press_g": 0}]


def powered_up(seed: int, rate: int, script: list[dict], seconds: float = 6.0) -> list[tuple]:
    """Rows of a `wear` ship whose only wear is the HX711s settling after power-up."""
    # the settling drawn for the ship kept, the rest of its wear off
    params = zoo_params("wear", seed, rate, "mat", zero_step_per_min=0.0, gain_drift=(0.0,) * 11)
    return scripted_rows(VirtualShip(params, seed), script, seconds)


def feed(rows: list[tuple], detector: Detector | None = None) -> tuple[Detector, list[dict]]:
    detector = detector or Detector(rate_hz=80 if rows[1][0] < 50 else 10, table="mat", items=ITEMS)
    events: list[dict] = []
    for row in rows:
        events.extend(detector.feed(*row))
    return detector, events


@pytest.mark.parametrize("rate", [80, 10])
@pytest.mark.parametrize("seed", [20708, 20711, 20713])
def test_a_rat_placed_soon_after_power_up_is_placed_and_the_noise_is_the_cells(seed, rate):
    # zoo-wear: 20-500 g off at first on every channel, settled within 0-400 ms; the noise
    # learned from it blinded the triggers for seconds (places missed up to 14 s in)
    rows = powered_up(seed, rate, PLACE_RAT)
    assert max(abs(v) for v in rows[0][1]) > 20.0  # far off at first
    detector, events = feed(rows)
    assert detector.sigma_total() < 0.6  # ten zones' noise, not the settling
    places = of_type(events, "place")
    assert [(p["zone"], p["item"]) for p in places] == [(3, "rat")]
    assert of_type(events, "fall", "collect", "leaving", "shift") == []


@pytest.mark.parametrize("rate", [80, 10])
def test_the_detector_starts_afresh_once_no_channel_has_jumped_for_a_while(rate):
    rows = powered_up(20708, rate, PLACE_RAT)
    step = tuning.POWER_UP_STEP_G

    def jumped(k: int) -> bool:
        now, before = rows[k][1] + [rows[k][2]], rows[k - 1][1] + [rows[k - 1][2]]
        return any(abs(a - b) > step for a, b in zip(now, before, strict=True))

    calm_n = Detector(rate_hz=rate).power_up_calm_n
    assert calm_n == max(2, round(0.2 * rate))
    start = next(
        k for k in range(calm_n, len(rows)) if not any(map(jumped, range(k - calm_n + 1, k + 1)))
    )
    assert jumped(1) and start > calm_n
    _, events = feed(rows)
    # exactly what a detector switched on at that sample decides
    _, fresh = feed(rows[start:], Detector(rate_hz=rate, table="mat", items=ITEMS))
    assert events == fresh and of_type(events, "place")


@pytest.mark.parametrize(("jumps", "settling"), [((30.0, -8.0), False), ((30.0, -8.0, 2.5), True)])
def test_only_a_jump_on_several_channels_at_once_is_the_hx711s_settling(jumps, settling):
    # at the second sample two zones jump (a hand at once, a glitch): read from the first
    # sample on; three channels at once (zones 5, 7 and the mat): power-up, skipped
    rows = [(12.5 * k, [0.05 * i for i in range(10)], 0.0, None) for k in range(3)]
    for channel, jump in zip((4, 6, 10), jumps, strict=False):
        if channel < 10:
            rows[1][1][channel] += jump
        else:
            rows[1] = (*rows[1][:2], jump, None)
    detector, _ = feed(rows)
    # still settling: the second and third samples (back again: another jump) are skipped
    assert detector.k == (0 if settling else 2)
    assert (detector.power_up == detector_rest.POWER_UP_SETTLING) is settling


def test_a_channel_slower_to_calm_than_any_hx711_does_not_keep_the_detector_deaf():
    # power-up settling on every channel, and zone 5 goes on jumping 3 g a sample for 2.5 s
    # (a bad cell): after POWER_UP_MAX_MS the detector starts anyway, and places the rat
    rows = powered_up(20708, 80, [{**PLACE_RAT[0], "at_ms": 9000}], seconds=12.0)
    for k, row in enumerate(rows[:200]):
        row[1][4] += 3.0 * (k % 2)
    detector, events = feed(rows)
    assert detector.k == len(rows) - 1 - 161  # the first sample, then 2 s skipped, read on
    places = of_type(events, "place")
    assert [(p["zone"], p["item"]) for p in places] == [(3, "rat")]


@pytest.mark.parametrize(("step_g", "item"), [(1.0, "bottle"), (0.92, "barrel"), (1.0, "rat")])
def test_a_cells_zero_that_stepped_is_where_the_ship_rests_before_the_next_place(step_g, item):
    # a knock shifts zone 1's load cell: its zero steps by up to 1 g (below the lightest
    # piece's 2.6 g: no place, no fall). Waiting 1.2 s to take it as the ship's rest held
    # the episode open, and a piece placed on zone 6 0.7 s after the step was weighed on top
    # of it and booked on zone 1 (zoo-wear-20701 at 80 SPS, 4114 ms)
    seed = 20701
    params = zoo_params("wear", seed, 80, "mat", **NO_WEAR)
    script = [{"at_ms": 2700, "action": "place", "zone": 6, "item": item, "press_g": 0}]
    rows = scripted_rows(VirtualShip(params, seed), script, 6.0)
    for t_ms, zones_g, _, _ in rows:  # the step, through the HX711's filter (4 periods)
        zones_g[0] += step_g * min(max((t_ms - 2000.0) / 50.0, 0.0), 1.0)
    _, events = feed(rows)
    places = of_type(events, "place")
    assert [(p["zone"], p["item"]) for p in places] == [(6, item)]
    assert of_type(events, "fall", "shift", "leaving") == []
