"""Game logs as bosun stored them before a rules change, for the store migrations' tests."""

from __future__ import annotations

import json
from typing import Any

from bosun.games.match import Match, Rejection, replay

# A game stored before late falls (RR14) kept the open turn going: cy's turn opened, bob's
# rat toppled before she loaded anything, and the referee of the day made it cy's fall,
# ending her turn (the current rules give it to bob, and cy's turn goes on).
OLD_LATE_FALL = [
    {"type": "setup", "game": "riffraff", "players": ["ann", "bob", "cy"], "settle_s": 0},
    {"type": "card", "player": "ann", "value": 3},
    {"type": "card", "player": "bob", "value": 8},
    {"type": "card", "player": "cy", "value": 5},
    {"type": "load", "player": "bob", "zone": 8, "item": "rat"},
    {"type": "end_turn", "player": "bob"},
    {"type": "fall", "player": "cy", "fallen": ["rat"], "caught": []},
    {"type": "load", "player": "ann", "zone": 3, "item": "boat"},
    {"type": "end_turn", "player": "ann"},
]


def replayed(actions: list[dict]) -> tuple[dict[str, Any], list[Rejection]]:
    """The final public view of `actions` replayed, and the lines refused."""
    match = Match()
    refused = list(replay([json.dumps(a) for a in actions], match))
    return match.view(), refused
