"""The other ship (bench.othership): its files keep the Trace CSV contract and honest truth."""

import csv
import json
import statistics
from pathlib import Path

import pytest

from bench.othership.__main__ import main
from bench.othership.trace import HEADER, trace_name, write_trace

# (seed, rate, table, seconds): short traces keep the suite fast; one full session
TRACES = [
    (0, 80, "mat", 60.0),
    (1, 80, "piezo", 60.0),
    (5, 10, "both", 60.0),
    (3, 10, "mat", 180.0),
]


@pytest.fixture(scope="module")
def traces(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("othership")
    loaded = {}
    for seed, rate, table, seconds in TRACES:
        write_trace(out, seed, rate, table, seconds)
        loaded[seed] = read_back(out, trace_name(seed, rate, table))
    return loaded


def read_back(out: Path, name: str) -> dict:
    with open(out / f"{name}.csv", newline="") as f:
        rows = list(csv.reader(f))
    truth = [json.loads(line) for line in (out / f"{name}.truth.jsonl").read_text().splitlines()]
    items = json.loads((out / f"{name}.items.json").read_text())
    return {"dir": out, "name": name, "rows": rows, "truth": truth, "items": items}


def test_header_and_row_spacing_follow_the_rate(traces):
    for seed, rate, _, seconds in TRACES:
        rows = traces[seed]["rows"]
        assert ",".join(rows[0]) == HEADER
        times = [float(r[0]) for r in rows[1:]]
        steps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert min(steps) > 0
        assert statistics.median(steps) == pytest.approx(1000.0 / rate, rel=0.015)
        assert len(times) == traces[seed]["truth"][0]["samples"]
        assert times[-1] <= seconds * 1000.0 + 1.0


def test_table_columns_are_empty_exactly_when_the_sensor_is_missing(traces):
    for seed, _, table, _ in TRACES:
        body = traces[seed]["rows"][1:]
        mats = {r[11] == "" for r in body}
        impacts = {r[12] for r in body}
        assert mats == {table == "piezo"}
        if table == "mat":
            assert impacts == {""}
        else:
            assert impacts <= {"0", "1"} and "1" in impacts


def _departures(truth: list[dict]) -> list[tuple[float, str, int, str]]:
    """(time, piece, zone, kind) of every piece leaving a zone, in time order."""
    out = []
    for r in truth:
        if r["type"] == "fall":
            out += [(p["leave_ms"], p["piece"], p["zone"], r["type"]) for p in r["pieces"]]
        elif r["type"] == "shift":
            out.append((r["t_ms"], r["piece"], r["from"], "shift"))
    return sorted(out)


def test_truth_is_consistent_piece_by_piece(traces):
    for trace in traces.values():
        session, *records = trace["truth"]
        assert session["items"] == trace["items"]
        assert [r["t_ms"] for r in records] == sorted(r["t_ms"] for r in records)
        arrivals = [(r["t_ms"], r["piece"], r["zone"], r) for r in records if r["type"] == "place"]
        arrivals += [
            (r["land_ms"], r["piece"], r["to"], None) for r in records if r["type"] == "shift"
        ]
        events = [(t, 0, piece, zone, rec) for t, piece, zone, rec in arrivals]
        events += [(t, 1, piece, zone, kind) for t, piece, zone, kind in _departures(records)]
        where: dict[str, tuple] = {}
        for t, leaving, piece, zone, what in sorted(events, key=lambda e: (e[0], e[1])):
            if not leaving:
                assert piece not in where, f"{piece} placed at {t} while still aboard"
                where[piece] = (zone, what)
                continue
            assert piece in where, f"{piece} left zone {zone} at {t} without being aboard"
            aboard_zone, place = where.pop(piece)
            assert aboard_zone == zone
            if place is not None:
                assert place["left_ms"] == t
        for _, place in where.values():
            if place is not None:
                assert place["left_ms"] is None
        for r in records:
            if r["type"] == "fall":
                pieces = r["pieces"]
                assert r["t_ms"] == min(p["leave_ms"] for p in pieces)
                assert r["grams"] == pytest.approx(sum(p["grams"] for p in pieces), abs=1e-3)
                assert r["zones"] == sorted({p["zone"] for p in pieces})
                for p in pieces:
                    assert p["start_ms"] < p["leave_ms"]
                    assert (p["land_ms"] is None) == (p["outcome"] == "caught")
                    assert (p["off_mat_ms"] is not None) == (p["outcome"] == "bounced")
            if r["type"] == "place":
                assert r["grams"] == pytest.approx(trace["items"][r["item"]], rel=0.2)


def test_a_collect_clears_pieces_that_came_to_rest_on_the_mat(traces):
    # RR10: nobody lifts cargo off the ship; what players clear is the mat (RR12-RR13)
    collected = weighed = 0
    for trace in traces.values():
        session, *records = trace["truth"]
        resting: set[str] = set()
        rows = [[float(v) if v else 0.0 for v in row] for row in trace["rows"][1:]]
        for r in records:
            if r["type"] == "fall":
                resting |= {p["piece"] for p in r["pieces"] if p["outcome"] == "landed"}
            if r["type"] != "collect":
                continue
            assert session["table"] in ("mat", "both")
            assert set(r["pieces"]) <= resting
            resting -= set(r["pieces"])
            t = r["t_ms"]
            before = statistics.median(row[11] for row in rows if t - 400 < row[0] < t - 50)
            end = min((x["t_ms"] for x in records if x["t_ms"] > t), default=t + 4000)
            after = statistics.median(row[11] for row in rows if end - 300 < row[0] < end - 50)
            if end - t > 2500:  # nothing else on the mat meanwhile: it read them go
                assert before - after == pytest.approx(r["grams"], abs=0.1 * r["grams"] + 0.4)
                weighed += 1
            collected += len(r["pieces"])
    assert collected >= 1 and weighed >= 1


def test_a_full_session_has_the_expected_mix_of_events(traces):
    kinds = [r["type"] for r in traces[3]["truth"][1:]]
    assert 30 <= kinds.count("place") <= 40
    assert 8 <= kinds.count("fall") <= 30
    assert kinds.count("touch") >= 5 and kinds.count("knock") >= 5


def resting_rises(trace: dict, columns: str) -> list[tuple[float, float]]:
    """(rise, truth grams) of each piece placed with nothing else happening for a while, the
    rise read on its own zone (`columns` "own") or over all zones ("all")."""
    records = trace["truth"][1:]
    moments = []
    for r in records:
        moments += [r.get(key) for key in ("t_ms", "start_ms", "end_ms", "land_ms")]
        moments += [
            p.get(key)
            for p in r.get("pieces", [])
            if isinstance(p, dict)  # a collect names its pieces
            for key in ("start_ms", "land_ms")
        ]
    moments = [t for t in moments if t is not None]
    rows = [[float(v) if v else 0.0 for v in row] for row in trace["rows"][1:]]
    out = []
    for r in records:
        if r["type"] != "place":
            continue
        lo, hi = r["start_ms"] - 1500, r["t_ms"] + 2500
        if any(lo < t < hi for t in moments if t not in (r["start_ms"], r["t_ms"])):
            continue
        if r["left_ms"] is not None and r["left_ms"] < hi:
            continue
        picked = [r["zone"]] if columns == "own" else list(range(1, 11))

        def read(row: list[float], picked: list[int] = picked) -> float:
            return sum(row[c] for c in picked)

        before = [read(row) for row in rows if lo + 500 < row[0] < r["start_ms"] - 100]
        after = [read(row) for row in rows if r["t_ms"] + 1200 < row[0] < hi]
        out.append((statistics.median(after) - statistics.median(before), r["grams"]))
    return out


def test_a_resting_piece_reads_its_weight_in_total_as_the_wizard_calibrates(traces):
    rises = [pair for trace in traces.values() for pair in resting_rises(trace, "all")]
    assert len(rises) >= 3
    for rise, grams in rises:
        assert rise == pytest.approx(grams, abs=0.05 * grams + 0.3)


def test_calibrated_cell_by_cell_a_piece_reads_its_weight_on_its_zone_and_more_in_total(
    tmp_path,
):
    write_trace(tmp_path, 3, 10, "mat", 180.0, calibration="cell")
    trace = read_back(tmp_path, trace_name(3, 10, "mat"))
    own = resting_rises(trace, "own")
    assert len(own) >= 3
    for rise, grams in own:
        assert rise == pytest.approx(grams, abs=0.05 * grams + 0.3)
    excess = [rise / grams - 1.0 for rise, grams in resting_rises(trace, "all")]
    assert statistics.mean(excess) > 0.03  # the neighbours' share on top


def test_the_same_seed_writes_the_same_files(traces, tmp_path):
    first = traces[0]
    write_trace(tmp_path, 0, 80, "mat", 60.0)
    for suffix in (".csv", ".truth.jsonl", ".items.json"):
        again = (tmp_path / f"{first['name']}{suffix}").read_bytes()
        assert again == (Path(first["dir"]) / f"{first['name']}{suffix}").read_bytes()


@pytest.mark.parametrize(
    "argv", [["--rates", "20"], ["--tables", "floor"], ["--seeds", "5-2"], ["--seeds", "x"]]
)
def test_the_cli_refuses_bad_arguments(argv, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--out", str(tmp_path), *argv])
    assert stop.value.code == 2
    assert "error" in capsys.readouterr().err
