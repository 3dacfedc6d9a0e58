"""Fusion (issue 11, item 2): a fall from any zone is decided once the table felt it land.

The landing clock waits as long as a piece leaving a zone needs to land on a lower zone. When
the mat already holds what the ship lost, or (a piezo alone) the table was struck no sooner
than the piece could reach it and the load cells, given time to show a landing aboard, still
miss the weight, the piece did not land aboard: the fall is decided then. A piece that lands
on a lower zone stays a `shift`, even when the ship rings the piezo as it lands.
"""

from __future__ import annotations

import pytest
from test_shipsense_detector import ITEMS, detect, of_type
from test_shipsense_signals import ShipSignal

from shipsense import detector_tuning, geometry

FLIGHT_MS = {3: 110.0, 5: 205.0, 7: 240.0, 9: 270.0}  # to the table, tumbling a little


def fall_latency(zone: int, table: str, rate_hz: int) -> tuple[float, dict]:
    """A barrel falls off `zone` onto the table: how long after it left the fall was decided."""
    signal = ShipSignal(rate_hz=rate_hz, seconds=6.0, noise_g=0.1, table=table)
    signal.place(zone, 6.1, 500.0)
    left = signal.fall(zone, 6.1, 3000.0, flight_ms=FLIGHT_MS[zone])
    (fall,) = of_type(detect(signal, ITEMS), "fall")
    return fall["decided_ms"] - left, fall


def shift_events(table: str, rate_hz: int, source: int, target: int, flight_ms: float, **more):
    """A barrel drops from `source` onto `target`; `ring`: the ship rings the piezo as it
    lands; `knock_after_ms`: a knock on the table that long after it left its zone."""
    signal = ShipSignal(rate_hz=rate_hz, seconds=6.0, noise_g=0.1, table=table)
    signal.place(source, 6.1, 500.0)
    left = signal.shift(source, target, 6.1, 3000.0, flight_ms=flight_ms)
    if more.get("ring"):
        signal.impacts[signal.index(left + flight_ms)] = 1
    if more.get("knock_after_ms") is not None:
        signal.knock(left + more["knock_after_ms"])
    return detect(signal, ITEMS)


def test_the_soonest_a_piece_reaches_the_table_is_its_free_fall_from_the_ships_geometry():
    # a copy, like LANDING_MS: importing geometry would put it on the ESP32's heap; and the
    # table is below every zone, so it is always reached later than any lower zone
    assert geometry.table_clocks_ms() == detector_tuning.TABLE_SOONEST_MS
    for zone in range(5, 11):
        assert detector_tuning.table_soonest_ms(zone) > detector_tuning.landing_ms(zone)


@pytest.mark.parametrize("zone", [5, 7, 9])
def test_a_yard_fall_is_decided_once_the_mat_holds_what_the_ship_lost(zone):
    # before, only a deck fall was: a yard fall waited out its landing clock
    clocked, _ = fall_latency(zone, "none", 80)
    fused, fall = fall_latency(zone, "mat", 80)
    assert fused <= clocked - 20, (fused, clocked)
    assert (fall["zones"], fall["items"]) == ([zone], ["barrel"])
    assert fall["grams"] == pytest.approx(6.1, abs=0.5)


@pytest.mark.parametrize("rate_hz", [80, 10])
@pytest.mark.parametrize("zone", [3, 5, 9])
def test_a_fall_the_piezo_heard_land_is_decided_then_from_any_zone(zone, rate_hz):
    # a piezo alone: the strike came no sooner than the piece could reach the table, and the
    # ship still misses the weight once its load cells could show a landing aboard
    clocked, _ = fall_latency(zone, "none", rate_hz)
    fused, fall = fall_latency(zone, "piezo", rate_hz)
    assert fused <= clocked - (20 if rate_hz == 80 else 90), (fused, clocked)
    assert (fall["zones"], fall["items"]) == ([zone], ["barrel"])
    assert fall["grams"] == pytest.approx(6.1, abs=0.5)


