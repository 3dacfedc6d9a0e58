"""Every chance in a game of Montego Bay, drawn from the setup's seed so a log replays alike.

Each kind of draw has its own stream, `random.Random("montego-bay/<seed>/<what>")`, so that
giving one part of the setup explicitly does not change what the seed draws for the others.
Shuffles are Fisher-Yates on `Random.random()`, whose sequence Python guarantees for a given
seed across versions (unlike `shuffle` and `sample`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

Item = TypeVar("Item")


def stream(seed: int, what: str) -> random.Random:
    return random.Random(f"montego-bay/{seed}/{what}")


def shuffled(rng: random.Random, items: Sequence[Item]) -> list[Item]:
    """A new list with `items` in a random order."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        out[i], out[j] = out[j], out[i]
    return out


def draw_warehouses(
    seed: int, tiles: Sequence[Sequence[Item]], count: int
) -> list[tuple[Item, Item]]:
    """MB1: `count` warehouse tiles in random order, west first, each laid either way round."""
    rng = stream(seed, "warehouses")
    drawn = shuffled(rng, tiles)[:count]
    laid = []
    for north, south in drawn:
        laid.append((south, north) if rng.random() < 0.5 else (north, south))
    return laid


def draw_deck(seed: int, cards: Sequence[Item], count: int) -> list[Item]:
    """MB3: the ship deck, shuffled; the first `count` cards are played."""
    return shuffled(stream(seed, "ships"), cards)[:count]


def draw_order(seed: int, tokens: Sequence[str]) -> list[str]:
    """MB4: the order tokens laid in a random row."""
    return shuffled(stream(seed, "order"), tokens)


def reshuffle_order(seed: int, round_number: int, tokens: Sequence[str]) -> list[str]:
    """MB11/MB17: the order tokens shuffled anew at the end of `round_number`."""
    return shuffled(stream(seed, f"order/round-{round_number}"), tokens)
