"""The table channel: mat episodes become land events that count the piezo's strikes."""

from __future__ import annotations

from test_shipsense_detector import ITEMS, detect, of_type
from test_shipsense_signals import ShipSignal

from shipsense.table import TableSense


def samples(ms: float) -> int:
    return max(1, round(ms / 12.5))  # 80 SPS


def run(mat_g_at, hits_at_ms, fall_context=1, until_ms=3000.0):
    sense = TableSense(samples, True, True)
    events = []
    for k in range(int(until_ms / 12.5)):
        t = k * 12.5
        impact = 1 if any(h <= t < h + 25 for h in hits_at_ms) else 0
        context = fall_context if t >= 900 else 0
        events += sense.step(k, t, mat_g_at(t), impact, context) or []
    return [e for e in events if e["type"] == "land"]


def test_a_landing_and_a_bounce_are_two_strikes():
    def mat(t):  # a rat lands at 1000 ms and stays; a barrel rests 60 ms from 1100 and leaves
        grams = 2.6 if t >= 1000 else 0.0
        return grams + (6.1 if 1100 <= t < 1160 else 0.0)

    (land,) = run(mat, hits_at_ms=[1000.0, 1100.0])
    assert land["grams"] == 2.6 and land["impacts"] == 2


def test_a_piece_that_bounced_alone_is_one_strike_and_no_weight():
    (land,) = run(lambda t: 6.1 if 1000 <= t < 1080 else 0.0, hits_at_ms=[1000.0])
    assert land["bounced"] is True and land["grams"] == 0.0 and land["impacts"] == 1


def test_without_a_piezo_no_strikes_are_reported():
    sense = TableSense(samples, True, False)
    events = []
    for k in range(240):
        t = k * 12.5
        events += sense.step(k, t, 2.6 if t >= 1000 else 0.0, None, 1 if t >= 900 else 0) or []
    (land,) = [e for e in events if e["type"] == "land"]
    assert "impacts" not in land


def test_at_10_sps_a_piece_dropping_off_the_deck_is_heard_landing_not_knocking():
    # the piezo hears the strike at once, the load cells show the piece leaving some 200 ms
    # later (the HX711 settles over four periods): the hit waits for the ship's verdict
    for table in ("piezo", "both"):
        signal = ShipSignal(rate_hz=10, seconds=6.0, noise_g=0.05, table=table)
        signal.place(3, 6.1, 1000.0)
        signal.fall(3, 6.1, 4000.0, flight_ms=110.0)
        events = detect(signal, ITEMS)
        assert of_type(events, "knock") == [], table
        (land,) = of_type(events, "land")
        assert land["impacts"] == 1
        (fall,) = of_type(events, "fall")
        assert fall["items"] == ["barrel"]


def test_a_knock_with_nothing_leaving_the_ship_stays_a_knock_at_10_sps():
    signal = ShipSignal(rate_hz=10, seconds=5.0, noise_g=0.05, table="piezo")
    signal.knock(2000.0)
    events = detect(signal)
    (knock,) = of_type(events, "knock")
    assert 1900 <= knock["t_ms"] <= 2200
    assert of_type(events, "land", "place", "fall") == []
