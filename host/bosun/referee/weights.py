"""Naming pieces by weight: which item a placed piece is, which pieces fell, which landed.

The referee knows what the rules allow (the active player's supply, what is aboard), so it
names pieces among those candidates only, and says when two answers are too close to call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb

MAX_PIECES_IN_ONE_FALL = 5
MAX_GROUPS_SCORED = 20_000  # keeps naming a fall well under a millisecond or so


def tolerance_g(grams: float) -> float:
    """How far a reading may sit from a piece's weight and still be that piece."""
    return max(0.6, 0.06 * grams)


@dataclass(frozen=True)
class Naming:
    """The most likely answer, whether a close second exists, and the runners-up."""

    items: tuple[str, ...]
    error_g: float
    ambiguous: bool
    alternatives: tuple[tuple[str, ...], ...] = field(default=())


def name_piece(grams: float, candidates: dict[str, float]) -> Naming | None:
    """The item among `candidates` (name -> grams) closest to `grams`; None if none exist."""
    if not candidates:
        return None
    ranked = sorted(candidates, key=lambda item: (abs(candidates[item] - grams), item))
    best = ranked[0]
    error = abs(candidates[best] - grams)
    close = [i for i in ranked[1:] if abs(candidates[i] - grams) - error < tolerance_g(grams) / 2]
    return Naming(
        items=(best,),
        error_g=round(error, 3),
        ambiguous=bool(close) or error > tolerance_g(grams),
        alternatives=tuple((i,) for i in close),
    )


def name_group(
    grams: float, pieces: Sequence[str], weights: dict[str, float], allow_empty: bool = False
) -> Naming:
    """The sub-multiset of `pieces` whose weights best add up to `grams`.

    Ties go to fewer pieces, then to pieces listed later (the newest aboard).
    """
    indexed = list(enumerate(pieces))
    scored: list[tuple[float, int, tuple[int, ...]]] = []
    smallest = 0 if allow_empty else 1
    largest, groups = smallest, 1
    while largest < min(len(indexed), MAX_PIECES_IN_ONE_FALL):
        groups += comb(len(indexed), largest + 1)
        if groups > MAX_GROUPS_SCORED:
            break
        largest += 1
    for size in range(smallest, largest + 1):
        for combo in combinations(indexed, size):
            total = sum(weights[item] for _, item in combo)
            newest_first = tuple(sorted((-i for i, _ in combo)))
            scored.append((abs(total - grams), size, newest_first))
    scored.sort()
    if not scored:
        return Naming(items=(), error_g=round(grams, 3), ambiguous=True)
    best_error, _, best_key = scored[0]

    def items_of(key: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(sorted(pieces[-i] for i in key))

    best = items_of(best_key)
    close = []
    for error, _, key in scored[1:]:
        if error - best_error >= tolerance_g(grams) / 2:
            break
        if items_of(key) != best and items_of(key) not in close:
            close.append(items_of(key))
    return Naming(
        items=best,
        error_g=round(best_error, 3),
        ambiguous=bool(close) or best_error > tolerance_g(grams),
        alternatives=tuple(close[:3]),
    )
