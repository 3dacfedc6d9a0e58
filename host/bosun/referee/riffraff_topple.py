"""Riff Raff: a piece that toppled off as it was let go, before it ever came to rest.

- Weighed as it fell: the ship sent no `place`, then a fall from the open turn's empty zone.
  The piece was the active player's: their load, then their fall (RR8, RR11), named by the
  weight that left (`fell_unrested`).
- Pressed, and weighed by no sensor: the ship felt hand and piece together, then nothing; the
  table (a piezo alone, or the mat it bounced off) felt only a strike, just when a piece
  toppling off would land. The detector sends that as a `touch` marked `toppled`. On the open
  turn's zone, before its pieces are all loaded, the referee asks people which piece it was,
  or whether nothing fell (RR10: sensors flag, a person confirms). Their answer is the
  piece's load and its fall: back to the supply, and the turn is over (RR8, RR11, RR13).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bosun.games import Rejected
from bosun.games.riffraff import ITEMS
from bosun.referee import effects as fx
from bosun.referee.base import Flag
from bosun.referee.effects import Effect, feed
from bosun.referee.riffraff_report import apply_whole, loading_zone
from shipsense.items import name_place

if TYPE_CHECKING:
    from bosun.referee.riffraff import RiffRaffTable
    from bosun.referee.riffraff_falls import FallEpisode

NOTHING = "nothing fell"


def fell_unrested(table: RiffRaffTable, episode: FallEpisode) -> list[Effect]:
    """A piece that fell from the open turn's zone as it was let go, before it ever came
    to rest (no `place`): the zone is empty in the game, so it was the active player's.
    It is their load, and then their fall (RR8, RR11), not the previous player's."""
    view = table.view
    target = view["target_zone"]
    if view["phase"] != "turn" or view["pieces_loaded"] or target not in episode.zones:
        return []
    if view["ship"][str(target)]:
        return []  # a piece the game has there may have toppled late (RR14)
    grams = [
        float(piece["grams"])
        for event in episode.events
        for piece in (event.get("pieces") or [])
        if isinstance(piece, dict)
        and piece.get("zone") == target
        and isinstance(piece.get("grams"), (int, float))
    ]
    if not grams and episode.zones == {target}:
        grams = [episode.left_g]
    supply = view["players"][view["turn"]]["items"]
    candidates = {item: table.item_grams[item] for item in ITEMS if supply[item] > 0}
    if not grams or not candidates:
        return []
    item, _, _ = name_place(grams[0], candidates)
    load = {"type": "load", "player": view["turn"], "zone": target, "item": item}
    out = table.submit(load)
    if any(e.kind == fx.ACTION for e in out):
        text = f"{view['turn']}'s {item} fell as it was let go, before it came to rest"
        out.append(feed(text, level="warning", rule="RR11"))
    return out


def ask(table: RiffRaffTable, event: dict[str, Any]) -> Effect | None:
    """The question for people, if `event` is a toppled touch on the open turn's zone while
    its player still has a piece to load: which of the player's kinds toppled off, or
    nothing; else None (a plain touch)."""
    if event.get("toppled") is not True:
        return None
    view = table.view
    zone = loading_zone(view)
    if zone is None or event.get("zones") != [zone]:
        return None
    player = view["turn"]
    supply = view["players"][player]["items"]
    grams = event.get("grams")
    pressed = ""
    if isinstance(grams, (int, float)) and not isinstance(grams, bool):
        pressed = f" ({float(grams):.1f} g with the hand)"
    text = (
        f"{player} pressed something onto zone {zone}{pressed} that was gone as it was let go, "
        "just as the table felt a piece land: did it topple off? Say which piece (back to "
        "their supply, and the turn is over: RR11, RR13), or that nothing fell."
    )
    kinds = [item for item in ITEMS if supply[item] > 0]
    data = {"player": player, "zone": zone, "round": view["round"], "loaded": view["pieces_loaded"]}
    return table.flag("toppled", text, [NOTHING, *kinds], data)


def answer(table: RiffRaffTable, flag: Flag, item: str, seat: str) -> list[Effect]:
    """`item` toppled off at `flag`'s moment and reached the table: it was loaded and fell.
    Only while the game is still at that moment; else Rejected (the flag stays open)."""
    data, view = flag.data, table.view
    player, zone = data["player"], data["zone"]
    if (
        view["phase"] != "turn"
        or view["turn"] != player
        or view["round"] != data["round"]
        or view["pieces_loaded"] != data["loaded"]
    ):
        raise Rejected(
            f"the game has moved on since {player} pressed that piece on: undo back to it first "
            "if it had toppled off"
        )
    if table.episode is not None:
        raise Rejected("a fall is being settled: answer once it is")
    load = {"type": "load", "player": player, "zone": zone, "item": item}
    fallen = [{"item": item, "zone": zone}]
    fall = {"type": "fall", "player": player, "fallen": fallen, "caught": []}
    out = apply_whole(table, [load, fall], ends_turn=True)  # RR11: the fall ends the turn
    text = (
        f"{seat} says {player}'s {item} toppled off zone {zone} as it was let go: back to their "
        "supply, the turn is over"
    )
    out.append(feed(text, rule="RR11"))
    return out + table.after_turn_change()
