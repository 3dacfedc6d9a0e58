"""Pure rules engines, one subpackage a game, all behind the `Game` protocol of base.py."""

from __future__ import annotations

from bosun.games.base import Game, Rejected
from bosun.games.montego_bay import MontegoBay
from bosun.games.riffraff import RiffRaff

GAMES: dict[str, Game] = {RiffRaff.name: RiffRaff(), MontegoBay.name: MontegoBay()}


def game_named(name: object) -> Game:
    """The engine for a setup's `game` field; raises Rejected for an unknown game."""
    if not isinstance(name, str) or name not in GAMES:
        raise Rejected(f"unknown game {name!r} (bosun referees: {', '.join(sorted(GAMES))})")
    return GAMES[name]


__all__ = ["GAMES", "Game", "Rejected", "game_named"]
