"""Statistics over past games, as each game's kit computes them (Riff Raff: falls by zone
and by item, win rates, turn times)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter

from bosun.games import registry
from bosun.web.history import GameArchive


def create_stats_api(archive: GameArchive) -> APIRouter:
    """Statistics replay every game: that runs in a worker thread, not on the event loop."""
    router = APIRouter()

    @router.get("/api/stats")
    async def statistics(table: str | None = None) -> dict[str, Any]:
        return await asyncio.to_thread(_statistics, archive, table)

    return router


def _statistics(archive: GameArchive, table: str | None) -> dict[str, Any]:
    """Every game with statistics adds its own figures (bosun's: Riff Raff's)."""
    rows = archive.rows(table, limit=None)
    result: dict[str, Any] = {"table": table}
    for kit in registry.kits():
        if kit.statistics is None:
            continue
        games = []
        for row in rows:
            if row.game != kit.name:
                continue
            replayed, _ = archive.replayed(row)
            winners = None if row.winners is None else list(row.winners)
            games.append((list(row.players), winners, replayed))
        result.update(kit.statistics(games))
    return result
