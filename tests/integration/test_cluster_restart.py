"""Everything of a cluster restarted at once (the hall's power comes back): NATS, from its
stream store, and new referees; the game goes on from the log where it was, and what the ship
sends after is applied, every event stored once."""

from __future__ import annotations

import pytest
from support.cluster import Referee, holder_of, play_cards, prepare, stop_all, stored
from support.polling import until
from support.service import WHOLE_GAME_CEILING_S, BrokerShip

from shipsense.pieces import ITEM_GRAMS as W


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_a_cluster_restarted_whole_goes_on_from_its_log(tmp_path, nats_server, postgres_url):
    prepare(tmp_path, nats_server)
    referees = [Referee(tmp_path, nats_server, postgres_url) for _ in range(2)]
    ship = BrokerShip(nats_server.host, nats_server.mqtt_port, "t1", login=nats_server.ship)
    try:
        first = holder_of(referees)
        until(first.table, lambda s: s["ship"]["online"])
        play_cards(first, ann=3, bob=8, cy=5)
        ship.event("place", 1000.0, zone=8, grams=W["barrel"])  # bob's, on his target (RR8)
        before = until(first.table, lambda s: s["state"]["turn"] == "cy")

        for referee in referees:
            assert referee.stop() == 0
        nats_server.stop()
        nats_server.start()  # the same ports, its stream as it was
        referees = [Referee(tmp_path, nats_server, postgres_url) for _ in range(2)]

        after = holder_of(referees)
        resumed = until(after.table, lambda s: s["state"] == before["state"])
        assert resumed["game_id"] == before["game_id"]
        until(ship.client.is_connected, bool)  # the ship came back by itself
        ship.event("place", 2000.0, zone=5, grams=W["rat"])  # cy's, on her target
        until(after.table, lambda s: s["state"]["turn"] == "ann")
        seqs = until(  # stored in a batch, a little behind the live view
            lambda: sorted(e.seq for e in stored(postgres_url) if e.kind == "ship_event"),
            lambda seqs: len(seqs) >= 2,
        )
        assert seqs == [1, 2]
    finally:
        ship.close()
        stop_all(referees)
