"""`bosun simulate-trace`: the trace CSV per DESIGN.md, truth lines, item weights, bad input."""

from __future__ import annotations

import csv
import json
import math

import pytest

from bosun.cli import main
from bosun.sim import ITEMS

HEADER = "t_ms,z1,z2,z3,z4,z5,z6,z7,z8,z9,z10,table_g,impact"


def simulate(tmp_path, *args: str) -> tuple[list[str], list[dict], dict]:
    prefix = tmp_path / "run"
    assert main(["simulate-trace", str(prefix), *args]) == 0
    lines = (tmp_path / "run.csv").read_text().splitlines()
    truth = [json.loads(line) for line in (tmp_path / "run.truth.jsonl").read_text().splitlines()]
    items = json.loads((tmp_path / "run.items.json").read_text())
    return lines, truth, items


def test_writes_trace_truth_and_items_and_says_so(tmp_path, capsys):
    lines, truth, items = simulate(tmp_path, "--seed", "4", "--seconds", "30")
    said = capsys.readouterr().out
    assert said.count("\n") == 1 and said.startswith(f"wrote {tmp_path / 'run.csv'} (2400 samples")
    assert str(tmp_path / "run.truth.jsonl") in said and str(tmp_path / "run.items.json") in said
    assert lines[0] == HEADER
    assert len(lines) == 1 + 30 * 80
    rows = list(csv.reader(lines[1:]))
    assert all(len(row) == 13 for row in rows)
    assert [float(r[0]) for r in rows[:3]] == [0.0, 12.5, 25.0]
    assert all(math.isfinite(float(v)) for row in rows for v in row[1:12])
    assert {row[12] for row in rows} <= {"0", "1"}
    assert truth[0] == {
        "type": "session",
        "seed": 4,
        "level": "normal",
        "rate_sps": 80,
        "table": "both",
        "seconds": 30.0,
        "samples": 2400,
        "items": items,
    }
    times = [record["t_ms"] for record in truth[1:]]
    assert times == sorted(times) and {r["type"] for r in truth[1:]} >= {"place"}
    assert sorted(items) == sorted(ITEMS)
    assert all(2.0 <= grams <= 15.0 for grams in items.values())


@pytest.mark.parametrize(
    "table, table_empty, impact_empty",
    [("mat", False, True), ("piezo", True, False), ("none", True, True)],
)
def test_table_columns_are_empty_for_sensors_not_fitted(tmp_path, table, table_empty, impact_empty):
    lines, truth, _ = simulate(tmp_path, "--table", table, "--rate", "10", "--seconds", "20")
    rows = list(csv.reader(lines[1:]))
    assert len(rows) == 200 and rows[1][0] == "100.0"
    assert all((row[11] == "") == table_empty for row in rows)
    assert all((row[12] == "") == impact_empty for row in rows)
    assert truth[0]["table"] == table and truth[0]["rate_sps"] == 10


def test_the_same_seed_writes_the_same_files(tmp_path):
    first = simulate(tmp_path, "--seed", "9", "--seconds", "15", "--level", "hard")
    again = simulate(tmp_path, "--seed", "9", "--seconds", "15", "--level", "hard")
    other = simulate(tmp_path, "--seed", "10", "--seconds", "15", "--level", "hard")
    assert first == again
    assert other[0] != first[0]


def test_a_script_plays_given_actions(tmp_path):
    script = tmp_path / "actions.jsonl"
    script.write_text(
        '{"at_ms": 100, "action": "place", "zone": 9, "item": "rat"}\n\n'
        '{"at_ms": 2500, "action": "fall", "pieces": [[9, "rat"]], "outcomes": ["bounced"]}\n'
    )
    _, truth, _ = simulate(tmp_path, "--script", str(script), "--seconds", "5")
    assert [r["type"] for r in truth] == ["session", "place", "fall"]
    assert truth[2]["pieces"][0]["outcome"] == "bounced"


@pytest.mark.parametrize(
    "args, complaint",
    [
        (["--rate", "20"], "'20' is not an HX711 rate (10 or 80 SPS)"),
        (["--seconds", "0"], "0 is not between 1 and 86400 seconds"),
        (["--seconds", "nan"], "nan is not between 1 and 86400 seconds"),
        (["--seconds", "ten"], "'ten' is not a number of seconds"),
        (["--seed", "-3"], "-3 is not between 0 and 2**63"),
        (["--level", "easy"], "invalid choice: 'easy'"),
        (["--table", "carpet"], "invalid choice: 'carpet'"),
    ],
)
def test_bad_arguments_are_refused_with_a_clear_message(tmp_path, capsys, args, complaint):
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate-trace", str(tmp_path / "run"), *args])
    assert exit_info.value.code == 2
    assert complaint in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_missing_directory_or_bad_script_writes_nothing(tmp_path, capsys):
    assert main(["simulate-trace", str(tmp_path / "nowhere" / "run")]) == 2
    assert "directory" in capsys.readouterr().err
    script = tmp_path / "actions.jsonl"
    script.write_text('{"at_ms": 100, "action": "place", "zone": 12, "item": "rat"}\n')
    assert main(["simulate-trace", str(tmp_path / "run"), "--script", str(script)]) == 2
    assert "script action 1: zone must be a whole number 1-10, not 12" in capsys.readouterr().err
    script.write_text("{not json\n")
    assert main(["simulate-trace", str(tmp_path / "run"), "--script", str(script)]) == 2
    assert "actions.jsonl line 1: not JSON" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["actions.jsonl"]


def test_a_zoo_family_is_a_level_and_plays_its_physics(tmp_path):
    """`--level slides` draws the ship and the play from the zoo's family: deck pieces tip into
    the next quarter (a shift from a deck zone), which `normal` never plays."""
    deck = {1, 2, 3, 4}
    slides_dir, normal_dir = tmp_path / "slides", tmp_path / "normal"
    slides_dir.mkdir()
    normal_dir.mkdir()
    common = ["--seed", "3", "--rate", "10", "--seconds", "600"]
    _, slides, _ = simulate(slides_dir, "--level", "slides", *common)
    _, normal, _ = simulate(normal_dir, "--level", "normal", *common)
    assert slides[0]["level"] == "slides"
    assert any(r["type"] == "shift" and {r["from"], r["to"]} <= deck for r in slides[1:])
    assert not any(r["type"] == "shift" and r["from"] in deck for r in normal[1:])
