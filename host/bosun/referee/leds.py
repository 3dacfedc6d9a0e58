"""LED commands for the ship (`ship/cmd`, see shipsense.protocol): what the players see lit."""

from __future__ import annotations

from typing import Any


def rgb(colour: str) -> list[int]:
    """'#e63946' -> [230, 57, 70]."""
    return [int(colour[i : i + 2], 16) for i in (1, 3, 5)]


def prompt(zone: int, colour: str) -> dict[str, Any]:
    """The active player's colour on the target zone."""
    return {"cmd": "led", "show": "prompt", "zone": zone, "color": rgb(colour)}


def countdown(zone: int, colour: str, seconds: float) -> dict[str, Any]:
    """The settle window (RR14) running down on the target zone."""
    return {
        "cmd": "led",
        "show": "countdown",
        "zone": zone,
        "color": rgb(colour),
        "seconds": seconds,
    }


def fall(colour: str | None = None) -> dict[str, Any]:
    """The whole ship flashes: cargo is falling. In a player's colour for a late fall (RR14):
    it is theirs, not the open turn's."""
    command: dict[str, Any] = {"cmd": "led", "show": "fall"}
    if colour is not None:
        command["color"] = rgb(colour)
    return command


def winner(colour: str) -> dict[str, Any]:
    return {"cmd": "led", "show": "winner", "color": rgb(colour)}


def off() -> dict[str, Any]:
    return {"cmd": "led", "show": "off"}


def error() -> dict[str, Any]:
    return {"cmd": "led", "show": "error"}
