"""Pieces that move from one zone to another and stay aboard (RR13): knocked off a yard onto
a lower zone, or tipping over from one deck quarter into the next. A part of VirtualShip."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bosun.sim.pieces import Piece
from bosun.sim.truth import Shift
from shipsense.geometry import (
    BELOW,
    HULL_ZONES,
    NEIGHBOURS,
    YARD_ZONES,
    ZONE_HEIGHT_M,
    check_zone,
    drop_ms,
)

if TYPE_CHECKING:
    from bosun.sim.ship import VirtualShip

LAND_MS = 8.0  # a landed piece's weight comes on within this time


class ShipShifts:
    """`shift` and `deck_slide`, on the ship's own scheduling (its private helpers)."""

    def shift(
        self: VirtualShip,
        piece: Piece | str,
        to_zone: int | None = None,
        at_ms: float | None = None,
    ) -> Shift:
        """A piece is knocked off a yard and lands on a lower zone (default: one drawn)."""
        (moved,) = self._resolve_pieces([piece])
        from_zone = moved.zone
        if from_zone not in YARD_ZONES:
            raise ValueError(
                f"only pieces on a yard (zones 5-10) can drop onto another zone, "
                f"{moved.id} is on zone {from_zone}"
            )
        if to_zone is None:
            to_zone = self._rng.choice(BELOW[from_zone])
        elif check_zone(to_zone) not in BELOW[from_zone]:
            below = ", ".join(map(str, BELOW[from_zone]))
            raise ValueError(f"from zone {from_zone} a piece can drop onto {below}, not {to_zone}")
        t0 = self._start_us(at_ms)
        self._check_ready([moved], t0)
        hands, rng = self.params.hands, self._rng
        leave = t0 + self._draw_us(hands.slide_ms)
        self._leave_zone(moved, t0, leave)
        drop_m = ZONE_HEIGHT_M[from_zone] - ZONE_HEIGHT_M[to_zone]
        land = leave + round(drop_ms(drop_m) * rng.uniform(*hands.fall_slowdown) * 1000)
        # a hard landing rocks the ship
        return self._land_shift(moved, from_zone, to_zone, (t0, leave, land), drop_m, 2.0)

    def deck_slide(
        self: VirtualShip,
        piece: Piece | str,
        to_zone: int | None = None,
        at_ms: float | None = None,
    ) -> Shift:
        """A deck piece tips over into a neighbouring quarter: its zone loses part of its
        weight as it tips (`deck_unload_fraction`), stays part unloaded while it tumbles
        (`deck_tumble_ms`; all of it when it has a moment in the air), and the piece comes
        down on the other quarter (default: a neighbouring quarter drawn). A `shift` record."""
        (moved,) = self._resolve_pieces([piece])
        from_zone = moved.zone
        if from_zone not in HULL_ZONES:
            raise ValueError(f"only deck pieces (zones 1-4) slide, {moved.id} is on {from_zone}")
        beside = sorted(
            {b for a, b in NEIGHBOURS if a == from_zone and b in HULL_ZONES}
            | {a for a, b in NEIGHBOURS if b == from_zone and a in HULL_ZONES}
        )
        if to_zone is None:
            to_zone = self._rng.choice(beside)
        elif check_zone(to_zone) not in beside:
            raise ValueError(
                f"from deck zone {from_zone} a piece can slide onto "
                f"{', '.join(map(str, beside))}, not {to_zone}"
            )
        t0 = self._start_us(at_ms)
        self._check_ready([moved], t0)
        hands, rng = self.params.hands, self._rng
        leave = t0 + self._draw_us(hands.slide_ms)
        unload = rng.uniform(*hands.deck_unload_fraction)
        land = leave + self._draw_us(hands.deck_tumble_ms)
        channel = from_zone - 1
        self._add_ramp(channel, t0, leave, -unload * moved.grams)
        if unload < 1.0:  # the rest leaves as the piece rolls onto the other quarter
            self._add_ramp(channel, land - 5_000, land, -(1.0 - unload) * moved.grams)
        self._sway.impulse(leave, from_zone, -moved.grams)
        placement = self._placements.get(moved.id)
        if placement is not None and placement.left_us is None:
            placement.left_us = t0
        drop_m = 0.02 * unload  # it rolls over the edge: a small knock, more if it flew
        return self._land_shift(moved, from_zone, to_zone, (t0, leave, land), drop_m, 1.0)

    def _land_shift(
        self: VirtualShip,
        moved: Piece,
        from_zone: int,
        to_zone: int,
        times_us: tuple[int, int, int],
        drop_m: float,
        sway_per_g: float,
    ) -> Shift:
        """The moved piece comes down on `to_zone` at `land`: its weight, the knock, the
        sway; then the `shift` record (`times_us`: started, left its zone, landed)."""
        t0, leave, land = times_us
        self._add_ramp(to_zone - 1, land, land + round(LAND_MS * 1000), moved.grams)
        done = self._impact(to_zone - 1, land, moved.grams, drop_m, to_table=False)
        self._sway.impulse(land, to_zone, sway_per_g * moved.grams)
        moved.where, moved.zone, moved.ready_us = "aboard", to_zone, done
        record = Shift(
            t_us=leave,
            start_us=t0,
            land_us=land,
            from_zone=from_zone,
            to_zone=to_zone,
            item=moved.item,
            piece=moved.id,
            grams=moved.grams,
            done_us=done,
        )
        return self._record(record)
