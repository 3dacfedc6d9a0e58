"""The store on a real PostgreSQL server (a private cluster): same promises as on SQLite."""

from __future__ import annotations

import json
import random
import threading

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from store_contract import SCENARIOS, SETUP, T0_MS, final_view

from bosun.bots.riffraff import BotPolicy, play_game
from bosun.cli import main
from bosun.store import Store
from bosun.store.models import metadata
from shipsense.trace import read_trace

pytestmark = pytest.mark.postgres


@pytest.fixture
def store(postgres_url):
    with Store.open(postgres_url) as opened:
        yield opened


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__.removeprefix("scenario_"))
def test_store_on_postgresql(store, scenario):
    scenario(store)


def test_the_migrated_schema_is_the_models_and_reopening_changes_nothing(postgres_url):
    with Store.open(postgres_url) as store:
        assert store.dialect == "postgresql" and store.schema_revision() == "0003"
        with store._engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    statements: list[str] = []

    def record(_conn, _cursor, statement, *_args):
        statements.append(statement)

    sa.event.listen(sa.Engine, "before_cursor_execute", record)
    try:
        Store.open(postgres_url).close()
    finally:
        sa.event.remove(sa.Engine, "before_cursor_execute", record)
    assert not [s for s in statements if s.lstrip().upper().startswith(("CREATE", "ALTER"))]


def test_rr14_stored_riffraff_games_keep_their_rules_edition_on_postgresql(postgres_url):
    from alembic import command
    from alembic.config import Config
    from support.old_logs import OLD_LATE_FALL, replayed

    from bosun.store.store import MIGRATIONS, database_url

    engine = sa.create_engine(database_url(postgres_url))
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0002")
        conn.execute(
            sa.text(
                "INSERT INTO games (game_id, table_id, game, players, started_at_ms) "
                "VALUES ('g-old', 't1', 'riffraff', '[]', 5)"
            )
        )
        for action in OLD_LATE_FALL:
            conn.execute(
                sa.text(
                    "INSERT INTO entries (table_id, game_id, kind, payload, at_ms) "
                    "VALUES ('t1', 'g-old', 'action', CAST(:p AS json), 5)"
                ),
                {"p": json.dumps(action)},
            )
    engine.dispose()
    with Store.open(postgres_url) as store:
        actions = store.game_actions("g-old")
    assert actions == [{**OLD_LATE_FALL[0], "rules_edition": 1}, *OLD_LATE_FALL[1:]]
    view, refused = replayed(actions)
    assert refused == [] and view["players"]["cy"]["supply"] == 9


def test_services_opening_one_fresh_database_at_once_all_get_it(postgres_url):
    barrier = threading.Barrier(3)
    outcomes: list[object] = []

    def open_it():
        barrier.wait()
        try:
            with Store.open(postgres_url) as store:
                outcomes.append(store.schema_revision())
        except Exception as err:  # noqa: BLE001 - the assertion shows it
            outcomes.append(err)

    threads = [threading.Thread(target=open_it) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == ["0003"] * 3


def test_export_from_postgresql_replays_to_the_same_state(postgres_url, tmp_path, capsys):
    result = play_game(random.Random(4), ["ann", "bob", "cy"], BotPolicy())
    with Store.open(postgres_url) as store:
        game_id = store.start_game("t1", "riffraff", ["ann", "bob", "cy"], result.log[0], None, 0)
        for n, action in enumerate(result.log[1:]):
            store.append("t1", "action", action, at_ms=n, game_id=game_id)
            if n == 7:
                store.append(
                    "t1", "action", {"type": "end_turn", "player": "zed"}, at_ms=n, game_id=game_id
                )
                store.undo_last_action(game_id, "misread", "referee", n)
    target = tmp_path / "game.jsonl"
    assert main(["export", "t1", "--db", postgres_url, "-o", str(target)]) == 0
    assert [json.loads(line) for line in target.read_text().splitlines()] == result.log
    capsys.readouterr()
    assert main(["replay", str(target)]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out) == final_view(result.log)


def test_traces_on_postgresql(store):
    game_id = store.start_game("t1", "riffraff", SETUP["players"], SETUP, None, T0_MS)
    rows = [
        [12.5 * k] + [round(0.1 * k + z, 3) for z in range(10)] + [None, k % 2] for k in range(50)
    ]
    assert store.append_trace("t1", "b1", rows, T0_MS + 1) == 50
    assert store.trace("t1", 0, 10**6) == rows
    exported = [
        [t, *zones, table_g, impact]
        for _n, t, zones, table_g, impact in read_trace(store.trace_csv("t1", game_id).splitlines())
    ]
    assert exported == rows
