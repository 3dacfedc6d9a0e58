"""The store's files: owner-only from the first byte, and a damaged or emptied store refused
with one sentence, never mistaken for a new one."""

from __future__ import annotations

import os
import re
import stat

import pytest

from bosun.store import Store, StoreError

SETUP = {"type": "setup", "game": "riffraff", "players": ["ann", "bob"], "captain": "ann"}


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture(autouse=True)
def usual_umask():
    """The umask most shells have (022): files made without care come out 0644."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def test_a_new_store_and_its_wal_files_are_owner_only(tmp_path):
    path = tmp_path / "bosun.db"
    with Store.open(f"sqlite:///{path}") as store:
        store.start_game("t1", "riffraff", ["ann", "bob"], SETUP, None, 1)  # writes the WAL
        parts = [path, tmp_path / "bosun.db-wal", tmp_path / "bosun.db-shm"]
        assert all(p.exists() for p in parts)
        assert {p.name: mode(p) for p in parts} == {p.name: 0o600 for p in parts}
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("bosun.db")) == []


def test_an_old_store_readable_by_others_is_made_owner_only(tmp_path):
    path = tmp_path / "bosun.db"
    Store.open(f"sqlite:///{path}").close()
    path.chmod(0o644)
    with Store.open(f"sqlite:///{path}") as store:
        assert store.schema_revision()
        assert mode(path) == 0o600


@pytest.mark.parametrize(
    "content, complaint",
    [
        (b"", "is empty (0 bytes): it is no store any more"),
        (os.urandom(8192), "is not a database"),
        (b"SQLite", "is not a database"),  # shorter than the header
    ],
)
def test_a_damaged_or_emptied_store_is_refused_in_one_line_and_left_alone(
    tmp_path, content, complaint
):
    path = tmp_path / "bosun.db"
    path.write_bytes(content)
    with pytest.raises(StoreError, match=re.escape(complaint)) as refused:
        Store.open(f"sqlite:///{path}")
    assert "\n" not in str(refused.value) and str(path) in str(refused.value)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bosun.db"]


def test_a_store_cut_short_is_refused_in_one_line(tmp_path):
    path = tmp_path / "bosun.db"
    with Store.open(f"sqlite:///{path}") as store:
        for n in range(20):
            store.start_game(f"t{n}", "riffraff", ["ann", "bob"], SETUP, None, n + 1)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 3])  # a copy that stopped a third of the way
    with pytest.raises(StoreError) as refused, Store.open(f"sqlite:///{path}") as store:
        store.games()  # what a start reads first: the unfinished games
    assert "\n" not in str(refused.value) and str(path) in str(refused.value)
