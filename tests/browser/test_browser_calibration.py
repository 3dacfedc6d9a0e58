"""The calibration wizard in real Chromium against a virtual ship: tare, a known weight on a
zone, pieces weighed, the result stored with the table and used by the referee; and a real
table's ship paired from the wizard, its config.json downloaded."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from browser_kit import SCREEN, chromium, screenshot, virtual_tables
from conftest import require_executable
from playwright.sync_api import expect
from support.service import CEILING_S, RunningService, service_options

from bosun.bus.broker import free_port, mqtt_login
from bosun.tables import TableConfig, default_seats

SCALE = 4.0
NOT_AUTHORISED = 5  # MQTT 3.1.1 CONNACK code


@pytest.fixture
def table(mosquitto, tmp_path):
    options = service_options(mosquitto.url, tmp_path, time_scale=SCALE)
    with virtual_tables(options, seed=7) as running:
        yield running


def wait_until_true(condition, timeout_s: float = CEILING_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)  # polling the virtual ship: it has nothing to wait on


def measure(page, button: str) -> None:
    """Click a measuring step and wait for the ship's answer; a ship still swaying is
    refused as "not steady" (firmware's rule), and a person simply tries again."""
    wizard = page.locator("#wizard")
    for _ in range(20):
        answers = int(wizard.get_attribute("data-answers"))
        page.click(button)
        expect(wizard).to_have_attribute("data-answers", str(answers + 1))
        text = page.locator("#wizard-message").inner_text()
        if "not steady" not in text:
            return
    raise AssertionError(f"the ship never held still: {text}")


def test_the_wizard_tares_calibrates_and_weighs_a_virtual_ship(table):
    service, virtual = table
    node = virtual.node
    with chromium() as browser:
        page = browser.new_context(**SCREEN).new_page()
        page.goto(f"{service.service.http_url}/tables/demo-1/calibrate?key={service.key}")
        expect(page.locator("#pairing")).to_have_count(0)  # a virtual ship pairs itself
        page.click("#start")
        expect(page.locator("#steps")).to_be_visible()
        assert service.table("demo-1")["calibrating"]  # the referee ignores the ship now
        message = page.locator("#wizard-message")

        page.click('button[data-hand="clear"]')
        # people wait for the cleared ship to stop swaying before they tare it (a tare taken
        # while it still swings is off by a fraction of a gram, the firmware's "steady" rule
        # allows 3 g of spread)
        wait_until_true(lambda: service.call(lambda: node.ship.settled and not node.hand_loads))
        measure(page, "#tare")
        expect(page.locator("#tare-state")).to_contain_text("tared at")
        expect(message).to_contain_text("tared")

        # a 100 g weight on zone 6: the live reading shows it, then the zone is calibrated
        page.fill("#known-g", "100")
        page.click('#zones-table button[data-hand="weight"][data-zone="6"]')
        expect(page.locator('#zones-table button[data-hand="take"][data-zone="6"]')).to_be_visible()
        page.wait_for_function(
            "parseFloat(document.querySelector('[data-reading=\"6\"]').textContent) > 99"
        )
        measure(page, 'button[data-calibrate="6"]')
        result = page.locator('#zones-table tr[data-zone="6"] .result')
        expect(result).to_contain_text("done")
        expect(result).to_contain_text("counts/g")
        counts = float(re.search(r"([\d.]+) counts/g", result.inner_text()).group(1))
        assert counts == pytest.approx(node.true_counts_per_g[5], rel=0.005)
        page.click('#zones-table button[data-hand="take"][data-zone="6"]')

        # each piece: put it on zone 2, let the reading settle, weigh it, take it off
        page.select_option("#weigh-zone", "2")
        weighed = {}
        for item in ("rat", "bottle", "boat"):
            page.click(f'#items-table button[data-hand="piece"][data-item="{item}"]')
            take = page.locator('#items-table button[data-hand="take"][data-zone="2"]')
            expect(take.first).to_be_visible()  # the hand has put it down
            true_grams = node.hand_loads[1].grams
            # as for the tare: people wait for the piece to stop moving before they weigh it
            # (the reading alone can pass near its weight while the piece still settles: a
            # 2.64 g rat was weighed 2.39 g on a busy CI machine)
            wait_until_true(lambda: service.call(lambda: node.ship.settled))
            page.wait_for_function(
                "parseFloat(document.querySelectorAll('.reading-cell strong')[1].textContent)"
                f" > {true_grams - 0.3}"
            )
            measure(page, f'button[data-weigh="{item}"]')
            cell = page.locator(f'#items-table tr[data-item="{item}"] .weighed')
            expect(cell).to_have_text(re.compile(r"^\d+\.\d\d g$"))
            weighed[item] = float(cell.inner_text().split()[0])
            # within what tells the closest pieces apart (rat and bottle: 0.7 g, RR2)
            assert weighed[item] == pytest.approx(true_grams, abs=0.25)
            page.click('#items-table button[data-hand="take"][data-zone="2"]')
        screenshot(page, "calibration-wizard")

        expect(page.locator("#new-game-after")).to_be_checked()
        page.click("#finish")
        saved = page.locator("#saved")
        expect(saved).to_contain_text("Stored")
        expect(saved).to_contain_text("memory")
        expect(saved).to_contain_text(f"{weighed['rat']:.2f} g")
    runtime = service.service.runtimes["demo-1"]
    items = service.call(lambda: dict(runtime.referee.item_grams))
    assert {item: items[item] for item in weighed} == weighed  # the new game uses them
    snapshot = service.table("demo-1")
    assert not snapshot["calibrating"] and snapshot["humans"] == []
    assert snapshot["state"]["round"] == 1 and snapshot["state"]["phase"] == "choose"


def test_the_wizard_pairs_a_real_tables_ship_and_downloads_its_config(tmp_path):
    require_executable("mosquitto", "apt-get install mosquitto")
    port = free_port()
    table = TableConfig(id="t1", players=default_seats(["ann", "bob", "cy"]))
    options = service_options(
        None,  # bosun's own broker, with a ships' listener, as `bosun run` with real tables
        tmp_path,
        [table],
        ships_listener=("127.0.0.1", port),
        credentials_file=str(tmp_path / "bosun.ships.json"),
    )
    with RunningService(options) as service, chromium() as browser:
        page = browser.new_context(accept_downloads=True, **SCREEN).new_page()
        page.goto(f"{service.service.http_url}/tables/t1/calibrate?key={service.key}")
        expect(page.locator("#pairing-state")).to_contain_text("Not paired yet")
        with page.expect_download() as download:
            page.click("#pair")
        assert download.value.suggested_filename == "t1.config.json"
        config = json.loads(Path(download.value.path()).read_text())
        login = config["mqtt"]
        assert login["url"] == f"mqtt://127.0.0.1:{port}" and login["user"] == "ship-t1"
        assert mqtt_login("127.0.0.1", port, login["user"], login["password"]) == 0
        state = page.locator("#pairing-state")
        expect(state).to_contain_text("Paired: user ship-t1, password " + login["password"][:3])
        assert login["password"] not in page.content()  # only in the download
        screenshot(page, "calibration-pairing")

        page.once("dialog", lambda dialog: dialog.accept())  # "give the ship a new password?"
        with page.expect_download() as download:
            page.click("#rotate")
        rotated = json.loads(Path(download.value.path()).read_text())["mqtt"]
        assert rotated["password"] != login["password"]
        assert mqtt_login("127.0.0.1", port, login["user"], login["password"]) == NOT_AUTHORISED
        expect(state).to_contain_text("password " + rotated["password"][:3])
