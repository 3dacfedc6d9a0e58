"""Opening a store: migrations from day one, older and newer schemas, bad URLs and files."""

from __future__ import annotations

import json
import threading

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from support.old_logs import OLD_LATE_FALL, replayed

from bosun.store import InvalidEntry, Store, StoreError, database_url
from bosun.store.engines import sqlite_engine as _sqlite_engine
from bosun.store.models import metadata
from bosun.store.store import MIGRATIONS

HEAD = "0003"
SETUP = {"type": "setup", "game": "riffraff", "players": ["ann", "bob"], "captain": "ann"}


def sqlite_url(tmp_path, name="bosun.db") -> str:
    return f"sqlite:///{tmp_path / name}"


def test_a_fresh_database_is_migrated_to_the_schema_of_the_models(tmp_path):
    with Store.open(sqlite_url(tmp_path)) as store:
        assert store.schema_revision() == HEAD
        with store._engine.connect() as conn:
            differences = compare_metadata(MigrationContext.configure(conn), metadata)
    assert differences == []


def test_opening_again_changes_no_schema_and_keeps_the_data(tmp_path):
    url = sqlite_url(tmp_path)
    with Store.open(url) as store:
        game_id = store.start_game("t1", "riffraff", ["ann", "bob"], SETUP, None, 1000)
    statements: list[str] = []

    def record(_conn, _cursor, statement, *_args):
        statements.append(statement)

    sa.event.listen(sa.Engine, "before_cursor_execute", record)
    try:
        with Store.open(url) as store:
            assert store.schema_revision() == HEAD
            assert store.game_actions(game_id) == [SETUP]
    finally:
        sa.event.remove(sa.Engine, "before_cursor_execute", record)
    ddl = [s for s in statements if s.lstrip().upper().startswith(("CREATE", "ALTER", "DROP"))]
    assert ddl == [] and statements  # it did read the revision


def test_a_database_of_the_first_revision_is_upgraded_with_its_games_intact(tmp_path):
    url = database_url(sqlite_url(tmp_path))
    engine = _sqlite_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")
    with engine.begin() as conn:
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == "0001"
        assert not sa.inspect(conn).has_table("trace_chunks")
        conn.exec_driver_sql(
            "INSERT INTO games (game_id, table_id, game, players, started_at_ms) "
            """VALUES ('g-old', 't1', 'riffraff', '["ann","bob"]', 5)"""
        )
        conn.exec_driver_sql(
            "INSERT INTO entries (table_id, game_id, kind, payload, at_ms) "
            "VALUES ('t1', 'g-old', 'action', ?, 5)",
            (json.dumps(SETUP),),
        )
    engine.dispose()
    with Store.open(str(url)) as store:
        assert store.schema_revision() == HEAD
        assert [g.game_id for g in store.unfinished_games()] == ["g-old"]
        assert store.game_actions("g-old") == [{**SETUP, "rules_edition": 1}]  # 0003
        assert store.append_trace("t1", "b1", [[1.0] + [0.0] * 10 + [None, None]], 6) == 1


HARBOUR = {"type": "setup", "game": "montego-bay", "players": ["ann", "bob"], "seed": 1}


def store_at(tmp_path, revision: str, games: dict[str, list[dict]]):
    """A SQLite database migrated to `revision` only, holding `games` (id -> actions)."""
    url = database_url(sqlite_url(tmp_path))
    engine = _sqlite_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)
    with engine.begin() as conn:
        for game_id, actions in games.items():
            conn.exec_driver_sql(
                "INSERT INTO games (game_id, table_id, game, players, started_at_ms) "
                "VALUES (?, 't1', ?, '[]', 5)",
                (game_id, actions[0]["game"]),
            )
            for action in actions:
                conn.exec_driver_sql(
                    "INSERT INTO entries (table_id, game_id, kind, payload, at_ms) "
                    "VALUES ('t1', ?, 'action', ?, 5)",
                    (game_id, json.dumps(action)),
                )
    engine.dispose()
    return str(url)


