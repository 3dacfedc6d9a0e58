"""Which pieces aboard a fall or a shift names (RR13a): by zone and kind, or a bare kind.

Pieces have no colour and a 2-player ship can hold four rats, so a piece is told apart by
where it lies. A fall names each piece as `{"item": "rat", "zone": 9}`; a bare `"rat"`, as
logs before zones were recorded have it, still means the most recently loaded rat aboard.
Pinned by DESIGN.md: zone-named pieces are resolved before bare kinds, and of two pieces of
one kind on one zone the newest is meant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bosun.games.base import Rejected, plural
from bosun.games.riffraff.state import ITEMS, ZONES, Piece, RiffRaffState

EXAMPLE = '{"item": "rat", "zone": 9}'


@dataclass(frozen=True)
class PieceRef:
    """One piece as an action names it; `zone` None for a bare kind."""

    item: str
    zone: int | None
    where: str  # its place in the action, e.g. "fallen[1]", for messages


def known_item(item: str, where: str = "") -> None:
    if item not in ITEMS:
        prefix = f"{where}: " if where else ""
        raise Rejected(f"{prefix}{item!r} is not a Riff Raff piece ({', '.join(ITEMS)}; RR2)")


def known_zone(zone: Any, where: str) -> int:
    if isinstance(zone, bool) or not isinstance(zone, int):
        raise Rejected(f"{where}: the zone must be a whole number 1-10, not {zone!r}")
    if zone not in ZONES:
        raise Rejected(f"{where}: there is no zone {zone}: the ship has zones 1-10 (RR1)")
    return zone


def piece_refs(values: Sequence[Any], field: str) -> list[PieceRef]:
    """The pieces of a fall's `fallen` or `caught` list, each checked; raises Rejected."""
    refs = []
    for index, value in enumerate(values):
        where = f"{field}[{index}]"
        if isinstance(value, str):
            known_item(value, where)
            refs.append(PieceRef(value, None, where))
        elif isinstance(value, Mapping):
            item = value.get("item")
            if not isinstance(item, str):
                raise Rejected(f"{where}: a piece names its kind as 'item', e.g. {EXAMPLE}")
            known_item(item, where)
            if "zone" not in value:
                raise Rejected(f"{where}: the piece needs the zone it left, e.g. {EXAMPLE}")
            refs.append(PieceRef(item, known_zone(value["zone"], where), where))
        else:
            raise Rejected(
                f"{where}: must be text (a kind) or a piece like {EXAMPLE}, not {value!r}"[:200]
            )
    return refs


def resolve(s: RiffRaffState, refs: Sequence[PieceRef]) -> list[tuple[int, Piece]]:
    """(zone, piece) aboard for each ref, in the refs' order; raises Rejected naming the first
    that names no piece (left over). Zone-named refs take their pieces before bare kinds."""
    taken: set[int] = set()
    found: dict[int, tuple[int, Piece]] = {}
    for index, ref in enumerate(refs):
        if ref.zone is not None:
            found[index] = _take_on_zone(s, ref, refs, taken)
    for index, ref in enumerate(refs):
        if ref.zone is None:
            found[index] = _take_newest(s, ref, refs, taken)
    return [found[index] for index in range(len(refs))]


def newest_on_zone(s: RiffRaffState, item: str, zone: int, taken: set[int]) -> Piece | None:
    """The most recently loaded `item` lying on `zone` and not yet `taken`."""
    pieces = [p for p in s.ship[zone] if p.item == item and p.id not in taken]
    return max(pieces, key=lambda p: p.id, default=None)


def describe_zone(s: RiffRaffState, zone: int) -> str:
    items = [p.item for p in s.ship[zone]]
    return f"zone {zone} holds {', '.join(items)}" if items else f"zone {zone} is empty"


def _take_on_zone(
    s: RiffRaffState, ref: PieceRef, refs: Sequence[PieceRef], taken: set[int]
) -> tuple[int, Piece]:
    piece = newest_on_zone(s, ref.item, ref.zone, taken)
    if piece is None:
        there = sum(1 for p in s.ship[ref.zone] if p.item == ref.item)
        if there == 0:
            raise Rejected(
                f"{ref.where}: no {ref.item} lies on zone {ref.zone} "
                f"({describe_zone(s, ref.zone)}; RR13a)"
            )
        named = sum(1 for r in refs if (r.item, r.zone) == (ref.item, ref.zone))
        raise Rejected(
            f"the action names {plural(named, ref.item)} on zone {ref.zone}, but only "
            f"{there} lie{'s' if there == 1 else ''} there (RR13a)"
        )
    taken.add(piece.id)
    return ref.zone, piece


def _take_newest(
    s: RiffRaffState, ref: PieceRef, refs: Sequence[PieceRef], taken: set[int]
) -> tuple[int, Piece]:
    candidates = [(z, p) for z, p in s.aboard() if p.item == ref.item and p.id not in taken]
    if not candidates:
        aboard = sum(1 for _, p in s.aboard() if p.item == ref.item)
        if aboard == 0:
            raise Rejected(f"no {ref.item} is aboard, so none can fall")
        named = sum(1 for r in refs if r.item == ref.item)
        raise Rejected(f"the fall names {named} × {ref.item} but only {aboard} are aboard")
    zone, piece = max(candidates, key=lambda zp: zp[1].id)
    taken.add(piece.id)
    return zone, piece
