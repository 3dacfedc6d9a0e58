"""Bot players and table chance for simulations and demos; one module a game.

Each game's module offers `play_game(rng, players, policy) -> GameResult` and a `BotPolicy`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from bosun.games import registry

SEAT_NAMES = ("ann", "bob", "cy", "dee")


@dataclass
class GameResult:
    """What one simulated game came to; `stats` holds the game's own counters."""

    winners: list[str]
    winner_seats: list[int]
    rounds: int
    stats: dict[str, int]
    log: list[dict[str, Any]] = field(repr=False)


def simulated_games() -> list[str]:
    """The games with engine-only bots (their kit's `simulation`)."""
    return [kit.name for kit in registry.kits() if kit.simulation is not None]


def bots_for(game: str):
    """The bots module of `game`."""
    return importlib.import_module(registry.kit(game).simulation)
