"""Table leases on a real PostgreSQL: one referee a table, an epoch a takeover, and a referee
that lost its table cannot write to it (fencing)."""

from __future__ import annotations

import psycopg
import pytest
from support.polling import until

from bosun.store import Store
from bosun.store.leases import FencedStore, LeaseLost, TableLeases

SETUP = {"type": "setup", "game": "riffraff", "players": ["ann", "bob"], "captain": "ann"}


def entry(seq: int) -> dict:
    payload = {"type": "place", "seq": seq}
    return {"table_id": "t1", "kind": "ship_event", "payload": payload, "at_ms": seq,
            "boot": "b1", "seq": seq}  # fmt: skip


def cut_off(db_url: str, owner: str) -> None:
    """Close a referee's leases connection from the server's side (an operator, a network)."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (f"bosun-leases {owner}",),
        )


def test_one_referee_holds_a_table_and_a_takeover_fences_the_one_before(postgres_url):
    with Store.open(postgres_url) as store:
        first, second = TableLeases(postgres_url, "first"), TableLeases(postgres_url, "second")
        try:
            assert first.try_take("t1") == 1
            assert second.try_take("t1") is None  # held
            assert second.try_take("t2") == 1  # another table is free
            fenced_first = FencedStore(store, "t1", 1)
            assert fenced_first.append_many([entry(1)]) != [None]

            cut_off(postgres_url, "first")  # its lock goes with its connection
            epoch = until(lambda: second.try_take("t1"), lambda taken: taken is not None)
            assert epoch == 2
            with pytest.raises(LeaseLost):
                first.check()
            with pytest.raises(LeaseLost, match="another referee took it over"):
                fenced_first.append_many([entry(2)])
            with pytest.raises(LeaseLost):
                fenced_first.start_game("t1", "riffraff", ["ann", "bob"], SETUP, None, at_ms=3)

            fenced_second = FencedStore(store, "t1", 2)
            assert fenced_second.append_many([entry(1), entry(2)])[0] is None  # stored once
            second.check()  # still its own
            assert [e.seq for e in store.entries("t1")] == [1, 2]
            assert store.games("t1") == []  # the game the first referee tried is not there
        finally:
            first.close()
            second.close()


def test_a_referee_that_stops_frees_its_tables_for_the_next(postgres_url):
    first, second = TableLeases(postgres_url, "first"), TableLeases(postgres_url, "second")
    try:
        assert first.try_take("t1") == 1
        first.close()
        assert second.try_take("t1") == 2
        second.check()
    finally:
        second.close()
