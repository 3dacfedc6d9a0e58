"""The detector under hypothesis (issue 11): whatever a hand letting go, a piece toppling off,
cargo falling or moving, a ringing mat and a touch do together, at either rate and on every
table, the detector keeps going and every event it sends is one the host takes (the
`ship/event` contract, ../shared/DESIGN.md), decided no sooner than it happened and sent in
the order it was decided, and a `shift` is a move a piece can make (geometry.py: down its
yard's side, or on the deck to a quarter beside it), even where the drawn weight went
elsewhere (RR13)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_shipsense_signals import MAT, ShipSignal

from bosun.sim.params import ITEM_GRAMS
from shipsense import protocol
from shipsense.detector import Detector
from shipsense.detector_shift import can_move
from shipsense.ship_messages import check_event

PIECES = sorted(ITEM_GRAMS.items())
OUTCOMES = st.sampled_from(["landed", "caught", "bounced"])


@st.composite
def scenes(draw) -> ShipSignal:
    """Cargo aboard; then a piece let go (pressed or not) that may topple off, or slide or hop
    onto another zone as it is let go, while each piece of cargo stays, falls or drops onto
    another zone, the mat may rock, a hand may touch, and a hand may rest on the ship at a
    piece's weight and lift."""
    rate = draw(st.sampled_from([10, 80]))
    table = draw(st.sampled_from(["mat", "piezo", "both", "none"]))
    signal = ShipSignal(seconds=7.0, noise_g=0.1, table=table, rate_hz=rate)
    zones = draw(st.lists(st.integers(1, 10), max_size=3, unique=True))
    cargo = []
    for zone in zones:
        _, grams = draw(st.sampled_from(PIECES))
        signal.place(zone, grams, 300.0, press_g=0.0)
        cargo.append((zone, grams))
    zone = draw(st.integers(1, 10))
    _, grams = draw(st.sampled_from(PIECES))
    press = draw(st.sampled_from([0.0, 15.0, 50.0]))
    let_go = signal.place(zone, grams, 2500.0, press_g=press, press_ms=400.0)
    fate = draw(st.sampled_from(["stays", "topples", "moves"]))
    if fate == "topples":  # it topples off as it is let go, or a moment later
        at = let_go + draw(st.floats(0.0, 400.0))
        signal.fall(zone, grams, at, outcome=draw(OUTCOMES), flight_ms=draw(st.floats(120, 300)))
    elif fate == "moves":  # it slides or hops onto another zone as it is let go, or soon after
        at = let_go + draw(st.floats(-50.0, 900.0))
        target = draw(st.integers(1, 10).filter(lambda z: z != zone))
        signal.shift(zone, target, grams, at, flight_ms=draw(st.floats(30, 250)))
    for source, cargo_g in cargo:
        at = let_go + draw(st.floats(-300.0, 600.0))
        what = draw(st.sampled_from(["stays", "falls", "moves"]))
        if what == "falls":
            flight = draw(st.floats(120, 300))
            signal.fall(source, cargo_g, at, outcome=draw(OUTCOMES), flight_ms=flight)
        elif what == "moves":
            target = draw(st.integers(1, 10).filter(lambda z, s=source: z != s))
            signal.shift(source, target, cargo_g, at, flight_ms=draw(st.floats(60, 250)))
    if draw(st.booleans()):
        hz = draw(st.floats(6.0, 20.0))
        signal.ring(MAT, draw(st.floats(0.5, 30.0)), let_go + 300.0, hz=hz, tau_ms=200.0)
    if draw(st.booleans()):
        at = let_go + draw(st.floats(100.0, 2500.0))
        signal.touch([draw(st.integers(1, 10))], draw(st.floats(2.0, 20.0)), at)
    if draw(st.booleans()):  # a hand rests on a zone at a piece's weight, then lifts
        _, weight = draw(st.sampled_from(PIECES))
        at = let_go + draw(st.floats(-1500.0, 1500.0))
        signal.pulse(draw(st.integers(0, 9)), weight, at, draw(st.floats(300.0, 1500.0)))
    return signal


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenes())
def test_every_event_is_one_the_host_takes_decided_after_it_happened_and_in_order(signal):
    detector = Detector(rate_hz=signal.rate_hz, table=signal.table, items=dict(ITEM_GRAMS))
    last_decided = float("-inf")
    seq = 0
    for t_ms, zones_g, table_g, impact in signal.rows():
        for event in detector.feed(t_ms, zones_g, table_g, impact):
            seq += 1
            check_event(protocol.event_message(event, "b1", seq))
            assert event["t_ms"] <= event["decided_ms"] <= t_ms, event
            assert event["decided_ms"] >= last_decided, event
            last_decided = event["decided_ms"]
            if event["type"] == "shift":  # (can_move is the geometry: test_shipsense_shifts)
                assert can_move(detector, event["from"] - 1, event["to"] - 1), event
