"""Riff Raff: what the ship did not feel, as people report it: cargo that fell, a piece loaded.

The sensors miss a few moments outright: a piece caught as it toppled off at the let-go (to
every sensor, a hand taking its piece back), one that toppled off so fast at 10 SPS that the
load cells never showed it, or a light piece set down in the noise of a rough ship and never
placed (bench/README.md counts them). Sensors flag, a person confirms (RR10); here a person
tells, from any seat, and everyone sees it on the feed:
- a fall (`report_fall`): each piece by the zone it left and its kind (RR13a), reached the
  table or caught, and the piece the active player was loading if it toppled off before it
  came to rest. The referee decides it as a fall it felt: whose it is (RR14), what goes back
  and what is boxed (RR12, RR13), and whether the turn is over (RR11).
- a load (`report_load`): the open turn's piece rests on its zone and the ship never counted
  it: loaded as the ship's `place` would have loaded it (RR8), and the settle window runs. A
  hand felt on that zone with no piece placed says so on the feed (`touch_text`).
The charged player or the operator can undo either.

`{"type": "report_fall", "fallen": [{"item", "zone"}], "caught": [...], "toppled": {"item":
"rat", "fate": "fallen" | "caught"}}` (each part optional, one needed);
`{"type": "report_load", "item": "crate"}`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bosun.games import Rejected
from bosun.games.riffraff import ITEMS
from bosun.referee import effects as fx
from bosun.referee.effects import Effect, feed
from bosun.referee.riffraff_falls import corrected_pieces, describe_fall

if TYPE_CHECKING:
    from bosun.referee.riffraff import RiffRaffTable

REPORT_FALL = "report_fall"
REPORT_LOAD = "report_load"
REQUESTS = (REPORT_FALL, REPORT_LOAD)
FATES = ("fallen", "caught")


def report(table: RiffRaffTable, seat: str, request: dict[str, Any], now_ms: int) -> list[Effect]:
    """Apply `seat`'s report of what the ship did not feel; Rejected (nothing changed) with
    what is wrong."""
    if table.episode is not None or table.leaving_since_ms is not None:
        raise Rejected("the ship is feeling a fall right now: report once it is settled")
    if table.view["phase"] == "over":
        raise Rejected("the game is over: its result stands")
    if request.get("type") == REPORT_LOAD:
        return _report_load(table, seat, request, now_ms)
    return _report_fall(table, seat, request)


def _report_load(
    table: RiffRaffTable, seat: str, request: dict[str, Any], now_ms: int
) -> list[Effect]:
    """The open turn's piece rests on its zone, and the ship never placed it (RR8)."""
    if set(request) - {"type", "item"}:
        raise Rejected('a load is reported as {"type": "report_load", "item": kind}')
    item = request.get("item")
    if item not in ITEMS:
        raise Rejected(f"item must be one of {', '.join(ITEMS)}")
    view = table.view
    zone = loading_zone(view)
    if zone is None:
        raise Rejected("no piece is being loaded now")
    player = view["turn"]
    load = {"type": "load", "player": player, "zone": zone, "item": item}
    try:
        out = table.submit(load, by_player=True)
    except Rejected as why:
        raise Rejected(f"that does not fit the game: {why}") from None
    what = f"{seat} reports what the ship did not feel: {player} loaded a {item} on zone {zone}"
    out.append(feed(what, level="warning", rule="RR8"))
    after = table.view
    if after["turn"] == player and after["pieces_loaded"] >= (after["pieces_announced"] or 1):
        return out + table.start_settle(now_ms)
    return out + table.prompt(force=True, now_ms=now_ms)


def _report_fall(table: RiffRaffTable, seat: str, request: dict[str, Any]) -> list[Effect]:
    """Cargo that left the ship with no sensor telling (RR11-RR14)."""
    fallen = corrected_pieces(request, "fallen")
    caught = corrected_pieces(request, "caught")
    toppled = _toppled(request.get("toppled"))
    if not fallen and not caught and toppled is None:
        raise Rejected("name what fell: pieces aboard (fallen or caught), or the piece toppled")
    view = table.view
    actions: list[dict[str, Any]] = []
    if toppled is not None:
        zone = loading_zone(view)
        if zone is None:
            raise Rejected("no piece is being loaded now: name the pieces aboard that fell")
        item, fate = toppled
        player = view["turn"]
        actions.append({"type": "load", "player": player, "zone": zone, "item": item})
        (fallen if fate == "fallen" else caught).append({"item": item, "zone": zone})
        charged, late = player, False
    else:
        charged, late = view["falls_to"], not view["fall_ends_turn"]
        if charged is None:
            raise Rejected("nothing has been loaded yet: no cargo can have fallen")
    fall = {"type": "fall", "player": charged, "fallen": fallen, "caught": caught}
    actions.append(fall)
    boxed_before = view["boxed"]
    out = apply_whole(table, actions, ends_turn=not late)
    after = table.view
    open_turn = after["turn"] if late else None
    said = describe_fall(fall, after["boxed"] - boxed_before, late, open_turn)
    what = f"{seat} reports what the ship did not feel: {said}"
    if toppled is not None:
        what += f" ({charged}'s {toppled[0]} toppled off as it was let go)"
    out.append(feed(what, level="warning", rule="RR14" if late else "RR11"))
    return out + table.after_turn_change()


def apply_whole(table: RiffRaffTable, actions: list[dict], ends_turn: bool) -> list[Effect]:
    """Apply people's `actions` (a load and its fall, or a fall) all or none: Rejected, the
    game as it was, if one does not fit. A fall that ends the turn stops its settle window
    (RR11). Their ACTION effects."""
    try:  # a replay that fails leaves the game as it was
        table.replay([*table.match.log, *actions])
    except Rejected as why:
        raise Rejected(f"that does not fit the game: {why}") from None
    if ends_turn:
        table.settle_deadline_ms = None
    return [Effect(fx.ACTION, action) for action in actions]


def loading_zone(view: dict[str, Any]) -> int | None:
    """The open turn's zone while its player still has a piece to load there, else None."""
    if view["phase"] != "turn" or view["pieces_loaded"] >= (view["pieces_announced"] or 1):
        return None
    return view["target_zone"]


def touch_text(table: RiffRaffTable, event: dict[str, Any]) -> str:
    """The feed's line for a plain `touch`. On the open turn's zone while its piece is still
    to load it may be that piece, set down too lightly for the ship to feel it come to rest:
    the line points people to the report."""
    view = table.view
    zone = loading_zone(view)
    if zone is None or event.get("zones") != [zone]:
        return "a hand touched the ship (RR10: pieces aboard may not be touched)"
    return (
        f"a hand touched the ship on zone {zone}, and no piece came to rest there: if "
        f"{view['turn']}'s piece rests there, the ship missed it; report it from a player's "
        "page (RR10)"
    )


def _toppled(value: Any) -> tuple[str, str] | None:
    """(item, fate) of the report's `toppled` part, None when absent; Rejected if malformed."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"item", "fate"}:
        raise Rejected('toppled must be {"item": kind, "fate": "fallen" or "caught"}')
    item, fate = value.get("item"), value.get("fate", "fallen")
    if item not in ITEMS:
        raise Rejected(f"toppled.item must be one of {', '.join(ITEMS)}")
    if fate not in FATES:
        raise Rejected('toppled.fate must be "fallen" or "caught"')
    return item, fate
