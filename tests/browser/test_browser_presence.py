"""A café evening's absent players in real Chromium: the table view shows whose phone is on
and for how long a decision has waited, the operator hands a seat to its bot and the game
goes on, the decision timer counts down on the table and the seat and gives an idle seat
back to its bot; the table view gets only what changed and still equals a fresh load; a
finished Montego Bay game steps through on its board."""

from __future__ import annotations

import random

import pytest
from browser_kit import (
    PHONE,
    RECORD_SNAPSHOTS_JS,
    SCREEN,
    chromium,
    last,
    screenshot,
    wait_until,
)
from playwright.sync_api import expect
from support.polling import until
from support.service import (
    BrokerShip,
    RunningService,
    service_options,
    with_virtual_table,
)

from bosun.bots.montego_bay import BotPolicy, play_game
from bosun.tables import TableConfig, default_seats
from shipsense.pieces import ITEM_GRAMS as W

PLAYERS = ("ann", "bob", "cy")
SCALE = 6.0
RECORD_PATCHES_JS = (
    RECORD_SNAPSHOTS_JS
    + """
window.testPatched = 0;
window.addEventListener("bosun:snapshot", (e) => {
  if (e.detail.patched) window.testPatched += 1;
});
"""
)


@pytest.fixture
def people_table(mosquitto, tmp_path):
    """A virtual ship (demo-1) whose three seats people hold, no decision timer yet."""
    options = service_options(mosquitto.url, tmp_path, time_scale=SCALE)
    with with_virtual_table(options, people=PLAYERS, decision_s=0) as (running, table):
        yield running, table


def seat_row(page, player: str):
    return page.locator(f'#presence li[data-player="{player}"]')


def test_presence_is_shown_and_lost_and_the_operator_gives_a_seat_to_its_bot(people_table):
    service, _table = people_table
    base, key = service.service.http_url, service.key
    seats = service.seats("demo-1")
    with chromium() as browser:
        screen = browser.new_context(**SCREEN).new_page()
        screen.goto(f"{base}/tables/demo-1?key={key}")
        wait_until(screen, "s.state && s.state.phase === 'choose'")
        expect(seat_row(screen, "ann")).to_contain_text("phone offline")
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(f"{base}/seat/{seats['ann']}")
        expect(seat_row(screen, "ann")).to_have_attribute("data-online", "yes")
        expect(seat_row(screen, "ann")).to_contain_text("phone on")
        # RR4: everyone has a card to choose; the wait is shown and counts up
        expect(seat_row(screen, "bob")).to_contain_text("deciding for")
        phone.context.close()  # ann's phone goes away
        expect(seat_row(screen, "ann")).to_have_attribute("data-online", "no")
        expect(seat_row(screen, "ann")).to_contain_text("phone offline")
        screenshot(screen, "table-presence")
        # the operator gives ann's seat to its bot: it chooses her card and the game goes on
        seat_row(screen, "ann").locator('button[data-seat-do="bot"]').click()
        wait_until(screen, "s.state.players.ann.chosen && s.humans.indexOf('ann') < 0")
        expect(seat_row(screen, "ann").locator(".tag.bot")).to_be_visible()
        for player in ("bob", "cy"):  # the others choose: the round is played on
            service.play(seats[player], type="card", value={"bob": 5, "cy": 3}[player])
        wait_until(screen, "s.state.phase !== 'choose'")
    # only the operator may do it: not the public, not a seat's own link
    refused = service.http.post(
        "/api/tables/demo-1/seats/bob/bot", params={"key": seats["bob"]}, json={}
    )
    assert refused.status_code == 403
    assert service.http.post("/api/tables/demo-1/seats/bob/skip", json={}).status_code == 403
    assert "bob" in service.table("demo-1")["humans"]


