"""The store's tables as SQLAlchemy Core metadata: the schema at the newest migration.

The migrations in `bosun.store.migrations` create exactly this; a test compares the two.
Nothing here is ever updated or deleted: every table is append-only.
"""

from __future__ import annotations

import sqlalchemy as sa

# SQLite only autoincrements an INTEGER PRIMARY KEY; PostgreSQL gets a 64-bit identity.
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

metadata = sa.MetaData()

# The per-table log of everything: ship events, game actions, prompts, inputs, undos...
entries = sa.Table(
    "entries",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),  # the order
    sa.Column("table_id", sa.Text, nullable=False),
    sa.Column("game_id", sa.Text, nullable=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("payload", sa.JSON, nullable=False),
    sa.Column("boot", sa.Text, nullable=True),
    sa.Column("seq", sa.BigInteger, nullable=True),
    sa.Column("at_ms", sa.BigInteger, nullable=False),  # wall clock, given by the caller
    # Ship events are keyed (table, boot, seq): a resent event is not stored twice. NULLs
    # are distinct in a unique index on both databases, so unkeyed entries never clash.
    # A game's entries are on its table: the database refuses a game id from another table.
    sa.ForeignKeyConstraint(
        ["game_id", "table_id"], ["games.game_id", "games.table_id"], name="fk_entries_game"
    ),
    sa.Index("uq_entries_ship_key", "table_id", "boot", "seq", unique=True),
    sa.Index("ix_entries_table", "table_id", "id"),
    sa.Index("ix_entries_game", "game_id", "id"),
)

# One row a game, written when it starts. `number` orders games (ids carry a random part).
games = sa.Table(
    "games",
    metadata,
    sa.Column("number", BigId, primary_key=True, autoincrement=True),
    sa.Column("game_id", sa.Text, nullable=False, unique=True),
    sa.Column("table_id", sa.Text, nullable=False),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("players", sa.JSON, nullable=False),
    sa.Column("started_at_ms", sa.BigInteger, nullable=False),
    sa.UniqueConstraint("game_id", "table_id", name="uq_games_game_table"),
    sa.Index("ix_games_table", "table_id", "number"),
)

# A game's end, appended once: games are never updated, an end row is added.
game_ends = sa.Table(
    "game_ends",
    metadata,
    sa.Column("game_id", sa.Text, sa.ForeignKey("games.game_id"), primary_key=True),
    sa.Column("ended_at_ms", sa.BigInteger, nullable=False),
    sa.Column("winners", sa.JSON, nullable=False),
)

# Per-seat secret tokens (join links). Never part of anything public.
seats = sa.Table(
    "seats",
    metadata,
    sa.Column("game_id", sa.Text, sa.ForeignKey("games.game_id"), primary_key=True),
    sa.Column("player", sa.Text, primary_key=True),
    sa.Column("token", sa.Text, nullable=False),
)

# Raw sensor samples, a batch a row, packed (see bosun.store.traces): 56 bytes a sample.
trace_chunks = sa.Table(
    "trace_chunks",
    metadata,
    sa.Column("id", BigId, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.Text, nullable=False),
    sa.Column("boot", sa.Text, nullable=False),
    sa.Column("first_t_ms", sa.Double, nullable=False),
    sa.Column("last_t_ms", sa.Double, nullable=False),
    sa.Column("row_count", sa.Integer, nullable=False),
    sa.Column("samples", sa.LargeBinary, nullable=False),
    sa.Column("at_ms", sa.BigInteger, nullable=False),
    sa.Index("ix_trace_chunks_time", "table_id", "boot", "first_t_ms"),
    sa.Index("ix_trace_chunks_at", "table_id", "at_ms"),
)
