"""Bot players and table chance for simulations and demos; one module a game.

Each game's module offers `play_game(rng, players, policy) -> GameResult` and a `BotPolicy`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

SEAT_NAMES = ("ann", "bob", "cy", "dee")
SIMULATED_GAMES = {"riffraff": "bosun.bots.riffraff", "montego-bay": "bosun.bots.montego_bay"}


@dataclass
class GameResult:
    """What one simulated game came to; `stats` holds the game's own counters."""

    winners: list[str]
    winner_seats: list[int]
    rounds: int
    stats: dict[str, int]
    log: list[dict[str, Any]] = field(repr=False)


def bots_for(game: str):
    """The bots module of `game`."""
    return importlib.import_module(SIMULATED_GAMES[game])
