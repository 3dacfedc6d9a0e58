"""The store: every table's append-only log, its games and raw traces (SQLite or PostgreSQL).

Interface (all times are wall-clock ms given by the caller; nothing is updated or deleted):

    store = Store.open(url)           # sqlite:///bosun.db (or a bare path), postgresql://...
                                      # migrates to the newest schema; create=False: file must exist
    store.append(table_id, kind, payload, *, at_ms, game_id=None, boot=None, seq=None)
        -> entry id, or None when (table_id, boot, seq) is already stored (a resent event)
    store.append_many([{table_id, kind, payload, at_ms, game_id?, boot?, seq?}, ...])
        -> [id | None, ...]           # one transaction: all or nothing
    store.entries(table_id, *, game_id=None, kinds=None, after_id=0, limit=None) -> [Entry]
    store.last_seq(table_id, boot) -> int | None
    store.start_game(table_id, game, players, setup_action, seats, at_ms) -> game_id
        # seats {player: token} or None for random tokens; one running game a table
    store.finish_game(game_id, winners, at_ms)   # winners [] = abandoned; a "finish" entry too
    store.game(game_id) -> GameRow;  store.games(table_id=None, running=None) -> [GameRow]
    store.unfinished_games() -> [GameRow];  store.latest_game(table_id) -> GameRow | None
    store.seat_for_token(game_id, token) -> player | None    # constant-time
    store.seat_tokens(game_id) -> {player: token}            # operator only, never public
    store.undo_last_action(game_id, reason, by, at_ms) -> Entry   # kind "undo"
    store.game_actions(game_id) -> [action dict]  # the effective log: export, crash recovery
    store.append_trace(table_id, boot, rows, at_ms) -> rows stored
    store.append_traces([{table_id, boot, rows, at_ms}, ...]) -> rows stored (one commit)
    store.trace(table_id, from_t_ms, to_t_ms, boot=None) -> [[t_ms, z1..z10, table_g, impact]]
    store.last_trace(table_id) -> (boot, t_ms) | None
    store.trace_csv(table_id, game_id) -> DESIGN.md trace CSV text
    with store.reading(): ...  # this thread's reads inside share one connection
    store.close()   (or `with Store.open(url) as store:`)

Entry kinds used by the referee: ship_event, action, rejected, prompt, input, flag,
correction, undo, status, note; the store itself writes "action" (the setup), "undo" and
"finish". Any lower-case word is accepted. Payloads are JSON objects (at most 64 KiB).
Bad arguments raise InvalidEntry (a ValueError) and write nothing; unknown games raise
UnknownGame (a LookupError); database failures raise StoreError. All derive StoreError.
"""

from __future__ import annotations

import os

from bosun.store.records import (
    Entry,
    GameRow,
    InvalidEntry,
    NothingToUndo,
    StoreError,
    UnknownGame,
)
from bosun.store.store import Store, database_url, effective_actions

DEFAULT_DB_URL = "sqlite:///bosun.db"


def default_db_url() -> str:
    """Where bosun keeps its games unless told: $BOSUN_DB, else bosun.db in this folder."""
    return os.environ.get("BOSUN_DB") or DEFAULT_DB_URL


__all__ = [
    "DEFAULT_DB_URL",
    "Entry",
    "GameRow",
    "InvalidEntry",
    "NothingToUndo",
    "Store",
    "StoreError",
    "UnknownGame",
    "database_url",
    "default_db_url",
    "effective_actions",
]
