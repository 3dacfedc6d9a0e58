"""The store's promises (tests/store_contract.py) on SQLite, bosun's default database."""

from __future__ import annotations

import pytest
from store_contract import SCENARIOS

from bosun.store import Store


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
