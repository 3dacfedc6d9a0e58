"""A match: one game's engine, its current state and the log of accepted actions.

The log is the source of truth: replaying it through a fresh Match gives the same state.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from bosun.games import Game, Rejected, game_named

MAX_LINE_CHARS = 65536


class Match:
    """Applies actions in order; a rejected action changes nothing and is not logged."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.state: Any = None
        self.log: list[dict[str, Any]] = []

    def submit(self, action: Any) -> None:
        if self.game is None:
            if not isinstance(action, Mapping) or action.get("type") != "setup":
                raise Rejected("no game is set up yet: the first action must be a setup")
            game = game_named(action.get("game"))
            state = game.setup(action)
            self.game = game
        else:
            state = self.game.apply(self.state, action)
        self.state = state
        self.log.append(dict(action))

    def view(self, viewer: str | None = None) -> dict[str, Any] | None:
        return None if self.game is None else self.game.view(self.state, viewer)

    @property
    def is_over(self) -> bool:
        return self.game is not None and self.game.is_over(self.state)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_log_line(line: str | bytes) -> Any:
    """One JSONL line as a Python value; raises Rejected for anything that is not JSON."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as err:
            raise Rejected(f"not UTF-8 text (byte {err.start})") from None
    if len(line) > MAX_LINE_CHARS:
        raise Rejected(f"line is {len(line)} characters long; at most {MAX_LINE_CHARS}")
    try:
        return json.loads(line, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as err:
        raise Rejected(f"not valid JSON ({err})") from None


@dataclass(frozen=True)
class Rejection:
    line: int
    reason: str


def replay(lines: Iterable[str | bytes], match: Match | None = None) -> Iterator[Rejection]:
    """Feed a game log to `match` line by line, yielding each rejected line (blanks skipped)."""
    match = match if match is not None else Match()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            match.submit(parse_log_line(line))
        except Rejected as err:
            yield Rejection(number, str(err))


def dump_log_line(action: Mapping[str, Any]) -> str:
    return json.dumps(action, ensure_ascii=False, separators=(",", ":"))
