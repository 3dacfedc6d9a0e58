"""Montego Bay at the table, through the real service and mosquitto: a whole game on a virtual
harbour with bots (`bosun demo --game montego-bay`), a harbour that disagrees with a page
answer flagged (MB15), and bad requests refused with their reasons."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from support.service import WHOLE_GAME_CEILING_S, BrokerShip, RunningService, service_options

from bosun.bots.montego_bay import BotPolicy, choose_decision
from bosun.games.match import Match
from bosun.tables import TableConfig, default_seats
from shipsense.pieces import BARREL_G

BOSUN = str(Path(sys.executable).parent / "bosun")
PLAYERS = ["ann", "bob", "cy"]
SEED = 11


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_mb15_a_whole_game_on_a_virtual_harbour_every_decision_matching_the_truth(
    mosquitto, tmp_path
):
    done = subprocess.run(
        [
            BOSUN,
            "demo",
            "--game",
            "montego-bay",
            "--games",
            "1",
            "--tables",
            "1",
            "--speed",
            "10",
            "--seed",
            "7",
            "--mqtt",
            mosquitto.url,
            "--db",
            f"sqlite:///{tmp_path / 'demo.db'}",
        ],
        capture_output=True,
        text=True,
        timeout=WHOLE_GAME_CEILING_S,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (game,) = json.loads(done.stdout.strip().splitlines()[-1])["games"]
    assert game["table"] == "demo-1" and game["game"] == "montego-bay"
    assert game["mismatches"] == [], game["mismatches"]
    assert game["winners"] and set(game["winners"]) <= set(game["points"])
    # MB10: a game ends; MB9: ships filled and sailed on the way
    assert game["rounds"] >= 3 and game["ships_filled"] >= 1
    # MB15: both ways of answering ran: barrels moved only, and page answers checked
    assert game["harbour_answers"] >= 5 and game["page_answers"] >= 1
    assert "games on 1 virtual tables (montego-bay)" in done.stderr


@pytest.fixture
def harbour(mosquitto, tmp_path):
    table = TableConfig(id="h1", game="montego-bay", players=default_seats(PLAYERS))
    options = service_options(mosquitto.url, tmp_path, [table])
    with RunningService(options) as running:
        ship = BrokerShip(mosquitto.host, mosquitto.port, "h1")
        running.wait_for("h1", lambda s: s["ship"]["online"])
        response = running.http.post(
            "/api/tables/h1/games", params={"key": running.key}, json={"seed": SEED}
        )
        assert response.status_code == 200, response.text
        running.ship = ship
        running.tokens = response.json()["seats"]
        yield running
        ship.close()


def seat_view(service, player: str) -> dict:
    return service.http.get(f"/api/seat/{service.tokens[player]}").json()


def post(service, player: str, **request):
    return service.http.post(f"/api/seat/{service.tokens[player]}", json=request)


def play_to_first_load(service) -> dict:
    """Everyone declares and chooses as the bots would, until someone must load (MB15)."""
    rng = random.Random(SEED)
    for _ in range(20):
        state = service.table("h1")["state"]
        if state["pending"]:
            assert state["pending"]["action"] == "load"  # round 1: nobody has barrels aboard
            return state["pending"]
        for player in PLAYERS:
            view = seat_view(service, player)
            if view["legal"]:
                choice = choose_decision(rng, view["state"], view["legal"], BotPolicy())
                request = {k: v for k, v in choice.items() if k != "player"}
                assert post(service, player, **request).status_code == 200
    raise AssertionError("nobody was asked to load")


def test_mb15_a_page_answer_the_harbour_disagrees_with_is_flagged_and_confirmed(harbour):
    pending = play_to_first_load(harbour)
    loader, count = pending["player"], pending["count"]
    docks = harbour.table("h1")["state"]["docks"]
    free = {n: d["slots"] for n, d in enumerate(docks, 1) if d and "slots" in d}
    said = next(n for n, slots in free.items() if slots >= count)
    put = next(n for n in free if n != said)
    # the barrels go on another dock than the page says, and the load cell feels them there
    harbour.ship.event("place", 1000.0, zone=put, grams=count * BARREL_G)
    harbour.wait_for("h1", lambda s: s["referee"]["harbour_off"] == {str(put): count})
    response = post(harbour, loader, type="load", ships={str(said): count})
    assert response.status_code == 200, response.text  # the answer stands until undone
    snapshot = harbour.table("h1")
    (flag,) = snapshot["referee"]["flags"]
    assert flag["kind"] == "harbour_mismatch" and flag["options"] == ["confirm"]
    assert f"{loader} said {count} barrel" in flag["text"] and f"on dock {said}" in flag["text"]
    assert f"the harbour felt {count} barrel" in flag["text"] and f"on dock {put}" in flag["text"]
    assert snapshot["state"]["docks"][said - 1]["cargo"] == {loader: count}
    assert snapshot["referee"]["harbour_off"] == {str(put): count, str(said): -count}
    # people move the barrels where the game has them and confirm from any seat
    harbour.ship.event("fall", 2000.0, zones=[put], grams=count * BARREL_G)
    harbour.ship.event("place", 3000.0, zone=said, grams=count * BARREL_G)
    harbour.wait_for("h1", lambda s: s["referee"]["harbour_off"] == {})
    other = next(p for p in PLAYERS if p != loader)
    answer = post(harbour, other, type="confirm", flag=flag["id"], option="confirm")
    assert answer.status_code == 200, answer.text
    after = harbour.table("h1")
    assert after["referee"]["flags"] == []
    assert any("matches the game again" in line["text"] for line in after["feed"])
    # the log holds the flag and its answer; the game replays from its log
    game_id = after["game_id"]
    log = harbour.http.get(f"/api/games/{game_id}/log.jsonl", params={"key": harbour.key})
    match = Match()
    for line in log.text.splitlines():
        match.submit(json.loads(line))
    assert match.view()["docks"] == after["state"]["docks"]


def test_bad_requests_are_refused_with_reasons_and_change_nothing(harbour):
    before = harbour.table("h1")["state"]
    refusals = [
        ("ann", {"type": "hire", "worker": "medium"}, "is not a worker"),
        ("ann", {"type": "hire", "worker": "big"}, "Lazy Jack costs 3"),
        ("ann", {"type": "cards", "big": 3, "little": 4}, "once everyone has declared"),
        ("ann", {"type": "load", "ships": {"2": 1}}, "nobody is asked to load"),
        ("ann", {"type": "load", "ships": [1, 2]}, "ships"),
        ("ann", {"type": "sail"}, "unknown request 'sail'"),
        ("ann", {"type": "undo", "reason": ""}, "say why"),
        ("ann", {"type": "confirm", "flag": "9", "option": "confirm"}, "already been answered"),
    ]
    for player, request, reason in refusals:
        response = post(harbour, player, **request)
        assert response.status_code == 409, (request, response.text)
        assert reason in response.json()["error"], (request, response.json())
    for player in PLAYERS:
        assert post(harbour, player, type="hire", worker=None).status_code == 200
    cards = [
        ({"big": 6, "little": 1}, "cards run from 1 to 5"),
        ({"big": 2, "little": 3, "jack": 4}, "only Lazy Jack's hirer plays a jack card"),
        ({"big": "two", "little": 3}, "must be a whole number"),
    ]
    for request, reason in cards:
        response = post(harbour, "bob", type="cards", **request)
        assert response.status_code == 409 and reason in response.json()["error"], response.text
    hands = harbour.http.post(
        f"/api/seat/{harbour.tokens['ann']}/virtual", json={"do": "put", "dock": 2}
    )
    assert hands.status_code == 409 and "real ship" in hands.json()["error"]
    games = "/api/tables/h1/games"
    for body, reason in (
        ({"seed": "seven"}, "seed must be a whole number"),
        ({"seed": -1}, "seed must be a whole number"),
        ({"seed": True}, "seed must be a whole number"),
        ({"seed": 3, "settle_s": 3}, "Montego Bay has no settle_s"),
        ({"captain": "ann"}, "Montego Bay has no captain"),
    ):
        response = harbour.http.post(games, params={"key": harbour.key}, json=body)
        assert response.status_code == 400 and reason in response.json()["error"], response.text
    assert harbour.http.post(games, json={"seed": 3}).status_code == 403  # operators only
    # a load cell reading off the harbour, or a broken message, is noted and changes nothing
    harbour.ship.event("place", 500.0, zone=7, grams=BARREL_G)
    harbour.ship.publish("ship/event", None, raw=b'{"type":"place","zone":2,"grams":"lots"}')
    after = harbour.wait_for(
        "h1", lambda s: any("the harbour has docks 1-4" in f["text"] for f in s["feed"])
    )
    assert after["state"]["docks"] == before["docks"] and after["state"]["phase"] == "cards"
    assert after["referee"]["harbour_off"] == {}


def test_a_new_game_takes_its_seed_and_replays_from_it(harbour):
    response = harbour.http.post(
        "/api/tables/h1/games", params={"key": harbour.key}, json={"seed": 4242}
    )
    assert response.status_code == 200, response.text
    game_id = response.json()["game_id"]
    log = harbour.http.get(f"/api/games/{game_id}/log.jsonl", params={"key": harbour.key}).text
    setup = json.loads(log.splitlines()[0])
    assert setup == {"type": "setup", "game": "montego-bay", "players": PLAYERS, "seed": 4242}
    match = Match()
    match.submit(setup)
    state = harbour.table("h1")["state"]
    assert state["warehouses"] == match.view()["warehouses"]
    assert state["docks"] == match.view()["docks"] and state["order"] == match.view()["order"]
