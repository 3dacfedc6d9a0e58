"""Montego Bay's game data: board tiles, ship deck and starting silver, from a JSON file.

The seed text gives none of these numbers (RULES.md), so they are data: bosun ships its own
defaults in data/default.json, and a table may bring its own file of the same shape.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bosun.games.base import describe_validation_error

DEFAULT_DATA = "default.json"
MAX_DATA_FILE_BYTES = 1_000_000
PLAYER_COUNTS = ("2", "3", "4")


class _Strict(BaseModel):
    """Data and layout pieces: strict types, and a misspelt field is an error, not ignored."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class RoomSpec(_Strict):
    """One room of a warehouse (MB1): 0-4 good barrels or 0-2 broken ones, and 0-1 silver."""

    barrels: int | None = Field(default=None, ge=0, le=4)
    broken: int | None = Field(default=None, ge=0, le=2)
    silver: int = Field(default=0, ge=0, le=1)

    @model_validator(mode="after")
    def _good_or_broken(self) -> RoomSpec:
        if self.barrels is not None and self.broken is not None:
            raise ValueError("a room holds good barrels or broken barrels, not both (MB1)")
        return self


class ShipSpec(_Strict):
    """A ship card (MB3): 3+ slots and points for the 1st, 2nd and 3rd largest cargo."""

    slots: int = Field(ge=3, le=20)
    points: list[Annotated[int, Field(ge=0, le=99)]] = Field(min_length=2, max_length=3)


class DeckShip(ShipSpec):
    """A ship card in a data file: `points` for 2-3 players, `points_4p` for 4, and copies."""

    points_4p: list[Annotated[int, Field(ge=0, le=99)]] | None = Field(
        default=None, min_length=2, max_length=3
    )
    copies: int = Field(default=1, ge=1, le=50)


class PlayerCountRules(_Strict):
    """What changes with the number of players: warehouses on the board, ships in the deck."""

    warehouses: int = Field(ge=3, le=50)
    ships: int = Field(ge=0, le=200)


class GameData(_Strict):
    """A whole data file; see data/default.json for bosun's defaults and why they are so."""

    # Free text for people (why the numbers are what they are); the engine ignores it.
    about: list[Annotated[str, Field(max_length=400)]] = Field(default=[], max_length=40)
    starting_silver: int = Field(default=1, ge=0, le=99)  # MB16
    by_players: dict[Literal["2", "3", "4"], PlayerCountRules]
    warehouse_tiles: list[Annotated[list[RoomSpec], Field(min_length=2, max_length=2)]] = Field(
        min_length=3, max_length=50
    )
    ships: list[DeckShip] = Field(max_length=100)

    @model_validator(mode="after")
    def _enough_for_every_player_count(self) -> GameData:
        missing = [n for n in PLAYER_COUNTS if n not in self.by_players]
        if missing:
            raise ValueError(f"by_players needs an entry for {', '.join(missing)} players")
        deck_size = sum(ship.copies for ship in self.ships)
        for n, rules in self.by_players.items():
            if rules.warehouses < int(n) + 1:
                raise ValueError(
                    f"{n} players need at least {int(n) + 1} warehouses, not {rules.warehouses}"
                )
            if rules.warehouses > len(self.warehouse_tiles):
                raise ValueError(
                    f"{n} players use {rules.warehouses} warehouses but only "
                    f"{len(self.warehouse_tiles)} tiles are given"
                )
            if rules.ships > deck_size:
                raise ValueError(
                    f"{n} players use {rules.ships} ships but the deck has only {deck_size}"
                )
        return self

    def deck_for(self, players: int) -> list[ShipSpec]:
        """Every ship card with the points that count for this many players, copies expanded."""
        deck = []
        for ship in self.ships:
            points = ship.points_4p if players == 4 and ship.points_4p else ship.points
            deck += [ShipSpec(slots=ship.slots, points=points)] * ship.copies
        return deck


class GameDataError(ValueError):
    """A data file that cannot be used; the message names the file and what is wrong."""


def load_game_data(path: str | Path) -> GameData:
    """Read and check a data file; raises GameDataError naming the problem."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_DATA_FILE_BYTES:
            raise GameDataError(f"{path}: larger than {MAX_DATA_FILE_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise GameDataError(f"{path}: cannot be read ({err})") from None
    return parse_game_data(text, str(path))


def parse_game_data(text: str, where: str = "data") -> GameData:
    """Check a data file's text; raises GameDataError naming the problem."""
    try:
        raw = json.loads(text)
    except ValueError as err:
        raise GameDataError(f"{where}: not valid JSON ({err})") from None
    try:
        return GameData.model_validate(raw)
    except ValidationError as err:
        raise GameDataError(f"{where}: {describe_validation_error(err)}") from None


@cache
def default_game_data() -> GameData:
    """bosun's defaults, shipped with the package (data/default.json)."""
    text = resources.files(__package__).joinpath("data", DEFAULT_DATA).read_text("utf-8")
    return parse_game_data(text, DEFAULT_DATA)
