"""Detector events as text: one JSON object a line, byte-identical on MicroPython and CPython.

MicroPython's dicts keep no order and its float formatting is its own, so events are written
here rather than by `json.dumps`: `type`, `t_ms`, `decided_ms` first, then the other keys in
alphabetical order; floats with at most three decimals (a trace's 12.5 ms steps and
centigram weights survive exactly).
"""

FIRST_KEYS = ("type", "t_ms", "decided_ms")


def format_number(value: "bool | int | float") -> str:
    """JSON text for an int or float: ints as they are, floats rounded to 0.001."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value != value or value in (float("inf"), float("-inf")):
        return "null"  # JSON has no NaN; the detector never makes one, this is a last guard
    negative = value < 0
    thousandths = int((-value if negative else value) * 1000 + 0.5)
    whole = thousandths // 1000
    fraction = thousandths % 1000
    text = f"{whole}.0" if fraction == 0 else f"{whole}.{fraction:03d}".rstrip("0")
    if negative and thousandths:
        return "-" + text
    return text


def _string(text: str) -> str:
    out = ['"']
    for c in text:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif ord(c) < 32:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def to_json(value: object) -> str:
    """Canonical JSON text for event values (None, bool, numbers, str, lists, dicts)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (bool, int, float)):
        return format_number(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(_string(k) + ": " + to_json(value[k]) for k in sorted(value)) + "}"
    raise TypeError(f"cannot write {value!r} as JSON")


def event_json(event: dict) -> str:
    """One event as one line of JSON, keys in the canonical order."""
    parts = []
    for key in FIRST_KEYS:
        if key in event:
            parts.append(_string(key) + ": " + to_json(event[key]))
    for key in sorted(event):
        if key not in FIRST_KEYS:
            parts.append(_string(key) + ": " + to_json(event[key]))
    return "{" + ", ".join(parts) + "}"
