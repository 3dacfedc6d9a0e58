"""What left the ship in one tumble, piece by piece: each named by the zone it left and its
kind (RR13a), then told reached-the-table from caught by what the table sensor felt (RR12).

The ship reports each fall with the zones that lost weight and, when its detector can tell
them apart, `pieces`: one {zone, grams, item?} per piece. A piece is named among the pieces
the game has on its zone; without `pieces`, the fallen weight is matched by pieces lying on
the zones that lost it. Pure functions: the table referee gives them the game's ship.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from bosun.games import Rejected
from bosun.games.riffraff.pieces import piece_refs
from shipsense.items import name_fall, name_place

# Below this the mat felt nothing worth naming (its noise is a few tenths of a gram).
MAT_FELT_G = 0.5
MAX_PIECES_REPORTED = 8  # a fall event's `pieces` beyond this are a broken message
MAX_CORRECTED_PIECES = 16  # in people's correction of a fall, beyond this: a broken request


@dataclass
class FallEpisode:
    """Everything that left the ship and reached the table in one tumble."""

    player: str | None
    started_ms: int
    deadline_ms: int
    late: bool = False  # RR14: it goes to the previous player; the open turn goes on
    left_g: float = 0.0
    zones: set[int] = field(default_factory=set)
    landed_g: float = 0.0
    impacts: int = 0  # land events heard
    bounces: int = 0  # land events that say a piece bounced off the mat
    struck: int | None = None  # pieces the piezo felt hit the table, when it reports them
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Piece:
    """One piece that left the ship, as the game log names it."""

    item: str
    zone: int | None  # None: the game has no such piece anywhere (the engine will say so)

    def named(self) -> dict[str, Any] | str:
        return self.item if self.zone is None else {"item": self.item, "zone": self.zone}


def name_pieces(
    episode: FallEpisode, ship: dict[str, list[str]], item_grams: dict[str, float]
) -> tuple[list[Piece], bool]:
    """(pieces, ambiguous): every piece that left the ship in `episode`, by zone and kind."""
    available = {int(zone): list(items) for zone, items in ship.items()}
    pieces: list[Piece] = []
    ambiguous = False
    for event in episode.events:
        reported = _reported_pieces(event)
        if reported:
            for zone, grams, hint in reported:
                piece, unsure = _name_one(zone, grams, hint, available, item_grams)
                pieces.append(piece)
                ambiguous |= unsure
        else:
            named, unsure = _name_by_zones(event, available, item_grams)
            pieces += named
            ambiguous |= unsure
    return pieces, ambiguous


def _reported_pieces(event: dict[str, Any]) -> list[tuple[int, float, str | None]]:
    """The event's `pieces` as (zone, grams, item or None); [] when absent or malformed."""
    raw = event.get("pieces")
    if not isinstance(raw, list) or not 0 < len(raw) <= MAX_PIECES_REPORTED:
        return []
    out = []
    for piece in raw:
        if not isinstance(piece, dict):
            return []
        zone, grams, item = piece.get("zone"), piece.get("grams"), piece.get("item")
        if isinstance(zone, bool) or not isinstance(zone, int) or not 1 <= zone <= 10:
            return []
        if isinstance(grams, bool) or not isinstance(grams, (int, float)) or grams != grams:
            return []
        out.append((zone, float(grams), item if isinstance(item, str) else None))
    return out


def _name_one(
    zone: int,
    grams: float,
    hint: str | None,
    available: dict[int, list[str]],
    item_grams: dict[str, float],
) -> tuple[Piece, bool]:
    """One reported piece: among the game's pieces on its zone, else wherever it may lie."""
    here = available.get(zone, [])
    if hint in here:
        here.remove(hint)
        return Piece(hint, zone), False
    if here:
        item, ambiguous, _ = name_place(grams, {k: item_grams[k] for k in set(here)})
        here.remove(item)
        return Piece(item, zone), ambiguous
    # The game has nothing left on that zone: its ship and the real one differ. Name it by
    # weight among the pieces aboard anywhere, and let people check.
    aboard = {k for items in available.values() for k in items}
    if not aboard:
        return Piece(hint or name_place(grams, item_grams)[0], None), True
    item = hint if hint in aboard else name_place(grams, {k: item_grams[k] for k in aboard})[0]
    where = min((z for z, items in available.items() if item in items), key=lambda z: abs(z - zone))
    available[where].remove(item)
    return Piece(item, where), True


def _name_by_zones(
    event: dict[str, Any], available: dict[int, list[str]], item_grams: dict[str, float]
) -> tuple[list[Piece], bool]:
    """The kinds whose weight fits the event's grams, among the pieces on its zones."""
    zones = [z for z in event.get("zones", []) if isinstance(z, int) and available.get(z)]
    chosen = zones or sorted(z for z, items in available.items() if items)
    counts = Counter(item for z in chosen for item in available[z])
    kinds, ambiguous, _ = name_fall(float(event.get("grams", 0.0)), item_grams, counts or None)
    pieces = []
    for item in kinds:
        where = next((z for z in chosen if item in available[z]), None)
        if where is None:  # a piece the game has nowhere on those zones
            where = next((z for z in sorted(available) if item in available[z]), None)
            ambiguous = True
        if where is not None:
            available[where].remove(item)
        pieces.append(Piece(item, where))
    return pieces, ambiguous


