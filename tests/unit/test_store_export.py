"""`bosun export TABLE_OR_GAME`: the effective game log that `bosun replay` reproduces."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bosun.bots.riffraff import BotPolicy, play_game
from bosun.cli import main
from bosun.games.match import Match, replay
from bosun.store import Store

PLAYERS = ["ann", "bob", "cy"]
START_MS = 1_747_735_000_000


def store_game(store: Store, table: str, seed: int, *, finish: bool = True) -> tuple[str, list]:
    """A whole bot game with a few misdetections the referee undid on the way."""
    result = play_game(random.Random(seed), PLAYERS, BotPolicy())
    setup, *actions = result.log
    game_id = store.start_game(table, "riffraff", PLAYERS, setup, None, START_MS + seed)
    for n, action in enumerate(actions):
        if n % 17 == 5:
            wrong = {
                "type": "load",
                "player": action.get("player", "ann"),
                "zone": 1,
                "item": "rat",
            }
            store.append(table, "action", wrong, at_ms=START_MS + n, game_id=game_id)
            store.undo_last_action(game_id, "misdetected", "referee", START_MS + n)
        store.append(table, "action", action, at_ms=START_MS + n, game_id=game_id)
    if finish:
        store.finish_game(game_id, result.winners, START_MS + 10**6)
    return game_id, result.log


def replayed_state(lines: list[str]) -> dict:
    match = Match()
    assert list(replay(lines, match)) == []
    return match.view()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> tuple[str, dict]:
    """Three stored games (t1: one finished, one running; t2: one); exports only read it."""
    url = f"sqlite:///{tmp_path_factory.mktemp('store') / 'bosun.db'}"
    with Store.open(url) as store:
        first_id, first_log = store_game(store, "t1", 1)
        second_id, second_log = store_game(store, "t1", 2, finish=False)
        other_id, other_log = store_game(store, "t2", 3)
    games = {first_id: first_log, second_id: second_log, other_id: other_log, "t1": second_log}
    return url, games


def test_export_of_a_game_id_prints_its_effective_log(db, capsys):
    url, games = db
    game_id = next(iter(games))
    assert main(["export", game_id, "--db", url]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert [json.loads(line) for line in out.splitlines()] == games[game_id]
    assert '"type":"setup"' in out.splitlines()[0]  # compact, one action a line


def test_export_of_a_table_id_takes_its_latest_game_even_running(db, capsys):
    url, games = db
    assert main(["export", "t1", "--db", url]) == 0
    out, _ = capsys.readouterr()
    assert [json.loads(line) for line in out.splitlines()] == games["t1"]


def test_bosun_replay_of_the_export_reproduces_the_game(db, tmp_path, capsys):
    url, games = db
    game_id = next(iter(games))
    target = tmp_path / "game.jsonl"
    assert main(["export", game_id, "--db", url, "--output", str(target)]) == 0
    _, err = capsys.readouterr()
    assert f"exported game {game_id} (table t1, finished," in err and str(target) in err
    assert main(["replay", str(target)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    original = replayed_state([json.dumps(a) for a in games[game_id]])
    assert json.loads(out) == original and original["phase"] == "over"


def test_the_installed_command_reads_bosun_db_from_the_environment(db, tmp_path):
    url, games = db
    env = {**os.environ, "BOSUN_DB": url}
    bosun = Path(sys.executable).with_name("bosun")
    done = subprocess.run(
        [str(bosun), "export", "t2"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    other_log = list(games.values())[2]
    assert [json.loads(line) for line in done.stdout.splitlines()] == other_log


def test_the_default_database_is_bosun_db_in_this_folder(db, tmp_path, monkeypatch, capsys):
    url, games = db
    monkeypatch.delenv("BOSUN_DB", raising=False)
    monkeypatch.chdir(Path(url.removeprefix("sqlite:///")).parent)
    assert main(["export", "t1"]) == 0
    out, _ = capsys.readouterr()
    assert [json.loads(line) for line in out.splitlines()] == games["t1"]


def test_unknown_ids_are_a_clear_error(db, capsys):
    url, _ = db
    for target in ("t9", "20990101T000000000Z-abcdef", "x" * 500, "t1/../t2"):
        assert main(["export", target, "--db", url]) == 2
        out, err = capsys.readouterr()
        assert out == "" and "no game and no table with games is named" in err


def test_a_missing_database_is_an_error_and_is_not_created(tmp_path, capsys):
    missing = tmp_path / "nowhere.db"
    assert main(["export", "t1", "--db", f"sqlite:///{missing}"]) == 2
    _, err = capsys.readouterr()
    assert "no such database file" in err and not missing.exists()


@pytest.mark.parametrize(
    "db_url, problem",
    [
        ("mysql://ann@localhost/bosun", "SQLite"),
        ("sqlite://", "SQLite file"),
        ("postgresql://ann:pw@127.0.0.1:1/bosun?connect_timeout=3", "cannot open"),
    ],
)
def test_unusable_database_urls_are_a_clear_error(db_url, problem, capsys):
    assert main(["export", "t1", "--db", db_url]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("bosun export: ") and problem in err and ":pw@" not in err


def test_a_file_that_is_not_a_database_is_an_error(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n" * 1000)
    assert main(["export", "t1", "--db", str(notes)]) == 2
    _, err = capsys.readouterr()
    assert "is not a database" in err and notes.read_text() == "hello\n" * 1000


def test_an_unwritable_output_is_an_error_and_leaves_no_partial_file(db, tmp_path, capsys):
    url, _ = db
    target = tmp_path / "no" / "such" / "folder" / "game.jsonl"
    assert main(["export", "t1", "--db", url, "--output", str(target)]) == 2
    _, err = capsys.readouterr()
    assert "cannot write" in err and not target.parent.exists()
    existing = tmp_path / "keep.jsonl"
    existing.write_text("old\n")
    assert main(["export", "t9", "--db", url, "--output", str(existing)]) == 2
    assert existing.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file
