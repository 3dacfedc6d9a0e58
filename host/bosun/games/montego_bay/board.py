"""The path round the warehouses (MB12) and how workers move and bump on it (MB7, MB15a).

Stops are indexed round the loop clockwise: 0..W-1 are N1..NW, W..2W-1 are SW..S1. A pub is
not a stop: it holds any number of workers, and a worker that left it never goes back.
"""

from __future__ import annotations

import re
from typing import Any

from bosun.games.montego_bay.state import EAST_PUB, WEST_PUB, Position

JACK = "jack"  # Lazy Jack's key among the movers

_STOP_LABEL = re.compile(r"([NS])([1-9][0-9]?)")


def stop_label(position: Position, warehouses: int) -> str:
    """ "N3", "S1", or the pub's name."""
    if isinstance(position, str):
        return position
    if position < warehouses:
        return f"N{position + 1}"
    return f"S{2 * warehouses - position}"


def parse_stop(label: str, warehouses: int) -> int | None:
    """The index of a stop label like "N3", or None if the board has no such stop."""
    found = _STOP_LABEL.fullmatch(label)
    if not found or not 1 <= int(found[2]) <= warehouses:
        return None
    number = int(found[2])
    return number - 1 if found[1] == "N" else 2 * warehouses - number


def opposite(stop: int, warehouses: int) -> int:
    """MB12: N<i> faces S<i> across warehouse i."""
    return 2 * warehouses - 1 - stop


def warehouse_of(stop: int, warehouses: int) -> tuple[int, str]:
    """(warehouse index 0..W-1, "north" or "south") of a stop."""
    if stop < warehouses:
        return stop, "north"
    return 2 * warehouses - 1 - stop, "south"


def resolution_order(warehouses: int) -> list[int]:
    """MB15: warehouse 1 to W, the north room before the south room."""
    order = []
    for i in range(warehouses):
        order += [i, opposite(i, warehouses)]
    return order


def landing_stop(start: Position, steps: int, warehouses: int) -> int:
    """Where `steps` clockwise from `start` ends; a pub is one step before its first stop."""
    loop = 2 * warehouses
    if start == WEST_PUB:  # MB12: one step before N1
        return (steps - 1) % loop
    if start == EAST_PUB:  # MB12: one step before SW
        return (warehouses + steps - 1) % loop
    return (start + steps) % loop


def move(positions: dict[str, Position], mover: str, steps: int, warehouses: int) -> dict[str, Any]:
    """Move one worker (or JACK) and settle any bump (MB7, MB15a); returns what happened.

    `positions` is changed in place. A stop is free when no one but the mover stands there,
    so the mover's old stop counts as free (MB15a) — except Lazy Jack's, where the worker he
    came with still stands (MB14).
    """
    loop = 2 * warehouses
    start = positions[mover]

    def standing_at(stop: int) -> list[str]:
        return [w for w, at in positions.items() if at == stop and w != mover]

    landing = landing_stop(start, steps, warehouses)
    event: dict[str, Any] = {
        "kind": "move",
        "worker": mover,
        "steps": steps,
        "from": stop_label(start, warehouses),
        "to": stop_label(landing, warehouses),
    }
    there = standing_at(landing)
    if not there:
        positions[mover] = landing
        return event
    (bumped,) = there  # after the first mover of a round every stop holds one worker at most
    across = opposite(landing, warehouses)
    if not standing_at(across):  # MB7: pushed to the opposite stop; it pushes no one (MB15a)
        positions[bumped] = across
        positions[mover] = landing
        event["bumped"] = {"worker": bumped, "to": stop_label(across, warehouses)}
        return event
    # MB7/MB15a: both rooms of that warehouse are taken, so the mover goes back
    # counter-clockwise to the nearest free stop, round the loop if need be.
    for back in range(1, loop):
        stop = (landing - back) % loop
        if not standing_at(stop):
            positions[mover] = stop
            event["to"] = stop_label(stop, warehouses)
            event["pushed_back_from"] = stop_label(landing, warehouses)
            return event
    raise AssertionError("no free stop: setup guarantees more stops than workers")
