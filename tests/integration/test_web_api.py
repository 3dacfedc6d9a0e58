"""The dashboard's API and pages against the real service: games, traces, exports, seat links."""

from __future__ import annotations

import json

import pytest
from support.polling import until
from support.service import RunningService, online_ship, service_options

from bosun.games.match import Match, replay
from bosun.tables import TableConfig, default_seats
from shipsense.pieces import ITEM_GRAMS as W
from shipsense.protocol import TRACE_COLUMNS

PLAYERS = ["ann", "bob", "cy"]


@pytest.fixture
def service(mosquitto, tmp_path):
    table = TableConfig(id="t1", players=default_seats(PLAYERS), settle_s=0)
    options = service_options(mosquitto.url, tmp_path, [table])
    with RunningService(options) as running:
        yield running


@pytest.fixture
def ship(service, mosquitto):
    with online_ship(service, mosquitto) as test_ship:
        yield test_ship


def act(service, token, **request):
    return service.play(token, **request)


def trace_rows(t0_ms: float, zone: int, before_g: float, after_g: float) -> list[list]:
    """A second of 80 SPS samples around a step of `zone` at t0_ms."""
    rows = []
    for i in range(80):
        t_ms = t0_ms - 500 + i * 12.5
        zones = [0.0] * 10
        zones[zone - 1] = before_g if t_ms < t0_ms else after_g
        rows.append([t_ms, *zones, 0.0, 0])
    return rows


def play_round_one(service, ship) -> dict[str, str]:
    """RR5/RR8: ann 9, bob 5, cy 3; each loads on their zone, seen by the ship (and traced)."""
    seats = service.seats("t1")
    for player, value in (("ann", 9), ("bob", 5), ("cy", 3)):
        act(service, seats[player], type="card", value=value)
    for t_ms, zone, item in ((1000.0, 9, "barrel"), (3000.0, 5, "rat"), (5000.0, 3, "boat")):
        ship.publish("ship/trace", {"boot": "b1", "rows": trace_rows(t_ms, zone, 0.0, W[item])})
        ship.event("place", t_ms, zone=zone, grams=W[item])
    service.wait_for("t1", lambda s: s["state"]["round"] == 2)
    return seats


def test_a_running_game_is_listed_with_its_turns_and_sensor_moments(service, ship):
    play_round_one(service, ship)
    # the store is written in batches, a few ms behind the live view the round was played on
    games = until(
        lambda: service.http.get("/api/games").json(),
        lambda games: len(games) == 1 and (games[0]["rounds"], games[0]["turns"]) == (2, 3),
    )
    game = games[0]
    assert (game["table"], game["players"], game["running"]) == ("t1", PLAYERS, True)
    assert game["falls"] == 0
    detail = service.http.get(f"/api/games/{game['game_id']}").json()
    turns = [(t["player"], t["zone"], [x["item"] for x in t["loads"]]) for t in detail["turns"]]
    assert turns == [("ann", 9, ["barrel"]), ("bob", 5, ["rat"]), ("cy", 3, ["boat"])]
    loads = [(m["kind"], m["player"], m["boot"], m["t_ms"]) for m in detail["moments"]]
    assert loads == [
        ("load", "ann", "b1", 1000.0),
        ("load", "bob", "b1", 3000.0),
        ("load", "cy", "b1", 5000.0),
    ]
    # the raw samples of bob's moment: zone 5 steps up by a rat at ship time 3000 ms
    moment = detail["moments"][1]
    query = {k: moment[k] for k in ("boot", "from_t_ms", "to_t_ms")}
    trace = f"/api/games/{game['game_id']}/trace"
    window = until(  # traces are written in batches
        lambda: service.http.get(trace, params=query).json(),
        lambda w: 3487.5 in w["columns"]["t_ms"],
    )
    assert list(window["columns"]) == list(TRACE_COLUMNS)
    z5 = dict(zip(window["columns"]["t_ms"], window["columns"]["z5"], strict=True))
    assert z5[2987.5] == 0.0 and z5[3000.0] == pytest.approx(W["rat"], abs=1e-3)


def test_exports_replay_to_the_same_game_and_a_running_log_needs_the_key(service, ship):
    play_round_one(service, ship)
    game_id = service.http.get("/api/games").json()[0]["game_id"]
    refused = service.http.get(f"/api/games/{game_id}/log.jsonl")
    assert refused.status_code == 403 and "not yet revealed" in refused.json()["error"]
    log = service.http.get(f"/api/games/{game_id}/log.jsonl", params={"key": service.key})
    assert log.status_code == 200
    assert log.headers["content-type"].startswith("application/x-ndjson")
    match = Match()
    assert list(replay(log.text.splitlines(), match)) == []  # DESIGN.md: replay reproduces it
    assert match.view() == service.table("t1")["state"]
    csv = service.http.get(f"/api/games/{game_id}/trace.csv")
    assert csv.status_code == 200
    assert csv.text.splitlines()[0] == ",".join(TRACE_COLUMNS)


