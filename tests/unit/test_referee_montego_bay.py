"""The Montego Bay table referee: page answers checked against the harbour's load cells (MB15)."""

from __future__ import annotations

import random

import pytest

from bosun.bots.montego_bay import BotPolicy, choose_decision
from bosun.games import Rejected
from bosun.referee import effects as fx
from bosun.referee.montego_bay import BARREL_G, CHECK_MS, QUIET_MS, MontegoBayTable
from bosun.tables import TableConfig, default_seats


def kinds(effects, kind):
    return [e.payload for e in effects if e.kind == kind]


T0 = 1_000_000  # the scenarios start here, long after the bots' page answers were checked


def table_at_a_pending(action: str, seed: int = 3) -> MontegoBayTable:
    """A 3-player table driven by bots' page requests until someone must `action` barrels.

    The bots answer on their pages and never move barrels, so the harbour checks of their
    answers are closed (and flagged) before the scenario starts at T0; people confirm those
    flags, and the referee counts on from the harbour as it is.
    """
    players = ["ann", "bob", "cy"]
    config = TableConfig(id="harbour", game="montego-bay", players=default_seats(players))
    t = MontegoBayTable(config, MontegoBayTable.setup_action(config, players, {"seed": seed}))
    rng = random.Random(seed)
    for _ in range(500):
        view = t.view
        pending = view["pending"]
        if pending and pending["action"] == action:
            t.on_timer(T0 - 1)
            for flag in list(t.flags.values()):
                t.on_input(players[0], {"type": "confirm", "flag": flag.id, "option": "confirm"}, 0)
            return t
        actor = next(p for p in players if t.match.game.legal_actions(t.match.state, p))
        legal = t.match.game.legal_actions(t.match.state, actor)
        choice = choose_decision(rng, t.player_view(actor), legal, BotPolicy())
        request = {k: v for k, v in choice.items() if k != "player"}
        t.on_input(actor, request, 0)
    raise AssertionError(f"no pending {action} within 500 requests")


def free_docks(t: MontegoBayTable, count: int) -> dict[str, int]:
    """A legal way to place `count` barrels: fill the docks' free slots in order."""
    ships = {}
    for number, dock in enumerate(t.view["docks"], start=1):
        if dock and not dock.get("pilot") and count:
            free = dock["slots"] - sum(dock["cargo"].values())
            take = min(free, count)
            if take:
                ships[str(number)] = take
                count -= take
    return ships


def put(t, ships, now_ms, per_barrel_g=BARREL_G):
    out = []
    for dock, n in ships.items():
        out += t.on_ship_event(
            {"type": "place", "zone": int(dock), "grams": n * per_barrel_g}, now_ms
        )
    return out


def test_mb15_a_page_answer_the_harbour_agrees_with_raises_no_flag():
    t = table_at_a_pending("load")
    pending = t.view["pending"]
    ships = free_docks(t, pending["count"])
    put(t, ships, T0 + 1000)
    out = t.on_input(pending["player"], {"type": "load", "ships": ships}, T0 + 1200)
    assert kinds(out, fx.ACTION)[0] == {"type": "load", "player": pending["player"], "ships": ships}
    assert kinds(out, fx.FLAG) == []
    assert any("agrees" in f["text"] for f in kinds(out, fx.FEED))


def test_mb15_a_page_answer_that_differs_from_the_harbour_is_flagged():
    t = table_at_a_pending("load")
    pending = t.view["pending"]
    ships = free_docks(t, pending["count"])
    dock = next(iter(ships))
    put(t, {dock: ships[dock] + 1}, T0 + 1000)  # one barrel too many felt on that dock
    out = t.on_input(pending["player"], {"type": "load", "ships": ships}, T0 + 1200)
    (flag,) = kinds(out, fx.FLAG)
    assert flag["kind"] == "harbour_mismatch" and "the harbour felt" in flag["text"]
    assert kinds(out, fx.ACTION)  # the player's answer stands until people undo it


def test_mb15_barrels_moved_after_the_page_answer_are_checked_when_they_arrive():
    t = table_at_a_pending("load")
    pending = t.view["pending"]
    ships = free_docks(t, pending["count"])
    out = t.on_input(pending["player"], {"type": "load", "ships": ships}, T0 + 1000)
    assert kinds(out, fx.FLAG) == [] and t.next_deadline_ms() == T0 + 1000 + CHECK_MS
    out = put(t, ships, T0 + 2000)
    assert kinds(out, fx.FLAG) == [] and t.next_deadline_ms() is None


def test_mb15_barrels_never_moved_after_a_page_answer_are_flagged():
    t = table_at_a_pending("load")
    pending = t.view["pending"]
    ships = free_docks(t, pending["count"])
    t.on_input(pending["player"], {"type": "load", "ships": ships}, T0 + 1000)
    out = t.on_timer(T0 + 1000 + CHECK_MS)
    assert [f["kind"] for f in kinds(out, fx.FLAG)] == ["harbour_mismatch"]


def test_mb15_the_harbour_answers_for_a_player_who_only_moves_barrels():
    t = table_at_a_pending("load")
    pending = t.view["pending"]
    ships = free_docks(t, pending["count"])
    put(t, ships, T0 + 1000)
    assert t.next_deadline_ms() == T0 + 1000 + QUIET_MS
    out = t.on_timer(T0 + 1000 + QUIET_MS)
    assert kinds(out, fx.ACTION) == [{"type": "load", "player": pending["player"], "ships": ships}]


def test_mb15_too_few_barrels_felt_is_not_answered_for_the_player():
    t = next(
        t
        for seed in range(3, 60)
        if (t := table_at_a_pending("load", seed)).view["pending"]["count"] >= 2
    )
    pending = t.view["pending"]
    ships = free_docks(t, pending["count"] - 1)
    put(t, ships, T0 + 1000)
    assert kinds(t.on_timer(T0 + 1000 + QUIET_MS), fx.ACTION) == []
    assert t.view["pending"] == pending


def test_mb15_unloading_is_checked_the_same_way():
    t = table_at_a_pending("unload", seed=11)
    pending = t.view["pending"]
    player = pending["player"]
    ships = {}
    left = pending["count"]
    for number, dock in enumerate(t.view["docks"], start=1):
        if dock and not dock.get("pilot") and dock["cargo"].get(player) and left:
            take = min(dock["cargo"][player], left)
            ships[str(number)] = take
            left -= take
    for dock, n in ships.items():
        t.on_ship_event({"type": "fall", "grams": n * BARREL_G, "zones": [int(dock)]}, T0 + 1000)
    out = t.on_timer(T0 + 1000 + QUIET_MS)
    assert kinds(out, fx.ACTION) == [{"type": "unload", "player": player, "ships": ships}]


def test_a_weight_that_is_not_whole_barrels_is_reported():
    t = table_at_a_pending("load")
    out = t.on_ship_event({"type": "place", "zone": 2, "grams": 1.5 * BARREL_G}, T0 + 1000)
    assert any("not a whole number of barrels" in f["text"] for f in kinds(out, fx.FEED))


def test_a_seat_answers_only_its_own_question():
    t = table_at_a_pending("load")
    pending = t.view["pending"]
    other = next(p for p in ("ann", "bob", "cy") if p != pending["player"])
    with pytest.raises(Rejected):
        t.on_input(other, {"type": "load", "ships": free_docks(t, pending["count"])}, 0)
