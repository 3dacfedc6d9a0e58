"""Small helpers that let Montego Bay scenario tests read like the rulebook."""

from __future__ import annotations

from typing import Any

from support.rules import refused  # noqa: F401 (the rules tests import it from here)

from bosun.games.match import Match

# Five warehouses, west to east: stops N1..N5 along the north side, S5..S1 back along the
# south side (MB12). A Big worker's card k from the west pub lands on N<k>; a Little
# worker's card k from the east pub lands on S5, S4, S3, S2, S1 for k = 1..5.
BOARD = [
    [{"barrels": 3}, {"broken": 1}],
    [{"barrels": 2, "silver": 1}, {"barrels": 1}],
    [{"barrels": 0, "silver": 1}, {"broken": 2}],
    [{"barrels": 4}, {"barrels": 2}],
    [{"barrels": 1}, {"barrels": 3, "silver": 1}],
]
# Big ships first, so that nothing fills by accident; twelve cards, so that the last six
# (MB17) are only reached from the fourth ship drawn after setup.
SHIPS = [
    {"slots": 6, "points": [6, 3, 1]},
    {"slots": 5, "points": [5, 3, 1]},
    {"slots": 4, "points": [4, 2, 1]},
    *[{"slots": 3, "points": [3, 2, 1]}] * 9,
]
ORDER = ["ann:big", "bob:big", "cy:big", "ann:little", "bob:little", "cy:little"]


def new_game(
    players: tuple[str, ...] = ("ann", "bob", "cy"),
    warehouses: list | None = None,
    ships: list | None = None,
    order: list[str] | None = None,
    **more: Any,
) -> Match:
    """An explicit setup (DESIGN.md): this board, these ships, this order."""
    if order is None:
        order = [t for t in ORDER if t.split(":")[0] in players]
    match = Match()
    match.submit(
        {
            "type": "setup",
            "game": "montego-bay",
            "players": list(players),
            "warehouses": BOARD if warehouses is None else warehouses,
            "ships": SHIPS if ships is None else ships,
            "order": order,
            **more,
        }
    )
    return match


def do(match: Match, kind: str, **fields: Any) -> dict[str, Any]:
    """Submit an action that must be accepted; return the public view after it."""
    match.submit({"type": kind, **fields})
    return match.view()


def hire(match: Match, **wanted: str | None) -> dict[str, Any]:
    """Every player declares for Lazy Jack (MB5); those not named pass."""
    for player in match.view()["players"]:
        do(match, "hire", player=player, worker=wanted.get(player))
    return match.view()


def cards(match: Match, **chosen: tuple[int, ...]) -> dict[str, Any]:
    """Each player's (big, little) or (big, little, jack) cards (MB6)."""
    for player, values in chosen.items():
        fields = dict(zip(("big", "little", "jack"), values, strict=False))
        do(match, "cards", player=player, **fields)
    return match.view()


def play_round(match: Match, hires: dict | None = None, **chosen: tuple[int, ...]) -> dict:
    hire(match, **(hires or {}))
    return cards(match, **chosen)


def load(match: Match, player: str, **per_dock: int) -> dict[str, Any]:
    """Answer a load question: load(game, "ann", d2=1, d3=2)."""
    return do(match, "load", player=player, ships={k[1:]: n for k, n in per_dock.items()})


def unload(match: Match, player: str, **per_dock: int) -> dict[str, Any]:
    return do(match, "unload", player=player, ships={k[1:]: n for k, n in per_dock.items()})


def answer_anyhow(match: Match) -> dict[str, Any]:
    """Answer every pending question with the first way the engine offers, until none is left."""
    while (pending := match.view()["pending"]) is not None:
        answer = match.game.legal_actions(match.state, pending["player"])[0]
        match.submit(answer)
    return match.view()


def cargo(view: dict[str, Any]) -> list[dict[str, int] | None]:
    """The cargo of each dock, None for an empty dock or the pilot boat."""
    return [d["cargo"] if d and "cargo" in d else None for d in view["docks"]]
