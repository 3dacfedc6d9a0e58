"""Every page on a phone in real Chromium: it fits 390 px and 320 px (a 1280 px screen at
400 % zoom) with no sideways scrolling, axe-core finds nothing serious or critical, and what
a café evening needs works: the rule chips open their rule, players see pieces and not
grams, the seat cards print, a finished game steps turn by turn, a player is told it is
their turn, and every page says so when the service is away."""

from __future__ import annotations

import asyncio
import re
from contextlib import contextmanager

import pytest
from browser_kit import PHONE, DroppingProxy, chromium, last, screenshot, wait_until
from conftest import require_executable
from playwright.sync_api import expect
from support.service import CEILING_S, RunningService, service_options

from bosun.bus.broker import MosquittoBroker, find_mosquitto

SCALE = 6.0
PHONE_WIDTHS_PX = (390, 320)  # a phone, and 400 % zoom of a 1280 px wide window
PEOPLE = ("ann", "bob", "cy")  # demo-1's seats, held by people once a game has been played
GRAMS = re.compile(r"\d+\.\d g\b")
BLOCKING = ("serious", "critical")


@contextmanager
def site(tmp_path_factory):
    """The service with a virtual Riff Raff ship (demo-1) and a virtual harbour (demo-2).
    demo-1's bots play a few turns, then a new game starts (the first one is over); then
    every seat of both tables is held by a person: the tables wait for the tests' clicks
    (and the machine is not kept busy by bots meanwhile)."""
    from bosun.demo.runner import add_virtual_tables

    if find_mosquitto() is None:
        require_executable("mosquitto", "Debian: apt-get install mosquitto")
    broker = MosquittoBroker().start()
    options = service_options(broker.url, tmp_path_factory.mktemp("pages"), time_scale=SCALE)
    try:
        with RunningService(options) as service:

            async def start():
                ships = await add_virtual_tables(service.service, 1)
                harbours = await add_virtual_tables(service.service, 1, game="montego-bay", first=2)
                return ships + harbours

            tables = asyncio.run_coroutine_threadsafe(start(), service.loop).result(CEILING_S)
            try:
                played = service.wait_for(
                    "demo-1",
                    lambda s: bool(s["state"]) and s["state"]["round"] >= 2,
                    timeout_s=CEILING_S,
                )
                for player in PEOPLE:
                    service.call(lambda p=player: tables[0].claim(p, True))
                for player in service.seats("demo-2"):
                    service.call(lambda p=player: tables[1].claim(p, True))
                key = {"key": service.key}
                for table_id in ("demo-1", "demo-2"):  # people here think as long as tests need
                    timer = service.http.post(
                        f"/api/tables/{table_id}/decision-timer", params=key, json={"decision_s": 0}
                    )
                    assert timer.status_code == 200, timer.text
                new = service.http.post("/api/tables/demo-1/games", params=key, json={})
                assert new.status_code == 200, new.text
                yield {"service": service, "finished": played["game_id"]}
            finally:
                for table in tables:
                    asyncio.run_coroutine_threadsafe(table.stop(), service.loop).result(CEILING_S)
    finally:
        broker.close()


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    with site(tmp_path_factory) as value:
        yield value


@pytest.fixture(scope="module")
def browser():
    with chromium() as opened:
        yield opened


def page_paths(running) -> dict[str, tuple[str, str]]:
    """Each page: its path and a script expression that holds once it shows its content."""
    service = running["service"]
    key = service.key
    ann = service.seats("demo-1")["ann"]
    harbour_seat = next(iter(service.seats("demo-2").values()))
    harbour_game = service.table("demo-2")["game_id"]
    live = "!!window.bosunLast"
    return {
        "home": ("/", "!!document.querySelector('.table-card-head')"),
        "home-operator": (
            f"/?key={key}",
            "document.querySelectorAll('.seat-link img').length >= 6",
        ),
        "table": ("/tables/demo-1", live),
        "table-operator": (
            f"/tables/demo-1?key={key}",
            "!!document.querySelector('#seat-links img')",
        ),
        "table-tv": ("/tables/demo-1/tv", live),
        "harbour-table": ("/tables/demo-2", live),
        "seat-cards": (f"/tables/demo-1/seat-cards?key={key}", "true"),
        "seat": (f"/seat/{ann}", live),
        "harbour-seat": (f"/seat/{harbour_seat}", live),
        "games": ("/games", "!!document.querySelector('#games tr[data-game]')"),
        "game": (f"/games/{running['finished']}", "!!document.querySelector('#replay svg')"),
        "harbour-game": (f"/games/{harbour_game}", "!!document.querySelector('#timeline svg')"),
        "stats": ("/stats", "!!document.querySelector('#falls-by-zone')"),
        "calibrate": (f"/tables/demo-1/calibrate?key={key}", "!!window.bosunWizard"),
        "missing": ("/seat/no-such-seat", "true"),
    }


