"""Raw sensor traces: stored packed, read back by time window, exported as DESIGN.md's CSV."""

from __future__ import annotations

import random

import pytest
import sqlalchemy as sa

from bosun.store import InvalidEntry, Store, UnknownGame
from bosun.store.traces import SAMPLE, _pack_checking_each_value, pack_rows, rounded, unpack_rows
from shipsense.trace import HEADER, read_trace

SETUP = {"type": "setup", "game": "riffraff", "players": ["ann", "bob"], "captain": "ann"}
START_MS = 1_747_735_000_000


@pytest.fixture
def store(tmp_path):
    with Store.open(f"sqlite:///{tmp_path / 'bosun.db'}") as opened:
        yield opened


def samples(first_t_ms: float, count: int, *, seed: int = 1, mat=True, piezo=True) -> list[list]:
    """80 SPS rows with gram values as a calibrated ship sends them (3 decimals)."""
    rng = random.Random(seed)
    rows = []
    for k in range(count):
        zones = [round(rng.uniform(-0.5, 400.0), 3) for _ in range(10)]
        rows.append(
            [
                first_t_ms + 12.5 * k,
                *zones,
                round(rng.uniform(0, 120), 3) if mat else None,
                rng.choice((0, 1)) if piezo else None,
            ]
        )
    return rows


def test_rows_come_back_as_they_were_sent(store):
    rows = samples(1000.0, 40)
    rows[3][11] = 1234.567
    assert store.append_trace("t1", "b1", rows, START_MS) == 40
    assert store.trace("t1", 0, 10**9) == rows
    assert store.trace("t1", 1100.0, 1200.0) == [r for r in rows if 1100 <= r[0] <= 1200]
    assert store.trace("t2", 0, 10**9) == []
    assert store.last_trace("t1") == ("b1", rows[-1][0]) and store.last_trace("t2") is None


def test_no_mat_and_no_piezo_come_back_as_none(store):
    rows = samples(0.0, 3, mat=False, piezo=False)
    store.append_trace("t1", "b1", rows, START_MS)
    assert [(r[11], r[12]) for r in store.trace("t1", 0, 100)] == [(None, None)] * 3


def test_a_sample_takes_56_bytes_and_many_batches_take_one_commit(store):
    batches = [
        {"table_id": f"t{n}", "boot": "b1", "rows": samples(0.0, 8, seed=n), "at_ms": START_MS}
        for n in range(20)
    ]
    assert store.append_traces(batches) == 160
    with store._engine.connect() as conn:
        sizes = conn.execute(sa.text("SELECT length(samples), row_count FROM trace_chunks")).all()
    assert sizes == [(8 * SAMPLE.size, 8)] * 20 and SAMPLE.size == 56
    assert store.trace("t7", 0, 1000) == batches[7]["rows"]


def test_a_window_is_per_boot_when_asked(store):
    store.append_trace("t1", "b1", samples(0.0, 4, seed=1), START_MS)
    store.append_trace("t1", "b2", samples(0.0, 4, seed=2), START_MS + 60_000)  # rebooted
    both = store.trace("t1", 0, 100)
    assert len(both) == 8  # in arrival order: b1's then b2's
    assert store.trace("t1", 0, 100, boot="b2") == samples(0.0, 4, seed=2)


@pytest.mark.parametrize(
    "rows, problem",
    [
        ([[1.0] * 12], "13 values"),
        ([[float("nan")] + [0.0] * 12], "not a finite number"),
        ([[1.0] + [0.0] * 10 + [None, 2]], "impact"),
        ([[1.0] + ["3"] + [0.0] * 9 + [None, None]], "z1: must be a number"),
        ([[1.0] + [0.0] * 9 + [2e6, None, None]], "z10: 2000000.0 g is out of range"),
        ([[5.0] + [0.0] * 12, [5.0] + [0.0] * 12], "not after the previous"),
        ([[-1.0] + [0.0] * 12], "out of range"),
        ([[True] + [0.0] * 12], "must be a number"),
        ("1,2,3", "must be a list"),
        ([[float(t)] + [0.0] * 12 for t in range(10001)], "at most 10000"),
    ],
)
def test_bad_rows_are_refused_naming_the_problem_and_nothing_is_stored(store, rows, problem):
    good = {"table_id": "t1", "boot": "b1", "rows": samples(0.0, 2), "at_ms": START_MS}
    with pytest.raises(InvalidEntry, match=problem):
        store.append_traces([good, {**good, "rows": rows}])
    assert store.trace("t1", -1, 10**11) == []


