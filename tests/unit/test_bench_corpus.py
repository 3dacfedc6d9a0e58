"""bench/detection's corpus: traces simulated once, whole, even by two benches at once."""

from __future__ import annotations

import multiprocessing

import pytest

from bench.detection import corpus


def _fill(folder: str) -> None:
    from pathlib import Path

    corpus.ensure(corpus.specs("tuning", Path(folder))[0])


def test_two_benches_filling_a_fresh_corpus_at_once_leave_one_whole_trace(tmp_path, monkeypatch):
    # two benches each simulated the same cost trace into a fresh corpus and raced on one
    # partial file: the second's rename found it gone and the bench crashed (held-back round 4)
    monkeypatch.setattr(corpus, "SECONDS", 4)
    shared = tmp_path / "shared"
    fork = multiprocessing.get_context("fork")
    workers = [fork.Process(target=_fill, args=(str(shared),)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    alone = tmp_path / "alone"
    _fill(str(alone))
    names = sorted(path.name for path in alone.iterdir())
    assert sorted(path.name for path in shared.iterdir()) == names  # no partial file left
    assert len(names) == 3
    for name in names:
        assert (shared / name).read_bytes() == (alone / name).read_bytes(), name


@pytest.mark.parametrize(
    ("half", "family", "seed"),
    [
        ("zoo-wear-held-back-4", "wear", 80700),
        ("zoo-tables-held-back-25", "tables", 78800),
        ("zoo-tables-2", "tables", 30800),
        ("zoo-slides-held-back-3", "slides", 70000),
        ("zoo-mixed-2", "mixed", 30500),
        ("zoo-sway-held-back-6", "sway", 95300),
        ("zoo-knocks", "knocks", 20900),
        ("zoo-knocks-held-back-61", "knocks", 39900),
        ("zoo-jostles", "jostles", 21000),
        ("zoo-jostles-2", "jostles", 31000),
        ("zoo-slides-held-back-62", "slides", 37000),
        ("zoo-jostles-held-back-62", "jostles", 38000),
        ("zoo-slides-held-back-63", "slides", 33000),
        ("zoo-jostles-held-back-63", "jostles", 34000),
        ("zoo-jostles-held-back-64", "jostles", 36000),
        ("zoo-slides-held-back-65", "slides", 22000),
        ("zoo-jostles-held-back-65", "jostles", 23000),
        ("zoo-rings", "rings", 21100),
        ("zoo-rings-2", "rings", 31100),
        ("zoo-rings-held-back-66", "rings", 25100),
        ("zoo-slides-held-back-66", "slides", 24000),
        ("zoo-rings-held-back-67", "rings", 27100),
        ("zoo-rings-held-back-68", "rings", 29100),
        ("zoo-slides-held-back-68", "slides", 28000),
        ("zoo-rings-held-back-69", "rings", 101100),
        ("zoo-jostles-held-back-69", "jostles", 101000),
    ],
)
def test_a_zoo_sets_family_and_seeds_are_its_own(half, family, seed, tmp_path):
    spec = corpus.specs(half, tmp_path)[0]
    assert (spec.level, spec.seed) == (family, seed)


def test_a_family_that_came_later_has_no_held_back_set_in_rounds_before_it():
    # a held-back set is fixed before anything runs on its family: `tables` came after round
    # 24 was run, `wear` after round 3
    assert "zoo-tables-held-back-24" not in corpus.ZOO_SETS
    assert "zoo-wear-held-back-3" not in corpus.ZOO_SETS
    assert "zoo-wear-held-back-24" in corpus.ZOO_SETS
    assert "zoo-knocks-held-back-60" not in corpus.ZOO_SETS  # `knocks` came after round 60
    assert "zoo-jostles-held-back-61" not in corpus.ZOO_SETS  # round 61 was fixed before it
    assert "zoo-rings-held-back-65" not in corpus.ZOO_SETS  # round 65 was fixed before it
    seeds = [base + i for base in corpus.ZOO_SETS.values() for i in range(corpus.ZOO_SIZE)]
    assert len(seeds) == len(set(seeds))  # no two sets share a ship


def test_a_folder_of_traces_is_read_by_each_truths_session_record(tmp_path, monkeypatch):
    # recorded traces, or another model's (bench.othership), are scored from a folder: each
    # trace keeps its own name, and its rate, level and table come from its session record
    monkeypatch.setattr(corpus, "SECONDS", 4)
    made = corpus.specs("tuning", tmp_path / "made")[:2]
    folder = tmp_path / "recorded"
    folder.mkdir()
    for n, spec in enumerate(made):
        corpus.ensure(spec)
        for path in (spec.csv, spec.truth_path, spec.items_path):
            target = folder / path.name.replace(spec.name, f"game-{n}")
            target.write_bytes(path.read_bytes())
    (folder / "notes.csv").write_text("t_ms\n")  # no truth beside it: not a trace to score
    found = corpus.folder_specs(folder)
    assert [s.name for s in found] == ["game-0", "game-1"]
    assert [(s.seed, s.rate, s.level, s.table) for s in found] == [
        (s.seed, s.rate, s.level, s.table) for s in made
    ]
    assert found[1].truth() == made[1].truth() and found[1].csv == folder / "game-1.csv"
    (folder / "game-1.truth.jsonl").write_text('{"type": "place"}\n')
    with pytest.raises(ValueError, match="game-1.truth.jsonl: the first line must be the session"):
        corpus.folder_specs(folder)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--folder", "nowhere"], "no NAME.csv with its truth and items there"),
        (["--folder", ".", "--half", "tuning"], "leave out --half"),
    ],
)
def test_the_bench_refuses_a_folder_it_cannot_score(argv, said, tmp_path, monkeypatch, capsys):
    from bench.detection.__main__ import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert said in capsys.readouterr().err
