"""`bosun simulate riffraff`: bots play whole games; the summary is deterministic per seed."""

from __future__ import annotations

import json

import pytest

from bosun.cli import main


def simulate(capsys, *args: str) -> dict:
    assert main(["simulate", "riffraff", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_summary_counts_games_winners_and_falls(capsys):
    summary = simulate(capsys, "--games", "40", "--seed", "3", "--players", "4")
    assert summary["games"] == 40
    assert summary["players"] == ["ann", "bob", "cy", "dee"]
    assert sum(summary["wins_by_seat"].values()) >= 40  # ties give every winner a win
    assert summary["totals"]["falls"] > 0
    assert 1 <= summary["rounds_mean"] <= 10


def test_the_same_seed_gives_the_same_games(capsys):
    first = simulate(capsys, "--games", "20", "--seed", "9")
    assert simulate(capsys, "--games", "20", "--seed", "9") == first
    assert simulate(capsys, "--games", "20", "--seed", "10") != first


def test_without_falls_nobody_catches_and_nothing_is_boxed(capsys):
    summary = simulate(capsys, "--games", "10", "--fall-probability", "0")
    assert summary["totals"] == {"falls": 0, "caught": 0, "boxed": 0}
    assert summary["rounds_mean"] <= 8  # at least one piece a turn: someone empties by round 8


def test_two_players_play_up_to_two_cycles(capsys):
    summary = simulate(capsys, "--games", "10", "--players", "2", "--fall-probability", "0.5")
    assert 10 < summary["rounds_mean"] <= 20


@pytest.mark.parametrize(
    "args, complaint",
    [
        (["--games", "0"], "between 1 and"),
        (["--players", "5"], "between 2 and 4"),
        (["--fall-probability", "1.5"], "between 0 and 1"),
        (["--seed", "x"], "not a whole number"),
    ],
)
def test_bad_arguments_are_named(capsys, args, complaint):
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "riffraff", *args])
    assert exit_.value.code == 2
    assert complaint in capsys.readouterr().err
