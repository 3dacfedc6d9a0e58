"""What the store hands out (Entry, GameRow) and the errors it raises."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class StoreError(Exception):
    """A store operation failed; the message says what and where, never a password."""


class InvalidEntry(StoreError, ValueError):
    """An argument was malformed or out of range; nothing was written."""


class UnknownGame(StoreError, LookupError):
    """No game has this id (or it is not on the table named)."""


class NothingToUndo(StoreError):
    """Undo was asked when only the setup is left, or the game is over."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a table's append-only log; `id` is its place in the order."""

    id: int
    table_id: str
    game_id: str | None
    kind: str
    payload: dict[str, Any]
    boot: str | None
    seq: int | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class GameRow:
    """A game as anyone may see it: no seat tokens here, ever (they live in `seats`)."""

    game_id: str
    table_id: str
    game: str
    players: tuple[str, ...]
    started_at_ms: int
    ended_at_ms: int | None = None
    winners: tuple[str, ...] | None = None

    @property
    def running(self) -> bool:
        return self.ended_at_ms is None

    def public(self) -> dict[str, Any]:
        """JSON-ready, for the dashboard and the HTTP API."""
        return {
            "game_id": self.game_id,
            "table": self.table_id,
            "game": self.game,
            "players": list(self.players),
            "started_at_ms": self.started_at_ms,
            "ended_at_ms": self.ended_at_ms,
            "winners": None if self.winners is None else list(self.winners),
            "running": self.running,
        }
