"""The calibration wizard's hands at a virtual table: a known weight or supply pieces set on a
zone of the simulated ship, and taken back."""

from __future__ import annotations

from typing import Any

HAND_RAMP_MS = 120.0  # the wizard's hand sets a weight down over this long


class HandLoad:
    """Something the calibration wizard's hand set on a zone: a weight or a game piece."""

    def __init__(self, what: str, grams: float, start_ms: float, piece: str | None = None):
        self.what = what
        self.grams = grams
        self.start_ms = start_ms
        self.piece = piece  # the supply pieces' ids while they lie on the zone

    def at(self, t_ms: float) -> float:
        if t_ms <= self.start_ms:
            return 0.0
        return self.grams * min(1.0, (t_ms - self.start_ms) / HAND_RAMP_MS)


class Hands:
    """What the hands put where (channel -> HandLoad), on a ship of `zones` zones (+ mat)."""

    def __init__(self, zones: int, has_mat: bool) -> None:
        self.zones = zones
        self.has_mat = has_mat
        self.loads: dict[int, HandLoad] = {}

    def channel(self, zone: Any) -> int:
        """The load cell channel of `zone` (1-zones or "mat"); ValueError if there is none."""
        if zone == "mat":
            if not self.has_mat:
                raise ValueError("there is no mat load cell at this table")
            return self.zones
        if not isinstance(zone, int) or isinstance(zone, bool) or not 1 <= zone <= self.zones:
            raise ValueError(f"zone {zone!r} does not exist (zones 1-{self.zones})")
        return zone - 1

    def _free(self, zone: Any) -> int:
        channel = self.channel(zone)
        if channel in self.loads:
            raise ValueError(f"zone {zone} already holds the {self.loads[channel].what}")
        return channel

    def put_weight(self, ship: Any, zone: Any, grams: float) -> None:
        channel = self._free(zone)
        if not 1 <= grams <= 5000:
            raise ValueError("a calibration weight is 1 to 5000 g")
        self.loads[channel] = HandLoad(f"{grams:g} g weight", grams, ship.now_ms)

    def put_piece(self, ship: Any, zone: Any, item: str, count: int = 1) -> None:
        channel = self._free(zone)
        pieces = ship.supply(item)
        if len(pieces) < count:
            raise ValueError(f"only {len(pieces)} {item} pieces are off the ship")
        chosen = pieces[:count]
        for piece in chosen:
            piece.where = "moving"  # in the wizard's hand, not in the supply
        self.loads[channel] = HandLoad(
            f"{count} {item}" if count > 1 else item,
            sum(p.grams for p in chosen),
            ship.now_ms,
            piece=",".join(p.id for p in chosen),
        )

    def take_off(self, ship: Any, zone: Any) -> None:
        load = self.loads.pop(self.channel(zone), None)
        if load is None:
            raise ValueError(f"nothing of the wizard's lies on zone {zone}")
        self._return_pieces(ship, load)

    def clear(self, ship: Any) -> None:
        for load in self.loads.values():
            self._return_pieces(ship, load)
        self.loads.clear()

    @staticmethod
    def _return_pieces(ship: Any, load: HandLoad) -> None:
        for piece_id in (load.piece or "").split(","):
            if piece_id:
                piece = ship.piece(piece_id)
                piece.where, piece.zone = "supply", None

    def describe(self) -> dict[str, str]:
        """{"3": "100 g weight", "mat": ...}."""
        return {
            ("mat" if channel == self.zones else str(channel + 1)): load.what
            for channel, load in sorted(self.loads.items())
        }