PAGES = (
    "home",
    "home-operator",
    "table",
    "table-operator",
    "table-tv",
    "harbour-table",
    "seat-cards",
    "seat",
    "harbour-seat",
    "games",
    "game",
    "harbour-game",
    "stats",
    "calibrate",
    "missing",
)


def axe_findings(page) -> list[tuple[str, str, int]]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page).response["violations"]
    return [(v["id"], v["impact"], len(v["nodes"])) for v in results]


@pytest.mark.parametrize("name", PAGES)
def test_every_page_fits_a_phone_and_axe_finds_nothing_serious(running, browser, name):
    base = running["service"].service.http_url
    path, ready = page_paths(running)[name]
    widths = {}
    for width in PHONE_WIDTHS_PX:
        context = browser.new_context(**{**PHONE, "viewport": {"width": width, "height": 844}})
        page = context.new_page()
        page.goto(base + path, wait_until="domcontentloaded")
        page.wait_for_function(ready)
        if name == "calibrate":  # its steps, with their tables of buttons
            page.click("#start")
            expect(page.locator("#items-table tbody tr").first).to_be_visible()
        page.wait_for_timeout(300)  # the last layout of what just arrived
        widths[width] = page.evaluate("document.documentElement.scrollWidth")
        if width == 390:
            screenshot(page, f"phone-{name}")
            findings = axe_findings(page)
            print(f"{name}: axe {findings or 'nothing'}")
            assert not [f for f in findings if f[1] in BLOCKING], findings
        if name == "calibrate":
            page.click("#cancel")
            expect(page.locator("#step-start")).to_be_visible()
        context.close()
    print(f"{name}: document width {widths} px")
    assert all(widths[w] <= w for w in widths), widths


# The referee's lines and what players read instead (common.js's plain words)
PLAIN_WORDS = {
    "ann loaded a chest (9.2 g)": "ann loaded a chest",
    "ann loaded a chest (9.2 g) on zone 10": "ann loaded a chest on zone 10",
    "2.3 g leaving the ship": "cargo is slipping off the ship …",
    "10.3 g fell off the ship from zone 9": "cargo fell off the ship from zone 9",
    "4.0 g moved from zone 9 to zone 7": "cargo slid from zone 9 to zone 7",
    "a plank (5.0 g) moved from zone 9 to zone 7 and stayed aboard: not a fall": (
        "a plank moved from zone 9 to zone 7 and stayed aboard: not a fall"
    ),
    "bob caught plank": "bob caught plank",
}


def test_rule_chips_open_their_rule_and_players_see_pieces_not_grams(running, browser):
    service = running["service"]
    base = service.service.http_url
    phone = browser.new_context(**PHONE).new_page()
    phone.goto(f"{base}/seat/{service.seats('demo-1')['ann']}")
    wait_until(phone, "true")
    # RR11's chip in a feed line, as the referee sends it, opens its rule
    # a line as the referee sends it, drawn as the feed draws it (in a list of its own: the
    # live feed is redrawn by every update)
    phone.evaluate(
        "const list = document.createElement('ol'); list.id = 'test-feed';"
        "document.querySelector('main').append(list);"
        "Bosun.render(list, Bosun.feedHtml("
        "[{at_ms: Date.now(), text: '10.3 g fell off the ship', rule: 'RR11', level: 'warning'}]))"
    )
    expect(phone.locator("#test-feed li")).to_contain_text("cargo fell off the ship")
    phone.click('#test-feed button.rule[data-rule="RR11"]')
    help_box = phone.locator("#rule-help")
    expect(help_box).to_be_visible()
    expect(help_box).to_contain_text("RR11 If cargo falls off the ship, the turn ends at once.")
    screenshot(phone, "phone-rule-help")
    phone.keyboard.press("Escape")
    expect(help_box).to_be_hidden()
    for referee, plain in PLAIN_WORDS.items():
        assert phone.evaluate("(t) => Bosun.plainWords(t)", referee) == plain
    operator_line = phone.evaluate(
        "Bosun.feedHtml([{at_ms: 0, text: '10.3 g fell off the ship'}], 5, {grams: true})"
    )
    assert "10.3 g fell off the ship" in operator_line
    # the ship: pieces on the players' pages, the grams for the operator
    table = browser.new_context(**PHONE).new_page()
    table.goto(f"{base}/tables/demo-1")
    wait_until(table, "true")
    op_table = browser.new_context(**PHONE).new_page()
    op_table.goto(f"{base}/tables/demo-1?key={service.key}")
    wait_until(op_table, "true")
    expect(op_table.locator("svg.ship .zone-g").first).to_have_text(re.compile(r"\d+\.\d g"))
    for page in (phone, table):
        assert not GRAMS.search(page.locator("svg.ship").text_content())
        expect(page.locator("svg.ship .zone-g")).to_have_count(0)
    # the referee's own lines of the first game's loads, as the table view shows them
    expect(table.locator("#feed")).to_contain_text("loaded a")
    assert not GRAMS.search(table.locator("#feed").inner_text())
    expect(op_table.locator("#feed")).to_contain_text(re.compile(r"loaded a \w+ \(\d+\.\d g\)"))
    for page in (phone, table, op_table):
        page.context.close()


