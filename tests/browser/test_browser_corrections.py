"""In real Chromium: a flagged fall is corrected piece by piece, with zones, on a player's
page (RR13a); a player's page shows all of their own used cards, the table view only the last
round's (RR7)."""

from __future__ import annotations

import pytest
from browser_kit import PHONE, SCREEN, chromium, screenshot, wait_until
from playwright.sync_api import expect
from support.service import BrokerShip, RunningService, service_options

from bosun.tables import TableConfig, default_seats
from shipsense.pieces import ITEM_GRAMS as W

PLAYERS = ["ann", "bob", "cy"]


@pytest.fixture
def service(mosquitto, tmp_path):
    table = TableConfig(
        id="t1", players=default_seats(PLAYERS), settle_s=0, table_sensor="piezo", trace=False
    )
    with RunningService(service_options(mosquitto.url, tmp_path, [table])) as running:
        running.test_ship = BrokerShip(mosquitto.host, mosquitto.port, "t1")
        running.wait_for("t1", lambda s: s["ship"]["online"])
        yield running
        running.test_ship.close()


def choose(service, **values: int) -> None:
    seats = service.seats("t1")
    for player, value in values.items():
        response = service.http.post(
            f"/api/seat/{seats[player]}", json={"type": "card", "value": value}
        )
        assert response.status_code == 200, response.text


def game_log(service, snapshot) -> str:
    """The game log of the game `snapshot` shows, as `bosun export` writes it."""
    url = f"/api/games/{snapshot['game_id']}/log.jsonl"
    return service.http.get(url, params={"key": service.key}).text


def test_rr13a_a_flagged_fall_is_corrected_piece_by_piece_on_a_players_page(service):
    ship = service.test_ship
    choose(service, ann=3, bob=8, cy=5)
    for t_ms, zone, item in ((1000.0, 8, "barrel"), (2000.0, 5, "rat"), (3000.0, 3, "boat")):
        ship.event("place", t_ms, zone=zone, grams=W[item])
    service.wait_for("t1", lambda s: s["state"]["phase"] == "choose")
    # between rounds the barrel (zone 8) and the rat (zone 5) fall: ann's (RR14). The piezo
    # heard one piece land: the referee guesses the heavier one, and asks
    ship.event("fall", 4000.0, grams=W["barrel"] + W["rat"], zones=[5, 8])
    ship.event("land", 4100.0, grams=None)
    snapshot = service.wait_for("t1", lambda s: s["referee"]["flags"])
    (flag,) = snapshot["referee"]["flags"]
    assert flag["kind"] == "which_fell" and "correct" in flag["options"]
    seats = service.seats("t1")
    with chromium() as browser:
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(f"{service.service.http_url}/seat/{seats['bob']}")
        phone.click('#alerts button[data-option="correct"]')
        editor = phone.locator("#correct-fall")
        expect(editor.locator(".correct-row")).to_have_count(2)
        # really: the rat reached the table, ann caught the barrel, and the boat on zone 3
        # went down with them
        editor.locator('.correct-row[data-item="barrel"] select').select_option("caught")
        editor.locator('.correct-row[data-item="rat"] select').select_option("table")
        editor.locator("#correct-more").select_option("3:boat")
        editor.locator('button[data-do="correct-add"]').click()
        expect(editor.locator(".correct-row")).to_have_count(3)
        screenshot(phone, "player-page-correct-fall")
        editor.locator('button[data-do="correct-send"]').click()
        expect(editor).to_be_hidden()
        state = service.wait_for("t1", lambda s: not s["referee"]["flags"])["state"]
        assert state["ship"]["3"] == [] and state["boxed"] == 1
        assert state["players"]["ann"]["supply"] == 9  # rat and boat back to ann (RR13)
        assert (
            '{"type":"fall","player":"ann","fallen":[{"item":"rat","zone":5},'
            '{"item":"boat","zone":3}],"caught":[{"item":"barrel","zone":8}]}'
        ) in game_log(service, snapshot)
        # RR7: round 2 revealed, ann's page shows both her cards, the table only the last
        choose(service, ann=4, bob=9, cy=6)
        table = browser.new_context(**SCREEN).new_page()
        table.goto(f"{service.service.http_url}/tables/t1")
        wait_until(table, "s.state.round === 2 && s.state.phase === 'turn'")
        expect(table.locator('li.player[data-player="ann"] .played')).to_have_text("last card: 4")
        ann = browser.new_context(**PHONE).new_page()
        ann.goto(f"{service.service.http_url}/seat/{seats['ann']}")
        expect(ann.locator("#mine [data-played]")).to_have_attribute("data-played", "3,4")
        expect(ann.locator("#mine [data-played]")).to_contain_text("3 · 4")


