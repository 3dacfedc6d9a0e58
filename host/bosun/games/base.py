"""The game framework: what every game engine offers the referee, the replayer and the bots.

An engine is pure: `apply(state, action)` returns a new state or raises `Rejected`; it never
mutates the state it was given, reads no clock, does no I/O and draws no random numbers
(randomness comes in through the actions, e.g. a seed in `setup`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

State = TypeVar("State")

MAX_NAME_LEN = 32


class Rejected(Exception):
    """An action the rules do not allow; the message is for the players."""


class ActionModel(BaseModel):
    """Base of every action schema: strict types, extra fields ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class Game(Protocol[State]):
    """What a game engine implements. Game-specific rules live in the engine, never here."""

    name: str

    def setup(self, action: Mapping[str, Any]) -> State:
        """Start a game from a `setup` action; raises Rejected."""

    def apply(self, state: State, action: Mapping[str, Any]) -> State:
        """The state after `action`; raises Rejected and leaves `state` untouched."""

    def legal_actions(self, state: State, player: str) -> list[dict[str, Any]]:
        """Every decision `player` may take now (physical events such as falls excluded)."""

    def view(self, state: State, viewer: str | None = None) -> dict[str, Any]:
        """The state as `viewer` may see it; `None` is the public view. The only way out."""

    def public_action(self, action: Mapping[str, Any]) -> dict[str, Any]:
        """An action as it may be published while the game goes on (secrets left out)."""

    def timeline_view(
        self, state: State, timeline: dict[str, Any], running: bool, viewer: str | None = None
    ) -> dict[str, Any]:
        """A game's timeline (rounds, turns, from the history's replay up to `state`) as
        `viewer` may see it: the game's one secret filter, beside `view`."""

    def players(self, state: State) -> list[str]:
        """Seats in setup order."""

    def is_over(self, state: State) -> bool: ...

    def winners(self, state: State) -> list[str]: ...


def plural(n: int, word: str) -> str:
    """'1 barrel', '2 barrels'."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class EngineBase:
    """What every turn-based engine shares: validate, refuse after the end, copy, dispatch.

    A subclass sets `name`, `actions` (action type -> pydantic TypeAdapter), `build_view`
    and `build_timeline` (its view module's secret filters), and handles each action type in
    `_apply_<type>(state, action)`, changing the copy it is given. Its state has `players`,
    `phase` ("over" at the end) and `winners`.
    """

    name: str
    actions: Mapping[str, TypeAdapter]

    @staticmethod
    def build_view(state: Any, viewer: str | None) -> dict[str, Any]:
        raise NotImplementedError

    @staticmethod
    def build_timeline(
        state: Any, timeline: dict[str, Any], running: bool, viewer: str | None
    ) -> dict[str, Any]:
        raise NotImplementedError

    def apply(self, state: Any, action: Mapping[str, Any]) -> Any:
        a = parse_action(self.actions, action)
        if a.type == "setup":
            raise Rejected("the game is already set up")
        if state.phase == "over":
            raise Rejected(f"the game is over: {' and '.join(state.winners)} won")
        new = copy.deepcopy(state)
        getattr(self, f"_apply_{a.type}")(new, a)
        return new

    # Action type -> the fields that stay secret in what is published (the cards chosen).
    secret_fields: Mapping[str, tuple[str, ...]] = {}

    def public_action(self, action: Mapping[str, Any]) -> dict[str, Any]:
        """`action` as anyone may see it go by: a chosen card says who, not which."""
        hidden = self.secret_fields.get(action.get("type"), ())
        return {key: value for key, value in action.items() if key not in hidden}

    def parse_setup(self, action: Any) -> Any:
        return parse_action({"setup": self.actions["setup"]}, action)

    def view(self, state: Any, viewer: str | None = None) -> dict[str, Any]:
        return self.build_view(state, viewer)

    def timeline_view(
        self, state: Any, timeline: dict[str, Any], running: bool, viewer: str | None = None
    ) -> dict[str, Any]:
        return self.build_timeline(state, timeline, running, viewer)

    def players(self, state: Any) -> list[str]:
        return list(state.players)

    def is_over(self, state: Any) -> bool:
        return state.phase == "over"

    def winners(self, state: Any) -> list[str]:
        return list(state.winners)

    def _seat(self, state: Any, name: str) -> None:
        if name not in state.players:
            raise Rejected(f"{name!r} is not playing (players: {', '.join(state.players)})")


def describe_validation_error(err: ValidationError) -> str:
    """One readable sentence per broken field, e.g. "value: must be a whole number"."""
    parts = []
    for problem in err.errors():
        where = _field_path(problem["loc"])
        kind = problem["type"]
        if kind == "missing":
            parts.append(f"{where}: missing")
        elif kind in ("int_type", "int_parsing"):
            parts.append(f"{where}: must be a whole number, not {_shown(problem.get('input'))}")
        elif kind in ("string_type", "str_type"):
            parts.append(f"{where}: must be text, not {_shown(problem.get('input'))}")
        elif kind == "list_type":
            parts.append(f"{where}: must be a list, not {_shown(problem.get('input'))}")
        elif kind == "dict_type":
            parts.append(f"{where}: must be an object, not {_shown(problem.get('input'))}")
        else:
            parts.append(f"{where}: {problem['msg'][0].lower()}{problem['msg'][1:]}")
    return "; ".join(parts)


def _field_path(loc: tuple) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "action"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_action(adapters: Mapping[str, TypeAdapter], action: Any) -> Any:
    """Validate a raw action against the schema of its `type`; raises Rejected."""
    if not isinstance(action, Mapping):
        raise Rejected(f"an action must be a JSON object, not {type(action).__name__}")
    kind = action.get("type")
    if not isinstance(kind, str):
        raise Rejected("the action has no 'type'")
    adapter = adapters.get(kind)
    if adapter is None:
        known = ", ".join(sorted(adapters))
        raise Rejected(f"unknown action type {_shown(kind)} (this game knows: {known})")
    try:
        return adapter.validate_python(action)
    except ValidationError as err:
        raise Rejected(f"{kind}: {describe_validation_error(err)}") from None
