"""The Montego Bay referee while ships sail and move up (MB9, MB10, MB15): people follow the
game with their hands, and the barrels they move then are not the next player's answer."""

from __future__ import annotations

import pytest

from bosun.games import Rejected
from bosun.referee import effects as fx
from bosun.referee.montego_bay import BARREL_G, CHECK_MS, QUIET_MS, MontegoBayTable
from bosun.tables import TableConfig, default_seats

PLAYERS = ["ann", "bob"]
# Big workers from the west pub land on N<card>, Little ones from the east pub on S5..S1.
BOARD = [
    [{"barrels": 3}, {"broken": 1}],
    [{"barrels": 0}, {"barrels": 0}],
    [{"barrels": 0}, {"barrels": 0}],
    [{"barrels": 4}, {"barrels": 2}],
    [{"barrels": 0}, {"barrels": 0}],
]
# Dock 2 gets the three-slot ship: ann's three barrels from N1 fill it and it sails (MB9).
SHIPS = [{"slots": 3, "points": [4, 2]}, {"slots": 5, "points": [5, 3]}]
SHIPS += [{"slots": 6, "points": [6, 3]}] * 10
SETUP = {
    "type": "setup",
    "game": "montego-bay",
    "players": PLAYERS,
    "warehouses": BOARD,
    "ships": SHIPS,
    "order": ["ann:big", "bob:big", "ann:little", "bob:little"],
}
T0 = 10_000


def kinds(effects, kind):
    return [e.payload for e in effects if e.kind == kind]


def ask(t: MontegoBayTable, player: str, request: dict, now_ms: int = 0):
    return t.on_input(player, request, now_ms)


@pytest.fixture
def table() -> MontegoBayTable:
    """Round 1 revealed: ann's big worker on N1 (3 barrels), bob's on N4 (4 barrels), bob's
    little one on S4 (2 barrels); ann is asked to load 3."""
    config = TableConfig(id="harbour", game="montego-bay", players=default_seats(PLAYERS))
    t = MontegoBayTable(config, SETUP)
    for player in PLAYERS:
        ask(t, player, {"type": "hire", "worker": None})
    ask(t, "ann", {"type": "cards", "big": 1, "little": 3})
    ask(t, "bob", {"type": "cards", "big": 4, "little": 2})
    assert t.view["pending"] == {"player": "ann", "room": "N1", "action": "load", "count": 3}
    return t


def barrels(t, dock: int, n: int, now_ms: int):
    """n barrels put on (n > 0) or taken off (n < 0) a dock, as the load cell reports it."""
    if n > 0:
        return t.on_ship_event({"type": "place", "zone": dock, "grams": n * BARREL_G}, now_ms)
    return t.on_ship_event({"type": "fall", "zones": [dock], "grams": -n * BARREL_G}, now_ms)


def ann_fills_dock_2(t) -> None:
    """Ann puts her three barrels on dock 2's three-slot ship: the harbour answers for her,
    the ship sails and the ships behind it move up in the game (MB9, MB15b)."""
    barrels(t, 2, 3, T0)
    out = t.on_timer(T0 + QUIET_MS)
    assert kinds(out, fx.ACTION) == [{"type": "load", "player": "ann", "ships": {"2": 3}}]
    assert t.view["pending"]["player"] == "bob" and t.view["pending"]["count"] == 4
    assert t.view["docks"][1] == {"slots": 5, "points": [5, 3], "cargo": {}}  # moved up
    assert t.referee_state()["ships_moving"] == [2]


def test_mb9_the_barrels_of_a_ship_that_sailed_are_not_the_next_answer(table):
    ann_fills_dock_2(table)
    t1 = T0 + 5000
    out = barrels(table, 2, -3, t1)  # the sailed ship's barrels go back to ann
    assert table.referee_state()["ships_moving"] == []
    out += table.on_timer(t1 + QUIET_MS)
    assert kinds(out, fx.ACTION) == [] and kinds(out, fx.FLAG) == []
    barrels(table, 3, 4, t1 + 3000)
    out = table.on_timer(t1 + 3000 + QUIET_MS)
    assert kinds(out, fx.ACTION) == [{"type": "load", "player": "bob", "ships": {"3": 4}}]


