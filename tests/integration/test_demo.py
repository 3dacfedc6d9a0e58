"""A whole game from simulated sensor data to the winner: virtual ship, detector, mosquitto,
the referee service and bot players over HTTP (`bosun demo`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.service import WHOLE_GAME_CEILING_S

BOSUN = str(Path(sys.executable).parent / "bosun")


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_bosun_demo_plays_whole_games_and_the_referee_matches_the_truth(mosquitto, tmp_path):
    done = subprocess.run(
        [
            BOSUN,
            "demo",
            "--games",
            "1",
            "--tables",
            "2",
            "--speed",
            "8",
            "--seed",
            "5",
            "--mqtt",
            mosquitto.url,
            "--db",
            f"sqlite:///{tmp_path / 'demo.db'}",
        ],
        capture_output=True,
        text=True,
        timeout=WHOLE_GAME_CEILING_S,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    games = summary["games"]
    assert [g["table"] for g in games] == ["demo-1", "demo-2"]
    for game in games:
        assert game["winners"], game
        assert 1 <= game["rounds"] <= 10
        assert 0 <= game["boxed"] <= game["caught"]  # RR12: only caught pieces are boxed
        assert game["mismatches"] == [], game["mismatches"]
    assert "games on 2 virtual tables" in done.stderr