@pytest.mark.parametrize("rate_hz", [80, 10])
def test_the_piezo_decides_a_fall_but_not_a_piece_landing_aboard_as_the_ship_rings(rate_hz):
    # the piezo hears the ship ring as a piece from the top yard lands on the deck (or from
    # the middle yard on the lowest, or a deck piece tumbling into the next quarter): the
    # weight comes back, it stays a shift; the same strike after a fall decides it at once
    clocked, _ = fall_latency(9, "none", rate_hz)
    fused, _ = fall_latency(9, "piezo", rate_hz)
    assert fused < clocked
    for source, target, flight_ms in ((9, 3, 240.0), (7, 5, 120.0), (1, 2, 150.0)):
        events = shift_events("piezo", rate_hz, source, target, flight_ms, ring=True)
        assert of_type(events, "fall") == [], (source, target)
        (shift,) = of_type(events, "shift")
        assert (shift["from"], shift["to"], shift["item"]) == (source, target, "barrel")


@pytest.mark.parametrize("table", ["piezo", "mat"])
def test_a_knock_while_a_piece_drops_onto_a_lower_zone_leaves_it_a_shift(table):
    # a knock on the table while the piece is in the air, or as it lands aboard: the weight
    # comes back before the table's word is taken; a fall heard the same way is decided sooner
    clocked, _ = fall_latency(9, "none", 80)
    fused, _ = fall_latency(9, table, 80)
    assert fused < clocked
    for source, target, flight_ms in ((9, 3, 240.0), (1, 2, 150.0)):
        for knock_after_ms in (50.0, 100.0, 150.0, 200.0, 250.0):
            if knock_after_ms > flight_ms + 60.0:
                continue
            events = shift_events(
                table, 80, source, target, flight_ms, knock_after_ms=knock_after_ms
            )
            assert of_type(events, "fall") == [], (source, knock_after_ms)
            (shift,) = of_type(events, "shift")
            assert (shift["from"], shift["to"]) == (source, target)


@pytest.mark.parametrize("table", ["mat", "piezo"])
def test_a_second_piece_following_the_first_is_still_weighed_on_its_own(table):
    # a cascade: the first piece's drop paused and went on; it is judged on its own clock
    # (the split), the second piece as it lands; at 10 SPS both fall sooner than before
    for rate_hz in (80, 10):
        signal = ShipSignal(rate_hz=rate_hz, seconds=6.0, noise_g=0.1, table=table)
        signal.place(9, 6.1, 300.0)
        signal.place(5, 7.6, 1500.0)
        left = signal.fall(9, 6.1, 3000.0, flight_ms=270.0)
        signal.fall(5, 7.6, 3200.0, flight_ms=205.0)
        falls = of_type(detect(signal, ITEMS), "fall")
        assert sorted(item for fall in falls for item in fall["items"]) == ["barrel", "crate"]
        assert sum(fall["grams"] for fall in falls) == pytest.approx(13.7, abs=0.8)
        if rate_hz == 10:
            assert falls[0]["decided_ms"] - left <= 900


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_rr13_a_deck_piece_following_a_yard_piece_is_decided_when_the_first_lands(seed):
    # a cascade too close to split: a bottle leaves yard 9 and a chest quarter 2 120 ms
    # later; both land on the mat together. The mat began to take them no sooner than the
    # bottle could reach it, though sooner than a piece from yard 9 seen gone as late as
    # the chest was: the first piece seen gone sets how soon the table may feel a landing
    signal = ShipSignal(rate_hz=80, seconds=7.0, seed=seed, noise_g=0.1, table="mat")
    signal.place(9, ITEMS["bottle"], 500.0)
    signal.place(2, ITEMS["chest"], 1800.0)
    left = signal.fall(9, ITEMS["bottle"], 4000.0, flight_ms=300.0)
    signal.fall(2, ITEMS["chest"], 4120.0, flight_ms=170.0)
    (fall,) = of_type(detect(signal, ITEMS), "fall")
    assert (sorted(fall["items"]), fall["zones"]) == (["bottle", "chest"], [2, 9])
    assert fall["grams"] == pytest.approx(ITEMS["bottle"] + ITEMS["chest"], abs=0.8)
    assert fall["decided_ms"] - left <= 420