def test_rr11_a_piece_that_toppled_off_unweighed_is_named_on_a_players_page(service):
    # a pressed crate toppled off zone 8 as bob let go; the piezo heard it, nothing weighed it
    ship = service.test_ship
    choose(service, ann=3, bob=8, cy=5)
    ship.event("touch", 1000.0, grams=19.5, zones=[8], toppled=True)
    service.wait_for("t1", lambda s: s["referee"]["flags"])
    seats = service.seats("t1")
    with chromium() as browser:
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(f"{service.service.http_url}/seat/{seats['cy']}")
        alert = phone.locator('#alerts [data-alert="flag"]')
        expect(alert).to_contain_text("did it topple off?")
        expect(alert.locator('button[data-option="nothing fell"]')).to_have_text("Nothing fell")
        screenshot(phone, "player-page-toppled")
        alert.locator('button[data-option="crate"]').click()
        expect(alert).to_have_count(0)
        state = service.wait_for("t1", lambda s: s["state"]["turn"] == "cy")["state"]
        assert state["ship"]["8"] == [] and state["players"]["bob"]["items"]["crate"] == 1
        expect(phone.locator("#feed")).to_contain_text("crate toppled off zone 8")


def barrel_aboard_cys_turn(service) -> dict[str, str]:
    """bob's barrel rests on zone 8 and cy is to load onto 5; the seats' tokens."""
    choose(service, ann=3, bob=8, cy=5)
    service.test_ship.event("place", 1000.0, zone=8, grams=W["barrel"])
    service.wait_for("t1", lambda s: s["state"]["turn"] == "cy")
    return service.seats("t1")


def seat_page(browser, service, token: str):
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(f"{service.service.http_url}/seat/{token}")
    return phone


def test_rr10_rr11_a_fall_no_sensor_felt_is_reported_on_a_players_page(service):
    # bob's barrel rests on 8; cy presses a crate onto 5 and catches it as it topples, while
    # the barrel slips off to the table: to the ship a hand took its piece back, and nothing
    # heard the barrel land (a soft landing on the cloth)
    seats = barrel_aboard_cys_turn(service)
    with chromium() as browser:
        phone = seat_page(browser, service, seats["ann"])
        expect(phone.locator("#report-fall")).to_contain_text("The ship missed a piece falling")
        screenshot(phone, "player-page-report-entry")
        phone.click('button[data-do="report-start"]')
        expect(phone.locator("#report-fall")).to_be_hidden()  # while the list is open
        editor = phone.locator("#correct-fall")
        expect(editor).to_contain_text("What did the ship miss?")
        expect(editor.locator(".correct-row")).to_have_count(0)
        editor.locator("#correct-more").select_option("8:barrel")
        editor.locator('button[data-do="correct-add"]').click()
        editor.locator("#correct-more").select_option("toppled:crate")
        editor.locator('button[data-do="correct-add"]').click()
        expect(editor.locator(".correct-row")).to_have_count(2)
        editor.locator('.correct-row[data-item="crate"] select').select_option("caught")
        screenshot(phone, "player-page-report-fall")
        editor.locator('button[data-do="correct-send"]').click()
        expect(editor).to_be_hidden()
        snapshot = service.wait_for("t1", lambda s: s["state"]["turn"] == "ann")
        state = snapshot["state"]
        assert state["ship"]["8"] == [] and state["ship"]["5"] == [] and state["boxed"] == 0
        cy = state["players"]["cy"]["items"]
        assert cy["crate"] == 1 and cy["barrel"] == 2  # RR12 her own catch back, RR13 the barrel
        expect(phone.locator("#feed")).to_contain_text("ann reports what the ship did not feel")
        assert (
            '{"type":"fall","player":"cy","fallen":[{"item":"barrel","zone":8}],'
            '"caught":[{"item":"crate","zone":5}]}'
        ) in game_log(service, snapshot)


def test_rr8_a_piece_the_ship_never_counted_is_reported_loaded_on_a_players_page(service):
    # cy set a light rat down on zone 5 and the ship never placed it: her turn waits on
    seats = barrel_aboard_cys_turn(service)
    with chromium() as browser:
        phone = seat_page(browser, service, seats["cy"])
        phone.click('button[data-do="report-start"]')
        editor = phone.locator("#correct-fall")
        expect(editor).to_contain_text("Your piece rests on zone 5, not counted")
        editor.locator("#report-load-item").select_option("rat")
        screenshot(phone, "player-page-report-load")
        editor.locator('button[data-do="report-load"]').click()
        expect(editor).to_be_hidden()
        state = service.wait_for("t1", lambda s: s["state"]["turn"] == "ann")["state"]
        assert state["ship"]["5"] == ["rat"] and state["players"]["cy"]["items"]["rat"] == 0
        expect(phone.locator("#feed")).to_contain_text("cy loaded a rat on zone 5")
