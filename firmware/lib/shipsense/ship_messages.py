"""What ships send, checked: the host's half of the wire contract (shipsense.protocol).

Every `ship/event`, `ship/status`, `ship/weights`, `ship/trace` and `ship/result` the host
acts on passes these checks first (bus/ship_link.py); the serial bridge checks an event's
envelope before it acknowledges it. One set of limits, protocol.py's, for both sides. The
ESP32 builds these messages and never checks them, so this module is not on its heap; it
keeps to MicroPython's subset all the same (tests run it there).
"""

from shipsense.protocol import (
    MAX_CALIBRATION_GRAMS,
    MAX_ID_LENGTH,
    MAX_KEY_LENGTH,
    MAX_PAYLOAD_BYTES,
    MAX_SEQ,
    MAX_ZONES,
    TRACE,
    TRACE_COLUMNS,
    ProtocolError,
    check_boot,
    is_int,
    is_number,
)

MAX_TRACE_BYTES = 65536  # a `ship/trace` batch of raw samples may be longer than a message
MAX_EVENT_TYPE = 32
MAX_T_MS = 1.0e11  # ship milliseconds since boot: three and a half years; beyond, corrupt
MAX_EVENT_GRAMS = 5000.0  # far above anything a ship can hold; beyond it a reading is broken
MAX_EVENT_ZONES = 10  # RR1: the ship has ten zones (shipsense.geometry.ZONES counts them)
MAX_FALL_PIECES = 8  # a fall's `pieces`: more than any tumble brings down at once
MAX_ITEM_NAME = 32


def max_bytes(name: str) -> int:
    """The longest payload a message on topic `name` (like `ship/trace`) may have."""
    return MAX_TRACE_BYTES if name == TRACE else MAX_PAYLOAD_BYTES


def check_seq(seq: object, zero: bool = False) -> int:
    """`seq` if it is an event number (1..MAX_SEQ; with `zero`, a count of them from 0),
    else ProtocolError."""
    low = 0 if zero else 1
    if not is_int(seq) or not low <= seq <= MAX_SEQ:
        raise ProtocolError(f"seq must be an integer from {low}, not {seq!r}")
    return seq


def _ship_time(kind: str, msg: dict, name: str) -> None:
    value = msg[name]
    if not is_number(value) or not 0 <= value <= MAX_T_MS:
        raise ProtocolError(
            f"event {kind!r}: {name!r} must be ship milliseconds from 0 to 1e11, not {value!r}"
        )


def _event_zone(kind: str, msg: dict, name: str, label: "str | None" = None) -> None:
    value = msg.get(name)
    if not is_int(value) or not 1 <= value <= MAX_EVENT_ZONES:
        shown = "missing" if value is None else repr(value)
        raise ProtocolError(
            f"event {kind!r}: {label or name!r} must be a zone 1-{MAX_EVENT_ZONES}, not {shown}"
        )


def _event_grams(
    kind: str, msg: dict, name: str, required: bool = True, label: "str | None" = None
) -> None:
    if name not in msg and not required:
        return
    value = msg.get(name)
    if value is None and not required:
        return
    if not is_number(value) or not -MAX_EVENT_GRAMS <= value <= MAX_EVENT_GRAMS:
        raise ProtocolError(
            f"event {kind!r}: {label or name!r} must be grams from -{MAX_EVENT_GRAMS:g} to"
            f" {MAX_EVENT_GRAMS:g}, not {value!r}"
        )


def _event_zones(kind: str, msg: dict, name: str) -> None:
    if name not in msg:
        return
    zones = msg[name]
    if not isinstance(zones, list) or len(zones) > MAX_EVENT_ZONES:
        raise ProtocolError(
            f"event {kind!r}: {name!r} must be a list of at most {MAX_EVENT_ZONES} zones"
        )
    for zone in zones:
        if not is_int(zone) or not 1 <= zone <= MAX_EVENT_ZONES:
            raise ProtocolError(
                f"event {kind!r}: {name!r} holds {zone!r}, not a zone 1-{MAX_EVENT_ZONES}"
            )


def _event_item(kind: str, msg: dict, name: str, label: "str | None" = None) -> None:
    if msg.get(name) is None:
        return
    value = msg[name]
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_ITEM_NAME:
        raise ProtocolError(
            f"event {kind!r}: {label or name!r} must be an item name of 1-{MAX_ITEM_NAME}"
            " characters"
        )


def _event_pieces(kind: str, msg: dict, name: str) -> None:
    """A fall's `pieces`: one {zone, grams, item?} a piece, naming the zone it left (RR13a)."""
    if msg.get(name) is None:
        return
    pieces = msg[name]
    if not isinstance(pieces, list) or len(pieces) > MAX_FALL_PIECES:
        raise ProtocolError(
            f"event {kind!r}: {name!r} must be a list of at most {MAX_FALL_PIECES} pieces"
        )
    for i, piece in enumerate(pieces):
        where = f"{name}[{i}]"
        if not isinstance(piece, dict):
            raise ProtocolError(f"event {kind!r}: {where} must be an object")
        _event_zone(kind, piece, "zone", where + ".zone")
        _event_grams(kind, piece, "grams", label=where + ".grams")
        _event_item(kind, piece, "item", where + ".item")


