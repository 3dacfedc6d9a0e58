"""Montego Bay in real Chromium: three people on their phones' pages and the table view at a
virtual harbour. They declare for Lazy Jack, choose their cards in secret (MB5, MB6) and
answer the harbour's questions (MB15): on the page, or with the page's hands on the docks."""

from __future__ import annotations

import re
import time
from contextlib import contextmanager

import pytest
from browser_kit import PHONE, SCREEN, WAIT_MS, chromium, last, screenshot, wait_until
from playwright.sync_api import expect
from support.service import WHOLE_GAME_CEILING_S, service_options, with_virtual_table

PLAYERS = ("ann", "bob", "cy")
SCALE = 6.0
SEED = 4
# the game's own draws (MB1's board, the deck, the order): round 1 asks four questions
BOARD_SEED = 4
DOCKS = (1, 2, 3, 4)
# Each player's cards a round: (big, little)
CARDS = {"ann": [(3, 2), (1, 4)], "bob": [(4, 1), (5, 3)], "cy": [(2, 5), (2, 2)]}


@contextmanager
def virtual_harbour(options):
    """The service with one virtual harbour (demo-1: ann, bob, cy), every seat a person's."""
    with with_virtual_table(
        options, seed=SEED, game="montego-bay", people=PLAYERS, baseline=True
    ) as running:
        yield running


@pytest.fixture
def table(mosquitto, tmp_path):
    options = service_options(mosquitto.url, tmp_path, time_scale=SCALE)
    with virtual_harbour(options) as running:
        yield running


def declare(phones, table_page) -> None:
    """MB5: everyone passes on Lazy Jack (or hires him when they can); it is public."""
    for player, phone in phones.items():
        expect(phone.locator(".big-line")).to_have_text("Hire Lazy Jack?")
        phone.click('button[data-do="hire"][data-worker=""]')
        wait_until(table_page, f"'{player}' in s.state.hires || s.state.phase !== 'hire'")
    wait_until(table_page, "s.state.phase === 'cards'")


def choose_cards(phones, table_page, round_index: int) -> None:
    """MB6: each picks a Big and a Little card; nobody sees another's before all are in."""
    chosen: dict[str, tuple[int, int]] = {}
    for player, phone in phones.items():
        big, little = CARDS[player][round_index]
        expect(phone.locator(".big-line")).to_have_text("Choose your cards")
        phone.click(f'.card-row[data-kind="big"] button[data-value="{big}"]')
        phone.click(f'.card-row[data-kind="little"] button[data-value="{little}"]')
        if round_index == 0 and len(chosen) == 1:  # ann has chosen: bob picks his
            screenshot(phone, "montego-player-page-cards")
        phone.click('button[data-do="cards"]')
        chosen[player] = (big, little)
        if len(chosen) == len(PLAYERS):
            break  # the last one reveals them all
        mine = wait_until(phone, f"s.state.chosen.indexOf('{player}') >= 0")
        assert mine["state"]["my_cards"] == {"big": big, "little": little}
        for viewer, page in [*phones.items(), ("table", table_page)]:
            if viewer == player:
                continue
            snapshot = wait_until(page, f"s.state.chosen.indexOf('{player}') >= 0")
            assert player not in snapshot["state"]["cards"]
            assert snapshot["state"].get("my_cards") in (
                None,
                {},
                dict(zip(("big", "little"), chosen.get(viewer, ()), strict=False)),
            )
            where = (
                f'li.player[data-player="{player}"]'
                if viewer == "table"
                else f'#round-cards li[data-player="{player}"]'
            )
            expect(page.locator(f"{where} .card-chip")).to_have_text("✓")
            assert (
                f'data-kind="big" title="big"><small>B</small>{big}' not in page.content()
                or chosen.get(viewer) == (big, little)
            )
    # MB6: revealed together, on every page
    for player, (big, little) in chosen.items():
        for page in [*phones.values(), table_page]:
            snapshot = wait_until(page, f"!!s.state.cards['{player}']")
            assert snapshot["state"]["cards"][player] == {"big": big, "little": little}


def ships_for(state: dict) -> dict[str, int]:
    """A legal answer to the pending question: docks in order, as far as each can take."""
    pending = state["pending"]
    left, ships = pending["count"], {}
    for number, dock in enumerate(state["docks"], start=1):
        if not dock or dock.get("pilot") or not left:
            continue
        aboard = sum(dock["cargo"].values())
        room = (
            dock["slots"] - aboard
            if pending["action"] == "load"
            else dock["cargo"].get(pending["player"], 0)
        )
        if room > 0:
            ships[str(number)] = min(room, left)
            left -= ships[str(number)]
    return ships


def answer_on_the_page(phone, state: dict) -> None:
    """MB15: the stepper takes exactly the count; the button waits until it is reached."""
    pending = state["pending"]
    button = phone.locator('button[data-do="answer"]')
    expect(button).to_be_disabled()
    for dock, count in ships_for(state).items():
        for _ in range(count):
            phone.click(f'.ship-row[data-dock="{dock}"] button[data-do="more"]')
    expect(phone.locator(".answer-total")).to_contain_text(
        f"{pending['count']} of {pending['count']} chosen"
    )
    button.click()


