"""`bosun replay LOG.jsonl` follows DESIGN.md's game-log contract to the letter."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bosun.cli import main

SETUP = {"type": "setup", "game": "riffraff", "players": ["ann", "bob", "cy"], "captain": "ann"}
ROUND = [
    SETUP,
    {"type": "card", "player": "bob", "value": 7},
    {"type": "card", "player": "ann", "value": 3},
    {"type": "card", "player": "cy", "value": 5},
    {"type": "load", "player": "bob", "zone": 7, "item": "barrel"},
    {"type": "end_turn", "player": "bob"},
]


def write_log(tmp_path: Path, lines: list) -> Path:
    path = tmp_path / "game.jsonl"
    body = b"".join(
        (
            line
            if isinstance(line, bytes)
            else (line if isinstance(line, str) else json.dumps(line)).encode()
        )
        + b"\n"
        for line in lines
    )
    path.write_bytes(body)
    return path


def replay(tmp_path: Path, lines: list, capsys) -> tuple[int, dict, list[str]]:
    status = main(["replay", str(write_log(tmp_path, lines))])
    out, err = capsys.readouterr()
    return status, json.loads(out), err.splitlines()


def test_a_clean_log_prints_the_final_public_state_and_exits_0(tmp_path, capsys):
    status, state, errors = replay(tmp_path, ROUND, capsys)
    assert status == 0 and errors == []
    assert state["game"] == "riffraff" and state["phase"] == "turn"
    assert state["turn"] == "cy" and state["target_zone"] == 5 and state["captain"] == "bob"
    assert state["ship"]["7"] == ["barrel"]
    assert state["players"]["bob"] == {
        "supply": 7,
        "items": {i: 0 if i == "barrel" else 1 for i in state["players"]["bob"]["items"]},
        "played": [7],
        "card": 7,
        "chosen": True,
    }
    assert state["boxed"] == 0 and state["winners"] == [] and state["round"] == 1


def test_the_console_script_is_the_same_command(tmp_path):
    bosun = Path(sys.executable).parent / "bosun"
    done = subprocess.run(
        [str(bosun), "replay", str(write_log(tmp_path, ROUND))], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["turn"] == "cy"


BAD_LINES = [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ("42", "must be a JSON object"),
    ('{"player": "cy"}', "no 'type'"),
    ('{"type": "dance", "player": "cy"}', "unknown action type 'dance'"),
    (
        '{"type": "load", "player": "cy", "zone": "5", "item": "rat"}',
        "zone: must be a whole number",
    ),
    (
        '{"type": "load", "player": "cy", "zone": 5.0, "item": "rat"}',
        "zone: must be a whole number",
    ),
    (
        '{"type": "load", "player": "cy", "zone": true, "item": "rat"}',
        "zone: must be a whole number",
    ),
    ('{"type": "load", "player": "cy", "zone": 5}', "item: missing"),
    ('{"type": "load", "player": 7, "zone": 5, "item": "rat"}', "player: must be text"),
    (
        '{"type": "load", "player": "cy", "zone": 1e999, "item": "rat"}',
        "zone: must be a whole number",
    ),
    ('{"type": "load", "player": "cy", "zone": NaN, "item": "rat"}', "not valid JSON"),
    (
        '{"type": "load", "player": "cy", "zone": 100000000000000000000000000000, "item": "rat"}',
        "no zone 100000000000000000000000000000",
    ),
    ('{"type": "card", "player": "cy", "value": -3}', "cards are chosen at the start of a round"),
    ('{"type": "load", "player": "' + "x" * 5000 + '", "zone": 5, "item": "rat"}', "at most 32"),
    ('{"type": "fall", "player": "cy", "fallen": "rat"}', "fallen: must be a list"),
    ('{"type": "fall", "player": "cy", "fallen": ["rat", 3]}', r"fallen\[1\]: must be text"),
    ('{"type": "load", "player": "dee", "zone": 5, "item": "rat"}', "'dee' is not playing"),
    ('{"type": "load", "player": "cy", "zone": 5, "item": "Rat"}', "not a Riff Raff piece"),
    ('{"type": "setup", "game": "riffraff", "players": ["x", "y"]}', "already set up"),
    (b'{"type": "load", "player": "c\xff", "zone": 5, "item": "rat"}', "not UTF-8"),
    ("{" + '"a":' * 1 + "[" * 100000 + "]" * 100000 + "}", "characters long"),
]


@pytest.mark.parametrize("bad, reason", BAD_LINES, ids=[str(i) for i in range(len(BAD_LINES))])
def test_a_bad_line_is_rejected_with_its_reason_and_changes_nothing(tmp_path, capsys, bad, reason):
    good = replay(tmp_path, ROUND, capsys)[1]
    status, state, errors = replay(tmp_path, [*ROUND, bad], capsys)
    assert status == 1
    assert len(errors) == 1
    assert errors[0].startswith(f"line {len(ROUND) + 1}: rejected: ")
    assert re.search(reason, errors[0]), errors[0]
    assert state == good


def test_the_replay_goes_on_after_a_rejected_line(tmp_path, capsys):
    lines = [*ROUND[:4], {"type": "load", "player": "ann", "zone": 3, "item": "rat"}, *ROUND[4:]]
    status, state, errors = replay(tmp_path, lines, capsys)
    assert status == 1
    assert errors == ["line 5: rejected: it is bob's turn, not ann's"]
    assert state["turn"] == "cy"


def test_blank_lines_are_skipped_but_counted(tmp_path, capsys):
    lines = [ROUND[0], "", "   ", *ROUND[1:], '{"type": "end_turn", "player": "bob"}']
    status, _, errors = replay(tmp_path, lines, capsys)
    assert status == 1
    assert errors == ["line 9: rejected: it is cy's turn, not bob's"]


def test_actions_before_the_setup_are_rejected(tmp_path, capsys):
    status, state, errors = replay(tmp_path, [ROUND[1], *ROUND], capsys)
    assert status == 1
    assert errors == ["line 1: rejected: no game is set up yet: the first action must be a setup"]
    assert state["turn"] == "cy"


def test_an_unknown_game_is_rejected(tmp_path, capsys):
    status = main(["replay", str(write_log(tmp_path, [{"type": "setup", "game": "chess"}]))])
    out, err = capsys.readouterr()
    assert status == 1 and "unknown game 'chess'" in err
    assert json.loads(out) is None


def test_a_missing_file_is_a_usage_error(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_rr13_rr13a_rr14_shifts_zone_named_falls_and_late_falls_replay(tmp_path, capsys):
    lines = [
        *ROUND,  # bob's barrel on zone 7; cy's turn (zone 5) open, nothing loaded
        {"type": "shift", "item": "barrel", "from": 7, "to": 5},  # it slides down, stays
        {"type": "fall", "player": "cy", "fallen": [{"item": "barrel", "zone": 5}]},
        {"type": "fall", "player": "bob", "caught": [{"item": "barrel", "zone": 7}]},
        {"type": "fall", "player": "bob", "caught": [{"item": "barrel", "zone": 5}]},
        {"type": "load", "player": "cy", "zone": 5, "item": "rat"},
    ]
    status, state, errors = replay(tmp_path, lines, capsys)
    assert status == 1
    assert [e.split(":")[0] for e in errors] == ["line 8", "line 9"]
    assert "goes to bob, whose turn ended last (RR14)" in errors[0]
    assert "no barrel lies on zone 7" in errors[1]
    # RR14: bob's, boxed; cy's turn went on and she loaded
    assert state["boxed"] == 1 and state["turn"] == "cy" and state["ship"]["5"] == ["rat"]
    assert state["players"]["bob"]["supply"] == 7 and state["players"]["cy"]["supply"] == 7
    assert {p: i["played"] for p, i in state["players"].items()} == {
        "ann": [3],
        "bob": [7],
        "cy": [5],
    }
