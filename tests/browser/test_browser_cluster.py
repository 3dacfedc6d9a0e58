"""A player's page in a cluster, in real Chromium: when the referee serving it dies (kill -9),
the page finds the referee that took its table over and goes on there, on its own, with the
same seat; and the table view follows its table too, also to a referee that joined and took
its share."""

from __future__ import annotations

import pytest
from browser_kit import PHONE, SCREEN, chromium, screenshot, wait_until
from conftest import nats_server_executable
from nats_server import NatsServer
from playwright.sync_api import expect
from support.cluster import (
    Referee,
    owner_and_other,
    play_cards,
    prepare,
    stop_all,
    tables_toml,
)
from support.polling import until
from support.service import WHOLE_GAME_CEILING_S, BrokerShip

from shipsense.pieces import ITEM_GRAMS as W

FOLLOW_MS = 20_000  # takeover within 5 s (the promise), then the page's retries


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_a_seat_page_follows_its_table_to_the_referee_that_took_it_over(
    tmp_path, nats_server, postgres_url
):
    prepare(tmp_path, nats_server)
    referees = [Referee(tmp_path, nats_server, postgres_url) for _ in range(2)]
    ship = BrokerShip(nats_server.host, nats_server.mqtt_port, "t1", login=nats_server.ship)
    try:
        owner, other = owner_and_other(referees, postgres_url)
        until(owner.table, lambda s: s["ship"]["online"])
        seats = owner.http.get("/api/tables/t1/seats", params={"key": "operator-secret"}).json()
        token = seats["seats"]["ann"]
        play_cards(owner, bob=8, cy=5)

        with chromium() as browser:
            phone = browser.new_context(**PHONE).new_page()
            phone.goto(f"http://127.0.0.1:{owner.port}/seat/{token}")
            tv = browser.new_context(**SCREEN).new_page()
            tv.goto(f"http://127.0.0.1:{owner.port}/tables/t1/tv?key=operator-secret")
            wait_until(phone, "s.table.id === 't1'")
            wait_until(tv, "s.table.id === 't1'")
            # ann plays her card from the page: the seat works before the move
            phone.locator("[data-do='card'][data-value='3']").click()
            before = wait_until(tv, "s.state.round === 1 && !!s.state.turn")

            owner.kill()
            other_origin = f"http://127.0.0.1:{other.port}"
            phone.wait_for_url(f"{other_origin}/seat/{token}", timeout=FOLLOW_MS)
            tv.wait_for_url(f"{other_origin}/tables/t1/tv?key=operator-secret", timeout=FOLLOW_MS)
            after = wait_until(phone, f"s.game_id === {before['game_id']!r}", FOLLOW_MS)
            assert after["state"]["my_card"] == 3  # the same seat, rebuilt from the log

            # the game goes on, live, on the new referee's pages
            ship.event("place", 1000.0, zone=8, grams=W["barrel"])  # bob's, on his target
            wait_until(tv, "s.state.ship['8'] && s.state.ship['8'].length === 1", FOLLOW_MS)
            wait_until(phone, "s.state.ship['8'] && s.state.ship['8'].length === 1", FOLLOW_MS)
            screenshot(phone, "cluster-seat-after-failover")
        assert other.stop() == 0
    finally:
        ship.close()
        stop_all(referees)


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_a_table_view_follows_its_table_to_a_referee_that_joined(tmp_path, postgres_url):
    tables = ("t1", "t2")
    nats = NatsServer(nats_server_executable(), tmp_path / "nats", tables=tables).start()
    prepare(tmp_path, nats, tables_toml(tables))
    first = Referee(tmp_path, nats, postgres_url)
    referees = [first]
    try:
        until(lambda: [first.table(t) for t in tables], all)  # alone, it holds both
        with chromium() as browser:
            pages = {}
            for table_id in tables:
                pages[table_id] = browser.new_context(**SCREEN).new_page()
                pages[table_id].goto(f"http://127.0.0.1:{first.port}/tables/{table_id}")
                wait_until(pages[table_id], f"s.table.id === '{table_id}'")

            second = Referee(tmp_path, nats, postgres_url)  # the share is one table each now
            referees.append(second)
            moved = until(
                lambda: [t for t in tables if second.table(t) is not None], lambda m: len(m) == 1
            )[0]
            stayed = next(t for t in tables if t != moved)
            pages[moved].wait_for_url(f"http://127.0.0.1:{second.port}/tables/{moved}")
            wait_until(pages[moved], f"s.table.id === '{moved}'", FOLLOW_MS)
            assert pages[stayed].url == f"http://127.0.0.1:{first.port}/tables/{stayed}"
            # the first referee's home page lists the moved table where it is refereed now
            home = browser.new_context(**SCREEN).new_page()
            home.goto(f"http://127.0.0.1:{first.port}/")
            there = home.locator(f'.table-card.elsewhere[data-table="{moved}"] a')
            expect(there).to_have_attribute(
                "href", f"http://127.0.0.1:{second.port}/tables/{moved}"
            )
            expect(home.locator(f'.table-card[data-table="{stayed}"] h2 a')).to_be_visible()
    finally:
        stop_all(referees)
        nats.close()
