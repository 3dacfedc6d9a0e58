"""Shifts the detector missed on the zoo's `rough` and `mixed` ships (issue 11)."""

from __future__ import annotations

import pytest
from test_shipsense_signals import ShipSignal

from bosun.sim.params import ITEM_GRAMS
from shipsense.detector import Detector

ITEMS = dict(ITEM_GRAMS)


def detect(signal: ShipSignal, items=None) -> list[dict]:
    detector = Detector(rate_hz=signal.rate_hz, table=signal.table, items=items)
    events: list[dict] = []
    for t_ms, zones_g, table_g, impact in signal.rows():
        events.extend(detector.feed(t_ms, zones_g, table_g, impact))
    return events


def of_type(events: list[dict], *types: str) -> list[dict]:
    return [e for e in events if e["type"] in types]


@pytest.mark.parametrize("rate_hz", [10, 80])
def test_a_shifted_piece_keeps_the_weight_it_was_weighed_with_when_placed(rate_hz):
    # zoo `rough` (20408-80sps-rough-both at 63575): pieces scatter +-10 % about their kind's
    # weight; a 10.6 g boat knocked from a yard onto the deck was booked with the calibrated
    # boat's 12.0 g (a miss). The piece keeps what it weighed when it was placed.
    signal = ShipSignal(rate_hz=rate_hz, seconds=6.0, noise_g=0.1, table="mat")
    signal.place(6, 11.1, 500.0, press_g=0.0)
    signal.shift(6, 4, 11.1, 3000.0, flight_ms=200.0)
    events = detect(signal, ITEMS)
    (place,) = of_type(events, "place")
    assert place["item"] == "boat" and not place.get("ambiguous"), place
    (shift,) = of_type(events, "shift")
    assert (shift["from"], shift["to"], shift["item"]) == (6, 4, "boat"), shift
    assert shift["grams"] == pytest.approx(11.1, abs=0.4)