def test_the_decision_timer_counts_down_and_gives_an_idle_seat_back_to_its_bot(people_table):
    service, _table = people_table
    base, key = service.service.http_url, service.key
    seats = service.seats("demo-1")
    with chromium() as browser:
        screen = browser.new_context(**SCREEN).new_page()
        screen.goto(f"{base}/tables/demo-1?key={key}")
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(f"{base}/seat/{seats['bob']}")
        wait_until(phone, "s.state && s.state.phase === 'choose'")
        service.play(seats["ann"], type="card", value=9)  # ann answers in time
        timer = service.http.post(
            "/api/tables/demo-1/decision-timer", params={"key": key}, json={"decision_s": 4}
        )
        assert timer.status_code == 200, timer.text
        # the seat and the table count down (people's seconds, also on a faster demo clock)
        expect(phone.locator("#decision-timer")).to_contain_text("left to decide")
        expect(seat_row(screen, "bob").locator(".decision-left")).to_contain_text("bot decides in")
        assert seat_row(screen, "ann").locator(".decision-left").count() == 0
        shown = [int(phone.locator("#decision-timer").inner_text().split(" ")[0])]
        phone.wait_for_function(
            f"parseInt(document.getElementById('decision-timer').textContent) < {shown[0]}"
        )
        screenshot(phone, "phone-decision-timer")
        # time is up: bob's and cy's seats go back to their bots, which choose; the game goes on
        wait_until(phone, "s.humans.indexOf('bob') < 0 && s.humans.indexOf('cy') < 0")
        expect(phone.locator("#join")).to_contain_text("A bot is playing this seat")
        expect(phone.locator("#decision-timer")).to_be_hidden()
        wait_until(screen, "s.state.phase !== 'choose'")
        assert "ann" in last(screen)["humans"]  # she answered: her seat stays hers
        lines = [f["text"] for f in last(screen)["feed"]]
        assert any("bob's seat went back to its bot: no answer in 4 s" in t for t in lines)


@pytest.fixture
def real_table(mosquitto, tmp_path):
    table = TableConfig(id="t1", players=default_seats(list(PLAYERS)), trace=False)
    with RunningService(service_options(mosquitto.url, tmp_path, [table])) as running:
        yield running


def comparable(snapshot: dict) -> dict:
    """A snapshot without its clock reading (every build has a new one)."""
    return {k: v for k, v in snapshot.items() if k != "now_ms"}


def weights_at(t_ms: float, zone: int) -> dict:
    """The ship's readings at `t_ms`: a barrel's grams on `zone`, wobbling a little."""
    grams = [0.0] * 10
    grams[zone - 1] = 11.8 + (t_ms % 3) / 10
    return {"boot": "b1", "t_ms": t_ms, "zones_g": grams, "faults": []}


