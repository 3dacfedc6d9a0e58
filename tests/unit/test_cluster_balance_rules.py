"""How a cluster's referees share the tables (bosun.cluster.service): each its fair share, few
tables moved when one joins, and the pages told where each table is, or that it is moving."""

from __future__ import annotations

from bosun.cluster.service import fair_share, preference, table_places
from bosun.store.leases import Holder, Survey

TABLES = [f"t{n}" for n in range(1, 41)]


def kept(owner: str, tables: list[str], share: int) -> set[str]:
    """The tables `owner` keeps of `tables` when it may hold `share` (the most wanted)."""
    return set(sorted(tables, key=lambda t: preference(owner, t), reverse=True)[:share])


def test_the_referees_hold_every_table_and_none_more_than_its_share():
    assert [fair_share(40, n) for n in (0, 1, 2, 3, 7)] == [40, 40, 20, 14, 6]
    assert all(fair_share(t, n) * n >= t for t in range(0, 50) for n in range(1, 9))


def test_rankings_differ_between_referees_and_stay_the_same_for_one():
    a = sorted(TABLES, key=lambda t: preference("hall-1:100", t))
    b = sorted(TABLES, key=lambda t: preference("hall-2:200", t))
    assert a != b
    assert a == sorted(TABLES, key=lambda t: preference("hall-1:100", t))


def test_a_third_referee_joining_moves_only_what_is_above_the_new_share():
    # two referees held 20 each, rendezvous-ranked; the third's arrival makes the share 14:
    # each gives up its 6 least wanted, and those are the tables that move
    first = kept("hall-1:100", TABLES, 20)
    second = set(TABLES) - first
    moved = (first - kept("hall-1:100", sorted(first), 14)) | (
        second - kept("hall-2:200", sorted(second), 14)
    )
    assert len(moved) == 12  # of 40, and the third takes them: 14 + 14 + 12


def test_pages_are_told_where_a_table_is_or_that_it_is_moving():
    me, other = Holder("a:1", "http://a:8000"), Holder("b:2", "http://b:8000")
    survey = Survey((me, other), {"t1": me, "t2": other, "t3": me})
    # t1: held here; t2: elsewhere; t3: given up here since the poll; t4: nobody holds it
    places = table_places(["t1", "t2", "t3", "t4"], survey, "a:1", "http://a:8000", {"t1"})
    assert places == {"t1": "http://a:8000", "t2": "http://b:8000", "t3": None, "t4": None}
    unannounced = Survey((me, Holder("c:3", "")), {"t2": Holder("c:3", "")})
    assert table_places(["t2"], unannounced, "a:1", "http://a:8000", set()) == {"t2": None}
