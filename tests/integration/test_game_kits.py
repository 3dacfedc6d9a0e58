"""A game is one kit: a game defined only under tests/ is served by `bosun run` unchanged.

`tests/games/tally_game.py` holds a whole game (engine, table referee, options); this test
names it in the `bosun.games` entry-point group of a throwaway distribution on PYTHONPATH,
as a plug-in package would, and plays it through the real `bosun run`: its tables file, its
pages, its seats, its log and `bosun replay`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from support.polling import until

from bosun.bus.broker import free_port, wait_for_port

BOSUN = str(Path(sys.executable).parent / "bosun")
GAMES = Path(__file__).resolve().parents[1] / "games"
TABLES = """
[[table]]
id = "corner"
game = "tally"
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" }]
"""


@pytest.fixture
def plugin_env(tmp_path) -> dict[str, str]:
    """The environment of a machine where a package registered the Tally game."""
    dist = tmp_path / "plugins" / "tally_game-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tally-game\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[bosun.games]\ntally = tally_game:KIT\n")
    path = os.pathsep.join([str(GAMES), str(tmp_path / "plugins")])
    return {**os.environ, "PYTHONPATH": path, "BOSUN_OPERATOR_KEY": "operator-secret"}


def test_a_game_defined_only_in_the_tests_is_refereed_by_bosun_run(tmp_path, mosquitto, plugin_env):
    (tmp_path / "bosun.toml").write_text(TABLES)
    port = free_port()
    service = subprocess.Popen(
        [BOSUN, "run", "--mqtt", mosquitto.url, "--port", str(port)],
        cwd=tmp_path,
        env=plugin_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for_port("127.0.0.1", port, 60, service), service.stderr.read()
        http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
        key = {"key": "operator-secret"}
        [table] = http.get("/api/tables").json()
        assert (table["id"], table["game"], table["phase"]) == ("corner", "tally", "play")
        assert "Tally" in http.get("/").text  # its title, from its kit
        # its own options, and no other game's
        refused = http.post("/api/tables/corner/games", params=key, json={"seed": 3})
        assert refused.status_code == 400
        assert "Tally has no seed: a new game takes goal" in refused.json()["error"]
        started = http.post("/api/tables/corner/games", params=key, json={"goal": 5})
        assert started.status_code == 200, started.text
        seats = started.json()["seats"]
        # its rules, through the seats' pages: ann 2, bob 2, ann 1 reaches 5
        wrong = http.post(f"/api/seat/{seats['bob']}", json={"type": "add", "by": 1})
        assert wrong.status_code == 409 and "ann's turn" in wrong.json()["error"]
        for player, by in (("ann", 2), ("bob", 2), ("ann", 1)):
            answer = http.post(f"/api/seat/{seats[player]}", json={"type": "add", "by": by})
            assert answer.status_code == 200, answer.text
        assert answer.json()["state"]["winners"] == ["ann"]
        assert answer.json()["legal"] == []
        # its log: listed, replayed and exported like any game's
        games = until(
            lambda: http.get("/api/games", params={"table": "corner"}).json(),
            lambda listed: listed and listed[0]["winners"] == ["ann"],
        )
        detail = http.get(f"/api/games/{games[0]['game_id']}").json()
        assert detail["state"]["count"] == 5 and detail["turns"] == []
        log = http.get(f"/api/games/{games[0]['game_id']}/log.jsonl")
        (tmp_path / "tally.jsonl").write_text(log.text)
        replayed = subprocess.run(
            [BOSUN, "replay", str(tmp_path / "tally.jsonl")],
            env=plugin_env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert replayed.returncode == 0, replayed.stderr
        assert '"winners": ["ann"]' in replayed.stdout
        assert "/static/" in http.get("/tables/corner").text
    finally:
        service.terminate()
        service.wait(30)


def test_without_its_kit_the_tables_file_names_the_games_there_are(tmp_path):
    (tmp_path / "bosun.toml").write_text(TABLES)
    done = subprocess.run(
        [BOSUN, "run", "--port", "0"],
        cwd=tmp_path,
        env={**os.environ, "BOSUN_OPERATOR_KEY": "operator-secret"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "unknown game 'tally'" in done.stderr and "riffraff" in done.stderr