def test_rr14_stored_riffraff_games_replay_to_the_result_they_had(tmp_path):
    already = [{**OLD_LATE_FALL[0], "rules_edition": 2}, *OLD_LATE_FALL[1:4]]
    url = store_at(tmp_path, "0002", {"g-old": OLD_LATE_FALL, "g-mb": [HARBOUR], "g-new": already})
    # read under today's rules as it is stored, the old game no longer holds together
    _, refused = replayed(OLD_LATE_FALL)
    assert [r.line for r in refused] == [7, 8, 9]
    with Store.open(url) as store:
        assert store.schema_revision() == HEAD
        actions = store.game_actions("g-old")
        assert actions[0] == {**OLD_LATE_FALL[0], "rules_edition": 1}
        assert actions[1:] == OLD_LATE_FALL[1:]  # nothing else in the log changed
        assert store.game_actions("g-mb") == [HARBOUR]
        assert store.game_actions("g-new") == already
    view, refused = replayed(actions)
    assert refused == []
    # as decided then: the rat went to cy, whose turn ended; ann loaded, round 2 began
    supplies = {p: info["supply"] for p, info in view["players"].items()}
    assert supplies == {"ann": 7, "bob": 7, "cy": 9}
    assert view["phase"] == "choose" and view["round"] == 2


def test_a_database_from_a_newer_bosun_is_refused_clearly(tmp_path):
    url = sqlite_url(tmp_path)
    Store.open(url).close()
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0999'")
    engine.dispose()
    with pytest.raises(StoreError, match="newer bosun"):
        Store.open(url)


def test_two_services_opening_one_fresh_database_at_once_both_get_it(tmp_path):
    url = sqlite_url(tmp_path)
    barrier = threading.Barrier(3)
    outcomes: list[object] = []

    def open_it():
        barrier.wait()
        try:
            with Store.open(url) as store:
                outcomes.append(store.schema_revision())
        except Exception as err:  # noqa: BLE001 - the assertion shows it
            outcomes.append(err)

    threads = [threading.Thread(target=open_it) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == [HEAD] * 3


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 200)
    with pytest.raises(StoreError, match="not a database"):
        Store.open(f"sqlite:///{path}")
    assert path.read_bytes() == b"these are my notes, not a database\n" * 200


def test_missing_folders_and_folders_are_refused(tmp_path):
    with pytest.raises(StoreError, match="cannot open"):
        Store.open(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir' / 'bosun.db'}")
    with pytest.raises(StoreError, match="folder"):
        Store.open(f"sqlite:///{tmp_path}")


def test_create_false_refuses_a_missing_file_and_creates_nothing(tmp_path):
    with pytest.raises(StoreError, match="no such database file"):
        Store.open(sqlite_url(tmp_path, "missing.db"), create=False)
    assert list(tmp_path.iterdir()) == []


def test_database_urls():
    assert database_url("bosun.db").render_as_string() == "sqlite+pysqlite:///bosun.db"
    assert database_url("sqlite:////var/lib/bosun.db").database == "/var/lib/bosun.db"
    pg = database_url("postgresql://ann:s3cret@db.example:5433/bosun")
    assert pg.drivername == "postgresql+psycopg" and pg.port == 5433
    assert database_url("postgres://ann@db/bosun").drivername == "postgresql+psycopg"
    for bad, why in [
        ("", "empty"),
        ("sqlite://", "SQLite file"),
        ("sqlite:///:memory:", "SQLite file"),
        ("mysql://ann@db/bosun", "not 'mysql'"),
        ("http://", "not a database URL|not 'http'"),
        (None, "empty"),
    ]:
        with pytest.raises(InvalidEntry, match=why):
            database_url(bad)


def test_an_unreachable_postgresql_is_a_clear_error_without_the_password():
    with pytest.raises(StoreError) as caught:
        Store.open("postgresql://ann:s3cret@127.0.0.1:1/bosun?connect_timeout=3")
    message = str(caught.value)
    assert "cannot open postgresql://ann:***@127.0.0.1:1/bosun" in message
    assert "s3cret" not in message