@pytest.mark.parametrize(
    "query, message",
    [
        ({"from_t_ms": 0, "to_t_ms": 10}, "boot"),
        ({"boot": "b1", "from_t_ms": "x", "to_t_ms": 10}, "numbers"),
        ({"boot": "b1", "from_t_ms": 10, "to_t_ms": 5}, "after"),
        ({"boot": "b1", "from_t_ms": 0, "to_t_ms": 999_999}, "at most"),
        ({"boot": "b1", "from_t_ms": "nan", "to_t_ms": 10}, "number"),
    ],
)
def test_bad_trace_windows_are_refused_with_a_reason(service, query, message):
    game_id = service.http.get("/api/games").json()[0]["game_id"]
    response = service.http.get(f"/api/games/{game_id}/trace", params=query)
    assert response.status_code == 400 and message in response.json()["error"]


def test_unknown_games_are_404_and_bad_table_filters_400(service):
    assert service.http.get("/api/games/nope").status_code == 404
    assert service.http.get("/api/games/nope/log.jsonl").status_code == 404
    assert service.http.get("/games/nope").status_code == 200  # the page says so itself
    response = service.http.get("/api/games", params={"table": "Not A Table!"})
    assert response.status_code == 400 and response.json()["error"]


def test_seat_links_and_their_qr_codes_are_for_the_operator(service):
    assert service.http.get("/api/tables/t1/seat-links").status_code == 403
    links = service.http.get("/api/tables/t1/seat-links", params={"key": service.key}).json()
    seats = service.seats("t1")
    assert [s["player"] for s in links["seats"]] == PLAYERS
    ann = links["seats"][0]
    assert ann["path"] == f"/seat/{seats['ann']}"
    assert links["reachable_by_phones"] is False  # opened on 127.0.0.1
    qr = service.http.get(ann["qr"])
    assert qr.status_code == 200 and qr.headers["content-type"] == "image/svg+xml"
    assert qr.text.startswith("<svg") or qr.text.startswith("<?xml")
    assert service.http.get("/qr/seat/forged.svg").status_code == 404


def test_a_finished_games_link_leads_on_to_the_same_seat_and_its_stream_ends(service):
    old = service.seats("t1")
    with service.http.stream("GET", f"/api/seat/{old['ann']}/stream") as stream:
        events = stream.iter_lines()
        assert next(events) == "event: snapshot"
        response = service.http.post(
            "/api/tables/t1/games", params={"key": service.key}, json={"settle_s": 3}
        )
        assert response.status_code == 200
        lines = []
        for line in events:
            lines.append(line)
            if line == "event: ended":
                break
    new = service.seats("t1")
    assert new["ann"] != old["ann"]
    assert service.table("t1")["state"]["own_catch"] == "back"  # the table's (RR12)
    follow = service.http.get(f"/api/seat/{old['ann']}/next").json()
    assert follow == {"token": new["ann"], "url": f"/seat/{new['ann']}"}
    page = service.http.get(f"/seat/{old['ann']}", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == f"/seat/{new['ann']}"
    assert service.http.get("/api/seat/forged-token/next").status_code == 404


def test_pages_render_and_the_operator_parts_need_the_key(service):
    seats = service.seats("t1")
    for path in ("/", "/tables/t1", "/games", "/stats", f"/seat/{seats['bob']}"):
        response = service.http.get(path)
        assert response.status_code == 200, path
        assert "text/html" in response.headers["content-type"]
        assert service.key not in response.text
    assert 'data-token="' + seats["bob"] in service.http.get(f"/seat/{seats['bob']}").text
    assert service.http.get("/tables/t1/calibrate").status_code == 403
    wizard = service.http.get("/tables/t1/calibrate", params={"key": service.key})
    assert wizard.status_code == 200 and "Tare the empty ship" in wizard.text
    assert service.http.get("/tables/nope").status_code == 404
    assert service.http.get("/seat/forged").status_code == 404
    wrong_key = service.http.get("/", params={"key": "guess"})
    assert "operator key is not right" in wrong_key.text
    assert service.http.get("/static/vendor/uplot/uPlot.iife.min.js").status_code == 200


def test_statistics_come_from_the_store(service, ship):
    play_round_one(service, ship)
    # the store is written in batches, a few ms behind the live view the round was played on
    stats = until(
        lambda: service.http.get("/api/stats").json(), lambda s: s["turn_time"]["turns"] == 3
    )
    assert stats["games"] == 1 and stats["finished"] == 0  # nobody has won yet
    assert [row["zone"] for row in stats["falls_by_zone"]] == list(range(1, 11))


def test_a_stale_seat_links_stream_never_shows_the_next_games_secret(service):
    old = service.seats("t1")
    service.http.post("/api/tables/t1/games", params={"key": service.key}, json={})
    new = service.seats("t1")
    act(service, new["ann"], type="card", value=4)
    response = service.http.get(f"/api/seat/{old['ann']}")
    assert response.status_code == 404
    assert json.dumps(service.table("t1")).find('"my_card"') == -1


def test_rr12_a_new_game_may_box_every_caught_piece(service):
    start = "/api/tables/t1/games"
    wrong = service.http.post(start, params={"key": service.key}, json={"own_catch": "keep"})
    assert wrong.status_code == 400 and "own_catch" in wrong.json()["error"]
    response = service.http.post(start, params={"key": service.key}, json={"own_catch": "box"})
    assert response.status_code == 200
    assert service.table("t1")["state"]["own_catch"] == "box"
    game_id = response.json()["game_id"]
    log = service.http.get(f"/api/games/{game_id}/log.jsonl", params={"key": service.key})
    assert '"own_catch":"box"' in log.text.splitlines()[0]
