"""Two referees of a cluster (NATS JetStream + PostgreSQL): kill -9 the one refereeing a table
mid-game; the other takes it over from the log, and the game goes on with every ship event
applied once."""

from __future__ import annotations

import os
import subprocess
import time

import psycopg
import pytest
from support.cluster import (
    BOSUN,
    TABLES,
    TAKEOVER_S,
    Referee,
    lease,
    owner_and_other,
    play_cards,
    prepare,
    stop_all,
    stored,
)
from support.polling import until
from support.service import CEILING_S, WHOLE_GAME_CEILING_S, BrokerShip

from bosun.bus.broker import free_port
from shipsense.pieces import ITEM_GRAMS as W


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
@pytest.mark.parametrize("servers", ["nats_server", "nats_cluster"])
def test_a_killed_referee_s_table_goes_on_under_another(request, tmp_path, servers, postgres_url):
    # one NATS server, or three in a cluster: the ship on the second, the referees on any
    nats_server = request.getfixturevalue(servers)
    prepare(tmp_path, nats_server)
    referees = [Referee(tmp_path, nats_server, postgres_url) for _ in range(2)]
    ship = BrokerShip(nats_server.host, nats_server.mqtt_port, "t1", login=nats_server.ship)
    try:
        owner, other = owner_and_other(referees, postgres_url)

        until(owner.table, lambda s: s["ship"]["online"])
        seats = owner.http.get("/api/tables/t1/seats", params={"key": "operator-secret"}).json()
        seats = seats["seats"]
        play_cards(owner, ann=3, bob=8, cy=5)
        for t_ms, zone, item in ((1000.0, 8, "barrel"), (2000.0, 5, "rat"), (3000.0, 3, "boat")):
            ship.event("place", t_ms, zone=zone, grams=W[item])
        until(owner.table, lambda s: s["state"]["round"] == 2)
        play_cards(owner, ann=8, bob=1, cy=2)
        announce = {"type": "announce", "pieces": 2}  # RR9: zone 8 already holds the barrel
        assert owner.http.post(f"/api/seat/{seats['ann']}", json=announce).status_code == 200
        ship.event("place", 4000.0, zone=8, grams=W["chest"])
        mid_turn = until(owner.table, lambda s: s["state"]["pieces_loaded"] == 1)
        while not ship.commands.empty():
            ship.commands.get_nowait()

        killed_at = time.monotonic()
        owner.kill()
        # the ship goes on while nobody referees: the stream keeps what it sends
        ship.event("place", 5000.0, zone=8, grams=W["crate"])
        until(lambda: lease(postgres_url), lambda found: found[1] == 2, TAKEOVER_S + 1)
        taken_s = time.monotonic() - killed_at
        assert taken_s <= TAKEOVER_S, f"taken over after {taken_s:.1f} s"
        assert lease(postgres_url)[0].endswith(f":{other.process.pid}")

        # state rebuilt from the log, then the event sent meanwhile: ann's turn ended (RR9),
        # cy's (card 2) is next
        after = until(other.table, lambda s: s is not None and s["state"]["turn"] == "cy")
        assert after["game_id"] == mid_turn["game_id"]
        assert after["state"]["ship"]["8"] == ["barrel", "chest", "crate"]
        ship.next_led()  # the LED prompts resume, from the new referee
        assert other.http.get(f"/api/seat/{seats['ann']}").json()["state"]["my_card"] == 8

        ship.event("place", 6000.0, zone=2, grams=W["bottle"])  # cy's piece on her target
        until(other.table, lambda s: s["state"]["turn"] == "bob")

        # what the ship sent is stored in batches, a little behind the live view: once all
        # of it is in, none lost and none stored twice
        def ship_seqs() -> list[int]:
            return sorted(e.seq for e in stored(postgres_url) if e.kind == "ship_event")

        until(ship_seqs, lambda seqs: len(seqs) >= 6)
        entries = stored(postgres_url)
        seqs = sorted(e.seq for e in entries if e.kind == "ship_event")
        assert seqs == [1, 2, 3, 4, 5, 6]
        loads = [e.payload for e in entries if e.kind == "action" and e.payload["type"] == "load"]
        assert [(a["zone"], a["item"]) for a in loads] == [
            (8, "barrel"), (5, "rat"), (3, "boat"), (8, "chest"), (8, "crate"), (2, "bottle"),
        ]  # fmt: skip
        assert other.stop() == 0
    finally:
        ship.close()
        stop_all(referees)


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_a_referee_cut_off_from_postgresql_stops_and_another_goes_on(
    tmp_path, nats_server, postgres_url
):
    prepare(tmp_path, nats_server)
    referees = [Referee(tmp_path, nats_server, postgres_url) for _ in range(2)]
    ship = BrokerShip(nats_server.host, nats_server.mqtt_port, "t1", login=nats_server.ship)
    try:
        owner, other = owner_and_other(referees, postgres_url)
        until(owner.table, lambda s: s["ship"]["online"])
        play_cards(owner, ann=3, bob=8, cy=5)
        ship.event("place", 1000.0, zone=8, grams=W["barrel"])  # bob's, on his target
        before = until(owner.table, lambda s: s["state"]["turn"] == "cy")

        with psycopg.connect(postgres_url, autocommit=True) as conn:  # its locks go with it
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = %s",
                (f"bosun-leases {lease(postgres_url)[0]}",),
            )
        assert owner.process.wait(CEILING_S) == 1  # it stops rather than referee unfenced
        assert "this referee stopped" in owner.errors()
        until(lambda: lease(postgres_url), lambda found: found[1] == 2, TAKEOVER_S + 1)
        after = until(other.table, lambda s: s is not None and s["state"] == before["state"])
        assert after["game_id"] == before["game_id"]
        ship.event("place", 2000.0, zone=5, grams=W["rat"])  # cy's, on her target
        until(other.table, lambda s: s["state"]["turn"] == "ann")
        seqs = until(  # stored in a batch, a little behind the live view
            lambda: sorted(e.seq for e in stored(postgres_url) if e.kind == "ship_event"),
            lambda seqs: len(seqs) >= 2,
        )
        assert seqs == [1, 2]
        assert other.stop() == 0
    finally:
        ship.close()
        stop_all(referees)


def test_a_referee_nats_does_not_know_cannot_start(tmp_path, nats_server, postgres_url):
    (tmp_path / "bosun.toml").write_text(TABLES)
    (tmp_path / "nats-password").write_text("not-the-password\n")
    ran = subprocess.run(
        [
            BOSUN,
            "run",
            "--cluster",
            nats_server.url,
            "--cluster-password-file",
            str(tmp_path / "nats-password"),
            "--db",
            postgres_url,
            "--port",
            str(free_port()),
        ],  # fmt: skip
        cwd=tmp_path,
        env={**os.environ, "BOSUN_OPERATOR_KEY": "operator-secret"},
        capture_output=True,
        text=True,
        timeout=CEILING_S,
    )
    assert ran.returncode == 1
    assert "no NATS JetStream at" in ran.stderr and "uthorization" in ran.stderr
    assert lease(postgres_url) is None  # it took no table
