"""Database URLs and engines: which backend a URL names, SQLite's settings, errors in words."""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa

from bosun.store.arguments import json_dumps
from bosun.store.records import InvalidEntry

SQLITE_BUSY_TIMEOUT_S = 10


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


def shown(written: str, url: sa.URL) -> str:
    """The URL as the user wrote it (a bare path stays a path), password hidden."""
    if "://" not in written:
        return written
    return url.set(drivername=sa.make_url(written).drivername).render_as_string(hide_password=True)


def reason(err: BaseException) -> str:
    """The database's own words, first line only (no SQL, no parameters)."""
    orig = getattr(err, "orig", None) or err
    text = str(orig).strip().splitlines()
    return text[0] if text else type(orig).__name__


def sqlite_engine(url: sa.URL) -> sa.Engine:
    engine = sa.create_engine(
        url,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S},
        json_serializer=json_dumps,
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
