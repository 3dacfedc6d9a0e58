"""A NATS node of a 3-node cluster dies (kill -9) mid-game: the stream has two more copies, the
ship on another node and the referees go on, and every event the ship sends, also while
JetStream elects new leaders, is applied and stored once."""

from __future__ import annotations

import signal

import pytest
from support.cluster import (
    ReconnectingShip,
    Referee,
    holder_of,
    play_cards,
    prepare,
    stop_all,
    stored,
)
from support.polling import until
from support.service import WHOLE_GAME_CEILING_S

from shipsense.pieces import ITEM_GRAMS as W


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_a_dead_nats_node_loses_no_ship_event(tmp_path, nats_cluster, postgres_url):
    prepare(tmp_path, nats_cluster)
    first_node, ship_node, doomed = nats_cluster.nodes
    referees = [Referee(tmp_path, nats_cluster, postgres_url) for _ in range(2)]
    ship = ReconnectingShip("127.0.0.1", ship_node.mqtt_port, "t1", login=nats_cluster.ship)
    try:
        holder = holder_of(referees)
        until(holder.table, lambda s: s["ship"]["online"])
        play_cards(holder, ann=3, bob=8, cy=5)

        doomed.process.send_signal(signal.SIGKILL)
        doomed.process.wait()
        # at once, while JetStream may be electing new leaders: bob's, cy's, ann's pieces
        for t_ms, zone, item in ((1000.0, 8, "barrel"), (2000.0, 5, "rat"), (3000.0, 3, "boat")):
            ship.event("place", t_ms, zone=zone, grams=W[item])

        def referee_of_t1() -> Referee | None:
            return next((r for r in referees if r.process.poll() is None and r.table()), None)

        until(
            lambda: (referee_of_t1() or holder).table() or {"state": {"round": 0}},
            lambda s: s["state"]["round"] == 2,
        )
        seqs = until(
            lambda: sorted(e.seq for e in stored(postgres_url) if e.kind == "ship_event"),
            lambda seqs: len(seqs) >= 3,
        )
        assert seqs == [1, 2, 3]

    finally:
        ship.close()
        stop_all(referees)
