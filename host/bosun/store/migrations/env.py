"""Alembic's entry point: migrates the connection `Store.open` hands over, in its transaction."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("bosun's migrations run through bosun.store.Store.open(url)")

# render_as_batch: SQLite alters a table by copying it; alembic does that for us.
context.configure(connection=connection, target_metadata=None, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
