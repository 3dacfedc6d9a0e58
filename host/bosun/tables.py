"""The tables file: every table a service referees, in one TOML file people can edit.

```toml
[[table]]
id = "t1"
game = "riffraff"
settle_s = 3
own_catch = "back"     # RR12: or "box", the Korean text's stricter catch
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#457b9d" }]

[table.items]          # grams per piece, from calibration (the wizard writes these)
rat = 2.6

[home_assistant]       # optional: MQTT discovery for Home Assistant (bosun.home_assistant)
enabled = true
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import tomlkit
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    ValidationError,
    model_validator,
)

from bosun.games import registry
from bosun.games.base import MAX_NAME_LEN, describe_validation_error
from bosun.home_assistant.settings import HomeAssistantSettings
from shipsense.protocol import TABLE_ID_PATTERN


def _known_game(name: str) -> str:
    return registry.kit(name).name  # UnknownGame (a ValueError) names the games there are


TableId = Annotated[str, StringConstraints(pattern=TABLE_ID_PATTERN)]
GameName = Annotated[str, AfterValidator(_known_game)]
Colour = Annotated[str, StringConstraints(pattern=r"^#[0-9a-fA-F]{6}$")]
PlayerName = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_NAME_LEN, pattern=r"^[^\x00-\x1f]+$")
]

# A piece's grams as calibrated: finite and above zero (a NaN or infinite weight names every
# piece wrongly, unflagged); no piece of these games comes near a kilogram.
MAX_ITEM_G = 1000.0
ItemGrams = Annotated[float, Field(strict=True, gt=0, le=MAX_ITEM_G, allow_inf_nan=False)]

# Distinct on a dark dashboard and on WS2812s; one a seat, in seat order.
SEAT_COLOURS = ("#e63946", "#2a9df4", "#f4d35e", "#7bd389")


class TableConfigError(ValueError):
    """The tables file is missing, unreadable or wrong; the message names the place."""


class Seat(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: PlayerName
    colour: Colour


class TableConfig(BaseModel):
    """One table: its id (the MQTT topic segment), game, seats and calibration."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: TableId
    game: GameName = Field(default_factory=registry.default_game)
    players: list[Seat] = Field(min_length=2, max_length=4)
    captain: PlayerName | None = None  # RR3: the oldest player; the first seat if not given
    settle_s: Literal[0, 3] = 0
    # RR12: a lone caught piece just loaded goes "back" to the supply, or to the "box" too
    own_catch: Literal["back", "box"] = "back"
    table_sensor: Literal["mat", "piezo", "both", "none"] = "mat"
    items: dict[str, ItemGrams] = Field(default_factory=dict)
    # true or false only: "yes", 1 or "false" (which would read as true) are refused
    demo: StrictBool = False  # a virtual ship with bot players
    trace: StrictBool = True  # ask the ship for its raw samples (dashboard plots, CSV export)
    # Seconds a seat may think before its bot decides for it (0: never; unset: never at a
    # real table, a minute for a person at a virtual one): bosun.referee.presence.
    decision_s: StrictInt | None = Field(default=None, ge=0, le=3600)

    @model_validator(mode="after")
    def _items_of_the_game(self) -> TableConfig:
        pieces = registry.kit(self.game).calibration.items
        for name in self.items:
            if name not in pieces:
                raise ValueError(
                    f"items.{name[:40]}: not a piece of {self.game} (its pieces: "
                    f"{', '.join(pieces)})"
                )
        return self

    @property
    def player_names(self) -> list[str]:
        return [seat.name for seat in self.players]

    def colour_of(self, player: str) -> str:
        return next(seat.colour for seat in self.players if seat.name == player)


class TablesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table: list[TableConfig] = Field(default_factory=list)
    home_assistant: HomeAssistantSettings = Field(default_factory=HomeAssistantSettings)


def default_seats(names: list[str]) -> list[Seat]:
    return [Seat(name=n, colour=SEAT_COLOURS[i % len(SEAT_COLOURS)]) for i, n in enumerate(names)]


def load_tables(path: Path) -> list[TableConfig]:
    """The tables of `path`; raises TableConfigError naming the file and the broken field."""
    return load_tables_file(path).table


def load_tables_file(path: Path) -> TablesFile:
    """All of `path` (its tables, its [home_assistant]); TableConfigError as load_tables."""
    try:
        document = tomlkit.parse(path.read_text(encoding="utf-8")).unwrap()
    except OSError as err:
        raise TableConfigError(f"{path}: cannot read ({err.strerror})") from None
    except (tomlkit.exceptions.ParseError, UnicodeDecodeError) as err:
        raise TableConfigError(f"{path}: not valid TOML ({err})") from None
    try:
        settings = TablesFile.model_validate(document)
    except ValidationError as err:
        raise TableConfigError(f"{path}: {describe_validation_error(err)}") from None
    tables = settings.table
    ids = [t.id for t in tables]
    if len(set(ids)) != len(ids):
        raise TableConfigError(f"{path}: two tables share an id")
    for t in tables:
        names = t.player_names
        if len(set(names)) != len(names):
            raise TableConfigError(f"{path}: table {t.id} has two players with the same name")
        if t.captain is not None and t.captain not in names:
            raise TableConfigError(f"{path}: table {t.id}: captain {t.captain!r} is not seated")
    return settings


def save_table_items(path: Path, table_id: str, items: dict[str, float]) -> None:
    """Write a table's calibrated item weights back into the file, keeping its comments."""
    document = tomlkit.parse(path.read_text(encoding="utf-8"))
    for table in document.get("table", []):
        if table.get("id") == table_id:
            table["items"] = {name: round(grams, 2) for name, grams in items.items()}
            break
    else:
        raise TableConfigError(f"{path}: no table {table_id!r}")
    path.write_text(tomlkit.dumps(document), encoding="utf-8")
