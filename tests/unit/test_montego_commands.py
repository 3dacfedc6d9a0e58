"""`bosun replay` and `bosun simulate montego-bay` on Montego Bay games (DESIGN.md)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from montego_helpers import BOARD, ORDER, SHIPS

from bosun.bots.montego_bay import BotPolicy, play_game
from bosun.cli import main

# A log as another tool would write it from RULES.md and DESIGN.md alone.
LOG = [
    {"type": "setup", "game": "montego-bay", "players": ["ann", "bob", "cy"], "seed": 7,
     "warehouses": BOARD, "ships": SHIPS, "order": ORDER, "silver": {"ann": 3}},
    {"type": "hire", "player": "ann", "worker": "big"},
    {"type": "hire", "player": "bob", "worker": None},
    {"type": "hire", "player": "cy", "worker": None},
    {"type": "cards", "player": "bob", "big": 4, "little": 2},
    {"type": "cards", "player": "ann", "big": 2, "little": 1, "jack": 4},
    {"type": "cards", "player": "cy", "big": 1, "little": 3},
    {"type": "load", "player": "cy", "ships": {"2": 3}},
    {"type": "load", "player": "ann", "ships": {"2": 2}},
    {"type": "unload", "player": "cy", "ships": {"2": 2}},
    {"type": "load", "player": "bob", "ships": {"3": 4}},
]  # fmt: skip
CONTRACT_FIELDS = {"game", "phase", "round", "docks", "deck_left", "order", "workers", "jack",
                   "players", "pending", "winners"}  # fmt: skip


def write_log(tmp_path: Path, actions: list) -> Path:
    path = tmp_path / "montego.jsonl"
    path.write_text("".join((a if isinstance(a, str) else json.dumps(a)) + "\n" for a in actions))
    return path


def run_replay(tmp_path: Path, actions: list, capsys) -> tuple[int, dict, list[str]]:
    status = main(["replay", str(write_log(tmp_path, actions))])
    out, err = capsys.readouterr()
    return status, json.loads(out), err.splitlines()


def test_replay_prints_the_public_state_of_the_contract(tmp_path, capsys):
    status, state, errors = run_replay(tmp_path, LOG, capsys)
    assert status == 0 and errors == []
    assert set(state) >= CONTRACT_FIELDS
    assert state["game"] == "montego-bay" and state["phase"] == "resolve" and state["round"] == 1
    # Lazy Jack went first to N4, was pushed across to S4 by bob:big; his barrels are ann's.
    assert state["jack"] == {"player": "ann", "worker": "big", "at": "S4"}
    assert state["pending"] == {"player": "ann", "room": "S4", "action": "load", "count": 2}
    assert state["docks"] == [
        {"pilot": True},
        {"slots": 6, "points": [6, 3, 1], "cargo": {"cy": 1, "ann": 2}},
        {"slots": 5, "points": [5, 3, 1], "cargo": {"bob": 4}},
        {"slots": 4, "points": [4, 2, 1], "cargo": {}},
    ]
    assert state["deck_left"] == 9 and state["order"] == ORDER
    assert state["workers"] == {
        "ann:big": "N2", "ann:little": "S5", "bob:big": "N4",
        "bob:little": "N5", "cy:big": "N1", "cy:little": "S3",
    }  # fmt: skip
    assert state["players"] == {
        "ann": {"points": 0, "silver": 1, "barrels": 14},
        "bob": {"points": 0, "silver": 1, "barrels": 12},
        "cy": {"points": 0, "silver": 1, "barrels": 15},
    }
    assert state["winners"] == []
    assert "my_cards" not in state  # the public view


def test_replay_reports_a_rejected_line_and_goes_on(tmp_path, capsys):
    bad = [*LOG[:7], {"type": "load", "player": "cy", "ships": {"2": 2}}, "{oops", *LOG[7:]]
    status, state, errors = run_replay(tmp_path, bad, capsys)
    assert status == 1
    assert errors[0].startswith("line 8: rejected: cy must load exactly 3 barrels, not 2")
    assert errors[1].startswith("line 9: rejected: not valid JSON")
    assert len(errors) == 2
    assert state == run_replay(tmp_path, LOG, capsys)[1]


def test_replay_of_a_whole_bot_game_ends_where_the_game_ended(tmp_path, capsys):
    result = play_game(random.Random(5), ["ann", "bob", "cy", "dee"], BotPolicy())
    status, state, errors = run_replay(tmp_path, result.log, capsys)
    assert status == 0 and errors == []
    assert state["phase"] == "over" and state["winners"] == result.winners


def simulate(capsys, *args: str) -> dict:
    assert main(["simulate", "montego-bay", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_plays_whole_games_deterministically(capsys):
    summary = simulate(capsys, "--games", "12", "--seed", "3", "--players", "4")
    assert summary["game"] == "montego-bay" and summary["games"] == 12
    assert summary["players"] == ["ann", "bob", "cy", "dee"]
    assert sum(summary["wins_by_seat"].values()) >= 12
    assert 3 <= summary["rounds_mean"] <= 30
    totals = summary["totals"]
    assert totals["ships_sailed"] >= 12 * (28 - 3)  # MB10: at most 3 ships stay at the end
    assert totals["jack_hired"] > 0 and totals["bumps"] > 0
    assert simulate(capsys, "--games", "12", "--seed", "3", "--players", "4") == summary
    assert simulate(capsys, "--games", "12", "--seed", "4", "--players", "4") != summary


def test_simulate_two_players(capsys):
    summary = simulate(capsys, "--games", "5", "--players", "2")
    assert list(summary["wins_by_seat"]) == ["1:ann", "2:bob"]


def test_simulate_has_no_falls_for_montego_bay(capsys):
    assert main(["simulate", "montego-bay", "--fall-probability", "0.2"]) == 2
    assert "montego-bay has no falls" in capsys.readouterr().err