def test_only_changes_reach_the_table_view_and_it_equals_a_fresh_load(real_table, mosquitto):
    service = real_table
    ship = BrokerShip(mosquitto.host, mosquitto.port, "t1")
    seats = service.seats("t1")
    base = service.service.http_url
    with chromium() as browser:
        page = browser.new_context(**SCREEN).new_page()
        page.add_init_script(RECORD_PATCHES_JS)
        page.goto(f"{base}/tables/t1?key={service.key}")  # the operator's: with the grams
        wait_until(page, "s.ship.online")
        public = browser.new_context(**SCREEN).new_page()
        public.add_init_script(RECORD_PATCHES_JS)
        public.goto(f"{base}/tables/t1")  # the players': pieces, not grams
        wait_until(public, "s.ship.online")
        for player, value in (("ann", 9), ("bob", 5), ("cy", 3)):  # RR4, then RR5: ann first
            service.play(seats[player], type="card", value=value)
        wait_until(page, "s.state.phase === 'turn' && s.state.turn === 'ann'")
        zone = service.table("t1")["state"]["target_zone"]
        ship.event("place", 1000.0, zone=zone, grams=W["barrel"])  # RR9: one piece loaded
        until(
            lambda: (last(public)["state"], last(public)["feed"]),
            lambda shown: shown == (service.table("t1")["state"], service.table("t1")["feed"]),
        )
        ship.publish("ship/weights", {**weights_at(1999.0, zone), "table_g": 0.0})
        wait_until(public, "s.ship.weights !== null")  # its first readings: faults, if any
        arrived = public.evaluate("window.testArrivals.length")
        for t_ms in range(2000, 2010):  # the ship's readings: only the operator's page hears
            ship.publish("ship/weights", {**weights_at(float(t_ms), zone), "table_g": 0.0})
        wait_until(page, "s.ship.weights && s.ship.weights.t_ms === 2009")
        wait_until(page, f"s.state.ship['{zone}'] && s.state.ship['{zone}'].length === 1")

        def both() -> tuple[dict, dict]:
            return comparable(last(page)), comparable(service.table("t1"))

        shown, fresh = until(both, lambda pair: pair[0] == pair[1])
        assert shown["state"]["ship"][str(zone)] == ["barrel"]
        assert page.evaluate("window.testPatched") >= 4  # changes came as patches
        assert public.evaluate("window.testArrivals.length") == arrived  # no grams, no update
        assert last(public)["ship"]["weights"] == {"faults": []}
        assert comparable(last(public))["state"] == fresh["state"]
        # a page opened now starts from the whole snapshot and shows the same
        other = browser.new_context(**SCREEN).new_page()
        other.goto(f"{base}/tables/t1?key={service.key}")
        wait_until(other, "s.ship.online")
        assert comparable(last(other)) == comparable(last(page))
    ship.close()


def test_a_finished_montego_bay_game_steps_through_on_its_board(mosquitto, tmp_path):
    harbour = TableConfig(id="h1", game="montego-bay", players=default_seats(list(PLAYERS)))
    options = service_options(mosquitto.url, tmp_path, [harbour])
    with RunningService(options) as service:
        store = service.service.store
        played = play_game(random.Random(3), list(PLAYERS), BotPolicy())  # MB1-MB17, bots
        log = played.log

        def record() -> str:
            game_id = store.start_game("h1b", "montego-bay", list(PLAYERS), log[0], None, 0)
            entries = [
                {"table_id": "h1b", "game_id": game_id, "kind": "action", "payload": a, "at_ms": i}
                for i, a in enumerate(log[1:], 1)
            ]
            store.append_many(entries)
            store.finish_game(game_id, played.winners, at_ms=len(log))
            return game_id

        game_id = service.call(record)
        steps = service.http.get(f"/api/games/{game_id}/steps").json()["steps"]
        assert 10 < len(steps) < len(log)  # passes and hidden cards move nothing on the board
        with chromium() as browser:
            page = browser.new_context(**PHONE).new_page()
            page.goto(f"{base_url(service)}/games/{game_id}")
            replay = page.locator("#replay")
            expect(replay).to_have_attribute("data-step", str(len(steps)))
            replay.locator('button[data-step="first"]').click()
            expect(replay).to_have_attribute("data-step", "1")
            for index in (0, 1, len(steps) // 2):
                if index:
                    replay.locator("#replay-step").fill(str(index + 1))
                    expect(replay).to_have_attribute("data-step", str(index + 1))
                state = steps[index]["state"]
                aboard = sum(sum(d["cargo"].values()) for d in state["docks"] if d and "cargo" in d)
                expect(replay.locator("rect.slot.full")).to_have_count(aboard)
                caption = replay.locator(".replay-caption")
                expect(caption).to_contain_text(f"Round {state['round']}")
                player = steps[index]["action"]["player"]
                expect(caption).to_contain_text(player)
            screenshot(page, "harbour-step-by-step")
        running_game = service.seats("h1")  # the table's own game runs: no steps for it yet
        assert running_game
        current = service.table("h1")["game_id"]
        assert service.http.get(f"/api/games/{current}/steps").status_code == 409


def base_url(service: RunningService) -> str:
    return service.service.http_url
