"""Trace CSV reading: every bad trace gets an error naming its line and column."""

from __future__ import annotations

import math
import random

import pytest

from bosun.cli import main
from shipsense.trace import HEADER, TraceError, parse_decimal, read_trace

GOOD_ROW = "12.5,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0,0.05,0"


def rows(text: str) -> list[tuple]:
    return list(read_trace(text.splitlines(keepends=True)))


def header() -> str:
    return ",".join(HEADER)


def test_a_good_trace_reads_row_by_row_with_empty_table_columns_as_none():
    text = header() + "\n0,1,2,3,4,5,6,7,8,9,10,,\n12.5,1,2,3,4,5,6,7,8,9,10,,\n"
    (line1, t1, zones1, table1, impact1), (line2, t2, *_rest) = rows(text)
    assert (line1, t1, zones1[9], table1, impact1) == (2, 0.0, 10.0, None, None)
    assert (line2, t2) == (3, 12.5)


def test_crlf_line_ends_a_bom_and_a_trailing_blank_line_are_fine():
    text = "\ufeff" + header() + "\r\n" + GOOD_ROW + "\r\n\r\n"
    assert len(rows(text)) == 1


@pytest.mark.parametrize(
    "text, line, column, words",
    [
        ("", 1, None, "empty file"),
        ("t_ms,z1,z2\n", 1, None, "missing column(s) z3"),
        (header().replace("impact", "piezo") + "\n", 1, None, "unknown column(s) 'piezo'"),
        (header().replace("z1,z2", "z2,z1") + "\n", 1, None, "out of order"),
        (header() + "\n" + GOOD_ROW + ",7\n", 2, None, "has 14 fields, the header has 13"),
        (header() + "\n" + GOOD_ROW.replace("0.3", "nan") + "\n", 2, "z3", "not a finite"),
        (header() + "\n" + GOOD_ROW.replace("0.3", "inf") + "\n", 2, "z3", "not a finite"),
        (header() + "\n" + GOOD_ROW.replace("0.7", "seven") + "\n", 2, "z7", "not a number"),
        (header() + "\n" + GOOD_ROW.replace("0.9", "") + "\n", 2, "z9", "is empty"),
        (header() + "\n" + GOOD_ROW + "\n" + GOOD_ROW + "\n", 3, "t_ms", "not after"),
        (
            header() + "\n" + GOOD_ROW + "\n" + GOOD_ROW.replace("12.5", "10") + "\n",
            3,
            "t_ms",
            "time must increase",
        ),
        (header() + "\n" + GOOD_ROW.replace(",0.05,0", ",0.05,2") + "\n", 2, "impact", "0 or 1"),
        (
            header()
            + "\n"
            + GOOD_ROW
            + "\n"
            + GOOD_ROW.replace("12.5", "25").replace(",0.05,", ",,"),
            3,
            "table_g",
            "earlier rows had a mat value",
        ),
        (header() + "\n" + GOOD_ROW.replace("12.5", "-1") + "\n", 2, "t_ms", "out of range"),
        (header() + "\n" + GOOD_ROW.replace("0.5", "1e9") + "\n", 2, "z5", "out of range"),
    ],
)
def test_bad_traces_name_the_line_and_column(text, line, column, words):
    with pytest.raises(TraceError) as caught:
        rows(text)
    error = caught.value
    assert (error.line, error.column) == (line, column)
    assert words in str(error)
    assert str(error).startswith(f"line {line}")


def test_numbers_are_read_exactly_like_cpython_reads_them():
    rng = random.Random(4)
    for _ in range(5000):
        text = repr(round(rng.uniform(-3000.0, 3000.0), rng.randint(0, 6)))
        assert parse_decimal(text) == float(text)
    for text in ("1e3", "-.5", "+2.", "0.0125", "1.5E-2"):
        assert parse_decimal(text) == float(text)
    for text in ("", ".", "e3", "1e", "1_0", "0x1f", "--1", "1.2.3", "nan", "inf", "1,5"):
        assert parse_decimal(text) is None
    assert not math.isnan(parse_decimal("0"))


def test_bosun_detect_reports_a_bad_trace_by_line_and_column_and_fails(tmp_path, capsys):
    trace = tmp_path / "bad.csv"
    trace.write_text(header() + "\n" + GOOD_ROW.replace("0.4", "4,4") + "\n")
    assert main(["detect", str(trace)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv: line 2: has 14 fields" in err


def test_bosun_detect_names_a_missing_file(tmp_path, capsys):
    assert main(["detect", str(tmp_path / "nowhere.csv")]) == 2
    assert "cannot read trace file" in capsys.readouterr().err
