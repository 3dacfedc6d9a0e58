"""A zoo ship (bosun.sim.zoo) played from a script: the rows a detector is fed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bosun.sim import ShipParams, VirtualShip, scripted_session
from bosun.sim.zoo import FAMILIES

# A `wear` ship's cells without their wear: no settling after power-up, no zero steps, no
# drifting gain (a test adds the one effect it is about)
NO_WEAR: dict[str, Any] = {
    "power_up_settle_ms": 0.0,
    "zero_step_per_min": 0.0,
    "gain_drift": (0.0,) * 11,
}


def zoo_params(family: str, seed: int, rate: int, table: str, **sensors: Any) -> ShipParams:
    """A `family` ship whose pieces stay where they are put (no hops); `sensors` replace its
    drawn sensor effects (e.g. `zero_step_per_min=0.0`)."""
    params = ShipParams.draw(FAMILIES[family], seed, rate_sps=rate, table=table)
    if sensors:
        params = replace(params, sensors=replace(params.sensors, **sensors))
    return replace(params, hands=replace(params.hands, hop_count=(0, 0)))


def scripted_rows(ship: VirtualShip, script: list[dict], seconds: float) -> list[tuple]:
    """`script` played on `ship`: (t_ms, zones_g, table_g, impact) a sample, as fed."""
    return [
        (s.t_ms, list(s.zones_g), s.table_g, s.impact)
        for s in scripted_session(ship, script, seconds)
    ]
