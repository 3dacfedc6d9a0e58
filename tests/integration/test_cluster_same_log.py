"""A game refereed by a cluster, its referee killed (kill -9) in the middle of a turn, ends with
the same game log as the same game refereed by one `bosun run` process: the cluster changes
who referees, never what is decided (RR5-RR9: cards, captain, announced pieces, loads, turns)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from support.cluster import TAKEOVER_S, Referee, lease, prepare, stop_all
from support.polling import until
from support.service import (
    WHOLE_GAME_CEILING_S,
    BrokerShip,
    RunningService,
    online_ship,
    service_options,
)

from bosun.store import Store
from bosun.tables import TableConfig, default_seats
from shipsense.pieces import ITEM_GRAMS as W

KILL = "kill"  # the step at which the cluster's referee is killed
# two rounds of three players: cards (RR6), the highest card captains and goes first (RR5,
# RR8), ann announces two pieces (RR9), bob's turn ends mid-round after a kill
STEPS = [
    ("card", "ann", 3), ("card", "bob", 8), ("card", "cy", 5),
    ("place", 8, "barrel"), ("place", 5, "rat"), ("place", 3, "boat"),
    ("card", "ann", 8), ("card", "bob", 1), ("card", "cy", 2),
    ("announce", "ann", 2), ("place", 8, "chest"), KILL, ("place", 8, "crate"),
    ("place", 2, "bottle"), ("place", 1, "plank"),
]  # fmt: skip


def play(steps, api: Callable[[], httpx.Client], ship: BrokerShip, kill=None) -> str:
    """Play `steps` at a table through its API and its ship; each applied before the next.
    The game's id."""
    seats = api().get("/api/tables/t1/seats", params={"key": "operator-secret"}).json()["seats"]
    t_ms = 0.0
    for step in steps:
        if step == KILL:
            if kill is not None:  # one process goes on as it is
                kill()
            continue
        answer = until(lambda: api().get("/api/tables/t1"), lambda r: r.status_code == 200)
        before = answer.json()["state"]
        if step[0] == "place":
            t_ms += 1000.0
            ship.event("place", t_ms, zone=step[1], grams=W[step[2]])
        else:
            kind, player, value = step
            request = {"type": kind, ("value" if kind == "card" else "pieces"): value}
            answer = api().post(f"/api/seat/{seats[player]}", json=request)
            assert answer.status_code == 200, answer.text
        until(  # applied: what the table shows changed
            lambda: api().get("/api/tables/t1"),
            lambda r, was=before: r.status_code == 200 and r.json()["state"] != was,
        )
    return api().get("/api/tables/t1").json()["game_id"]


def game_log(db_url: str, game_id: str) -> list[dict]:
    with Store.open(db_url) as store:
        return store.game_actions(game_id)


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_a_cluster_with_a_failover_keeps_the_same_log_as_one_process(
    tmp_path, mosquitto, nats_server, postgres_url
):
    players = default_seats(["ann", "bob", "cy"])
    one_dir = tmp_path / "one"
    one_dir.mkdir()
    table = TableConfig(id="t1", players=players, settle_s=0)
    options = service_options(mosquitto.url, one_dir, [table], operator_key="operator-secret")
    with RunningService(options) as one, online_ship(one, mosquitto) as ship:
        game_id = play(STEPS, lambda: one.http, ship)
        expected = game_log(options.db_url, game_id)

    prepare(tmp_path, nats_server)
    referees = [Referee(tmp_path, nats_server, postgres_url) for _ in range(2)]
    ship = BrokerShip(nats_server.host, nats_server.mqtt_port, "t1", login=nats_server.ship)
    try:
        until(lambda: lease(postgres_url), lambda found: found is not None)

        def holder() -> Referee | None:
            return next((r for r in referees if r.process.poll() is None and r.table()), None)

        def api() -> httpx.Client:
            return until(holder, lambda found: found is not None, TAKEOVER_S * 4).http

        until(lambda: api().get("/api/tables/t1").json(), lambda s: s["ship"]["online"])
        game_id = play(STEPS, api, ship, kill=lambda: api() and holder().kill())
        until(lambda: game_log(postgres_url, game_id), lambda log: len(log) >= len(expected))
        assert game_log(postgres_url, game_id) == expected
    finally:
        ship.close()
        stop_all(referees)
