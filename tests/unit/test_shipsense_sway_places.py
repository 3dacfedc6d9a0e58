"""Light pieces on a swaying ship with strong crosstalk (issue 11, the zoo's `sway` family):
the zone a place is booked on, and what the zones read afterwards."""

from __future__ import annotations

import pytest
from test_shipsense_detector import ITEMS, detect, of_type
from test_shipsense_signals import ShipSignal


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
