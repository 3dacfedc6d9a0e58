"""Validation of what ships send: every field the referee reads is checked before it acts.

A message that fails gets a reason naming the field; it is logged and changes nothing.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bosun.games.base import describe_validation_error

MAX_PAYLOAD_BYTES = 64 * 1024
MAX_GRAMS = 5000.0  # far above anything a ship can hold; beyond it a reading is broken

Grams = Annotated[float, Field(ge=-MAX_GRAMS, le=MAX_GRAMS, allow_inf_nan=False)]
Zone = Annotated[int, Field(ge=1, le=10)]
TimeMs = Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False)]


class BadMessage(ValueError):
    """A message from the network the referee will not act on; the text says why."""


class _Event(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    type: Annotated[str, Field(min_length=1, max_length=32)]
    t_ms: TimeMs
    decided_ms: TimeMs | None = None
    boot: Annotated[str, Field(min_length=1, max_length=64)]
    seq: Annotated[int, Field(ge=0, le=2**53)]


class _Place(_Event):
    zone: Zone
    grams: Grams


ItemName = Annotated[str, Field(min_length=1, max_length=32)]


class _FallenPiece(BaseModel):
    """One piece of a fall, with the zone it left (the detector's `pieces`, RR13a)."""

    model_config = ConfigDict(extra="allow", strict=True)
    zone: Zone
    grams: Grams
    item: ItemName | None = None


class _Fall(_Event):
    grams: Grams
    zones: list[Zone] = Field(default_factory=list, max_length=10)
    pieces: list[_FallenPiece] | None = Field(default=None, max_length=8)


class _Shift(_Event):
    model_config = ConfigDict(populate_by_name=True, extra="allow", strict=True)
    from_zone: Zone = Field(alias="from")
    to_zone: Zone = Field(alias="to")
    grams: Grams
    item: ItemName | None = None


class _Land(_Event):
    grams: Grams | None = None


class _Leaving(_Event):
    grams: Grams
    zones: list[Zone] = Field(default_factory=list, max_length=10)


class _Status(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    online: bool


_BY_TYPE: dict[str, type[_Event]] = {
    "place": _Place,
    "fall": _Fall,
    "shift": _Shift,
    "land": _Land,
    "leaving": _Leaving,
}


def decode_json_object(payload: bytes, what: str) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise BadMessage(f"{what}: {len(payload)} bytes, more than {MAX_PAYLOAD_BYTES}")
    try:
        value = json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise BadMessage(f"{what}: not JSON ({err})") from None
    if not isinstance(value, dict):
        raise BadMessage(f"{what}: a JSON object is expected, not {type(value).__name__}")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def validate_event(message: dict[str, Any]) -> dict[str, Any]:
    """The event as the referee may use it, or BadMessage naming the broken field."""
    kind = message.get("type")
    model = _BY_TYPE.get(kind, _Event) if isinstance(kind, str) else _Event
    try:
        model.model_validate(message)
    except ValidationError as err:
        raise BadMessage(f"event {kind!r}: {describe_validation_error(err)}") from None
    return message


def validate_status(message: dict[str, Any]) -> dict[str, Any]:
    try:
        _Status.model_validate(message)
    except ValidationError as err:
        raise BadMessage(f"status: {describe_validation_error(err)}") from None
    return message