# Event type -> the fields the host acts on, checked beyond the envelope (DESIGN.md).
# Other types (touch, fault, ...) and other fields pass as they are.
EVENT_FIELDS = {
    "place": (("zone", "zone"), ("grams", "grams")),
    "fall": (("grams", "grams"), ("zones", "zones"), ("pieces", "pieces")),
    "shift": (("from", "zone"), ("to", "zone"), ("grams", "grams"), ("item", "item")),
    "land": (("grams", "grams_or_null"),),
    "leaving": (("grams", "grams"), ("zones", "zones")),
    "stay": (("grams", "grams"), ("zone", "zone_or_none")),
}


def check_event(msg: object) -> dict:
    """`msg` if it is a well-formed `ship/event` message, else ProtocolError naming the field:
    the envelope (`check_event_envelope`) and the fields the host acts on (EVENT_FIELDS)."""
    msg = check_event_envelope(msg)  # the same object, now known to be a dict
    kind = msg["type"]
    for name, field_kind in EVENT_FIELDS.get(kind, ()):
        if field_kind == "zone":
            _event_zone(kind, msg, name)
        elif field_kind == "zone_or_none":
            if msg.get(name) is not None:
                _event_zone(kind, msg, name)
        elif field_kind == "zones":
            _event_zones(kind, msg, name)
        elif field_kind == "pieces":
            _event_pieces(kind, msg, name)
        elif field_kind == "item":
            _event_item(kind, msg, name)
        else:
            _event_grams(kind, msg, name, required=field_kind == "grams")
    check_value(msg, f"event {kind!r}")
    return msg


def check_event_envelope(msg: object) -> dict:
    """`msg` if it has what every event has (type, t_ms, boot, seq), else ProtocolError. What
    carries events without acting on them (the serial bridge) checks this much."""
    if not isinstance(msg, dict):
        raise ProtocolError("an event must be a JSON object")
    kind = msg.get("type")
    if not isinstance(kind, str) or not 1 <= len(kind) <= MAX_EVENT_TYPE:
        raise ProtocolError(f"event needs a 'type' string of 1-{MAX_EVENT_TYPE} characters")
    if not is_number(msg.get("t_ms")):
        raise ProtocolError(f"event {kind!r} needs a finite number 't_ms'")
    _ship_time(kind, msg, "t_ms")
    if "decided_ms" in msg:
        if not is_number(msg["decided_ms"]):
            raise ProtocolError(f"event {kind!r}: 'decided_ms' must be a finite number")
        _ship_time(kind, msg, "decided_ms")
    check_boot(msg.get("boot"))
    seq = msg.get("seq")
    if not is_int(seq) or not 1 <= seq <= MAX_SEQ:
        raise ProtocolError(f"event {kind!r} needs 'seq', an integer from 1, not {seq!r}")
    return msg


# What may reach a page, from any message: plain JSON of bounded shape, every number finite
# and exact in a browser (no 1e999, no 2^60), every text and list short.
MAX_TEXT = 1000  # characters of a string (a problem sentence, a last error)
MAX_ITEMS = 64  # entries of a list, or fields of an object
MAX_DEPTH = 5  # objects and lists inside each other (the status' config.mqtt.url is 3)
MAX_NUMBER = 2**53  # beyond, JavaScript's numbers are no longer exact

# The fields of a status that pages show; any other is left out of what the host keeps.
STATUS_FIELDS = (
    "online",
    "fw",
    "boot",
    "config",
    "problems",
    "table",
    "uptime_s",
    "reset_cause",
    "seq",
    "loop",
    "hx711",
    "link",
    "outbox",
    "calibration",
    "faults",
    "auto_tared",
    "watchdog",
    "mem_free",
    "wifi",
)
WEIGHTS_FIELDS = ("boot", "t_ms", "zones_g", "table_g", "faults", "settled_g")


