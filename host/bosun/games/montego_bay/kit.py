"""Montego Bay as bosun referees it: the kit the rest of bosun asks for (bosun.games.registry)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict

import bosun.bots.montego_bay  # noqa: F401  its stand-in (referee/presence.py), not imported on the loop
from bosun.games.montego_bay.actions import MAX_SEED
from bosun.games.montego_bay.engine import MontegoBay
from bosun.games.registry import Calibration, GameKit, register
from bosun.referee.montego_bay import MontegoBayTable
from bosun.referee.presence import DecisionSeconds
from shipsense.geometry import HARBOUR_DOCKS
from shipsense.pieces import BARREL_G, HARBOUR_ITEMS


def _seed(value: Any) -> Any:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED
    ):
        raise ValueError(f"seed must be a whole number from 0 to {MAX_SEED}")
    return value


class MontegoBayOptions(BaseModel):
    """A new game's choices: the seed that draws the board, the deck and the order."""

    model_config = ConfigDict(extra="forbid", strict=True)
    seed: Annotated[int | None, BeforeValidator(_seed)] = None  # None: drawn at random
    decision_s: DecisionSeconds = None  # the decision timer from this game on (0: off)


KIT = register(
    GameKit(
        name=MontegoBay.name,
        title="Montego Bay",
        engine=MontegoBay(),
        referee=MontegoBayTable,
        options=MontegoBayOptions,
        # The harbour: a load cell under each dock, barrels counted by weight (MB15).
        calibration=Calibration(
            zones=HARBOUR_DOCKS,
            items=HARBOUR_ITEMS,
            nominal_g={"barrel": BARREL_G},
            rule="MB2",
            board="harbour",
            zone_word="dock",
        ),
        simulation="bosun.bots.montego_bay",
        virtual="bosun.demo.harbour:HARBOUR",
    )
)
