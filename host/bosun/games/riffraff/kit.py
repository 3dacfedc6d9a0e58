"""Riff Raff as bosun referees it: the kit the rest of bosun asks for (bosun.games.registry)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict

import bosun.bots.riffraff  # noqa: F401  its stand-in (referee/presence.py), not imported on the loop
from bosun.games.registry import Calibration, GameKit, register
from bosun.games.riffraff.engine import RiffRaff
from bosun.games.riffraff.state import ITEMS, ZONES
from bosun.games.riffraff.statistics import compute_stats
from bosun.games.riffraff.timeline import RiffRaffTimeline
from bosun.referee.presence import DecisionSeconds
from bosun.referee.riffraff import RiffRaffTable
from shipsense.pieces import ITEM_GRAMS


def _own_catch(value: object) -> object:
    if value is not None and value not in ("back", "box"):
        raise ValueError('own_catch must be "back" or "box" (RR12)')
    return value


class RiffRaffOptions(BaseModel):
    """A new game's choices; None keeps the table's (RR3: the oldest player is captain)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    captain: str | None = None
    settle_s: int | None = None  # RR14: 0 or 3, checked by the engine's setup
    own_catch: Annotated[str | None, BeforeValidator(_own_catch)] = None  # RR12
    decision_s: DecisionSeconds = None  # the decision timer from this game on (0: off)


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