def test_seat_cards_print_one_code_a_seat_and_warn_about_loopback(running, browser):
    service = running["service"]
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{service.service.http_url}/tables/demo-1/seat-cards?key={service.key}")
    cards = page.locator(".seat-card")
    expect(cards).to_have_count(len(PEOPLE))
    for player in PEOPLE:
        card = page.locator(f'.seat-card[data-player="{player}"]')
        expect(card.locator("h2")).to_have_text(player)
        src = card.locator("img").get_attribute("src")
        assert service.http.get(src).headers["content-type"].startswith("image/svg")
    expect(page.locator(".alert.warn")).to_contain_text("phones cannot reach")
    page.emulate_media(media="print")
    expect(page.locator(".topbar")).to_be_hidden()
    expect(page.locator("#print")).to_be_hidden()
    screenshot(page, "seat-cards-print")
    # without the operator key there are no seat links to print
    page.goto(f"{service.service.http_url}/tables/demo-1/seat-cards")
    expect(page.locator("h1")).to_have_text("Operator only")
    page.context.close()


def test_a_finished_game_steps_turn_by_turn(running, browser):
    service = running["service"]
    game = service.http.get(f"/api/games/{running['finished']}").json()
    turns = game["turns"]
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{service.service.http_url}/games/{running['finished']}")
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-turn", str(len(turns)))
    replay.locator('button[data-step="first"]').click()
    expect(replay).to_have_attribute("data-turn", "1")
    first = turns[0]
    zone = replay.locator(f'g.zone[data-zone="{first["zone"]}"]')
    expect(zone).to_have_attribute("data-items", ",".join(x["item"] for x in first["loads"]))
    expect(replay.locator(".replay-caption")).to_contain_text(f"Round 1 · {first['player']}")
    replay.locator('button[data-step="on"]').click()
    expect(replay).to_have_attribute("data-turn", "2")
    aboard = page.evaluate(
        "[...document.querySelectorAll('#replay g.zone')]"
        ".reduce((n, g) => n + (g.dataset.items ? g.dataset.items.split(',').length : 0), 0)"
    )
    loaded = sum(len(t["loads"]) for t in turns[:2])
    fell = sum(
        len(items)
        for f in game["falls"]
        if f["at_ms"] <= (turns[1]["end_ms"] or f["at_ms"])
        for items in f["zones"].values()
    )
    assert aboard == loaded - fell
    screenshot(page, "game-turn-by-turn")
    page.context.close()


ALERT_SPIES_JS = """
window.testWake = [];
window.testBuzz = 0;
window.testTones = 0;
if (navigator.wakeLock) {
  const request = navigator.wakeLock.request.bind(navigator.wakeLock);
  navigator.wakeLock.request = (type) => { window.testWake.push(type); return request(type); };
}
navigator.vibrate = () => { window.testBuzz += 1; return true; };
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.testTones += 1;
  return start.apply(this, args);
};
"""


