"""What a table referee decides, as data: the runtime stores, publishes and displays it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# kinds of effect
ACTION = "action"  # a game action the engine accepted (payload: the action)
REJECTED = "rejected"  # the referee's own action refused by the engine (payload: action, reason)
LED = "led"  # a command for the ship's LEDs (payload: the ship/cmd message body)
FEED = "feed"  # a line for people: what was decided and why (payload: level, text, rule)
FLAG = "flag"  # a decision the referee wants a person to confirm (payload: the flag)
FLAG_CLOSED = "flag_closed"  # a flag answered (payload: id, option, by)
UNDO = "undo"  # the last game action was taken back (payload: action, reason, by)


@dataclass(frozen=True)
class Effect:
    kind: str
    payload: dict[str, Any] = field(default_factory=dict)


def feed(text: str, level: str = "info", rule: str | None = None, **details: Any) -> Effect:
    payload: dict[str, Any] = {"level": level, "text": text}
    if rule:
        payload["rule"] = rule
    payload.update(details)
    return Effect(FEED, payload)
