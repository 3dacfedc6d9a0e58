"""Riff Raff: a hand that held the piece it loaded still, and was weighed with it.

A player who holds a piece down still for a second is weighed with it: the ship places hand
and piece together (a bottle held down with 6 g weighs what a chest weighs), and the load is
named by that weight. When the hand comes off, the detector sends a `stay` naming the
piece's zone: what went was no cargo, and what rests there is the place's grams less the
stay's. The referee names the load again by that weight among the player's pieces (RR8) and
corrects the log; a close call is flagged for people, as any load is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bosun.games import Rejected
from bosun.games.riffraff import ITEMS
from bosun.referee import effects as fx
from bosun.referee.effects import Effect, feed
from shipsense.items import name_place

if TYPE_CHECKING:
    from bosun.referee.riffraff import RiffRaffTable

SHIP = "the ship"


@dataclass(frozen=True)
class FreshLoad:
    """The latest load the ship placed: where it stands in the game log, and its grams."""

    index: int
    action: dict[str, Any]
    grams: float


def lifted(table: RiffRaffTable, event: dict[str, Any], now_ms: int) -> list[Effect]:
    """A `stay` naming the zone of the latest load: the hand came off that piece. Its load
    is named again by what rests (nothing if it is the same kind, or the load has been
    undone or corrected since)."""
    fresh, table.fresh_load = table.fresh_load, None
    zone, grams = event.get("zone"), event.get("grams")
    if fresh is None or zone != fresh.action["zone"] or not isinstance(grams, (int, float)):
        return []
    log = table.match.log
    if fresh.index >= len(log) or log[fresh.index] != fresh.action:
        return []
    player, loaded = fresh.action["player"], fresh.action["item"]
    rests = fresh.grams - float(grams)
    supply = dict(table.view["players"][player]["items"])
    supply[loaded] += 1  # the load undone, its piece is back in the supply
    candidates = {item: table.item_grams[item] for item in ITEMS if supply[item] > 0}
    if not candidates or rests < 0.5 * min(candidates.values()):
        return []  # no piece's weight rests: no hand off a piece (the detector says so)
    item, ambiguous, others = name_place(rests, candidates)
    if item == loaded:
        return []
    reason = (
        f"{player}'s hand came off the piece it held down on zone {zone}: {rests:.1f} g rests "
        f"there, a {item}, not a {loaded} ({fresh.grams:.1f} g with the hand; RR8)"
    )
    try:
        out = table.rewrite(SHIP, fresh.index, {**fresh.action, "item": item}, reason, now_ms)
    except Rejected as why:
        return [feed(f"{reason}, but {why}", level="warning", rule="RR8")]
    for flag in list(table.flags.values()):  # a question about the old name is moot
        if flag.kind == "which_item" and flag.data.get("index") == fresh.index:
            del table.flags[flag.id]
            out.append(Effect(fx.FLAG_CLOSED, {"id": flag.id, "option": "reweighed", "by": SHIP}))
    if ambiguous:
        said = f"{player} loaded {rests:.1f} g once the hand came off: the referee says {item}"
        out.append(table.which_item(said, item, others, fresh.index))
    return out
