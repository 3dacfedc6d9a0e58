"""The operator's hand on a real table's seats over HTTP: only with the operator key, every
bad request refused with a reason and nothing changed, a bot's decisions normal actions of
the seat in the exported game log, a seat's page open seen as presence."""

from __future__ import annotations

import json
import threading

import pytest
from support.polling import until
from support.service import RunningService, online_ship, service_options

from bosun.tables import TableConfig, default_seats

PLAYERS = ["ann", "bob", "cy"]


@pytest.fixture
def service(mosquitto, tmp_path):
    table = TableConfig(id="t1", players=default_seats(PLAYERS), decision_s=600)
    with RunningService(service_options(mosquitto.url, tmp_path, [table])) as running:
        yield running


def test_only_the_operator_hands_a_seat_over_and_bad_requests_change_nothing(service):
    seats, key = service.seats("t1"), {"key": service.key}
    post = service.http.post
    assert service.table("t1")["presence"]["decision_s"] == 600  # bosun.toml's decision_s
    for path in ("seats/ann/bot", "seats/ann/skip", "decision-timer"):
        for params in ({}, {"key": seats["ann"]}, {"key": "wrong"}):  # a seat is no operator
            answer = post(f"/api/tables/t1/{path}", params=params, json={"decision_s": 0})
            assert answer.status_code == 403, (path, params)
    before = service.table("t1")
    bad = [
        ("seats/zed/skip", {}, 404, "no seat 'zed'"),
        ("seats/ann/bot", {"bot": "yes"}, 400, "bot must be true or false"),
        ("decision-timer", {"decision_s": -5}, 400, "from 0 (off) to 3600"),
        ("decision-timer", {"decision_s": "60"}, 400, "whole number"),
        ("decision-timer", {}, 400, "whole number"),
    ]
    for path, body, status, reason in bad:
        answer = post(f"/api/tables/t1/{path}", params=key, json=body)
        assert answer.status_code == status and reason in answer.json()["error"], path
    assert post("/api/tables/nope/seats/ann/skip", params=key).status_code == 404
    after = service.table("t1")
    assert before["state"] == after["state"] and before["presence"] == after["presence"]


def test_rr4_rr9_the_operator_skips_waits_and_the_log_holds_ordinary_actions(service, mosquitto):
    seats, key = service.seats("t1"), {"key": service.key}
    with online_ship(service, mosquitto):
        for player in PLAYERS:  # RR4: each seat's bot chooses its card
            answer = service.http.post(f"/api/tables/t1/seats/{player}/skip", params=key)
            assert answer.status_code == 200 and answer.json()["did"] == "card"
        table = service.table("t1")
        while table["state"]["turn"] is None:  # a tie: who becomes captain is decided first
            (deciding,) = [
                p for p, seat in table["presence"]["seats"].items() if seat["waiting_since_ms"]
            ]
            answer = service.http.post(f"/api/tables/t1/seats/{deciding}/skip", params=key)
            assert answer.status_code == 200, answer.json()
            table = service.table("t1")
        turn = table["state"]["turn"]
        answer = service.http.post(f"/api/tables/t1/seats/{turn}/skip", params=key)
        assert answer.json()["did"] == "announce"  # RR9: one or two pieces
        answer = service.http.post(f"/api/tables/t1/seats/{turn}/skip", params=key)
        assert answer.status_code == 409 and "by hand on the ship" in answer.json()["error"]
    game_id = service.table("t1")["game_id"]
    log = service.http.get(f"/api/games/{game_id}/log.jsonl", params=key).text.splitlines()
    actions = [json.loads(line) for line in log[1:]]
    # RR5: a tie of cards adds the captain's choice (by a bot too) before the announcement
    kinds = [a["type"] for a in actions if a["type"] != "captain"]
    assert kinds == ["card", "card", "card", "announce"]
    assert {a["player"] for a in actions[:3]} == set(PLAYERS)
    feed = [line["text"] for line in service.table("t1")["feed"]]
    assert any(f"a bot decided for {turn}: the operator skipped the wait" in t for t in feed)
    assert seats  # the seats' links are untouched: the people play on


def test_a_seat_is_present_while_its_page_streams(service):
    token = service.seats("t1")["bob"]
    opened, done = threading.Event(), threading.Event()

    def page() -> None:
        with service.http.stream("GET", f"/api/seat/{token}/stream") as stream:
            for _ in stream.iter_lines():
                opened.set()
                if done.is_set():
                    return

    reader = threading.Thread(target=page, daemon=True)
    reader.start()
    opened.wait(10)
    until(lambda: service.table("t1")["presence"]["seats"]["bob"], lambda s: s["online"])
    done.set()
    service.http.post(
        "/api/tables/t1/decision-timer", params={"key": service.key}, json={"decision_s": 0}
    )  # a change at the table: the page's stream wakes, sees it is done and hangs up
    reader.join(10)
    bob = until(lambda: service.table("t1")["presence"]["seats"]["bob"], lambda s: not s["online"])
    assert bob["left_ms"] is not None and bob["waiting_since_ms"] is not None
