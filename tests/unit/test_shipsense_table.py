"""The table channel: mat episodes become land events that count the piezo's strikes."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_shipsense_detector import ITEMS, detect, detect_excerpt, of_type
from test_shipsense_signals import MAT, ShipSignal

from shipsense.detector_topple import ringing_level
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


def mat_after(mat_g_at, until_ms: float) -> tuple[TableSense, int]:
    """A TableSense fed `mat_g_at` at 80 SPS up to `until_ms`, and its last sample."""
    sense = TableSense(samples, True, True)
    k = 0
    for k in range(int(until_ms / 12.5) + 1):
        sense.step(k, k * 12.5, mat_g_at(k * 12.5), 0, 0)
    return sense, k


def test_a_piece_ringing_the_mat_about_its_weight_is_weighed_before_the_mat_holds_still():
    def ringing(t):  # a crate lands at 1000 ms and rings the mat at 15 Hz, dying away
        if t < 1000:
            return 0.0
        dt = (t - 1000) / 1000
        return 7.8 + 3.0 * math.exp(-dt / 0.05) * math.sin(2 * math.pi * 15 * dt)

    steady_at = still_at = None
    for until in range(1050, 1400, 25):
        sense, k = mat_after(ringing, until)
        if steady_at is None and sense.steady_mean(k, 6, 1.3) is not None:
            steady_at, grams = until, sense.steady_mean(k, 6, 1.3)
        if still_at is None and sense.still_mean(k, 5) is not None:
            still_at = until
    assert steady_at is not None and still_at is not None and steady_at < still_at
    assert abs(grams - 7.8) < 0.8


def test_a_piece_ringing_the_mat_hard_is_weighed_by_the_level_its_ring_dies_toward():
    # the second ship's mat: a piece toppled onto it swung it 50-120 g each way at 8-18 Hz,
    # dying away over half a second; the mean of a fifth of a second of it depends on where
    # in the ring the window falls until the ring has nearly gone, the level it dies toward
    # does not
    def ringing(t, grams=9.0, swing_g=100.0):
        if t < 1000:
            return 0.0
        dt = (t - 1000) / 1000
        return grams + swing_g * math.exp(-dt / 0.25) * math.sin(2 * math.pi * 10 * dt)

    ringing_at = steady_at = None
    for until in range(1100, 2600, 25):
        sense, k = mat_after(ringing, until)
        if ringing_at is None and ringing_level(sense, k, 16) is not None:
            ringing_at, grams = until, ringing_level(sense, k, 16)
        if steady_at is None and sense.steady_mean(k, 6, 1.3) is not None:
            steady_at = until
    assert ringing_at is not None and steady_at is not None and ringing_at < steady_at - 600
    assert abs(grams - 9.0) < 0.3

    # a piece that bounced off (or a knock) rings the mat about its base: nothing rests
    def ripple(t):
        return ringing(t, grams=0.0, swing_g=120.0)

    ripple_at = still_at = None
    for until in range(1100, 3000, 25):
        sense, k = mat_after(ripple, until)
        mean = ringing_level(sense, k, 16)
        assert mean is None or abs(mean) < 0.5, until
        if ripple_at is None and mean is not None:
            ripple_at = until
        if still_at is None and sense.still_mean(k, 5) is not None:
            still_at = until
    assert ripple_at is not None and still_at is not None and ripple_at < still_at - 300

    # a level still climbing is not one yet, nor is one that a piece hopped off a moment ago
    def rising(t):
        return 0.0 if t < 1000 else min(9.0, (t - 1000) * 0.01)

    def hopped(t):
        return 0.0 if t < 1000 or 1200 <= t < 1250 else 9.0

    for mat, until in ((rising, 1600), (hopped, 1350)):
        sense, k = mat_after(mat, until)
        assert ringing_level(sense, k, 16) is None, (mat.__name__, until)


def first_ringing_level(
    hz: float, tau_s: float, swing_g: float, grams: float
) -> tuple[float, float] | None:
    """When (ms after the landing) and what a piece landing at 1000 ms that rings the mat at
    `hz`, dying away over `tau_s`, is first weighed by ringing_level over 16 samples (the
    detector's 200 ms at 80 SPS); None if never."""
    sense = TableSense(samples, True, True)
    for k in range(int(3000 / 12.5)):
        t = k * 12.5
        dt = (t - 1000) / 1000
        ring = swing_g * math.exp(-dt / tau_s) * math.sin(2 * math.pi * hz * dt)
        sense.step(k, t, 0.0 if t < 1000 else grams + ring, 0, 0)
        level = ringing_level(sense, k, 16)
        if level is not None:
            return t - 1000, level
    return None


@pytest.mark.parametrize(
    ("hz", "tau_s", "swing_g", "grams"),
    [
        (18.0, 0.12, 60.0, 2.4),
        (18.0, 0.2, 100.0, 7.8),
        (12.0, 0.2, 60.0, 5.0),
        (8.0, 0.15, 110.0, 7.7),
        (5.0, 0.3, 30.0, 9.0),
    ],
)
def test_a_hard_ring_is_weighed_from_how_it_dies_away_whatever_its_frequency(
    hz, tau_s, swing_g, grams
):
    # the second ship's mat rings 8-18 Hz. A mean over 200 ms, even weighted to its middle,
    # moved with the ring's phase until the ring had nearly died (18 Hz: 350 and 300 ms
    # after the landing, 12 Hz: 650 ms); the level the ring dies toward is found as soon
    # as the window holds the ring alone, at 18 Hz too, where a crest is a sample or two
    # and the glitch filter must let it be
    at_ms, level = first_ringing_level(hz, tau_s, swing_g, grams)
    assert at_ms <= 250.0
    assert level == pytest.approx(grams, abs=0.3)


def test_a_slow_ripple_about_the_base_is_left_to_hold_still():
    # a knock's first swings, or a piece that bounced off, ring about the mat's base: the
    # base is taken as what rests only once the window has crossed it four times (a period
    # and a half; a knock's first swing is no ring yet: the second ship's seed 1112 weighed
    # one as a rat). A 5 Hz ripple, of which 200 ms hold one period, is left to hold still;
    # a 5 Hz ring about a piece's weight is weighed (test above)
    assert first_ringing_level(5.0, 0.3, 30.0, 0.0) is None
    at_ms, level = first_ringing_level(12.0, 0.3, 30.0, 0.0)
    assert level == pytest.approx(0.0, abs=0.3)


def test_a_lone_glitch_on_a_still_mat_is_still_taken_out_at_80_sps():
    # a ring's crest passes the glitch filter because the mat moved as far a sample before;
    # a still mat did not, so a lone sample 20 g off is no weight and starts no episode
    sense = TableSense(samples, True, True)
    for k in range(200):
        grams = 20.0 if k == 120 else 0.0
        assert sense.step(k, k * 12.5, grams + 0.05 * (k % 3), 0, 0) is None
        assert abs(sense.level - sense.base) < 1.0


@pytest.mark.parametrize(
    ("late_ms", "one_landing"), [(350.0, True), (450.0, True), (1500.0, False)]
)
def test_a_landing_the_mat_weighs_in_two_steps_is_counted_as_one(late_ms, one_landing):
    # the second ship's seed 1011, 10 SPS: a chest toppled onto the mat, which held still at
    # 7.9 g, ended its episode, and took the last 1.1 g in a second one at once (its filter
    # still moving). The mat's word on what landed was the 1.1 g: the chest was lost. An
    # episode beginning within the mat's settling time of one that left weight continues
    # that landing; a later one is a landing of its own
    def mat(t):
        return (8.2 if t >= 1000 else 0.0) + (1.1 if t >= 1000 + late_ms else 0.0)

    sense, _ = mat_after(mat, 4000.0)
    first_onset = round(1000 / 12.5)
    assert sense.landed_g == pytest.approx(9.3 if one_landing else 1.1, abs=0.05)
    assert (sense.landed_k <= first_onset + 1) is one_landing


@pytest.mark.parametrize("late_ms", [350.0, 450.0])
@pytest.mark.parametrize("item", ["chest", "boat"])
def test_rr11_a_topple_the_mat_weighs_in_two_steps_as_the_hand_lingers_is_that_piece(item, late_ms):
    # the scene of seed 1011, drawn at 10 SPS: a piece pressed onto the deck toppled off as
    # the hand let go and landed on the mat, which took its last 12 % `late_ms` later; the
    # hand came back and rested on the ship, so the rise that vanished was judged only once
    # both landings had ended. Judged by the second alone (1.2-1.5 g) it was a touch, or a
    # rat placed and fallen
    zone = 4 if item == "chest" else 3
    grams = ITEMS[item]
    signal = ShipSignal(rate_hz=10, seconds=8.0, seed=0, noise_g=0.1, table="mat")
    let_go = signal.place(zone, grams, 3000.0, press_g=40.0)
    signal.step(zone - 1, -grams, let_go + 30.0, 60.0)
    signal.pulse(zone - 1, 6.0, let_go + 150.0, 900.0)  # the hand comes back and rests
    land = let_go + 280.0
    signal.ring(MAT, 3.0 * grams, land, hz=25.0, tau_ms=20.0)
    signal.step(MAT, 0.88 * grams, land, 8.0)
    signal.step(MAT, 0.12 * grams, land + late_ms, 60.0)
    events = of_type(detect(signal, ITEMS), "place", "fall", "touch")
    assert [
        (e["type"], e.get("zone"), e.get("zones"), e.get("item"), e.get("items")) for e in events
    ] == [
        ("place", zone, None, item, None),
        ("fall", None, [zone], None, [item]),
    ]


def test_a_mat_that_a_piece_hops_off_or_is_still_climbing_is_not_steady():
    def hopped(t):  # it hopped off the mat for a moment
        return 0.0 if t < 1000 or 1030 <= t < 1050 else 7.8

    def rising(t):  # the level still climbing: the two halves disagree
        return 0.0 if t < 1000 else min(7.8, 2.0 + (t - 1000) * 0.08)

    for mat in (hopped, rising):
        sense, k = mat_after(mat, 1070.0)
        assert sense.steady_mean(k, 6, 1.3) is None


def noisy_mat(
    noise_g_at, landing_ms: float, grams: float, until_ms: float, rate=80, base_g=0.0, seed=7
) -> tuple[list[dict], float]:
    """A mat at `rate` SPS tared at `base_g`, with white noise of `noise_g_at(t)` g sd
    (seeded), a piece of `grams` landing at `landing_ms` and staying: its events, and the
    longest any of its episodes ran (ms; one still running counts to the end)."""
    rng = random.Random(seed)
    period = 1000.0 / rate
    sense = TableSense(lambda ms: max(1, round(ms / period)), True, False)
    events, longest = [], 0.0
    for k in range(int(until_ms / period)):
        t = k * period
        value = base_g + (grams if t >= landing_ms else 0.0) + rng.gauss(0.0, noise_g_at(t))
        events += sense.step(k, t, value, None, 1 if t >= landing_ms - 100 else 0) or []
        if sense.active:
            longest = max(longest, (k - sense.onset_k) * period)
    return events, longest


def test_a_noisy_mat_learns_its_noise_before_judging_and_weighs_a_landing():
    # the second ship's noisiest mat (0.2 g at 10 SPS, 0.56 g at 80): judged by a guessed
    # noise it began an episode at once and never held still, and weighed nothing all game
    events, _ = noisy_mat(lambda t: 0.56, 4000.0, 5.2, 7000.0)
    (land,) = events
    assert land["type"] == "land" and abs(land["grams"] - 5.2) < 0.5
    assert land["t_ms"] >= 3900


def test_a_mat_noisier_than_it_learned_relearns_and_weighs_a_later_landing():
    # quiet while it learned, then as noisy as the noisiest mat: the episode its noise began
    # ends once it has run long past any ring, and a later landing is weighed
    events, _ = noisy_mat(lambda t: 0.05 if t < 600 else 0.56, 9000.0, 5.2, 12000.0)
    lands = [e for e in events if e["type"] == "land" and e["t_ms"] >= 8900]
    assert len(lands) == 1 and abs(lands[0]["grams"] - 5.2) < 0.5


@settings(max_examples=60, deadline=None)
@given(
    rate=st.sampled_from([10, 80]),
    noise_g=st.floats(0.01, 0.8),
    base_g=st.floats(-30.0, 30.0),
    grams=st.floats(2.5, 30.0),
    landing_s=st.floats(2.0, 8.0),
    seed=st.integers(0, 2**16),
)
def test_a_mat_of_any_noise_ends_every_episode_and_weighs_what_landed(
    rate, noise_g, base_g, grams, landing_s, seed
):
    # whatever the mat's noise (to past the second ship's 0.56 g) and its tare, no episode
    # runs on: each ends within the stuck time and the relearning after it, and a piece that
    # landed and stayed is weighed once the mat holds still (RR13a: what reached the table)
    landing_ms = landing_s * 1000.0
    events, longest = noisy_mat(
        lambda t: noise_g, landing_ms, grams, landing_ms + 12000.0, rate, base_g, seed
    )
    assert longest <= 8000.0, "a mat episode that never ends"
    lands = [e for e in events if e["type"] == "land" and e["t_ms"] >= landing_ms - 200]
    if grams >= 6.0 * noise_g * 1.5 + 1.0:  # well above what the noise may hide
        weighed = sum(e["grams"] for e in lands)
        assert weighed == pytest.approx(grams, abs=max(1.0, 0.12 * grams))


@pytest.mark.parametrize("seed", range(12))
def test_rr11_at_80_sps_the_mat_holds_still_as_soon_as_its_noise_allows(seed):
    # issue 11: the mat is still when its readings stay within the band its noise keeps to
    # over the window. A fixed 4.5 sigma is that band over 5 samples (10 SPS), but over 40
    # (80 SPS) the noise alone strays past it about half the time: a barrel resting on the
    # mat was judged still up to 0.6 s late (seeds 6 and 9 here), and on the second ship the
    # mat's verdict took 1.15 s (median) at 80 SPS against 0.8 s at 10 SPS
    signal = ShipSignal(rate_hz=80, seconds=6.0, noise_g=0.2, table="mat", seed=seed)
    signal.place(4, ITEMS["barrel"], 500.0)
    flight_ms = 200.0
    left = signal.fall(4, ITEMS["barrel"], 3000.0, flight_ms=flight_ms)
    (land,) = of_type(detect(signal, ITEMS), "land")
    assert land["grams"] == pytest.approx(ITEMS["barrel"], abs=0.3)
    assert land["decided_ms"] - (left + flight_ms) <= 650.0  # MAT_SETTLE_FALL_MS and a little


def test_rr11_a_piece_that_bounced_off_a_ringing_mat_is_not_weighed_by_the_ring():
    # zoo-rings-21100 (80 SPS, a mat): a barrel (5.9 g) pressed onto yard 10 with 13 g
    # toppled off as it was let go, struck the mat, which rang on with ten times its weight,
    # and bounced off. The ring fit read the first swings, the landing's blow and the ring
    # together, as a ring dying toward 1.85 g, a rat placed and fallen. One damped mode
    # must explain nine tenths of the window's motion; here it does not, and the mat is
    # left to say nothing rests on it: the touch stands, marked toppled (the referee asks)
    items = {"boat": 11.87, "barrel": 6.03, "bottle": 3.29, "crate": 7.68, "chest": 9.44}
    items |= {"plank": 5.16, "sailor": 4.43, "rat": 2.65}
    events = detect_excerpt(
        "zoo_rings_21100_a_barrel_topples_off_yard_10_and_bounces_off_a_mat_that_rings",
        80,
        "mat",
        items,
    )
    assert of_type(events, "place", "fall") == []
    (touch,) = of_type(events, "touch")
    assert touch["zones"] == [10] and touch["toppled"]
