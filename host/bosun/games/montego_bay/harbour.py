"""The harbour: docks, drawing ships, sailing and majority scoring (MB3, MB9, MB10, MB15b)."""

from __future__ import annotations

from typing import Any

from bosun.games.montego_bay.state import (
    LAST_SHIPS_TRIGGER,
    PILOT,
    MontegoBayState,
)


def scoring_places(players: int) -> int:
    """MB9: 1st and 2nd score, and 3rd with 3-4 players."""
    return 3 if players >= 3 else 2


def majority_scores(
    cargo: dict[str, int], points: tuple[int, ...], places: int, seats: list[str]
) -> dict[str, int]:
    """Points per player for one ship's cargo (MB9).

    Players with barrels aboard rank by barrels; tied players share the points of the places
    they take together, divided by their number and rounded up; places past `places` (or past
    the ship's points) are worth nothing.
    """
    worth = [points[i] if i < min(places, len(points)) else 0 for i in range(len(seats))]
    aboard = sorted((p for p in seats if cargo.get(p, 0) > 0), key=lambda p: -cargo[p])
    scores: dict[str, int] = {}
    place = 0
    while place < len(aboard):
        tied = [p for p in aboard[place:] if cargo[p] == cargo[aboard[place]]]
        shared = sum(worth[place : place + len(tied)])
        for player in tied:
            scores[player] = -(-shared // len(tied))  # ties rounded up (MB9)
        place += len(tied)
    return scores


def score(s: MontegoBayState, dock: int, why: str) -> dict[str, Any]:
    """The majority points of the ship at `dock` (MB9) go to the players; it stays put."""
    ship = s.docks[dock - 1]
    scores = majority_scores(ship.cargo, ship.points, scoring_places(len(s.players)), s.players)
    for player, gained in scores.items():
        s.points[player] += gained
    return {
        "kind": "score",
        "dock": dock,
        "why": why,
        "slots": ship.slots,
        "points": list(ship.points),
        "cargo": dict(ship.cargo),
        "scores": scores,
    }


def sail(s: MontegoBayState, dock: int, why: str) -> dict[str, Any]:
    """The ship at `dock` (1-4) is scored and leaves; its barrels go home (MB9, MB10)."""
    ship = s.docks[dock - 1]
    if ship == PILOT:
        s.docks[dock - 1] = None
        return {"kind": "sail", "dock": dock, "pilot": True, "why": why}
    event = score(s, dock, why)
    s.docks[dock - 1] = None
    for player, count in ship.cargo.items():
        s.barrels[player] += count
    return {**event, "kind": "sail"}


def pack_and_refill(s: MontegoBayState) -> None:
    """MB15b: ships behind an empty dock move up; new ships from the deck take the free docks.

    Empty docks are only ever left once the deck is empty (MB15c), so refilling every free
    dock is the same as drawing one ship per ship that sailed.
    """
    docked = [d for d in s.docks if d is not None]
    s.docks = docked + [None] * (len(s.docks) - len(docked))
    for i, at_dock in enumerate(s.docks):
        if at_dock is None and s.deck:
            ship = s.deck.pop(0)
            s.docks[i] = ship
            if ship.deck_index >= s.deck_size - LAST_SHIPS_TRIGGER:  # MB11, MB17
                s.drew_from_last_ships = True
