"""The Store: an append-only log of every table, its games and raw traces, in SQL.

One code path (SQLAlchemy 2 Core) for SQLite (the default, WAL) and PostgreSQL (psycopg 3).
Every public method runs in its own connection and transaction, so a Store may be shared by
threads. Writes are durable when the method returns (SQLite: against a process crash; WAL
with synchronous=NORMAL may lose the last commits on power loss).
"""

from __future__ import annotations

import functools
import hmac
import json
import re
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
from bosun.store import sqlite_file, traces
from bosun.store.models import entries, game_ends, games, trace_chunks
from bosun.store.models import seats as seat_table
from bosun.store.records import (
    Entry,
    GameRow,
    InvalidEntry,
    NothingToUndo,
    StoreError,
    UnknownGame,
)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# alembic keeps the migration under way in module globals: one migration at a time a process
_MIGRATING = threading.Lock()
SQLITE_BUSY_TIMEOUT_S = 10
MAX_ID_CHARS = 64
MAX_TOKEN_CHARS = 256
MAX_REASON_CHARS = 500
MAX_PAYLOAD_CHARS = 65536
MAX_AT_MS = 253402300799999  # 9999-12-31: a wall clock beyond this is a bug
KIND_PATTERN = re.compile(r"^[a-z][a-z_]{0,31}$")
_json_dumps = functools.partial(
    json.dumps, ensure_ascii=False, separators=(",", ":"), allow_nan=False
)


# ---------------------------------------------------------------- validation of arguments


def _text(value: object, what: str, max_chars: int = MAX_ID_CHARS) -> str:
    if not isinstance(value, str):
        raise InvalidEntry(f"{what} must be text, not {type(value).__name__}")
    if not value or len(value) > max_chars:
        raise InvalidEntry(f"{what} must be 1 to {max_chars} characters, not {len(value)}")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise InvalidEntry(f"{what} {value[:40]!r} contains control characters")
    return value


