"""Pieces striking the table or a zone: the landing's spike, the mat rocking on after it,
and the piezo (its sensitivity, and the table ringing on). A part of VirtualShip."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from bosun.sim.signals import DampedSine
from shipsense.geometry import ZONE_HEIGHT_M

if TYPE_CHECKING:
    from bosun.sim.ship import VirtualShip

TOP_YARD_HEIGHT_M = ZONE_HEIGHT_M[10]
KNOCK_STRENGTH = 3.0  # a knuckle's rap: the piezo's signal / its comparator's threshold (gain 1)


class ShipImpacts:
    """`_impact`: a piece striking the table or a zone, on the ship's own scheduling."""

    def _impact(
        self: VirtualShip, channel: int, t_us: int, grams: float, drop_m: float, to_table: bool
    ) -> int:
        """A piece hitting the mat (channel 10) or a zone: a ringing spike, maybe the piezo."""
        hands, rng = self.params.hands, self._rng
        speed_ratio = math.sqrt(max(drop_m, 0.0) / TOP_YARD_HEIGHT_M)
        peak = grams * rng.uniform(*hands.impact_factor) * speed_ratio
        tau = self._draw_us(hands.impact_decay_ms)
        if peak > 0.0:
            self._transients.append(
                DampedSine(channel, t_us, peak, rng.uniform(*hands.impact_hz), tau)
            )
        done = t_us + 6 * tau
        if to_table and hands.mat_ring_fraction[1] > 0.0:  # the mat rocks on (zoo only)
            ring = DampedSine(
                channel,
                t_us,
                grams * rng.uniform(*hands.mat_ring_fraction) * speed_ratio,
                rng.uniform(*hands.mat_ring_hz),
                self._draw_us(hands.mat_ring_decay_ms),
            )
            self._transients.append(ring)
            done = max(done, ring.t1_us)
        threshold_mj = self.params.sensors.piezo_threshold_mj
        energy_mj = grams * 9.81 * drop_m  # m g h, in millijoules for grams and metres
        if energy_mj >= threshold_mj and (
            to_table or rng.random() < self.params.sensors.piezo_ship_impact_probability
        ):
            self._piezo.hit(t_us, math.sqrt(energy_mj / threshold_mj) if threshold_mj else 1e3)
        return done
