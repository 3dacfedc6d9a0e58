"""The store's checks of its arguments: bad ones raise InvalidEntry and nothing is written."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from bosun.store.records import InvalidEntry

MAX_ID_CHARS = 64
MAX_TOKEN_CHARS = 256
MAX_REASON_CHARS = 500
MAX_PAYLOAD_CHARS = 65536
MAX_AT_MS = 253402300799999  # 9999-12-31: a wall clock beyond this is a bug
KIND_PATTERN = re.compile(r"^[a-z][a-z_]{0,31}$")
json_dumps = functools.partial(
    json.dumps, ensure_ascii=False, separators=(",", ":"), allow_nan=False
)


def text(value: object, what: str, max_chars: int = MAX_ID_CHARS) -> str:
    if not isinstance(value, str):
        raise InvalidEntry(f"{what} must be text, not {type(value).__name__}")
    if not value or len(value) > max_chars:
        raise InvalidEntry(f"{what} must be 1 to {max_chars} characters, not {len(value)}")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise InvalidEntry(f"{what} {value[:40]!r} contains control characters")
    return value


def whole(value: object, what: str, low: int = 0, high: int = 2**63 - 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidEntry(f"{what} must be a whole number, not {value!r}"[:200])
    if not low <= value <= high:
        raise InvalidEntry(f"{what} {value} is out of range ({low}..{high})")
    return value


def at_ms(value: object) -> int:
    return whole(value, "at_ms", 0, MAX_AT_MS)


def payload(value: object, what: str = "payload") -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidEntry(f"{what} must be a JSON object, not {type(value).__name__}")
    try:
        text = json_dumps(value)
    except (TypeError, ValueError, RecursionError) as err:
        raise InvalidEntry(f"{what} is not valid JSON: {err}") from None
    if len(text) > MAX_PAYLOAD_CHARS:
        raise InvalidEntry(f"{what} is {len(text)} characters as JSON; at most {MAX_PAYLOAD_CHARS}")
    return json.loads(text)  # a plain copy: later changes by the caller cannot reach the log


def names(value: object, what: str) -> list[str]:
    if not isinstance(value, list | tuple):
        raise InvalidEntry(f"{what} must be a list of names, not {type(value).__name__}")
    names = [text(name, f"{what}[{i}]") for i, name in enumerate(value)]
    if len(set(names)) != len(names):
        raise InvalidEntry(f"{what} names someone twice: {names}")
    return names
