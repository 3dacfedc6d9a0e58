"""A table as pages and commands see it (referee/view.py), and the boundary it draws."""

from __future__ import annotations

import ast
import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

from bosun.referee.entry_writer import EntryWriter
from bosun.referee.runtime import TableRuntime
from bosun.referee.view import TableView
from bosun.store import Store
from bosun.tables import TableConfig, default_seats
from shipsense import protocol

HOST = Path(__file__).resolve().parents[2] / "host" / "bosun"
# What only the referee package may touch of a table: its runtime and what it is made of.
INTERNALS = {"runtimes", "_runtime", "listeners", "referee", "link", "ship", "dedup"}


class Clock:
    scale = 1.0

    def __init__(self) -> None:
        self.t_ms = 1_000_000

    def now_ms(self) -> int:
        return self.t_ms

    def call_at_ms(self, deadline_ms, callback):
        class Handle:
            def cancel(self) -> None:
                pass

        return Handle()


class Wire:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    def publish(self, topic, payload, qos=0, retain=False) -> None:
        self.sent.append((topic, json.loads(payload)))


@pytest.fixture
def table(tmp_path):
    with Store.open(f"sqlite:///{tmp_path / 'bosun.db'}") as store:
        config = TableConfig(id="t1", players=default_seats(["ann", "bob", "cy"]))
        runtime = TableRuntime(config, store, Wire(), Clock())
        runtime.start_game()
        yield TableView(runtime)
        runtime.close()


def test_the_public_snapshot_never_holds_a_card_or_a_token(table):
    tokens = table.seat_tokens()
    table.player_input(tokens["ann"], {"type": "card", "value": 7})
    public = json.dumps(table.snapshot())
    assert all(token not in public for token in tokens.values())
    assert table.snapshot()["state"]["players"]["ann"]["card"] is None  # RR4: not yet shown
    own = table.player_snapshot("ann")
    assert own["you"] == "ann" and own["state"]["my_card"] == 7
    assert table.player_snapshot("bob")["state"]["my_card"] is None
    assert {a["type"] for a in table.player_snapshot("bob")["legal"]} == {"card"}


def test_a_summary_is_one_line_of_the_tables_list(table):
    assert table.summary() == {
        "id": "t1",
        "game": "riffraff",
        "players": ["ann", "bob", "cy"],
        "game_id": table.game_id,
        "phase": "choose",
        "round": 1,
        "ship_online": False,
    }


def test_watchers_hear_of_every_change_until_they_stop_watching(table):
    heard = []

    def listener() -> None:
        heard.append(table.snapshot()["state"]["players"]["bob"]["chosen"])

    table.watch(listener)
    table.player_input(table.seat_tokens()["bob"], {"type": "card", "value": 2})
    assert heard and heard[-1] is True
    count = len(heard)
    table.unwatch(listener)
    table.changed()
    assert len(heard) == count


def test_a_ship_event_shows_its_feed_line_with_its_state_and_lights_the_ship_once_stored(
    tmp_path,
):
    # a ship's event is decided at once and stored by the writer; a page that looks before it
    # is stored sees the decided state with the line saying what happened, never one alone
    loop = asyncio.new_event_loop()  # not run yet: the writer's "stored" waits on it
    writes = ThreadPoolExecutor(max_workers=1)
    with Store.open(f"sqlite:///{tmp_path / 'bosun.db'}") as store, closing(loop), writes:
        config = TableConfig(id="t1", players=default_seats(["ann", "bob", "cy"]))
        wire = Wire()
        writer = EntryWriter(store, loop, thread=writes)
        runtime = TableRuntime(config, store, wire, Clock(), writer=writer)
        runtime.start_game()
        view = TableView(runtime)
        for player, value in zip(("ann", "bob", "cy"), (9, 5, 3), strict=True):
            view.player_input(view.seat_tokens()[player], {"type": "card", "value": value})
        wire.sent.clear()
        runtime.ship_event({"type": "place", "zone": 9, "grams": 11.7, "boot": "b1", "seq": 1})
        seen = view.snapshot()
        assert seen["state"]["ship"]["9"] == ["boat"]
        assert "ann loaded a boat (11.7 g)" in [line["text"] for line in seen["feed"]]
        assert not wire.sent  # the ship's LEDs and the published state wait for the store
        loop.run_until_complete(asyncio.wait_for(_until(lambda: wire.sent), 10))
        topics = {topic.rsplit("/", 1)[-1] for topic, _ in wire.sent}
        assert {"cmd", "state"} <= topics, topics
        lines = [line["text"] for line in view.snapshot()["feed"]]
        assert lines.count("ann loaded a boat (11.7 g)") == 1  # said once, not again when stored
        runtime.close()


async def _until(condition) -> None:
    while not condition():
        await asyncio.sleep(0.01)


def test_a_new_game_takes_only_its_games_options_and_old_links_lead_on(table):
    old = table.seat_tokens()
    with pytest.raises(ValueError, match="Riff Raff has no seed"):
        table.new_game(None, {"seed": 3})
    game_id = table.new_game(["bob", "ann"], {"captain": "ann", "settle_s": 3})
    assert game_id == table.game_id and table.state()["captain"] == "ann"
    assert table.seat_of(old["ann"]) is None
    assert table.earlier_player(old["ann"], game_id) == "ann"  # her link leads on
    assert "cy" not in table.seat_tokens()  # cy does not play this game
    assert table.earlier_player(table.seat_tokens()["bob"], game_id) is None


def test_the_wizard_measures_through_the_view(table):
    # while a game is refereed the ship is never tared, calibrated, reconfigured or restarted
    for command in ({"cmd": "tare"}, {"cmd": "set", "key": "mqtt.url", "value": "mqtt://x"}):
        with pytest.raises(protocol.CommandError, match="only from the calibration wizard"):
            table.send_command(command)
    table.set_calibrating(True)
    assert table.calibrating and table.snapshot()["calibrating"]
    command_id = table.send_command({"cmd": "tare"})
    assert table.result(command_id) is None
    # the ship is put in maintenance with the wizard, and again before each measurement
    commands = [m["cmd"] for topic, m in table._runtime.link.publisher.sent if "cmd" in topic]  # noqa: SLF001
    assert commands[-3:] == ["maintenance", "maintenance", "tare"]
    assert table.use_item_grams({"rat": 2.7})["rat"] == 2.7
    assert table.item_grams()["rat"] == 2.7 and table.item_grams()["boat"] == 11.8
    assert table.describe() == "real ship" and table.virtual is None


def _internals_touched(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "bosun.referee.runtime":
            found.append(f"{path.name}:{node.lineno}: imports the runtime")
        elif isinstance(node, ast.Attribute) and node.attr in INTERNALS:
            found.append(f"{path.name}:{node.lineno}: .{node.attr}")
    return found


def test_pages_demo_and_commands_see_tables_only_through_their_view():
    found = [
        problem
        for folder in ("web", "demo", "commands")
        for path in sorted((HOST / folder).rglob("*.py"))
        for problem in _internals_touched(path)
        # the demo's own virtual ship is a `.ship` of its node, not of a table
        if not (folder == "demo" and problem.endswith(".ship"))
    ]
    assert found == []
