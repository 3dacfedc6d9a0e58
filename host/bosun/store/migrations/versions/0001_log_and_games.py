"""The append-only log and games: entries, games, game_ends, seats.

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("number", BigId, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.Text, nullable=False, unique=True),
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("players", sa.JSON, nullable=False),
        sa.Column("started_at_ms", sa.BigInteger, nullable=False),
        sa.UniqueConstraint("game_id", "table_id", name="uq_games_game_table"),
    )
    op.create_index("ix_games_table", "games", ["table_id", "number"])
    op.create_table(
        "entries",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("game_id", sa.Text, nullable=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("boot", sa.Text, nullable=True),
        sa.Column("seq", sa.BigInteger, nullable=True),
        sa.Column("at_ms", sa.BigInteger, nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id", "table_id"], ["games.game_id", "games.table_id"], name="fk_entries_game"
        ),
    )
    op.create_index("uq_entries_ship_key", "entries", ["table_id", "boot", "seq"], unique=True)
    op.create_index("ix_entries_table", "entries", ["table_id", "id"])
    op.create_index("ix_entries_game", "entries", ["game_id", "id"])
    op.create_table(
        "game_ends",
        sa.Column("game_id", sa.Text, sa.ForeignKey("games.game_id"), primary_key=True),
        sa.Column("ended_at_ms", sa.BigInteger, nullable=False),
        sa.Column("winners", sa.JSON, nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("game_id", sa.Text, sa.ForeignKey("games.game_id"), primary_key=True),
        sa.Column("player", sa.Text, primary_key=True),
        sa.Column("token", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for table in ("seats", "game_ends", "entries", "games"):
        op.drop_table(table)
