"""A finished game step by step: the public state after every action that changed the board.

Any game's page can step through a finished game on its board from these: its effective log
replayed through its own engine, a step kept whenever what the board shows changed (a pass,
or a card while others still choose, moves nothing). Only once the game is over: a running
game's log holds cards nobody may see yet (RR4, MB6).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter

from bosun.games.match import Match
from bosun.web.context import ApiError
from bosun.web.history import GameArchive

# What a step is about: a change of any of these in the public state (other keys, such as
# who has chosen a card yet, move nothing on the board).
IGNORED = {"events", "phase", "pending", "chosen", "hires", "cards", "falls_to"}
MAX_STEPS = 2000


def _board(view: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in view.items() if key not in IGNORED}


def game_steps(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The effective log (setup first) as steps: {"action", "state", "events"} where
    `events` are the state's events new since the step before."""
    match = Match()
    match.submit(actions[0])
    game = match.game
    steps: list[dict[str, Any]] = []
    shown = _board(match.view())
    seen_events: list = []
    for action in actions[1:]:
        match.submit(action)
        view = match.view()
        events = view.get("events") or []
        board = _board(view)
        if board == shown and not view.get("winners"):
            continue
        new = events[len(seen_events) :] if events[: len(seen_events)] == seen_events else events
        seen_events, shown = list(events), board
        steps.append({"action": game.public_action(action), "state": view, "events": new})
        if len(steps) >= MAX_STEPS:
            break
    return steps


def create_steps_api(archive: GameArchive) -> APIRouter:
    router = APIRouter()

    @router.get("/api/games/{game_id}/steps")
    async def steps(game_id: str) -> dict[str, Any]:
        """A finished game's steps, to go through on its board."""

        def build() -> dict[str, Any]:
            row = archive.row(game_id)
            if row.running:
                raise ApiError(409, "the game is still running: step through it once it is over")
            replayed, _ = archive.replayed(row)
            log = replayed.match.log if replayed.match is not None else []
            return {"game": replayed.game, "steps": game_steps(log) if log else []}

        return await asyncio.to_thread(build)

    return router
