"""Who referees which table: a PostgreSQL advisory lock a table, and an epoch that fences.

A referee holds a table while it holds the table's session-level advisory lock, on one
connection of its own (`TableLeases`): when the process dies, PostgreSQL sees the connection
close and the lock is free for the next referee at once. Every takeover adds one to the
table's epoch in `bosun_leases` (table_id, epoch, owner). A lock alone does not stop a referee
that lost it without noticing (a stalled process, a connection cut while a write was on its
way): so every write of a table's referee goes through a `FencedStore`, whose transactions
first read the table's epoch with a share lock and refuse to write (`LeaseLost`) unless it is
still the referee's own. The share lock orders each write with the takeover's update: a write
either commits before the new referee takes over (and the new referee rebuilds from it), or
finds the new epoch and writes nothing.

Who is in the cluster: every referee holds a second, two-key advisory lock of its own
(`REFEREE_LOCKS`, its id in `bosun_referees`) while it lives, so the live referees are the
rows whose lock PostgreSQL shows as held (`pg_locks`): no heartbeat to miss, and a dead
referee is gone the moment its connection is. The referees share the tables out by that count
(bosun.cluster.service); `bosun_referees` also says where each serves its web pages, so that a
page can follow its table to the referee that holds it.

`bosun_leases` and `bosun_referees` belong to the cluster alone: they are made here
(PostgreSQL only), not by the store's migrations, which SQLite stores share.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg
import sqlalchemy as sa

from bosun.store.engines import database_url
from bosun.store.records import StoreError
from bosun.store.store import Store

log = logging.getLogger(__name__)

LOCK_NAMESPACE = "bosun-table:"  # hashed with the table id into the advisory lock's key
CREATE_LOCK = 727274012  # one referee creates the leases table at a time
REFEREE_LOCKS = 727274013  # a referee's membership lock: (REFEREE_LOCKS, its id)
CONNECT_TIMEOUT_S = 5

CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS bosun_leases (
    table_id TEXT PRIMARY KEY,
    epoch BIGINT NOT NULL,
    owner TEXT NOT NULL,
    taken_at TIMESTAMPTZ NOT NULL DEFAULT now()
)"""
TAKE = """
INSERT INTO bosun_leases (table_id, epoch, owner) VALUES (%(table)s, 1, %(owner)s)
ON CONFLICT (table_id) DO UPDATE
    SET epoch = bosun_leases.epoch + 1, owner = EXCLUDED.owner, taken_at = now()
RETURNING epoch"""
CREATE_REFEREES = """
CREATE TABLE IF NOT EXISTS bosun_referees (
    id INTEGER PRIMARY KEY,
    owner TEXT NOT NULL,
    web_url TEXT NOT NULL DEFAULT '',
    joined_at TIMESTAMPTZ NOT NULL DEFAULT now()
)"""
CREATE_REFEREE_IDS = "CREATE SEQUENCE IF NOT EXISTS bosun_referee_ids AS INTEGER CYCLE"
HELD = """EXISTS (SELECT 1 FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND l.classid = %(class)s::oid AND l.objid = r.id::oid)"""
LIVE_REFEREES = f"SELECT r.owner, r.web_url FROM bosun_referees r WHERE {HELD} ORDER BY r.id"
FORGET_THE_DEAD = f"DELETE FROM bosun_referees r WHERE NOT {HELD}"
HOLDERS = f"""
SELECT b.table_id, r.owner, r.web_url FROM bosun_leases b
JOIN bosun_referees r ON r.owner = b.owner WHERE {HELD}"""
FENCE = sa.text("SELECT epoch FROM bosun_leases WHERE table_id = :table FOR SHARE")


class LeaseLost(StoreError):
    """This referee no longer holds the table: nothing was written."""


@dataclass(frozen=True)
class Holder:
    """A live referee: its owner name and where it serves its pages ('' until it says)."""

    owner: str
    web_url: str


@dataclass(frozen=True)
class Survey:
    """The cluster as one look at PostgreSQL shows it: the live referees (in the order they
    joined) and which of them holds each table that is held."""

    referees: tuple[Holder, ...]
    holders: dict[str, Holder]


def libpq_url(url: str) -> str:
    """A psycopg connection string for a bosun PostgreSQL URL; ValueError for SQLite."""
    sa_url = database_url(url)
    if sa_url.get_backend_name() != "postgresql":
        raise ValueError("a cluster's referees share one PostgreSQL store: --db postgresql://...")
    return sa_url.set(drivername="postgresql").render_as_string(hide_password=False)


