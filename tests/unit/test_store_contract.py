"""The store's promises (tests/store_contract.py) on SQLite, bosun's default database."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_contract import SCENARIOS

from bosun.store import NothingToUndo, Store

SETUP_2P = {"type": "setup", "game": "riffraff", "players": ["ann", "bob"], "captain": "ann"}


@pytest.fixture
def store(tmp_path):
    with Store.open(f"sqlite:///{tmp_path / 'bosun.db'}") as opened:
        yield opened


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__.removeprefix("scenario_"))
def test_store_on_sqlite(store, scenario):
    scenario(store)


def test_sqlite_runs_in_wal_mode_with_foreign_keys_and_a_busy_timeout(store):
    with store._engine.connect() as conn:
        pragma = {
            name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
        }
    assert pragma == {
        "journal_mode": "wal",
        "synchronous": 1,
        "foreign_keys": 1,
        "busy_timeout": 10000,
    }


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.sampled_from(["act", "undo"]), max_size=25))
def test_undo_behaves_like_popping_a_stack_of_actions(tmp_path_factory, steps):
    """Any mix of actions and undos: the effective log is what a stack would hold."""
    folder = tmp_path_factory.mktemp("undo")
    with Store.open(f"sqlite:///{folder / 'bosun.db'}") as store:
        game_id = store.start_game("t1", "riffraff", ["ann", "bob"], SETUP_2P, None, 0)
        expected = [SETUP_2P]
        for n, step in enumerate(steps):
            if step == "act":
                action = {"type": "announce", "player": "ann", "pieces": 1, "n": n}
                store.append("t1", "action", action, at_ms=n, game_id=game_id)
                expected.append(action)
            elif len(expected) > 1:
                undo = store.undo_last_action(game_id, "test", "referee", n)
                assert undo.payload["action"] == expected.pop()
            else:
                with pytest.raises(NothingToUndo):
                    store.undo_last_action(game_id, "test", "referee", n)
        assert store.game_actions(game_id) == expected
