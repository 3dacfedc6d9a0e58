"""Referees of a cluster share its tables and hand them over cleanly: a referee that joins
gets its share, one that leaves gives its tables back, and a game on a table that moved goes
on with every ship event applied once."""

from __future__ import annotations

import psycopg
import pytest
from conftest import nats_server_executable
from nats_server import NatsServer
from support.cluster import (
    TAKEOVER_S,
    Referee,
    play_cards,
    prepare,
    stop_all,
    stored,
    tables_toml,
)
from support.polling import until
from support.service import WHOLE_GAME_CEILING_S, BrokerShip

from shipsense.pieces import ITEM_GRAMS as W

TABLE_IDS = ("t1", "t2", "t3", "t4")


def holders(db_url: str) -> dict[str, str]:
    """Each table's holder (its referee's owner name), as PostgreSQL's locks say now."""
    with psycopg.connect(db_url) as conn:
        rows = conn.execute(
            "SELECT b.table_id, b.owner FROM bosun_leases b JOIN pg_locks l"
            " ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
            " AND ((l.classid::bigint << 32) | l.objid::bigint)"
            "   = hashtextextended('bosun-table:' || b.table_id, 0)"
        ).fetchall()
    return dict(rows)


def spread(referees: list[Referee], db_url: str) -> dict[int, set[str]]:
    """Which tables each referee (by pid) holds now."""
    held: dict[int, set[str]] = {r.process.pid: set() for r in referees}
    for table_id, owner in holders(db_url).items():
        pid = int(owner.rsplit(":", 1)[1]) if ":" in owner else -1
        held.setdefault(pid, set()).add(table_id)
    return held


def counts(*referees: Referee):
    """A condition on `spread`: each of `referees` holds as many tables as given, in order."""

    def held_as(*numbers: int):
        pids = [r.process.pid for r in referees]
        return lambda held: [len(held.get(pid, ())) for pid in pids] == list(numbers)

    return held_as


@pytest.fixture
def nats_server(tmp_path):
    """A private NATS server (JetStream, MQTT) with a login for each table's ship."""
    server = NatsServer(nats_server_executable(), tmp_path / "nats", tables=TABLE_IDS).start()
    yield server
    server.close()


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_a_referee_that_joins_takes_its_share_and_one_that_leaves_gives_it_back(
    tmp_path, nats_server, postgres_url
):
    prepare(tmp_path, nats_server, tables_toml(TABLE_IDS))
    host, port = nats_server.host, nats_server.mqtt_port
    ships = {t: BrokerShip(host, port, t, login=nats_server.ships[t]) for t in TABLE_IDS}
    first = Referee(tmp_path, nats_server, postgres_url)
    referees = [first]
    try:
        alone = until(lambda: spread(referees, postgres_url), counts(first)(4))
        assert set(alone[first.process.pid]) == set(TABLE_IDS)  # alone, it referees them all
        for table_id, ship in ships.items():  # RR8: ann's card 8 is first, bob's 5 next
            # served a moment after its lock is taken: None until then
            until(lambda t=table_id: first.table(t), lambda s: s and s["ship"]["online"])
            play_cards(first, table_id, ann=8, bob=5)
            ship.event("place", 1000.0, zone=8, grams=W["barrel"])
        for table_id in TABLE_IDS:
            until(lambda t=table_id: first.table(t), lambda s: s["state"]["turn"] == "bob")

        second = Referee(tmp_path, nats_server, postgres_url)
        referees.append(second)
        held = until(
            lambda: spread(referees, postgres_url), counts(first, second)(2, 2), TAKEOVER_S
        )
        moved = sorted(held[second.process.pid])
        for table_id in moved:  # its game goes on under the newcomer, rebuilt from the log
            ships[table_id].event("place", 2000.0, zone=5, grams=W["rat"])
            state = until(
                lambda t=table_id: second.table(t),
                lambda s: s is not None and s["state"]["round"] == 2,
            )["state"]
            assert (state["ship"]["8"], state["ship"]["5"]) == (["barrel"], ["rat"])
            assert first.table(table_id) is None  # one referee a table
        # each referee tells where every table is served (a page follows its table there)
        urls = sorted(f"http://127.0.0.1:{r.port}" for r in referees)
        for referee in referees:  # as its last lease poll saw the cluster
            where = until(
                lambda r=referee: r.http.get("/api/cluster").json(),
                lambda w: (
                    sorted(w["referees"]) == urls
                    and all(w["tables"][t] == f"http://127.0.0.1:{second.port}" for t in moved)
                ),
            )
            assert where["here"] == f"http://127.0.0.1:{referee.port}"

        assert second.stop() == 0  # a clean leave: its tables go back within a poll or two
        referees.remove(second)
        until(lambda: spread(referees, postgres_url), counts(first)(4), TAKEOVER_S)
        for table_id in moved:  # round 2 goes on where it was, RR7: new cards
            until(lambda t=table_id: first.table(t), lambda s: s is not None)  # served
            play_cards(first, table_id, ann=3, bob=1)
            ships[table_id].event("place", 3000.0, zone=3, grams=W["boat"])
            until(lambda t=table_id: first.table(t), lambda s: s["state"]["ship"]["3"] == ["boat"])

        def seqs(table_id: str) -> list[int]:
            return sorted(e.seq for e in stored(postgres_url, table_id) if e.kind == "ship_event")

        for table_id in TABLE_IDS:  # stored in batches, a little behind the live view
            expected = [1, 2, 3] if table_id in moved else [1]
            count = len(expected)
            assert until(lambda t=table_id: seqs(t), lambda s, n=count: len(s) >= n) == expected
        alone_again = {t: f"http://127.0.0.1:{first.port}" for t in TABLE_IDS}
        until(lambda: first.http.get("/api/cluster").json()["tables"], lambda w: w == alone_again)
    finally:
        for ship in ships.values():
            ship.close()
        stop_all(referees)
