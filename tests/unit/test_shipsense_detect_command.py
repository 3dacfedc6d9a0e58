"""`bosun detect TRACE.csv [--items ITEMS.json]`: one JSON event a line, per DESIGN.md."""

from __future__ import annotations

import json

import pytest
from test_shipsense_signals import ShipSignal

from bosun.cli import main
from shipsense.events import event_json, format_number
from shipsense.offline import rate_of

ITEMS = {"boat": 11.8, "crate": 7.6, "barrel": 6.1, "rat": 2.6}


@pytest.fixture
def trace(tmp_path):
    signal = ShipSignal(seconds=6.0, noise_g=0.05)
    signal.place(7, 6.1, 500.0)
    signal.fall(7, 6.1, 3000.0)
    path = tmp_path / "session.csv"
    path.write_text(signal.csv())
    return path


def run(capsys, *args: str) -> tuple[int, list[dict], str]:
    code = main(["detect", *args])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_detect_prints_design_events_one_json_object_a_line(trace, capsys):
    code, events, err = run(capsys, str(trace))
    assert code == 0 and err == ""
    assert [e["type"] for e in events] == ["place", "leaving", "fall", "land"]
    for event in events:
        assert list(event)[:3] == ["type", "t_ms", "decided_ms"]
        assert event["decided_ms"] >= event["t_ms"] or event["type"] == "land"
    assert events[0]["zone"] == 7 and "item" not in events[0]


def test_detect_with_items_names_the_pieces(trace, tmp_path, capsys):
    items = tmp_path / "items.json"
    items.write_text(json.dumps(ITEMS))
    code, events, _ = run(capsys, str(trace), "--items", str(items))
    assert code == 0
    assert events[0]["item"] == "barrel"
    assert events[2]["items"] == ["barrel"]


@pytest.mark.parametrize(
    "content, complaint",
    [
        ("{not json", "not valid JSON"),
        ('{"rat": NaN}', "above 0"),
        ('["rat"]', "JSON object"),
        ('{"rat": "heavy"}', "must be a number"),
    ],
)
def test_a_bad_items_file_is_refused_before_any_detection(
    trace, tmp_path, capsys, content, complaint
):
    items = tmp_path / "items.json"
    items.write_text(content)
    code, events, err = run(capsys, str(trace), "--items", str(items))
    assert code == 2 and events == []
    assert "items.json" in err and complaint in err


def test_events_are_written_in_one_canonical_form():
    event = {"zone": 7, "grams": 6.1, "decided_ms": 1825.0, "type": "place", "t_ms": 1687.5}
    assert event_json(event) == (
        '{"type": "place", "t_ms": 1687.5, "decided_ms": 1825.0, "grams": 6.1, "zone": 7}'
    )
    extras = {"type": "fall", "t_ms": 5, "decided_ms": 9, "items": ["rat"], "ambiguous": True}
    assert event_json(extras) == (
        '{"type": "fall", "t_ms": 5, "decided_ms": 9, "ambiguous": true, "items": ["rat"]}'
    )
    assert [format_number(v) for v in (0.1 + 0.2, -0.0004, 2.0, 7, 1e11 + 0.5)] == [
        "0.3",
        "0.0",
        "2.0",
        "7",
        "100000000000.5",
    ]


def test_the_rate_comes_from_the_first_samples_mean_interval_not_one_jittered_step():
    # a ship's clock ticks in whole ms (80 SPS: 12 and 13 ms) and wobbles by a ms or two; the
    # first interval alone would read 71-91 Hz, the mean of 15 reads 80 within 2 %
    ticks = [0.0, 14.0, 25.0, 37.0, 49.0, 63.0, 75.0, 87.0, 100.0, 112.0, 125.0]
    ticks += [137.0, 151.0, 162.0, 175.0, 187.0]
    assert rate_of(ticks) == pytest.approx(80.0, rel=0.02)
    assert rate_of([0.0, 100.0, 200.0]) == 10.0
    assert rate_of([5.0]) == 80  # one sample: the default
    assert rate_of([0.0, 0.0]) == 2000 and rate_of([0.0, 5000.0]) == 1  # held to 1-2000 Hz
