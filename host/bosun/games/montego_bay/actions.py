"""Montego Bay's actions as they appear in the game log (DESIGN.md "Game log")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, TypeAdapter

from bosun.games.base import MAX_NAME_LEN, ActionModel
from bosun.games.montego_bay.game_data import GameData, RoomSpec, ShipSpec

PlayerName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_LEN)]
# Worker kinds, tokens and dock numbers are checked by the engine, so that a misspelt one
# gets a reason naming the rule rather than a schema message.
Word = Annotated[str, StringConstraints(min_length=1, max_length=2 * MAX_NAME_LEN + 8)]

MAX_WAREHOUSES = 50
MAX_SHIPS = 200
MAX_SEED = 2**63


class Setup(ActionModel):
    type: Literal["setup"]
    game: Literal["montego-bay"]
    players: list[PlayerName] = Field(min_length=2, max_length=4)
    seed: int = Field(default=0, ge=0, le=MAX_SEED)
    # Each of these, when given, replaces what the seed would draw from the data file.
    warehouses: list[Annotated[list[RoomSpec], Field(min_length=2, max_length=2)]] | None = Field(
        default=None, max_length=MAX_WAREHOUSES
    )
    ships: list[ShipSpec] | None = Field(default=None, max_length=MAX_SHIPS)
    order: list[Word] | None = Field(default=None, max_length=8)
    silver: dict[PlayerName, Annotated[int, Field(ge=0, le=999)]] | None = Field(
        default=None, max_length=4
    )
    # A table's own data file, inline so that the log replays without the file (README).
    data: GameData | None = None


class Hire(ActionModel):
    type: Literal["hire"]
    player: PlayerName
    worker: Word | None


class Cards(ActionModel):
    type: Literal["cards"]
    player: PlayerName
    big: int
    little: int
    jack: int | None = None


DockCounts = Annotated[dict[Word, int], Field(max_length=8)]


class Load(ActionModel):
    type: Literal["load"]
    player: PlayerName
    ships: DockCounts


class Unload(ActionModel):
    type: Literal["unload"]
    player: PlayerName
    ships: DockCounts


ADAPTERS = {
    model.model_fields["type"].annotation.__args__[0]: TypeAdapter(model)
    for model in (Setup, Hire, Cards, Load, Unload)
}