def _whole(value: object, what: str, low: int = 0, high: int = 2**63 - 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidEntry(f"{what} must be a whole number, not {value!r}"[:200])
    if not low <= value <= high:
        raise InvalidEntry(f"{what} {value} is out of range ({low}..{high})")
    return value


def _at_ms(value: object) -> int:
    return _whole(value, "at_ms", 0, MAX_AT_MS)


def _payload(value: object, what: str = "payload") -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidEntry(f"{what} must be a JSON object, not {type(value).__name__}")
    try:
        text = _json_dumps(value)
    except (TypeError, ValueError, RecursionError) as err:
        raise InvalidEntry(f"{what} is not valid JSON: {err}") from None
    if len(text) > MAX_PAYLOAD_CHARS:
        raise InvalidEntry(f"{what} is {len(text)} characters as JSON; at most {MAX_PAYLOAD_CHARS}")
    return json.loads(text)  # a plain copy: later changes by the caller cannot reach the log


def _names(value: object, what: str) -> list[str]:
    if not isinstance(value, list | tuple):
        raise InvalidEntry(f"{what} must be a list of names, not {type(value).__name__}")
    names = [_text(name, f"{what}[{i}]") for i, name in enumerate(value)]
    if len(set(names)) != len(names):
        raise InvalidEntry(f"{what} names someone twice: {names}")
    return names


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


# ---------------------------------------------------------------- URLs and engines


def database_url(url: str) -> sa.URL:
    """The SQLAlchemy URL for a bosun database URL (or a bare SQLite file path)."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidEntry("the database URL is empty")
    if "://" not in url:
        return sa.URL.create("sqlite+pysqlite", database=url)
    try:
        parsed = sa.make_url(url)
    except sa.exc.ArgumentError:
        raise InvalidEntry(f"{url!r} is not a database URL") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.database in (None, "", ":memory:") or parsed.database.startswith("file:"):
            raise InvalidEntry("the store needs a SQLite file (sqlite:///path/to/bosun.db)")
        return parsed.set(drivername="sqlite+pysqlite")
    if backend in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+psycopg")
    raise InvalidEntry(
        f"bosun stores in SQLite (sqlite:///bosun.db) or PostgreSQL (postgresql://...), "
        f"not {backend!r}"
    )


def _shown(written: str, url: sa.URL) -> str:
    """The URL as the user wrote it (a bare path stays a path), password hidden."""
    if "://" not in written:
        return written
    return url.set(drivername=sa.make_url(written).drivername).render_as_string(hide_password=True)


def _reason(err: BaseException) -> str:
    """The database's own words, first line only (no SQL, no parameters)."""
    orig = getattr(err, "orig", None) or err
    text = str(orig).strip().splitlines()
    return text[0] if text else type(orig).__name__


def _sqlite_engine(url: sa.URL) -> sa.Engine:
    engine = sa.create_engine(
        url,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S},
        json_serializer=_json_dumps,
    )

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        # Let SQLAlchemy's "begin" below issue BEGIN, so writers can take the lock up front.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL: durable against a crash, fast
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_S * 1000}")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        # A writer that reads first (undo, start_game) must hold the lock from the start, or
        # a WAL snapshot taken before another writer's commit makes its write fail.
        immediate = connection.get_execution_options().get("bosun_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _build_sqlite_store(path: str) -> None:
    """Migrate a new, empty SQLite file at `path` and fold its WAL into it (for
    sqlite_file.check, which links it in under its real name)."""
    engine = _sqlite_engine(database_url(path))
    try:
        Store(engine, path)._migrate()
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    except (sa.exc.SQLAlchemyError, sqlite3.Error) as err:
        raise StoreError(f"cannot create the store: {_reason(err)}") from err
    finally:
        engine.dispose()


# ---------------------------------------------------------------- the store


class Store:
    """The append-only log of every table; see the package docstring for the interface."""

    def __init__(self, engine: sa.Engine, url: str) -> None:
        self._engine = engine
        self.url = url  # as the user wrote it, password hidden: for messages
        self.dialect = engine.dialect.name
        insert = sqlite_dialect.insert if self.dialect == "sqlite" else pg_dialect.insert
        self._insert_entry = insert(entries).on_conflict_do_nothing().returning(entries.c.id)

    # -- opening and closing

    @classmethod
    def open(cls, url: str, *, create: bool = True) -> Store:
        """Connect and migrate to the newest schema; `create=False` refuses a missing file."""
        sa_url = database_url(url)
        if sa_url.get_backend_name() == "sqlite":
            sqlite_file.check(Path(sa_url.database), create, build=_build_sqlite_store)
            engine = _sqlite_engine(sa_url)
        else:
            engine = sa.create_engine(sa_url, json_serializer=_json_dumps, pool_pre_ping=True)
        store = cls(engine, _shown(url, sa_url))
        try:
            store._migrate()
        except StoreError as err:
            engine.dispose()
            if isinstance(err.__cause__, sa.exc.DBAPIError):
                raise StoreError(f"cannot open {err}") from err.__cause__
            raise
        except (sa.exc.SQLAlchemyError, sqlite3.Error, OSError) as err:
            engine.dispose()
            raise StoreError(f"cannot open {store.url}: {_reason(err)}") from err
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
            raise StoreError(f"{self.url}: {_reason(err)}") from err

    @contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        try:
            with self._engine.connect() as conn:
                yield conn
        except sa.exc.DBAPIError as err:
            raise StoreError(f"{self.url}: {_reason(err)}") from err

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
        table_id = _text(table_id, "table_id")
        if not isinstance(kind, str) or not KIND_PATTERN.match(kind):
            raise InvalidEntry(f"kind must be a lower-case word like 'ship_event', not {kind!r}")
        if boot is not None:
            boot = _text(boot, "boot")
        if seq is not None:
            seq = _whole(seq, "seq")
            if boot is None:
                raise InvalidEntry("seq is counted per boot: a seq needs its boot")
        return {
            "table_id": table_id,
            "game_id": None if game_id is None else _text(game_id, "game_id"),
            "kind": kind,
            "payload": _payload(payload),
            "boot": boot,
            "seq": seq,
            "at_ms": _at_ms(at_ms),
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
        return StoreError(f"{self.url}: {_reason(err)} (nothing was written)")

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
            .where(entries.c.table_id == _text(table_id, "table_id"))
            .where(entries.c.id > _whole(after_id, "after_id"))
            .order_by(entries.c.id)
        )
        if game_id is not None:
            query = query.where(entries.c.game_id == _text(game_id, "game_id"))
        if kinds is not None:
            if isinstance(kinds, str):
                raise InvalidEntry("kinds must be a list of kinds, not one text")
            query = query.where(entries.c.kind.in_([_text(k, "kind") for k in kinds]))
        if limit is not None:
            query = query.limit(_whole(limit, "limit", 1))
        with self._read() as conn:
            return [Entry(**row._mapping) for row in conn.execute(query)]

    def last_seq(self, table_id: str, boot: str) -> int | None:
        """The highest stored seq of a ship boot (to ask for a resend of a gap), or None."""
        query = sa.select(sa.func.max(entries.c.seq)).where(
            entries.c.table_id == _text(table_id, "table_id"), entries.c.boot == _text(boot, "boot")
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
        table_id = _text(table_id, "table_id")
        try:
            engine = game_named(game)
        except Rejected as err:
            raise InvalidEntry(str(err)) from None
        players = _names(players, "players")
        setup = _payload(setup_action, "setup_action")
        if setup.get("type") != "setup" or setup.get("game") != game:
            raise InvalidEntry(f"setup_action must be a setup of {game!r}: {setup}"[:300])
        if "players" in setup and setup["players"] != players:
            raise InvalidEntry(f"setup_action's players {setup['players']} are not {players}")
        try:
            engine.setup(setup)
        except Rejected as err:
            raise InvalidEntry(f"setup_action is rejected by the rules: {err}") from None
        tokens = self._seat_tokens_for(players, seats)
        at_ms = _at_ms(at_ms)
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
            raise StoreError(f"{self.url}: {_reason(err)} (nothing was written)") from None
        return game_id

    @staticmethod
    def _seat_tokens_for(players: list[str], given: Mapping[str, str] | None) -> dict[str, str]:
        if given is None:
            return {player: secrets.token_urlsafe(16) for player in players}
        if not isinstance(given, Mapping):
            raise InvalidEntry(f"seats must map player to token, not {type(given).__name__}")
        if set(given) != set(players):
            raise InvalidEntry(f"seats must give a token to each of {players} and no one else")
        tokens = {p: _text(given[p], f"seat token of {p}", MAX_TOKEN_CHARS) for p in players}
        if len(set(tokens.values())) != len(tokens):
            raise InvalidEntry("two seats share a token: each seat needs its own secret")
        return tokens

    def finish_game(self, game_id: str, winners: Sequence[str], at_ms: int) -> None:
        """Record the end (winners [] = abandoned); appends a "finish" entry too. Once only."""
        row = self.game(game_id)
        winners = _names(winners, "winners")
        strangers = [w for w in winners if w not in row.players]
        if strangers:
            raise InvalidEntry(f"winners {strangers} do not play game {game_id}")
        at_ms = _at_ms(at_ms)
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
            query = query.where(games.c.table_id == _text(table_id, "table_id"))
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
            .where(games.c.table_id == _text(table_id, "table_id"))
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
        reason = _text(reason, "reason", MAX_REASON_CHARS)
        by = _text(by, "by")
        at_ms = _at_ms(at_ms)
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

    # -- raw sensor traces

    def trace_chunk(
        self, table_id: object, boot: object, rows: object, at_ms: object
    ) -> dict | None:
        """One batch of raw samples checked and packed for `append_trace_chunks` (None when
        it holds no rows); InvalidEntry names what is wrong with it. Nothing is written."""
        table_id = _text(table_id, "table_id")
        boot = _text(boot, "boot")
        at_ms = _at_ms(at_ms)
        samples, first_t_ms, last_t_ms = traces.pack_rows(rows)
        if not samples:
            return None
        return {
            "table_id": table_id,
            "boot": boot,
            "first_t_ms": first_t_ms,
            "last_t_ms": last_t_ms,
            "row_count": len(rows),
            "samples": samples,
            "at_ms": at_ms,
        }

    def append_trace(
        self, table_id: str, boot: str, rows: Sequence[Sequence[float | None]], at_ms: int
    ) -> int:
        """Store a batch of raw samples `[t_ms, z1..z10, table_g, impact]`; rows stored."""
        return self.append_traces(
            [{"table_id": table_id, "boot": boot, "rows": rows, "at_ms": at_ms}]
        )

    def append_traces(self, batches: Sequence[Mapping[str, Any]]) -> int:
        """Store many batches (`append_trace`'s arguments as dicts) in one transaction.

        At 80 SPS on many tables, flush every few hundred ms with this, not a commit a batch.
        """
        if not isinstance(batches, list | tuple):
            raise InvalidEntry(f"append_traces needs a list, not {type(batches).__name__}")
        chunk_rows = []
        for index, batch in enumerate(batches):
            if not isinstance(batch, Mapping):
                raise InvalidEntry(
                    f"trace batch {index} must be a dict of append_trace's arguments"
                )
            try:
                chunk = self.trace_chunk(
                    batch.get("table_id"), batch.get("boot"), batch.get("rows"), batch.get("at_ms")
                )
            except InvalidEntry as err:
                raise InvalidEntry(f"trace batch {index}: {err}") from None
            if chunk is not None:
                chunk_rows.append(chunk)
        return self.append_trace_chunks(chunk_rows)

    def append_trace_chunks(self, chunks: Sequence[dict]) -> int:
        """Store chunks made by `trace_chunk` in one transaction; rows stored."""
        if not chunks:
            return 0
        with self._write() as conn:
            conn.execute(trace_chunks.insert(), list(chunks))
        return sum(chunk["row_count"] for chunk in chunks)

    def trace(
        self, table_id: str, from_t_ms: float, to_t_ms: float, boot: str | None = None
    ) -> list[list[float | None]]:
        """Samples with from_t_ms <= t_ms <= to_t_ms (ship clock), in arrival order.

        Grams come back rounded to 0.1 mg (storage is float32; see bosun.store.traces).

        t_ms restarts with each boot: name the `boot` unless the window is within one.
        """
        low = traces._number(from_t_ms, "from_t_ms")
        high = traces._number(to_t_ms, "to_t_ms")
        query = (
            sa.select(trace_chunks.c.samples)
            .where(
                trace_chunks.c.table_id == _text(table_id, "table_id"),
                trace_chunks.c.last_t_ms >= low,
                trace_chunks.c.first_t_ms <= high,
            )
            .order_by(trace_chunks.c.id)
        )
        if boot is not None:
            query = query.where(trace_chunks.c.boot == _text(boot, "boot"))
        with self._read() as conn:
            chunks = conn.execute(query).scalars().all()
        return [
            traces.rounded(row)
            for samples in chunks
            for row in traces.unpack_rows(samples)
            if low <= row[0] <= high
        ]

    def last_trace(self, table_id: str) -> tuple[str, float] | None:
        """(boot, t_ms) of the newest stored sample of a table, or None: where plots start."""
        query = (
            sa.select(trace_chunks.c.boot, trace_chunks.c.last_t_ms)
            .where(trace_chunks.c.table_id == _text(table_id, "table_id"))
            .order_by(trace_chunks.c.id.desc())
            .limit(1)
        )
        with self._read() as conn:
            row = conn.execute(query).first()
        return None if row is None else (row.boot, row.last_t_ms)

    def trace_csv(self, table_id: str, game_id: str) -> str:
        """The samples received while the game ran, as DESIGN.md's trace CSV.

        The ship's clock restarts when it reboots; later boots are shifted to go on after
        the last sample (by the wall-clock gap between batches), so t_ms always increases.
        """
        row = self.game(game_id)
        if row.table_id != table_id:
            raise UnknownGame(f"game {game_id} is on table {row.table_id!r}, not {table_id!r}")
        query = (
            sa.select(trace_chunks.c.boot, trace_chunks.c.samples, trace_chunks.c.at_ms)
            .where(
                trace_chunks.c.table_id == row.table_id,
                trace_chunks.c.at_ms >= row.started_at_ms,
            )
            .order_by(trace_chunks.c.id)
        )
        if row.ended_at_ms is not None:
            query = query.where(trace_chunks.c.at_ms <= row.ended_at_ms)
        samples_out: list[list] = []
        offset_ms = 0.0
        boot = last_at_ms = None
        with self._read() as conn:
            for chunk in conn.execute(query):
                rows = traces.unpack_rows(chunk.samples)
                if boot is not None and chunk.boot != boot and samples_out:
                    gap_ms = max(1.0, float(chunk.at_ms - last_at_ms))
                    offset_ms = samples_out[-1][0] + gap_ms - rows[0][0]
                boot, last_at_ms = chunk.boot, chunk.at_ms
                for sample in rows:
                    sample[0] += offset_ms
                    if samples_out and not sample[0] > samples_out[-1][0]:
                        continue  # a batch resent or overlapping: keep time increasing
                    samples_out.append(sample)
        return "\n".join(traces.csv_lines(samples_out)) + "\n"