def split_landed(
    pieces: list[Piece], episode: FallEpisode, sensor: str, item_grams: dict[str, float]
) -> tuple[list[Piece], list[Piece], str]:
    """(fallen, caught, how): what reached the table versus what was caught (never landed),
    by what the table felt; `how` is "weighed", "heard" or "guessed"."""
    weight = {id(p): item_grams[p.item] for p in pieces}
    if sensor in ("mat", "both"):
        stayed: list[Piece] = []
        if episode.landed_g > MAT_FELT_G:
            stayed = _on_the_mat(pieces, episode.landed_g, item_grams)
        rest = [p for p in pieces if not any(p is s for s in stayed)]
        # Pieces that struck the table but are not on the mat bounced off it: the piezo
        # counts strikes, the mat only says "something bounced". Which of the rest bounced
        # is not known from weight: the heaviest first, and people confirm.
        bounced_count = episode.bounces
        if episode.struck is not None:
            bounced_count = max(bounced_count, episode.struck - len(stayed))
        rest.sort(key=lambda p: -weight[id(p)])
        bounced, caught = rest[:bounced_count], rest[bounced_count:]
        guessed = bool(bounced) and bool(caught)
        return stayed + bounced, caught, "guessed" if guessed else "weighed"
    if sensor == "piezo":
        if episode.impacts == 0:
            return [], list(pieces), "heard"
        if episode.impacts >= len(pieces):
            return list(pieces), [], "heard"
        heaviest = sorted(pieces, key=lambda p: -weight[id(p)])
        return heaviest[: episode.impacts], heaviest[episode.impacts :], "guessed"
    return list(pieces), [], "guessed"


def _on_the_mat(pieces: list[Piece], landed_g: float, item_grams: dict[str, float]) -> list[Piece]:
    """Which of the fallen pieces lie on the mat that felt `landed_g`. Only they can: when
    the mat's grams fit no set of them (a hand on the mat, a faulty cell), the set nearest
    to what it felt."""
    kinds = [p.item for p in pieces]
    stayed, _, _ = name_fall(landed_g, item_grams, aboard_counts=Counter(kinds))
    if Counter(stayed) - Counter(kinds):
        misses = {
            subset: abs(sum(item_grams[i] for i in subset) - landed_g)
            for size in range(len(kinds) + 1)
            for subset in combinations(sorted(kinds), size)
        }
        stayed = list(min(misses, key=misses.get))
    chosen: list[Piece] = []
    for item in stayed:  # of two pieces of one kind, either may be the one on the mat
        chosen.append(next(p for p in pieces if p.item == item and not _among(p, chosen)))
    return chosen


def _among(piece: Piece, pieces: list[Piece]) -> bool:
    return any(piece is p for p in pieces)


def fall_action(player: str, fallen: list[Piece], caught: list[Piece]) -> dict[str, Any]:
    """The game log's `fall`, pieces in a stable order (by kind, then zone)."""

    def order(p: Piece) -> tuple:
        return (p.item, p.zone or 0)

    return {
        "type": "fall",
        "player": player,
        "fallen": [p.named() for p in sorted(fallen, key=order)],
        "caught": [p.named() for p in sorted(caught, key=order)],
    }


def corrected_pieces(request: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """The pieces people list under `field` ("fallen" or "caught") when they correct a fall,
    each {item, zone} as the game log names it (RR13a); Rejected, naming what is wrong."""
    pieces = request.get(field, [])
    if not isinstance(pieces, list) or len(pieces) > MAX_CORRECTED_PIECES:
        raise Rejected(f"{field} must be a list of at most {MAX_CORRECTED_PIECES} pieces")
    refs = piece_refs(pieces, field)
    for ref in refs:
        if ref.zone is None:
            raise Rejected(f"{ref.where}: name the zone it left, e.g. {{item, zone}}")
    return [{"item": ref.item, "zone": ref.zone} for ref in refs]


def describe_pieces(pieces: list[Any]) -> str:
    """'rat (zone 9), barrel (zone 5)' for pieces as the game log names them."""
    return ", ".join(
        f"{p['item']} (zone {p['zone']})" if isinstance(p, dict) else str(p) for p in pieces
    )


def describe_fall(action: dict[str, Any], boxed: int, late: bool, open_turn: str | None) -> str:
    """A feed line for a fall action: who gets what, what went in the box, and for a late
    fall (RR14) whose turn goes on."""
    player = action["player"]
    parts = []
    if action["fallen"]:
        fallen = describe_pieces(action["fallen"])
        parts.append(f"{fallen} reached the table (to {player}'s supply)")
    if action["caught"]:
        caught = describe_pieces(action["caught"])
        back = len(action["caught"]) - boxed
        fate = "boxed" if not back else "back to the supply" if not boxed else f"{boxed} boxed"
        parts.append(f"{player} caught {caught} ({fate})")
    text = "; ".join(parts) or "nothing identified"
    if late:
        goes_on = f"; {open_turn}'s turn goes on" if open_turn else ""
        return f"late fall, after {player}'s turn (RR14): {text}{goes_on}"
    return text
