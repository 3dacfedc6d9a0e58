"""The games bosun referees: each is a kit, registered once, that the rest of the code asks for.

A kit (`GameKit`) brings together what one game needs beyond its pure engine: the table
referee, the options a new game takes, what its calibration wizard measures, the timeline of
a past game, statistics, bots for engine-only simulations and the demo's virtual table.
Nothing outside a game's own folder says `if game == ...`: it asks `kit(name)`.

bosun's own games are `BUILTIN`. Another package adds a game by naming a module (which calls
`register` when imported) or a `GameKit` in the `bosun.games` entry-point group:

    [project.entry-points."bosun.games"]
    coin = "coin_game.kit:KIT"

Kits are loaded on first use, so importing this module never imports a referee.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from pydantic import BaseModel, ValidationError

from bosun.games.base import Game, describe_validation_error

log = logging.getLogger(__name__)

BUILTIN = ("bosun.games.riffraff.kit", "bosun.games.montego_bay.kit")
ENTRY_POINT_GROUP = "bosun.games"


class UnknownGame(ValueError):
    """A game name no kit is registered under."""


@dataclass(frozen=True)
class Calibration:
    """What a game's calibration wizard measures: which load cells, which pieces."""

    zones: tuple[int, ...]  # the load cells the game uses
    items: tuple[str, ...]  # the pieces weighed, in the order the wizard asks for them
    nominal_g: Mapping[str, float]  # grams of each piece until the table weighs its own
    rule: str  # the rule that lists the pieces, for error messages ("RR2")
    board: str = "ship"  # what the load cells sit under, in people's words
    zone_word: str = "zone"  # what people call one of them

    def item_grams(self, calibrated: Mapping[str, float]) -> dict[str, float]:
        """Grams of each piece: the table's calibrated weights over the nominal ones."""
        return {item: float(calibrated.get(item, self.nominal_g[item])) for item in self.items}


@dataclass(frozen=True)
class GameKit:
    """One game as bosun referees it; registered once under `name` (the setup's `game`)."""

    name: str
    title: str  # for people: "Riff Raff"
    engine: Game
    referee: type  # its table referee (a bosun.referee.base.TableReferee)
    options: type[BaseModel]  # a new game's options; every field optional, None = default
    calibration: Calibration
    # A fresh recorder of a past game's turns, rounds and falls (web/history.py), if any.
    timeline: Callable[[], Any] | None = None
    # Statistics over past games (web/stats.py), if any: replayed games -> JSON object.
    statistics: Callable[[list], dict[str, Any]] | None = None
    simulation: str | None = None  # module of its engine-only bots (`bosun simulate`)
    virtual: str | None = None  # "module:name" of its virtual table kind (`bosun run --demo`)

    def new_game_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """A new game's options from what a person sent (None: the default); ValueError
        naming what is wrong."""
        chosen = {name: value for name, value in given.items() if value is not None}
        known = list(self.options.model_fields)
        unknown = sorted(set(chosen) - set(known))
        if unknown:
            takes = " and ".join([", ".join(known[:-1]), known[-1]] if len(known) > 1 else known)
            takes = takes or "no options"
            raise ValueError(f"{self.title} has no {', '.join(unknown)}: a new game takes {takes}")
        try:
            return self.options.model_validate(chosen).model_dump()
        except ValidationError as err:
            raise ValueError(describe_validation_error(err)) from None


_kits: dict[str, GameKit] = {}
_loaded = False


def register(kit: GameKit) -> GameKit:
    """Add `kit` under its name (again the same kit: no change); returns it."""
    held = _kits.get(kit.name)
    if held is not None and held is not kit:
        raise ValueError(f"a game named {kit.name!r} is already registered")
    _kits[kit.name] = kit
    return kit


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUILTIN:
        importlib.import_module(module)
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = point.load()
        except Exception:  # a broken plug-in must not stop bosun's own games
            log.exception("the game %r (%s) could not be loaded", point.name, point.value)
            continue
        if isinstance(loaded, GameKit):
            register(loaded)


def kits() -> list[GameKit]:
    """Every registered game, bosun's own first."""
    _load()
    return list(_kits.values())


def names() -> list[str]:
    return [k.name for k in kits()]


def kit(name: object) -> GameKit:
    """The kit of game `name`; UnknownGame naming the games there are."""
    _load()
    found = _kits.get(name) if isinstance(name, str) else None
    if found is None:
        raise UnknownGame(f"unknown game {name!r} (bosun referees: {', '.join(sorted(_kits))})")
    return found


def default_game() -> str:
    """The game a table plays when its configuration does not say."""
    return kits()[0].name


def titles() -> dict[str, str]:
    """Each game's title for people, by name."""
    return {k.name: k.title for k in kits()}