def test_the_fast_packer_and_the_value_by_value_checker_agree():
    rows = samples(0.0, 50, seed=3) + samples(700.0, 5, seed=4, mat=False, piezo=False)
    rows[7] = tuple(rows[7])
    rows[8][1] = 3  # an int is a number too
    assert pack_rows(rows) == _pack_checking_each_value(rows)
    assert [rounded(r) for r in unpack_rows(pack_rows(rows)[0])] == [list(r) for r in rows]


def test_an_empty_batch_stores_nothing(store):
    assert store.append_trace("t1", "b1", [], START_MS) == 0
    assert store.last_trace("t1") is None


def read_csv(text: str) -> list[list]:
    return [
        [t, *zones, table_g, impact]
        for _n, t, zones, table_g, impact in read_trace(text.splitlines())
    ]


def test_a_games_trace_exports_as_the_csv_of_design_md(store):
    game_id = store.start_game("t1", "riffraff", ["ann", "bob"], SETUP, None, START_MS)
    before = samples(0.0, 5, seed=9)
    during = [samples(100.0 + 100 * k, 8, seed=k) for k in range(5)]
    store.append_trace("t1", "b1", before, START_MS - 1)  # before the game: not in its CSV
    for k, rows in enumerate(during):
        store.append_trace("t1", "b1", rows, START_MS + 100 * k)
    store.append_trace("t2", "b1", samples(0.0, 5), START_MS + 5)  # another table
    store.finish_game(game_id, ["ann"], START_MS + 1000)
    store.append_trace("t1", "b1", samples(10_000.0, 5), START_MS + 1001)  # after the end
    text = store.trace_csv("t1", game_id)
    assert text.splitlines()[0] == ",".join(HEADER)
    assert text.endswith("\n")
    # shipsense reads it back to exactly the values that were sent
    assert read_csv(text) == [row for rows in during for row in rows]


def test_a_ship_reboot_during_a_game_keeps_csv_time_increasing(store):
    game_id = store.start_game("t1", "riffraff", ["ann", "bob"], SETUP, None, START_MS)
    store.append_trace("t1", "b1", samples(50_000.0, 4, seed=1), START_MS + 10)
    store.append_trace("t1", "b2", samples(0.0, 4, seed=2), START_MS + 3000)  # clock restarted
    rows = read_csv(store.trace_csv("t1", game_id))
    times = [row[0] for row in rows]
    assert len(rows) == 8 and times == sorted(times) and len(set(times)) == 8
    assert times[4] - times[3] == pytest.approx(3000 - 10, abs=50)  # the wall-clock gap
    assert [row[1:] for row in rows[4:]] == [row[1:] for row in samples(0.0, 4, seed=2)]


def test_a_column_only_some_rows_have_is_left_empty(store):
    game_id = store.start_game("t1", "riffraff", ["ann", "bob"], SETUP, None, START_MS)
    store.append_trace("t1", "b1", samples(0.0, 3, mat=True), START_MS)
    store.append_trace("t1", "b1", samples(100.0, 3, mat=False), START_MS + 1)
    rows = read_csv(store.trace_csv("t1", game_id))
    assert len(rows) == 6 and {row[11] for row in rows} == {None}
    assert None not in {row[12] for row in rows}


def test_trace_csv_of_an_unknown_game_or_another_tables_game(store):
    game_id = store.start_game("t1", "riffraff", ["ann", "bob"], SETUP, None, START_MS)
    with pytest.raises(UnknownGame):
        store.trace_csv("t1", "nope")
    with pytest.raises(UnknownGame, match="on table 't1'"):
        store.trace_csv("t2", game_id)
    assert store.trace_csv("t1", game_id) == ",".join(HEADER) + "\n"