class TableLeases:
    """One referee's advisory locks, on a connection used for nothing else (autocommit)."""

    def __init__(self, url: str, owner: str) -> None:
        self.owner = owner
        self.held: dict[str, int] = {}  # table id -> the epoch it was taken at
        try:
            self._conn = psycopg.connect(
                libpq_url(url),
                autocommit=True,
                connect_timeout=CONNECT_TIMEOUT_S,
                application_name=f"bosun-leases {owner}"[:60],
                # a cut network shows in seconds, not hours: the locks are gone with it
                keepalives=1,
                keepalives_idle=5,
                keepalives_interval=2,
                keepalives_count=2,
            )
            with self._conn.transaction():
                self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (CREATE_LOCK,))
                self._conn.execute(CREATE_TABLE)
                self._conn.execute(CREATE_REFEREES)
                self._conn.execute(CREATE_REFEREE_IDS)
            self.referee_id = self._join()
        except psycopg.Error as why:
            raise StoreError(f"cannot open the table leases: {why}".strip()) from None

    def _join(self) -> int:
        """Hold a membership lock of a new id, then say who holds it (in that order: a row
        is never without its lock, so forgetting the dead never forgets a living one)."""
        conn = self._conn
        referee_id = conn.execute("SELECT nextval('bosun_referee_ids')").fetchone()[0]
        conn.execute("SELECT pg_advisory_lock(%s, %s)", (REFEREE_LOCKS, referee_id))
        conn.execute(FORGET_THE_DEAD, {"class": REFEREE_LOCKS})
        conn.execute(
            "INSERT INTO bosun_referees (id, owner) VALUES (%s, %s)"
            " ON CONFLICT (id) DO UPDATE"  # an id again, after 2**31 joins
            " SET owner = EXCLUDED.owner, web_url = '', joined_at = now()",
            (referee_id, self.owner),
        )
        return referee_id

    def announce(self, web_url: str) -> None:
        """Where this referee serves its pages (pages of its tables follow them here)."""
        try:
            self._conn.execute(
                "UPDATE bosun_referees SET web_url = %s WHERE id = %s", (web_url, self.referee_id)
            )
        except psycopg.Error as why:
            raise LeaseLost(f"the leases' connection failed: {why}".strip()) from None

    def survey(self) -> Survey:
        """The live referees and who holds which table, as PostgreSQL sees them now."""
        try:
            referees = self._conn.execute(LIVE_REFEREES, {"class": REFEREE_LOCKS}).fetchall()
            held = self._conn.execute(HOLDERS, {"class": REFEREE_LOCKS}).fetchall()
        except psycopg.Error as why:
            raise LeaseLost(f"the leases' connection failed: {why}".strip()) from None
        return Survey(
            tuple(Holder(owner, url) for owner, url in referees),
            {table_id: Holder(owner, url) for table_id, owner, url in held},
        )

    def try_take(self, table_id: str) -> int | None:
        """The table's new epoch if this referee now holds it, else None (another does).
        Several threads may take tables at once: psycopg runs one statement at a time."""
        if table_id in self.held:
            return self.held[table_id]
        try:
            taken = self._conn.execute(
                "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (LOCK_NAMESPACE + table_id,)
            ).fetchone()[0]
            if not taken:
                return None
            epoch = self._conn.execute(TAKE, {"table": table_id, "owner": self.owner}).fetchone()[0]
        except psycopg.Error as why:
            raise LeaseLost(f"the leases' connection failed: {why}".strip()) from None
        self.held[table_id] = epoch
        log.warning("took table %s at epoch %d", table_id, epoch)
        return epoch

    def release(self, table_id: str) -> None:
        """Give one table up, for another referee to take (its writes are stored already)."""
        epoch = self.held.pop(table_id, None)
        if epoch is None:
            return
        try:
            self._conn.execute(
                "UPDATE bosun_leases SET owner = '' WHERE table_id = %s AND epoch = %s",
                (table_id, epoch),
            )
            self._conn.execute(
                "SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (LOCK_NAMESPACE + table_id,)
            )
        except psycopg.Error as why:
            raise LeaseLost(f"the leases' connection failed: {why}".strip()) from None
        log.warning("gave table %s up (epoch %d)", table_id, epoch)

    def check(self) -> None:
        """LeaseLost unless the connection (and so every lock) is alive and no table's epoch
        moved on."""
        if not self.held:
            with contextlib.suppress(psycopg.Error):
                self._conn.execute("SELECT 1")
            if self._conn.closed or self._conn.broken:
                raise LeaseLost("the leases' connection is gone")
            return
        try:
            rows = self._conn.execute(
                "SELECT table_id, epoch FROM bosun_leases WHERE table_id = ANY(%s)",
                (list(self.held),),
            ).fetchall()
        except psycopg.Error as why:
            raise LeaseLost(f"the leases' connection failed: {why}".strip()) from None
        current = dict(rows)
        for table_id, epoch in self.held.items():
            if current.get(table_id) != epoch:
                raise LeaseLost(f"table {table_id} was taken over (epoch {current.get(table_id)})")

    def close(self) -> None:
        """Give every table up (closing the connection frees its locks)."""
        self.held.clear()
        with contextlib.suppress(psycopg.Error):
            # at once: a closed connection's backend frees its locks a moment later
            self._conn.execute("SELECT pg_advisory_unlock_all()")
        with contextlib.suppress(psycopg.Error):
            self._conn.close()


class FencedStore(Store):
    """The store as one table's referee writes it: a write commits only at the referee's
    epoch. Shares the service store's engine (its connections); reads are the store's own."""

    def __init__(self, store: Store, table_id: str, epoch: int) -> None:
        super().__init__(store._engine, store.url)  # noqa: SLF001 - the same database
        self.table_id = table_id
        self.epoch = epoch

    @contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        with super()._write() as conn:
            current = conn.execute(FENCE, {"table": self.table_id}).scalar()
            if current != self.epoch:
                raise LeaseLost(
                    f"table {self.table_id}: another referee took it over (epoch {current}, "
                    f"this one's {self.epoch}); nothing written"
                )
            yield conn

    def close(self) -> None:
        """The engine is the service store's: it closes it."""
