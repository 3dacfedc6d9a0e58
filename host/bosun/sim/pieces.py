"""The wooden pieces of one game set: each has its own weight and is somewhere at any time."""

from __future__ import annotations

import random
from dataclasses import dataclass

from shipsense.pieces import ITEMS

# Where a piece is. `supply`: in a player's hand or supply (off the table); `aboard`: on a
# zone (from `ready_us` on: released, or landed after a shift); `moving`: being loaded,
# leaving or in the air; `mat`: resting on the table mat until a hand collects it.
PLACES = ("supply", "aboard", "moving", "mat")


@dataclass
class Piece:
    """One physical piece: `id` like "barrel#2", its item type and its true weight."""

    id: str
    item: str
    grams: float
    where: str = "supply"
    zone: int | None = None
    ready_us: int = 0  # from then on it may be acted on (released, landed)

    @property
    def aboard(self) -> bool:
        return self.where == "aboard"


def make_pieces(
    item_grams: dict[str, float], per_item: int, scatter: float, seed: int | str
) -> list[Piece]:
    """The game set: `per_item` pieces of every item, weights scattered by `scatter` (rel. SD)."""
    rng = random.Random(f"{seed}/pieces")
    ordered = [item for item in ITEMS if item in item_grams]
    ordered += sorted(item for item in item_grams if item not in ITEMS)
    pieces = []
    for item in ordered:
        nominal = item_grams[item]
        for index in range(per_item):
            spread = max(-3.0, min(3.0, rng.gauss(0.0, 1.0))) * scatter
            pieces.append(Piece(f"{item}#{index + 1}", item, round(nominal * (1 + spread), 3)))
    return pieces


def calibrated_item_grams(pieces: list[Piece]) -> dict[str, float]:
    """What a calibration would measure: the mean weight of each item's pieces, to 0.01 g."""
    by_item: dict[str, list[float]] = {}
    for piece in pieces:
        by_item.setdefault(piece.item, []).append(piece.grams)
    return {item: round(sum(w) / len(w), 2) for item, w in by_item.items()}
