"""Riff Raff's actions as they appear in the game log (DESIGN.md "Game log")."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, TypeAdapter

from bosun.games.base import MAX_NAME_LEN, ActionModel

PlayerName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_LEN)]
# Item names are checked by the engine so that a misspelt piece gets a reason naming RR2.
ItemName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_LEN)]


class Setup(ActionModel):
    type: Literal["setup"]
    game: Literal["riffraff"]
    players: list[PlayerName] = Field(min_length=2, max_length=4)
    captain: PlayerName | None = None
    settle_s: int = 0
    own_catch: str = "back"  # RR12: "box" is the Korean text's stricter catch
    # Which reading of the rules a stored log was played under: 1 for games stored before
    # late falls (RR14) kept the open turn going (store migration 0003). Absent: the current.
    rules_edition: int = 2


class Card(ActionModel):
    type: Literal["card"]
    player: PlayerName
    value: int


class Captain(ActionModel):
    type: Literal["captain"]
    by: PlayerName
    player: PlayerName


class Next(ActionModel):
    type: Literal["next"]
    by: PlayerName
    player: PlayerName


class Announce(ActionModel):
    type: Literal["announce"]
    player: PlayerName
    pieces: int


class Load(ActionModel):
    type: Literal["load"]
    player: PlayerName
    zone: int
    item: ItemName


class Fall(ActionModel):
    type: Literal["fall"]
    player: PlayerName
    # Each piece is {"item": kind, "zone": z} (RR13a) or a bare kind; `pieces.piece_refs`
    # checks them one by one so that a wrong one is named with its place in the list.
    fallen: list[Any] = Field(default_factory=list, max_length=64)
    caught: list[Any] = Field(default_factory=list, max_length=64)


class Shift(ActionModel):
    type: Literal["shift"]
    item: ItemName
    from_zone: int = Field(alias="from")
    to_zone: int = Field(alias="to")


class EndTurn(ActionModel):
    type: Literal["end_turn"]
    player: PlayerName


ADAPTERS = {
    model.model_fields["type"].annotation.__args__[0]: TypeAdapter(model)
    for model in (Setup, Card, Captain, Next, Announce, Load, Fall, Shift, EndTurn)
}
