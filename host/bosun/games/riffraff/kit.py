"""Riff Raff as bosun referees it: the kit the rest of bosun asks for (bosun.games.registry)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from bosun.games.registry import Calibration, GameKit, register
from bosun.games.riffraff.engine import RiffRaff
from bosun.games.riffraff.state import ITEMS, ZONES
from bosun.games.riffraff.statistics import compute_stats
from bosun.games.riffraff.timeline import RiffRaffTimeline
from bosun.referee.riffraff import RiffRaffTable
from shipsense.pieces import ITEM_GRAMS


class RiffRaffOptions(BaseModel):
    """A new game's choices; None keeps the table's (RR3: the oldest player is captain)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    captain: str | None = None
    settle_s: int | None = None  # RR14: 0 or 3, checked by the engine's setup


KIT = register(
    GameKit(
        name=RiffRaff.name,
        title="Riff Raff",
        engine=RiffRaff(),
        referee=RiffRaffTable,
        options=RiffRaffOptions,
        calibration=Calibration(zones=ZONES, items=ITEMS, nominal_g=ITEM_GRAMS, rule="RR2"),
        timeline=RiffRaffTimeline,
        statistics=compute_stats,
        simulation="bosun.bots.riffraff",
        virtual="bosun.demo.riffraff:RIFF_RAFF",
    )
)
