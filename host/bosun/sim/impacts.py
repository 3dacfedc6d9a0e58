"""Pieces striking the table or a zone: the landing's spike, the mat rocking on after it,
the piezo (its sensitivity, and the table ringing on), and a landed piece hopping on the mat
before it rests (the `wear` family). A part of VirtualShip."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from bosun.sim.shifts import LAND_MS
from bosun.sim.signals import DampedSine
from shipsense.geometry import MAT_CHANNEL, ZONE_HEIGHT_M

if TYPE_CHECKING:
    from bosun.sim.ship import VirtualShip

TOP_YARD_HEIGHT_M = ZONE_HEIGHT_M[10]
HOP_CONTACT_MS = (5.0, 40.0)  # a hopping piece touches the mat this long between hops
HOP_LIFT_MS = 5.0  # its weight leaves the mat within this time as it springs up
KNOCK_STRENGTH = 3.0  # a knuckle's rap: the piezo's signal / its comparator's threshold (gain 1)


class ShipImpacts:
    """`_impact`: a piece striking the table or a zone, on the ship's own scheduling; `_hops`:
    a landed piece hopping on the mat."""

    def _hops(self: VirtualShip, grams: float, land_us: int) -> tuple[list[tuple[int, int]], int]:
        """A piece landed on the mat at `land_us` hops before it rests (`hop_count` times,
        each `hop_air_ms` in the air, lower each time): its weight leaves the mat and comes
        back, and each landing strikes the table again (a spike; the piezo if hard enough).
        (lift-off, landing) of each hop and when the last has rung out; drawn from the
        ship's own hop stream."""
        hands, rng = self.params.hands, self._hop_rng
        count = rng.randint(*hands.hop_count)
        airs_us = sorted(round(rng.uniform(*hands.hop_air_ms) * 1e3) for _ in range(count))
        hops = []
        done_us = land_us
        on_us = land_us + round(LAND_MS * 1e3)
        for air_us in reversed(airs_us):  # a bouncing piece hops lower each time
            off_us = on_us + round(rng.uniform(*HOP_CONTACT_MS) * 1e3)
            lift_us = round(HOP_LIFT_MS * 1e3)
            self._add_ramp(MAT_CHANNEL, off_us - lift_us, off_us, -grams)
            down_us = off_us + air_us
            self._add_ramp(MAT_CHANNEL, down_us, down_us + round(LAND_MS * 1e3), grams)
            # up and down again: h = g (t / 2)^2 / 2
            height_m = 9.81 * (air_us * 1e-6) ** 2 / 8.0
            speed_ratio = math.sqrt(height_m / TOP_YARD_HEIGHT_M)
            peak = grams * rng.uniform(*hands.impact_factor) * speed_ratio
            if peak > 0.0:
                tau = round(rng.uniform(*hands.impact_decay_ms) * 1e3)
                hz = rng.uniform(*hands.impact_hz)
                self._transients.append(DampedSine(MAT_CHANNEL, down_us, peak, hz, tau))
                done_us = max(done_us, down_us + 6 * tau)
            threshold_mj = self.params.sensors.piezo_threshold_mj
            energy_mj = grams * 9.81 * height_m
            if threshold_mj and energy_mj >= threshold_mj:
                self._piezo.hit(down_us, math.sqrt(energy_mj / threshold_mj))
            hops.append((off_us, down_us))
            on_us = down_us + round(LAND_MS * 1e3)
            done_us = max(done_us, on_us)
        return hops, done_us

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
