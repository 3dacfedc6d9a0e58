"""Small helpers that let Riff Raff scenario tests read like the rulebook."""

from __future__ import annotations

from typing import Any

from support.rules import refused  # noqa: F401 (the rules tests import it from here)

from bosun.games.match import Match


def new_game(*players: str, captain: str | None = None, settle_s: int = 0) -> Match:
    players = players or ("ann", "bob", "cy")
    match = Match()
    match.submit(
        {
            "type": "setup",
            "game": "riffraff",
            "players": list(players),
            "captain": captain or players[0],
            "settle_s": settle_s,
        }
    )
    return match


def do(match: Match, kind: str, **fields: Any) -> dict[str, Any]:
    """Submit an action that must be accepted; return the public view after it."""
    match.submit({"type": kind, **fields})
    return match.view()


def cards(match: Match, **values: int) -> dict[str, Any]:
    for player, value in values.items():
        do(match, "card", player=player, value=value)
    return match.view()


def load(match: Match, player: str, item: str) -> dict[str, Any]:
    zone = match.view()["target_zone"]
    return do(match, "load", player=player, zone=zone, item=item)


def simple_turn(match: Match, player: str, item: str) -> dict[str, Any]:
    load(match, player, item)
    return do(match, "end_turn", player=player)
