"""The Store: an append-only log of every table, its games and raw traces, in SQL.

One code path (SQLAlchemy 2 Core) for SQLite (the default, WAL) and PostgreSQL (psycopg 3).
Every public method runs in its own connection and transaction, so a Store may be shared by
threads. Writes are durable when the method returns (SQLite: against a process crash; WAL
with synchronous=NORMAL may lose the last commits on power loss).
"""

from __future__ import annotations

import hmac
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.util.exc import CommandError
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect

from bosun.games import Rejected, game_named
from bosun.store import arguments, sqlite_file
from bosun.store.engines import database_url, reason, shown, sqlite_engine
from bosun.store.models import entries, game_ends, games
from bosun.store.models import seats as seat_table
from bosun.store.records import (
    Entry,
    GameRow,
    InvalidEntry,
    NothingToUndo,
    StoreError,
    UnknownGame,
)
from bosun.store.trace_log import TraceLog

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# alembic keeps the migration under way in module globals: one migration at a time a process
_MIGRATING = threading.Lock()


def new_game_id(at_ms: int) -> str:
    """A sortable game id like `20260520T101530123Z-9f3a1c` (UTC start + 24 random bits).

    The upper-case T and Z keep game ids apart from table ids, which are lower case.
    """
    seconds, millis = divmod(at_ms, 1000)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds))
    return f"{stamp}{millis:03d}Z-{secrets.token_hex(3)}"


def effective_actions(rows: Iterable[tuple[int, str, Any]]) -> list[tuple[int, Any]]:
    """(id, payload) of the actions left after undos, from (id, kind, payload) in log order."""
    stack: list[tuple[int, Any]] = []
    for entry_id, kind, payload in rows:
        if kind == "action":
            stack.append((entry_id, payload))
        elif kind == "undo":
            undone = payload.get("undoes") if isinstance(payload, Mapping) else None
            stack = [item for item in stack if item[0] != undone]
    return stack


def _build_sqlite_store(path: str) -> None:
    """Migrate a new, empty SQLite file at `path` and fold its WAL into it (for
    sqlite_file.check, which links it in under its real name)."""
    engine = sqlite_engine(database_url(path))
    try:
        Store(engine, path)._migrate()
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    except (sa.exc.SQLAlchemyError, sqlite3.Error) as err:
        raise StoreError(f"cannot create the store: {reason(err)}") from err
    finally:
        engine.dispose()


# ---------------------------------------------------------------- the store


