"""Raw sensor traces, packed a batch a row, for the dashboard plots and CSV export.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "trace_chunks",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("boot", sa.Text, nullable=False),
        sa.Column("first_t_ms", sa.Double, nullable=False),
        sa.Column("last_t_ms", sa.Double, nullable=False),
        sa.Column("row_count", sa.Integer, nullable=False),
        sa.Column("samples", sa.LargeBinary, nullable=False),
        sa.Column("at_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_trace_chunks_time", "trace_chunks", ["table_id", "boot", "first_t_ms"])
    op.create_index("ix_trace_chunks_at", "trace_chunks", ["table_id", "at_ms"])


def downgrade() -> None:
    op.drop_table("trace_chunks")
