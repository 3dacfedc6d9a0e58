"""The host's de-duplication of ship events by (boot, seq), gap detection and resend requests."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bosun.bus.dedup import EventDeduplicator
from shipsense import protocol


def test_each_event_is_accepted_once():
    dedup = EventDeduplicator()
    assert [dedup.accept("b1", seq, 0.0) for seq in (1, 2, 2, 3, 1)] == [
        True,
        True,
        False,
        True,
        False,
    ]
    assert dedup.duplicates == 2
    assert dedup.highest("b1") == 3


def test_a_new_boot_is_a_new_stream():
    dedup = EventDeduplicator()
    assert dedup.accept("old", 1, 0.0)
    assert dedup.accept("new", 1, 0.0)
    assert not dedup.accept("old", 1, 0.0)


def test_a_gap_is_asked_for_after_the_grace_period_and_not_before():
    dedup = EventDeduplicator(gap_grace_s=1.0)
    for seq in (1, 2, 6):
        dedup.accept("b1", seq, 10.0)
    assert [(g.first, g.last) for g in dedup.gaps()] == [(3, 5)]
    assert dedup.resend_requests(10.5) == []
    (request,) = dedup.resend_requests(11.0)
    assert protocol.check_command(request) is request
    assert (request["cmd"], request["boot"], request["from"], request["to"]) == (
        "resend",
        "b1",
        3,
        5,
    )


def test_resent_events_close_the_gap_and_duplicates_of_them_are_dropped():
    dedup = EventDeduplicator(gap_grace_s=0.0)
    for seq in (1, 4):
        dedup.accept("b1", seq, 0.0)
    assert dedup.resend_requests(0.0)
    assert dedup.accept("b1", 2, 0.5) and dedup.accept("b1", 3, 0.5)
    assert not dedup.accept("b1", 3, 0.6)
    assert dedup.gaps() == [] and dedup.highest("b1") == 4
    assert dedup.resend_requests(5.0) == []


def test_a_gap_is_not_asked_for_too_often_and_is_given_up_after_the_last_attempt():
    dedup = EventDeduplicator(gap_grace_s=0.0, retry_s=2.0, max_attempts=2)
    dedup.accept("b1", 1, 0.0)
    dedup.accept("b1", 3, 0.0)
    assert len(dedup.resend_requests(0.0)) == 1
    assert dedup.resend_requests(1.0) == []
    assert len(dedup.resend_requests(2.0)) == 1
    assert dedup.resend_requests(4.0) == []
    assert dedup.lost == [("b1", 2, 2)]
    assert dedup.highest("b1") == 3
    assert not dedup.accept("b1", 2, 5.0)


def test_events_missing_before_the_first_one_seen_are_a_gap_too():
    dedup = EventDeduplicator(gap_grace_s=0.0)
    dedup.accept("b1", 4, 0.0)
    (request,) = dedup.resend_requests(0.0)
    assert (request["from"], request["to"]) == (1, 3)


def test_a_resend_result_naming_missing_events_gives_them_up_and_keeps_the_rest():
    dedup = EventDeduplicator(gap_grace_s=0.0)
    dedup.accept("b1", 1, 0.0)
    dedup.accept("b1", 10, 0.0)
    dedup.resend_requests(0.0)
    dedup.handle_result(
        protocol.result_message(
            "resend-1",
            "resend",
            True,
            data={"boot": "b1", "from": 2, "to": 9, "resent": 4, "missing": [[2, 5]]},
        )
    )
    assert dedup.lost == [("b1", 2, 5)]
    assert [(g.first, g.last) for g in dedup.gaps()] == [(6, 9)]
    for seq in (6, 7, 8, 9):
        assert dedup.accept("b1", seq, 0.1)
    assert dedup.gaps() == [] and dedup.highest("b1") == 10


def test_a_refused_resend_leaves_the_gap_open():
    dedup = EventDeduplicator(gap_grace_s=0.0)
    dedup.accept("b1", 3, 0.0)
    dedup.handle_result(protocol.result_message("r", "resend", False, "busy", data={"boot": "b1"}))
    assert [(g.first, g.last) for g in dedup.gaps()] == [(1, 2)]


def test_a_huge_gap_is_asked_for_in_bounded_pieces():
    dedup = EventDeduplicator(gap_grace_s=0.0)
    dedup.accept("b1", protocol.MAX_OUTBOX, 0.0)
    (request,) = dedup.resend_requests(0.0)
    assert request["to"] - request["from"] + 1 == protocol.MAX_RESEND


def test_a_seq_beyond_what_the_ships_outbox_can_hold_is_refused():
    dedup = EventDeduplicator()
    dedup.accept("b1", 1, 0.0)
    with pytest.raises(protocol.ProtocolError, match="beyond the window"):
        dedup.accept("b1", 2 + protocol.MAX_OUTBOX, 0.0)
    with pytest.raises(protocol.ProtocolError, match="beyond the window"):
        dedup.accept("b1", 2**53, 0.0)
    assert dedup.gaps() == [] and dedup.highest("b1") == 1
    assert dedup.accept("b1", 1 + protocol.MAX_OUTBOX, 0.0)  # the edge of the window


def test_what_the_status_counted_moves_the_window_and_older_gaps_are_given_up_at_once():
    """The status says the ship numbered 2^53 events: everything but its outbox's last
    MAX_OUTBOX is gone, given up as one range (no walk over 2^53 seqs)."""
    dedup = EventDeduplicator(gap_grace_s=0.0)
    dedup.accept("b1", 1, 0.0)
    top = 2**53
    dedup.announce("b1", top, 0.0)
    assert dedup.lost == [("b1", 2, top - protocol.MAX_OUTBOX)]
    assert [(g.first, g.last) for g in dedup.gaps()] == [(top - protocol.MAX_OUTBOX + 1, top)]
    assert dedup.accept("b1", top, 0.0)
    assert not dedup.accept("b1", 5, 0.0)  # given up: a late copy is a duplicate
    for _attempt in range(4):  # asked for, then given up: all as ranges
        dedup.resend_requests(100.0 * (_attempt + 1))
    assert dedup.gaps() == [] and dedup.highest("b1") == top
    assert dedup.lost_events == top - 2  # all but the first and the last


def test_the_store_s_last_seq_counts_as_arrived_in_one_step():
    dedup = EventDeduplicator()
    dedup.start_at("b1", 2**53 - 1, 0.0)
    assert dedup.highest("b1") == 2**53 - 1
    assert not dedup.accept("b1", 7, 0.0) and dedup.accept("b1", 2**53, 0.0)


def test_memory_is_bounded_by_boots_and_pending_runs():
    dedup = EventDeduplicator(max_boots=2, max_pending=3)
    for seq in (2, 4, 6, 8):
        dedup.accept("b1", seq, 0.0)
    assert ("b1", 1, 1) in dedup.lost
    dedup.accept("b2", 1, 1.0)
    dedup.accept("b3", 1, 2.0)
    assert all(gap.boot != "b1" for gap in dedup.gaps())
    assert dedup.accept("b1", 100, 3.0)  # b1 was forgotten: it starts over


@pytest.mark.parametrize("boot, seq", [("", 1), ("b", 0), ("b", True), ("b", 1.5), (3, 1)])
def test_malformed_ids_are_refused(boot, seq):
    with pytest.raises(protocol.ProtocolError):
        EventDeduplicator().accept(boot, seq, 0.0)


@given(st.lists(st.integers(min_value=1, max_value=60), max_size=200))
def test_any_arrival_order_accepts_each_seq_exactly_once(arrivals):
    dedup = EventDeduplicator()
    accepted = [seq for seq in arrivals if dedup.accept("b", seq, 0.0)]
    assert sorted(accepted) == sorted(set(arrivals))
    expected_gaps = set(range(1, max(arrivals, default=0) + 1)) - set(arrivals)
    assert {s for g in dedup.gaps() for s in range(g.first, g.last + 1)} == expected_gaps


@given(
    st.lists(
        st.tuples(st.sampled_from(["accept", "give_up", "announce"]), st.integers(1, 80)),
        max_size=120,
    )
)
def test_ranges_agree_with_a_set_of_every_seq(steps):
    """The ranges are a faithful, compact form of 'every seq that arrived or was given up'."""
    dedup = EventDeduplicator(window=1000, max_pending=1000)
    seen: set[int] = set()
    announced = 0
    for action, seq in steps:
        if action == "accept":
            assert dedup.accept("b", seq, 0.0) == (seq not in seen)
            seen.add(seq)
        elif action == "give_up":
            dedup.give_up_below("b", seq, 0.0)
            top = max([*seen, announced, 0])
            missing = set(range(1, top + 1)) - seen
            seen |= {s for s in missing if s < seq}
        else:
            dedup.announce("b", seq, 0.0)
            announced = max(announced, seq)
        top = max([*seen, announced, 0])
        gaps = {s for g in dedup.gaps() for s in range(g.first, g.last + 1)}
        assert gaps == set(range(1, top + 1)) - seen
