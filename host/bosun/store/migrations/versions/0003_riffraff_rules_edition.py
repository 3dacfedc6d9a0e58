"""Riff Raff games stored before late falls (RR14) kept the next turn going replay as decided.

Revision ID: 0003
Revises: 0002

What changed in the rules (issue 12). A fall after the next turn had opened, but before its
player loaded anything, used to go to that player and end their turn; it now goes to the
previous player and the open turn goes on (RR14), and what is caught in such a late fall is
boxed (a lone caught piece just loaded used to go back to the supply even after the turn,
RR12). A stored game was decided under the old reading: its setup action gets
`"rules_edition": 1`, under which the engine replays it to the result it had. Nothing else
in the log changes; games started after this revision play under the current reading.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

EDITION = "rules_edition"

games = sa.table("games", sa.column("game_id", sa.Text), sa.column("game", sa.Text))
entries = sa.table(
    "entries",
    sa.column("id", sa.BigInteger),
    sa.column("game_id", sa.Text),
    sa.column("kind", sa.Text),
    sa.column("payload", sa.JSON),
)


def _setups(conn: sa.Connection) -> list[tuple[int, dict]]:
    """(entry id, payload) of every stored Riff Raff game's first action, its setup."""
    first = (
        sa.select(sa.func.min(entries.c.id).label("id"))
        .select_from(entries.join(games, entries.c.game_id == games.c.game_id))
        .where(games.c.game == "riffraff", entries.c.kind == "action")
        .group_by(entries.c.game_id)
    )
    rows = conn.execute(sa.select(entries.c.id, entries.c.payload).where(entries.c.id.in_(first)))
    return [(entry_id, payload) for entry_id, payload in rows if _is_setup(payload)]


def _is_setup(payload: object) -> bool:
    return isinstance(payload, dict) and payload.get("type") == "setup"


def upgrade() -> None:
    conn = op.get_bind()
    for entry_id, payload in _setups(conn):
        if EDITION not in payload:
            changed = {**payload, EDITION: 1}
            conn.execute(sa.update(entries).where(entries.c.id == entry_id).values(payload=changed))


def downgrade() -> None:
    conn = op.get_bind()
    for entry_id, payload in _setups(conn):
        if payload.get(EDITION) == 1:
            changed = {k: v for k, v in payload.items() if k != EDITION}
            conn.execute(sa.update(entries).where(entries.c.id == entry_id).values(payload=changed))