def test_a_player_is_told_when_a_decision_becomes_theirs(running, browser):
    service = running["service"]
    base = service.service.http_url
    new = service.http.post("/api/tables/demo-1/games", params={"key": service.key}, json={})
    assert new.status_code == 200, new.text
    seats = service.seats("demo-1")
    context = browser.new_context(**PHONE)
    context.add_init_script(ALERT_SPIES_JS)
    phone = context.new_page()
    phone.goto(f"{base}/seat/{seats['ann']}")
    base_title = "ann at demo-1 · bosun"
    # the round starts: choosing a card is ann's decision (RR4)
    expect(phone).to_have_title(f"● Your turn · {base_title}")
    phone.wait_for_function("window.testWake.length >= 1")
    assert phone.evaluate("window.testWake")[0] == "screen"
    assert phone.evaluate("window.testBuzz") == 1
    assert phone.evaluate("window.testTones") == 0  # sound is off until asked for
    # she asks for the sound on this phone: it is remembered
    phone.check("#turn-sound")
    phone.wait_for_function("window.testTones >= 2")  # what it sounds like
    assert phone.evaluate("localStorage.getItem('bosun.turnSound')") == "on"
    phone.reload()
    expect(phone.locator("#turn-sound")).to_be_checked()
    phone.locator("body").click(position={"x": 5, "y": 5})  # a tap lets the page sound
    # her card chosen, nothing is hers until the others have chosen
    phone.click('button[data-do="card"][data-value="10"]')
    expect(phone).to_have_title(base_title)
    tones = phone.evaluate("window.testTones")
    buzzes = phone.evaluate("window.testBuzz")
    for player, value in (("bob", 5), ("cy", 3)):
        answer = service.http.post(
            f"/api/seat/{seats[player]}", json={"type": "card", "value": value}
        )
        assert answer.status_code == 200, answer.text
    # RR5/RR6: the highest card makes her captain and her turn comes first
    wait_until(phone, "s.state.phase === 'turn' && s.state.turn === 'ann'")
    expect(phone).to_have_title(f"● Your turn · {base_title}")
    phone.wait_for_function(f"window.testBuzz > {buzzes} && window.testTones > {tones}")
    assert last(phone)["state"]["target_zone"] == 10
    screenshot(phone, "phone-your-turn")
    context.close()


def test_every_page_says_when_the_service_is_away(running, browser):
    service = running["service"]
    port = int(service.service.http_url.rsplit(":", 1)[1])
    proxy = DroppingProxy(port)
    try:
        home = browser.new_context(**PHONE).new_page()
        home.goto(f"{proxy.url}/?key={service.key}")
        expect(home.locator("#tables .pill.ok").first).to_have_text("ship online")
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(f"{proxy.url}/seat/{service.seats('demo-1')['ann']}")
        expect(phone.locator("#link-state")).to_have_text("live")
        enabled = "document.querySelectorAll('main button:not(:disabled):not(.rule)').length"
        wait_until(phone, "true")
        before = phone.evaluate(enabled)
        assert before > 0
        stats = browser.new_context(**PHONE).new_page()
        stats.goto(f"{proxy.url}/stats")
        expect(stats.locator("#falls-by-zone")).to_be_visible()
        proxy.drop()
        for page in (home, phone, stats):
            expect(page.locator("#away")).to_be_visible()
            expect(page.locator("#away")).to_contain_text("cannot be reached")
        # nothing stale: no "ship online", no round, and no button to press in vain
        expect(home.locator("#tables .pill.ok")).to_have_count(0)
        expect(home.locator("#tables .pill.unknown").first).to_have_text("not known")
        expect(home.locator("#tables")).not_to_contain_text("round")
        assert phone.evaluate(enabled) == 0
        screenshot(phone, "phone-service-away")
        proxy.restore()
        for page in (home, phone, stats):
            expect(page.locator("#away")).to_be_hidden()
        expect(home.locator("#tables .pill.ok").first).to_have_text("ship online")
        phone.wait_for_function(f"{enabled} === {before}")
        for page in (home, phone, stats):
            page.context.close()
    finally:
        proxy.close()


def test_reduced_motion_is_honoured(running, browser):
    """A phone set to reduce motion gets no pulsing flags, flashing alerts or zones."""
    base = running["service"].service.http_url
    animation = (
        "(() => { const box = document.createElement('div'); box.className = 'alert flag big';"
        "document.querySelector('main').append(box);"
        "return getComputedStyle(box).animationName; })()"
    )
    for motion, expected in (("no-preference", "pulse-flag"), ("reduce", "none")):
        context = browser.new_context(**PHONE, reduced_motion=motion)
        page = context.new_page()
        page.goto(f"{base}/tables/demo-1")
        wait_until(page, "true")
        assert page.evaluate(animation) == expected
        context.close()


def test_the_tv_view_is_the_table_alone(running, browser):
    """A TV by the table: no menus, no operator panel and no grams, even opened with the key."""
    service = running["service"]
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    page.goto(f"{service.service.http_url}/tables/demo-1/tv?key={service.key}")
    wait_until(page, "true")
    expect(page.locator(".topbar")).to_have_count(0)
    expect(page.locator("#operator")).to_have_count(0)
    expect(page.locator("svg.ship .zone-g")).to_have_count(0)
    expect(page.locator("#full-screen")).to_be_visible()
    page.click("#full-screen")
    page.wait_for_function("!!document.fullscreenElement")
    expect(page.locator("#full-screen")).to_have_text("Leave full screen")
    screenshot(page, "table-tv")
    page.context.close()