class Store(TraceLog):
    """The append-only log of every table; see the package docstring for the interface."""

    def __init__(self, engine: sa.Engine, url: str) -> None:
        self._engine = engine
        self.url = url  # as the user wrote it, password hidden: for messages
        self.dialect = engine.dialect.name
        insert = sqlite_dialect.insert if self.dialect == "sqlite" else pg_dialect.insert
        self._insert_entry = insert(entries).on_conflict_do_nothing().returning(entries.c.id)
        self._reading = threading.local()  # .conn: the connection `reading()` keeps

    # -- opening and closing

    @classmethod
    def open(cls, url: str, *, create: bool = True) -> Store:
        """Connect and migrate to the newest schema; `create=False` refuses a missing file."""
        sa_url = database_url(url)
        if sa_url.get_backend_name() == "sqlite":
            sqlite_file.check(Path(sa_url.database), create, build=_build_sqlite_store)
            engine = sqlite_engine(sa_url)
        else:
            engine = sa.create_engine(
                sa_url, json_serializer=arguments.json_dumps, pool_pre_ping=True
            )
        store = cls(engine, shown(url, sa_url))
        try:
            store._migrate()
        except StoreError as err:
            engine.dispose()
            if isinstance(err.__cause__, sa.exc.DBAPIError):
                raise StoreError(f"cannot open {err}") from err.__cause__
            raise
        except (sa.exc.SQLAlchemyError, sqlite3.Error, OSError) as err:
            engine.dispose()
            raise StoreError(f"cannot open {store.url}: {reason(err)}") from err
        return store

    def _migrate(self) -> None:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with _MIGRATING, self._write() as conn:
            if self.dialect == "postgresql":
                # Two services opening one fresh database at once: one migrates, one waits.
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(727274011)")
            config.attributes["connection"] = conn
            try:
                command.upgrade(config, "head")
            except CommandError as err:
                raise StoreError(
                    f"{self.url}: the database schema is not one this bosun knows ({err}); "
                    "was it written by a newer bosun?"
                ) from err

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def schema_revision(self) -> str | None:
        with self._read() as conn:
            return conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()

    # -- transactions

    @contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        try:
            with self._engine.connect() as conn:
                conn.execution_options(bosun_write=True)
                with conn.begin():
                    yield conn
        except sa.exc.IntegrityError:
            raise
        except sa.exc.DBAPIError as err:
            raise StoreError(f"{self.url}: {reason(err)}") from err

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Every read inside, in this thread, on one connection: a table's rebuild makes
        several reads, and each on its own connection costs a ping and a rollback too."""
        if getattr(self._reading, "conn", None) is not None:
            yield
            return
        with self._read() as conn:
            self._reading.conn = conn
            try:
                yield
            finally:
                self._reading.conn = None

    @contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        kept = getattr(self._reading, "conn", None)
        if kept is not None:
            yield kept
            return
        try:
            with self._engine.connect() as conn:
                yield conn
        except sa.exc.DBAPIError as err:
            raise StoreError(f"{self.url}: {reason(err)}") from err

    # -- the log

    def _entry_row(
        self,
        table_id: object,
        kind: object,
        payload: object,
        at_ms: object,
        game_id: object = None,
        boot: object = None,
        seq: object = None,
    ) -> dict[str, Any]:
        table_id = arguments.text(table_id, "table_id")
        if not isinstance(kind, str) or not arguments.KIND_PATTERN.match(kind):
            raise InvalidEntry(f"kind must be a lower-case word like 'ship_event', not {kind!r}")
        if boot is not None:
            boot = arguments.text(boot, "boot")
        if seq is not None:
            seq = arguments.whole(seq, "seq")
            if boot is None:
                raise InvalidEntry("seq is counted per boot: a seq needs its boot")
        return {
            "table_id": table_id,
            "game_id": None if game_id is None else arguments.text(game_id, "game_id"),
            "kind": kind,
            "payload": arguments.payload(payload),
            "boot": boot,
            "seq": seq,
            "at_ms": arguments.at_ms(at_ms),
        }

    def _insert(self, conn: sa.Connection, row: dict[str, Any]) -> int | None:
        return conn.execute(self._insert_entry, row).scalar()

    def append(
        self,
        table_id: str,
        kind: str,
        payload: Mapping[str, Any],
        *,
        at_ms: int,
        game_id: str | None = None,
        boot: str | None = None,
        seq: int | None = None,
    ) -> int | None:
        """Append one entry; its id, or None when (table, boot, seq) is already stored."""
        row = self._entry_row(table_id, kind, payload, at_ms, game_id, boot, seq)
        try:
            with self._write() as conn:
                return self._insert(conn, row)
        except sa.exc.IntegrityError as err:
            raise self._integrity_error(err, [row]) from None

    def append_many(self, items: Sequence[Mapping[str, Any]]) -> list[int | None]:
        """Append entries in one transaction: all or none. Items are `append`'s arguments
        as dicts (`table_id`, `kind`, `payload`, `at_ms`, optional `game_id`, `boot`, `seq`)."""
        if not isinstance(items, list | tuple):
            raise InvalidEntry(f"append_many needs a list of entries, not {type(items).__name__}")
        rows = []
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise InvalidEntry(f"entry {index} must be a dict of append's arguments")
            unknown = set(item) - {"table_id", "kind", "payload", "at_ms", "game_id", "boot", "seq"}
            if unknown:
                raise InvalidEntry(f"entry {index}: unknown field(s) {sorted(unknown)}")
            try:
                rows.append(
                    self._entry_row(
                        item.get("table_id"),
                        item.get("kind"),
                        item.get("payload"),
                        item.get("at_ms"),
                        item.get("game_id"),
                        item.get("boot"),
                        item.get("seq"),
                    )
                )
            except InvalidEntry as err:
                raise InvalidEntry(f"entry {index}: {err}") from None
        if not rows:
            return []
        try:
            with self._write() as conn:
                return [self._insert(conn, row) for row in rows]
        except sa.exc.IntegrityError as err:
            raise self._integrity_error(err, rows) from None

    def _integrity_error(self, err: sa.exc.IntegrityError, rows: list[dict]) -> StoreError:
        games_named = sorted({(r["game_id"], r["table_id"]) for r in rows if r["game_id"]})
        if games_named:
            named = ", ".join(f"{game!r} on table {table!r}" for game, table in games_named)
            return UnknownGame(f"no such game: {named} (nothing was written)")
        return StoreError(f"{self.url}: {reason(err)} (nothing was written)")

    def entries(
        self,
        table_id: str,
        *,
        game_id: str | None = None,
        kinds: Iterable[str] | None = None,
        after_id: int = 0,
        limit: int | None = None,
    ) -> list[Entry]:
        """A table's entries in log order, after `after_id`, optionally of a game or kinds."""
        query = (
            sa.select(entries)
            .where(entries.c.table_id == arguments.text(table_id, "table_id"))
            .where(entries.c.id > arguments.whole(after_id, "after_id"))
            .order_by(entries.c.id)
        )
        if game_id is not None:
            query = query.where(entries.c.game_id == arguments.text(game_id, "game_id"))
        if kinds is not None:
            if isinstance(kinds, str):
                raise InvalidEntry("kinds must be a list of kinds, not one text")
            query = query.where(entries.c.kind.in_([arguments.text(k, "kind") for k in kinds]))
        if limit is not None:
            query = query.limit(arguments.whole(limit, "limit", 1))
        with self._read() as conn:
            return [Entry(**row._mapping) for row in conn.execute(query)]

    def last_seq(self, table_id: str, boot: str) -> int | None:
        """The highest stored seq of a ship boot (to ask for a resend of a gap), or None."""
        query = sa.select(sa.func.max(entries.c.seq)).where(
            entries.c.table_id == arguments.text(table_id, "table_id"),
            entries.c.boot == arguments.text(boot, "boot"),
        )
        with self._read() as conn:
            return conn.execute(query).scalar()

    # -- games

    def start_game(
        self,
        table_id: str,
        game: str,
        players: Sequence[str],
        setup_action: Mapping[str, Any],
        seats: Mapping[str, str] | None,
        at_ms: int,
    ) -> str:
        """Record a new game and its setup action (its first "action" entry); its game id.

        `seats` maps each player to their secret token (None: fresh random tokens, see
        `seat_tokens`). A table runs one game at a time: finish the last one first.
        """
        table_id = arguments.text(table_id, "table_id")
        try:
            engine = game_named(game)
        except Rejected as err:
            raise InvalidEntry(str(err)) from None
        players = arguments.names(players, "players")
        setup = arguments.payload(setup_action, "setup_action")
        if setup.get("type") != "setup" or setup.get("game") != game:
            raise InvalidEntry(f"setup_action must be a setup of {game!r}: {setup}"[:300])
        if "players" in setup and setup["players"] != players:
            raise InvalidEntry(f"setup_action's players {setup['players']} are not {players}")
        try:
            engine.setup(setup)
        except Rejected as err:
            raise InvalidEntry(f"setup_action is rejected by the rules: {err}") from None
        tokens = self._seat_tokens_for(players, seats)
        at_ms = arguments.at_ms(at_ms)
        game_id = new_game_id(at_ms)
        try:
            with self._write() as conn:
                if self.dialect == "postgresql":
                    conn.execute(
                        sa.text("SELECT pg_advisory_xact_lock(hashtext(:t))"), {"t": table_id}
                    )
                running = conn.execute(
                    sa.select(games.c.game_id)
                    .select_from(games.outerjoin(game_ends))
                    .where(games.c.table_id == table_id, game_ends.c.game_id.is_(None))
                ).scalar()
                if running is not None:
                    raise StoreError(
                        f"table {table_id!r} is still playing game {running}: finish it first "
                        "(finish_game with no winners abandons it)"
                    )
                conn.execute(
                    games.insert(),
                    {
                        "game_id": game_id,
                        "table_id": table_id,
                        "game": game,
                        "players": players,
                        "started_at_ms": at_ms,
                    },
                )
                conn.execute(
                    seat_table.insert(),
                    [{"game_id": game_id, "player": p, "token": t} for p, t in tokens.items()],
                )
                self._insert(
                    conn,
                    {
                        "table_id": table_id,
                        "game_id": game_id,
                        "kind": "action",
                        "payload": setup,
                        "boot": None,
                        "seq": None,
                        "at_ms": at_ms,
                    },
                )
        except sa.exc.IntegrityError as err:
            raise StoreError(f"{self.url}: {reason(err)} (nothing was written)") from None
        return game_id

    @staticmethod
    def _seat_tokens_for(players: list[str], given: Mapping[str, str] | None) -> dict[str, str]:
        if given is None:
            return {player: secrets.token_urlsafe(16) for player in players}
        if not isinstance(given, Mapping):
            raise InvalidEntry(f"seats must map player to token, not {type(given).__name__}")
        if set(given) != set(players):
            raise InvalidEntry(f"seats must give a token to each of {players} and no one else")
        tokens = {
            p: arguments.text(given[p], f"seat token of {p}", arguments.MAX_TOKEN_CHARS)
            for p in players
        }
        if len(set(tokens.values())) != len(tokens):
            raise InvalidEntry("two seats share a token: each seat needs its own secret")
        return tokens

    def finish_game(self, game_id: str, winners: Sequence[str], at_ms: int) -> None:
        """Record the end (winners [] = abandoned); appends a "finish" entry too. Once only."""
        row = self.game(game_id)
        winners = arguments.names(winners, "winners")
        strangers = [w for w in winners if w not in row.players]
        if strangers:
            raise InvalidEntry(f"winners {strangers} do not play game {game_id}")
        at_ms = arguments.at_ms(at_ms)
        try:
            with self._write() as conn:
                conn.execute(
                    game_ends.insert(),
                    {"game_id": row.game_id, "ended_at_ms": at_ms, "winners": winners},
                )
                self._insert(
                    conn,
                    {
                        "table_id": row.table_id,
                        "game_id": row.game_id,
                        "kind": "finish",
                        "payload": {"winners": winners},
                        "boot": None,
                        "seq": None,
                        "at_ms": at_ms,
                    },
                )
        except sa.exc.IntegrityError:
            raise StoreError(f"game {game_id} is already finished") from None

    def _games_query(self) -> sa.Select:
        return (
            sa.select(
                games.c.game_id,
                games.c.table_id,
                games.c.game,
                games.c.players,
                games.c.started_at_ms,
                game_ends.c.ended_at_ms,
                game_ends.c.winners,
            )
            .select_from(games.outerjoin(game_ends))
            .order_by(games.c.number)
        )

    @staticmethod
    def _game_row(row: sa.Row) -> GameRow:
        return GameRow(
            game_id=row.game_id,
            table_id=row.table_id,
            game=row.game,
            players=tuple(row.players),
            started_at_ms=row.started_at_ms,
            ended_at_ms=row.ended_at_ms,
            winners=None if row.winners is None else tuple(row.winners),
        )

    def game(self, game_id: str) -> GameRow:
        """One game's public row; raises UnknownGame."""
        if not isinstance(game_id, str):
            raise UnknownGame(f"no game {game_id!r}")
        with self._read() as conn:
            row = conn.execute(self._games_query().where(games.c.game_id == game_id)).first()
        if row is None:
            raise UnknownGame(f"no game {game_id[:80]!r}")
        return self._game_row(row)

    def games(self, table_id: str | None = None, running: bool | None = None) -> list[GameRow]:
        """Games in the order they started, of one table and/or running or finished only."""
        query = self._games_query()
        if table_id is not None:
            query = query.where(games.c.table_id == arguments.text(table_id, "table_id"))
        if running is True:
            query = query.where(game_ends.c.game_id.is_(None))
        elif running is False:
            query = query.where(game_ends.c.game_id.is_not(None))
        with self._read() as conn:
            return [self._game_row(row) for row in conn.execute(query)]

    def unfinished_games(self) -> list[GameRow]:
        """Every game started and not finished: what a restarted service resumes."""
        return self.games(running=True)

    def latest_game(self, table_id: str) -> GameRow | None:
        """The table's most recently started game, or None."""
        query = (
            self._games_query()
            .where(games.c.table_id == arguments.text(table_id, "table_id"))
            .order_by(None)
            .order_by(games.c.number.desc())
            .limit(1)
        )
        with self._read() as conn:
            row = conn.execute(query).first()
        return None if row is None else self._game_row(row)

    # -- seats (secret)

    def seat_for_token(self, game_id: str, token: object) -> str | None:
        """The player whose secret `token` this is in the game, or None (constant time)."""
        if not isinstance(game_id, str) or not isinstance(token, str):
            return None
        offered = token.encode("utf-8", "surrogatepass")
        with self._read() as conn:
            rows = conn.execute(
                sa.select(seat_table.c.player, seat_table.c.token).where(
                    seat_table.c.game_id == game_id
                )
            ).all()
        found = None
        for player, stored in rows:  # compare with every seat: no early exit to time
            if hmac.compare_digest(stored.encode("utf-8"), offered):
                found = player
        return found

    def seat_tokens(self, game_id: str) -> dict[str, str]:
        """Operator only (join links): every seat's secret token. Never send it to players."""
        self.game(game_id)
        with self._read() as conn:
            rows = conn.execute(
                sa.select(seat_table.c.player, seat_table.c.token).where(
                    seat_table.c.game_id == game_id
                )
            ).all()
        return dict(rows)

    # -- undo and the effective game log

    def _game_log_rows(self, conn: sa.Connection, game_id: str) -> list[tuple[int, str, Any]]:
        query = (
            sa.select(entries.c.id, entries.c.kind, entries.c.payload)
            .where(entries.c.game_id == game_id, entries.c.kind.in_(("action", "undo")))
            .order_by(entries.c.id)
        )
        return [tuple(row) for row in conn.execute(query)]

    def undo_last_action(self, game_id: str, reason: str, by: str, at_ms: int) -> Entry:
        """Undo the game's last effective action (never the setup); the "undo" entry.

        Its payload: `{"undoes": entry id, "action": the undone action, "reason", "by"}`.
        Undoing again undoes the action before. A finished game cannot be undone.
        """
        reason = arguments.text(reason, "reason", arguments.MAX_REASON_CHARS)
        by = arguments.text(by, "by")
        at_ms = arguments.at_ms(at_ms)
        row = self.game(game_id)
        with self._write() as conn:
            if self.dialect == "postgresql":
                conn.execute(
                    sa.select(games.c.number).where(games.c.game_id == game_id).with_for_update()
                )
            ended = conn.execute(
                sa.select(game_ends.c.ended_at_ms).where(game_ends.c.game_id == game_id)
            ).scalar()
            if ended is not None:
                raise NothingToUndo(f"game {game_id} is over: its actions can no longer be undone")
            actions = effective_actions(self._game_log_rows(conn, game_id))
            if len(actions) <= 1:
                raise NothingToUndo(f"game {game_id} has no action to undo (only its setup)")
            undone_id, undone = actions[-1]
            entry = {
                "table_id": row.table_id,
                "game_id": game_id,
                "kind": "undo",
                "payload": {"undoes": undone_id, "action": undone, "reason": reason, "by": by},
                "boot": None,
                "seq": None,
                "at_ms": at_ms,
            }
            entry_id = self._insert(conn, entry)
        return Entry(id=entry_id, **entry)

    def game_actions(self, game_id: str) -> list[dict[str, Any]]:
        """The game's effective log: its actions in order, undone ones left out.

        This is what `bosun export` writes and what crash recovery replays.
        """
        self.game(game_id)
        with self._read() as conn:
            return [
                payload for _id, payload in effective_actions(self._game_log_rows(conn, game_id))
            ]