def test_mb9_no_answer_is_read_while_people_still_move_the_ships(table):
    ann_fills_dock_2(table)
    t1 = T0 + 5000
    barrels(table, 3, 4, t1)  # bob is quick: his barrels go on before the ship is cleared
    assert kinds(table.on_timer(t1 + QUIET_MS), fx.ACTION) == []
    barrels(table, 2, -3, t1 + 3000)
    out = table.on_timer(t1 + 3000 + QUIET_MS)
    assert kinds(out, fx.ACTION) == [{"type": "load", "player": "bob", "ships": {"3": 4}}]


def test_mb15_a_page_answer_while_ships_move_is_checked_once_the_harbour_caught_up(table):
    ann_fills_dock_2(table)
    t1 = T0 + 5000
    out = ask(table, "bob", {"type": "load", "ships": {"3": 4}}, t1)
    assert kinds(out, fx.FLAG) == [] and table.next_deadline_ms() == t1 + CHECK_MS
    out = barrels(table, 2, -3, t1 + 1000) + barrels(table, 3, 4, t1 + 2000)
    assert kinds(out, fx.FLAG) == []
    assert any("agrees with bob's load" in f["text"] for f in kinds(out, fx.FEED))
    assert table.checks == []


def test_mb15_a_flagged_harbour_is_not_read_until_people_confirm_it(table):
    ann_fills_dock_2(table)
    t1 = T0 + 5000
    barrels(table, 2, -3, t1)
    barrels(table, 4, 4, t1 + 1000)  # bob's barrels on dock 4 ...
    out = ask(table, "bob", {"type": "load", "ships": {"3": 4}}, t1 + 2000)  # ... "dock 3"
    (flag,) = kinds(out, fx.FLAG)
    assert flag["kind"] == "harbour_mismatch"
    assert "4 barrels on dock 3" in flag["text"] and "4 barrels on dock 4" in flag["text"]
    assert table.referee_state()["harbour_off"] == {"3": -4, "4": 4}
    # bob's little worker on S4 is asked next; while the harbour is in question it is not read
    assert table.view["pending"] == {"player": "bob", "room": "S4", "action": "load", "count": 2}
    barrels(table, 2, 2, t1 + 3000)
    assert kinds(table.on_timer(t1 + 3000 + QUIET_MS), fx.ACTION) == []
    # people set the barrels as the game shows them (bob's back from dock 2, four 4 -> 3)
    for dock, n in ((2, -2), (4, -4), (3, 4)):
        barrels(table, dock, n, t1 + 6000)
    out = ask(table, "ann", {"type": "confirm", "flag": flag["id"], "option": "confirm"}, t1 + 7000)
    assert any("matches the game again" in f["text"] for f in kinds(out, fx.FEED))
    barrels(table, 2, 2, t1 + 8000)
    out = table.on_timer(t1 + 8000 + QUIET_MS)
    assert kinds(out, fx.ACTION) == [{"type": "load", "player": "bob", "ships": {"2": 2}}]


def test_confirming_a_misread_harbour_counts_on_from_it(table):
    barrels(table, 2, 3, T0)
    barrels(table, 4, 1, T0 + 100)  # a knock read as a barrel on dock 4
    out = ask(table, "ann", {"type": "load", "ships": {"2": 3}}, T0 + 500)
    (flag,) = kinds(out, fx.FLAG)
    barrels(table, 2, -3, T0 + 1000)  # the full ship sailed: its barrels go home
    out = ask(table, "bob", {"type": "confirm", "flag": flag["id"], "option": "confirm"}, T0 + 2000)
    assert "1 barrel on dock 4" in kinds(out, fx.FEED)[0]["text"]
    assert table.referee_state()["harbour_off"] == {}
    barrels(table, 3, 4, T0 + 3000)
    out = table.on_timer(T0 + 3000 + QUIET_MS)
    assert kinds(out, fx.ACTION) == [{"type": "load", "player": "bob", "ships": {"3": 4}}]


def test_a_refused_page_answer_leaves_the_referee_as_it_was(table):
    barrels(table, 2, 1, T0)
    before = (dict(table.felt), table.quiet_deadline_ms, list(table.checks), dict(table.flags))
    with pytest.raises(Rejected, match="exactly 3 barrels"):
        ask(table, "ann", {"type": "load", "ships": {"2": 1}}, T0 + 100)
    with pytest.raises(Rejected, match="ann is to load"):
        ask(table, "bob", {"type": "load", "ships": {"3": 3}}, T0 + 100)
    after = (dict(table.felt), table.quiet_deadline_ms, list(table.checks), dict(table.flags))
    assert after == before and len(table.match.log) == 5