def answer_by_hand(phone, state: dict) -> None:
    """MB15: the barrels go on the docks with the page's hands; the harbour answers. Each
    click waits for the harbour's reply: on a busy machine a refusal can come long after the
    click, and a click while the page still sends is not sent at all."""
    hand = "put" if state["pending"]["action"] == "load" else "take"
    for dock, count in ships_for(state).items():
        for _ in range(count):
            selector = f'#hands button[data-hand="{hand}"][data-dock="{dock}"]'
            for _attempt in range(60):  # the ships may still be moving up, the last barrel settling
                with phone.expect_response(
                    lambda r: r.url.endswith("/virtual") and r.request.method == "POST"
                ) as reply:
                    phone.click(selector)
                if reply.value.ok:
                    break
                error = reply.value.json()["error"]
                assert re.search("moving|settling|wait", error), error
                expect(phone.locator("#error")).to_contain_text(error)
                phone.evaluate("document.getElementById('error').hidden = true")
                phone.wait_for_timeout(150)  # a moment before asking again
            else:
                raise AssertionError(f"the harbour never took {selector}")


def resolve_round(phones, table_page, round_no: int) -> dict[str, int]:
    """Every question of the round answered: on the page, and once with the hands."""
    ways = {"page": 0, "hands": 0}
    while True:
        state = wait_until(
            table_page, f"s.state.pending || s.state.round > {round_no} || s.state.phase === 'over'"
        )["state"]
        if not state["pending"]:
            return ways
        pending = state["pending"]
        phone = phones[pending["player"]]
        wait_until(phone, f"s.state.pending && s.state.pending.room === '{pending['room']}'")
        for other, page in phones.items():
            if other != pending["player"]:
                expect(page.locator('button[data-do="answer"]')).to_have_count(0)
        before = len(last(table_page)["state"]["events"])
        if ways["hands"] == 0 and ways["page"] >= 1:
            answer_by_hand(phone, state)
            ways["hands"] += 1
        else:
            answer_on_the_page(phone, state)
            ways["page"] += 1
        moved_on = (
            f"!s.state.pending || s.state.pending.room !== '{pending['room']}'"
            f" || s.state.events.length !== {before}"
        )
        wait_until(table_page, moved_on, timeout_ms=WAIT_MS)


def harbour_in_step(table_page, harbour) -> dict:
    """The snapshot in which the game, the referee's load cells and the virtual harbour (the
    truth) hold the same barrels dock by dock, with no ships left to follow (MB10: the ships
    that sailed cleared, the ones behind moved up). The harbour's hands act on the game as they
    last saw it, and barrels set down are aboard at once but felt a moment later, so the three
    are compared together until they agree, within WAIT_MS; a misread never agrees."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        on_docks = {str(dock): len(harbour.node.ship.aboard(dock)) for dock in DOCKS}
        snapshot = last(table_page)
        docks = enumerate(snapshot["state"]["docks"], 1)
        cargo = {str(n): sum(d["cargo"].values()) if d and "cargo" in d else 0 for n, d in docks}
        felt = snapshot["referee"]["harbour_felt"]
        if felt == cargo == on_docks and not snapshot["referee"]["ships_moving"]:
            return snapshot
        assert time.monotonic() < deadline, f"game {cargo}, referee felt {felt}, aboard {on_docks}"
        table_page.wait_for_timeout(100)


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_mb6_mb15_people_play_rounds_on_their_phones_at_a_virtual_harbour(table):
    service, harbour = table
    # the board, the deck and the order drawn from a set seed: round 1 then asks questions
    # enough to answer both ways (a random board can ask only one)
    response = service.http.post(
        "/api/tables/demo-1/games", params={"key": service.key}, json={"seed": BOARD_SEED}
    )
    assert response.status_code == 200, response.text
    seats = service.seats("demo-1")
    url = service.service.http_url
    with chromium() as browser:
        table_page = browser.new_context(**SCREEN).new_page()
        table_page.goto(f"{url}/tables/demo-1?key={service.key}")
        expect(table_page.locator("svg.harbour")).to_be_visible()
        phones = {}
        for player in PLAYERS:
            phone = browser.new_context(**PHONE).new_page()
            phone.goto(f"{url}/seat/{seats[player]}")
            expect(phone.locator("#link-state")).to_have_text("live")
            phones[player] = phone
        expect(table_page.locator('.dock[data-dock="1"] .pilot-label')).to_have_text("pilot boat")

        declare(phones, table_page)
        choose_cards(phones, table_page, 0)
        ways = resolve_round(phones, table_page, 1)
        assert ways["page"] >= 1 and ways["hands"] >= 1, ways  # both ways to answer (MB15)
        # round 2: the harbour answered the first round without a single flag, and once the
        # ships that sailed are cleared (MB10), it holds what the game says
        wait_until(table_page, "s.state.round === 2 && s.state.phase === 'hire'")
        snapshot = harbour_in_step(table_page, harbour)
        assert snapshot["referee"]["flags"] == [], snapshot["referee"]["flags"]
        declare(phones, table_page)
        choose_cards(phones, table_page, 1)
        state = wait_until(table_page, "!!s.state.pending || s.state.round > 2")["state"]
        if state["pending"]:
            phone = phones[state["pending"]["player"]]
            wait_until(phone, "!!s.state.pending")
            screenshot(phone, "montego-player-page")
        screenshot(table_page, "montego-table-view")
    # the page's hands are refused with a reason when they cannot be right
    state = service.table("demo-1")["state"]
    asked = state["pending"]["player"] if state["pending"] else None
    idle = next(p for p in PLAYERS if p != asked)
    for player, body, reason in (
        (idle, {"do": "put", "dock": 2}, "not asking you"),
        (asked or idle, {"do": "put", "dock": 9}, "dock must be 1, 2, 3 or 4"),
        (asked or idle, {"do": "put", "dock": 2, "count": 0}, "count must be 1-8"),
        (asked or idle, {"do": "place", "item": "rat"}, "do must be 'put' or 'take'"),
    ):
        response = service.http.post(f"/api/seat/{seats[player]}/virtual", json=body)
        assert response.status_code == 409 and reason in response.json()["error"], response.text