def check_value(value: object, where: str, depth: int = 0) -> object:
    """`value` if it is JSON of bounded shape (MAX_TEXT, MAX_ITEMS, MAX_DEPTH) with finite,
    browser-exact numbers, else ProtocolError naming where it is wrong."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise ProtocolError(f"{where} is longer than {MAX_TEXT} characters")
        return value
    if isinstance(value, (int, float)):
        if not is_number(value) or not -MAX_NUMBER <= value <= MAX_NUMBER:
            raise ProtocolError(f"{where} must be a finite number within 2^53, not {value!r}")
        return value
    if depth >= MAX_DEPTH:
        raise ProtocolError(f"{where} is nested deeper than {MAX_DEPTH}")
    if isinstance(value, list):
        if len(value) > MAX_ITEMS:
            raise ProtocolError(f"{where} has more than {MAX_ITEMS} entries")
        for i, item in enumerate(value):
            check_value(item, f"{where}[{i}]", depth + 1)
        return value
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            raise ProtocolError(f"{where} has more than {MAX_ITEMS} fields")
        for key in value:
            if not isinstance(key, str) or len(key) > MAX_KEY_LENGTH:
                raise ProtocolError(f"{where} has a field name longer than {MAX_KEY_LENGTH}")
            check_value(value[key], f"{where}.{key}", depth + 1)
        return value
    raise ProtocolError(f"{where} is not JSON")


def _known(msg: dict, fields: tuple) -> dict:
    """A copy of `msg` with only `fields`."""
    kept = {}
    for name in fields:
        if name in msg:
            kept[name] = msg[name]
    return kept


def check_status(msg: object) -> dict:
    """The known fields (STATUS_FIELDS) of a well-formed `ship/status`, else ProtocolError."""
    if not isinstance(msg, dict) or not isinstance(msg.get("online"), bool):
        raise ProtocolError("status needs 'online', true or false")
    msg = _known(msg, STATUS_FIELDS)
    problems = msg.get("problems", [])
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        raise ProtocolError("status 'problems' must be a list of strings")
    if "boot" in msg:
        check_boot(msg["boot"])
    if "seq" in msg:
        check_seq(msg["seq"], zero=True)
    for name in ("fw", "table", "reset_cause"):
        if name in msg and not (msg[name] is None or isinstance(msg[name], str)):
            raise ProtocolError(f"status {name!r} must be text")
    check_value(msg, "status")
    return msg


def _grams_list(name: str, values: object, required: bool) -> None:
    if values is None and not required:
        return
    if not isinstance(values, list) or not 1 <= len(values) <= MAX_ZONES:
        raise ProtocolError(f"weights need '{name}', a list of 1-{MAX_ZONES} numbers")
    for g in values:
        if not is_number(g) or not -MAX_CALIBRATION_GRAMS <= g <= MAX_CALIBRATION_GRAMS:
            raise ProtocolError(
                f"weights '{name}' must hold grams within {MAX_CALIBRATION_GRAMS:g}, not {g!r}"
            )


def check_weights(msg: object) -> dict:
    """The known fields (WEIGHTS_FIELDS) of a well-formed `ship/weights`, else ProtocolError."""
    if not isinstance(msg, dict):
        raise ProtocolError("weights must be a JSON object")
    msg = _known(msg, WEIGHTS_FIELDS)
    check_boot(msg.get("boot"))
    t_ms = msg.get("t_ms")
    if not is_number(t_ms) or not 0 <= t_ms <= MAX_T_MS:
        raise ProtocolError("weights need 't_ms', ship milliseconds from 0 to 1e11")
    _grams_list("zones_g", msg.get("zones_g"), True)
    _grams_list("settled_g", msg.get("settled_g"), False)
    table_g = msg.get("table_g")
    if table_g is not None and (
        not is_number(table_g) or not -MAX_CALIBRATION_GRAMS <= table_g <= MAX_CALIBRATION_GRAMS
    ):
        raise ProtocolError(f"weights 'table_g' must be grams or null, not {table_g!r}")
    faults = msg.get("faults", [])
    if not isinstance(faults, list) or len(faults) > MAX_ZONES:
        raise ProtocolError(f"weights 'faults' must be a list of at most {MAX_ZONES} zones")
    for zone in faults:
        if not is_int(zone) or not 1 <= zone <= MAX_ZONES:
            raise ProtocolError(f"weights 'faults' holds {zone!r}, not a zone")
    return msg


def check_trace(msg: object) -> dict:
    if not isinstance(msg, dict):
        raise ProtocolError("trace must be a JSON object")
    check_boot(msg.get("boot"))
    rows = msg.get("rows")
    if not isinstance(rows, list):
        raise ProtocolError("trace needs 'rows', a list")
    width = len(TRACE_COLUMNS)
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != width:
            raise ProtocolError(f"trace row {i} must be a list of {width} values")
        for j in range(11):
            if not is_number(row[j]):
                raise ProtocolError(f"trace row {i}: {TRACE_COLUMNS[j]} must be a number")
    return msg


def check_result(msg: object) -> dict:
    """`msg` if it is a well-formed `ship/result` (its data of bounded shape), else
    ProtocolError."""
    if not isinstance(msg, dict) or not isinstance(msg.get("ok"), bool):
        raise ProtocolError("a result needs 'ok', true or false")
    if not msg["ok"] and not isinstance(msg.get("error"), str):
        raise ProtocolError("a failed result needs 'error', a sentence")
    cmd_id = msg.get("id")
    if cmd_id is not None and not (
        (isinstance(cmd_id, str) and len(cmd_id) <= MAX_ID_LENGTH) or is_int(cmd_id)
    ):
        raise ProtocolError(f"a result's 'id' must be a command's id, not {cmd_id!r}")
    if msg.get("cmd") is not None and not isinstance(msg["cmd"], str):
        raise ProtocolError("a result's 'cmd' must be a command's name")
    check_value(msg, "result")
    return msg
