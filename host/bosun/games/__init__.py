"""Pure rules engines, one subpackage a game, all behind the `Game` protocol of base.py; each
game is registered once as a kit (registry.py) that the rest of bosun asks for."""

from __future__ import annotations

from bosun.games.base import Game, Rejected


def game_named(name: object) -> Game:
    """The engine for a setup's `game` field; raises Rejected for an unknown game."""
    from bosun.games import registry  # kits import referees, which import this package

    try:
        return registry.kit(name).engine
    except registry.UnknownGame as why:
        raise Rejected(str(why)) from None


__all__ = ["Game", "Rejected", "game_named"]
