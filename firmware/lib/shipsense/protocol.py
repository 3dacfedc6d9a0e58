"""The ship's wire protocol: topics, messages and commands, one file for the ESP32 and the host.

Written in the common subset of MicroPython and CPython: the firmware imports it to build
what it sends and to check what it receives, the host imports the very same file.

Topics (under `bosun/<table>/`; `topic(table, name)` builds the full name):

- `ship/status` QoS1 retained. Birth on every (re)connect and a refresh every
  `status_interval_s`: `{"online": true, "fw", "boot", "config", "problems", ...}` where
  `config` summarises the effective configuration (never a password) and `problems` lists
  clear sentences (a bad config.json field, a corrupt calibration, a faulted zone). The
  last will is exactly `{"online":false}` (`LWT_PAYLOAD`).
- `ship/event` QoS1: a detector event (DESIGN.md) plus `boot` (random hex id of this boot)
  and `seq` (1, 2, 3, ... within the boot). Delivered at least once: the ship keeps events
  in a bounded ring across outages and resends them, the host drops duplicates by
  (boot, seq) and asks for gaps with the `resend` command.
- `ship/weights` QoS0: `{"boot", "t_ms", "zones_g": [..], "table_g": g|null, "faults": [zones],
  "settled_g": [..]|null}` every `weights_interval_ms`: mean calibrated grams per zone over
  that interval, and what the detector believes rests on each zone (sway and glitches
  removed; null without a detector).
- `ship/trace` QoS0, opt-in: `{"boot", "columns": TRACE_COLUMNS, "rows": [[t_ms, z1.., table_g,
  impact], ..]}`, a batch of raw calibrated samples in the Trace CSV's column order.
- `ship/cmd` QoS1 host to ship: `{"cmd": name, "id": optional str|int, ...fields}`; see
  `COMMAND_FIELDS`. Unknown fields, names or values are refused, never half-applied; the
  `MAINTENANCE_COMMANDS` are refused unless the ship is in maintenance.
- `ship/result` QoS1 ship to host: exactly one per command received, `{"id", "cmd", "ok",
  "error": null|"what was wrong", ...data}`; `id` and `cmd` echo the command (null when the
  payload was too broken to tell).
- `game/state` retained and `game/event`: the host's public game state and log (DESIGN.md).

The USB serial fallback carries the same messages, one JSON object a line:
`{"topic": "ship/event", "msg": {...}}` (`encode_line` / `decode_line`). Two more names exist
only on the serial line, from the bridge to the ship: `link/hello` (a bridge is listening:
send the birth and everything not yet delivered) and `link/ack` (`{"seq": n}`: event n
reached the broker). Lines that are not JSON are console text for people.
"""

import json

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from typing import TypeGuard

VERSION = 1
ROOT = "bosun"

STATUS = "ship/status"
EVENT = "ship/event"
WEIGHTS = "ship/weights"
TRACE = "ship/trace"
CMD = "ship/cmd"
RESULT = "ship/result"
GAME_STATE = "game/state"
GAME_EVENT = "game/event"
LINK_HELLO = "link/hello"
LINK_ACK = "link/ack"

# Topic name -> (QoS, retained).
DELIVERY = {
    STATUS: (1, True),
    EVENT: (1, False),
    WEIGHTS: (0, False),
    TRACE: (0, False),
    CMD: (1, False),
    RESULT: (1, False),
    GAME_STATE: (1, True),
    GAME_EVENT: (1, False),
}
SHIP_TOPICS = (STATUS, EVENT, WEIGHTS, TRACE, RESULT)
GAME_TOPICS = (GAME_STATE, GAME_EVENT)
SERIAL_TOPICS = (STATUS, EVENT, WEIGHTS, TRACE, RESULT, CMD, LINK_HELLO, LINK_ACK)

LWT = {"online": False}
TRACE_COLUMNS = (
    "t_ms",
    "z1",
    "z2",
    "z3",
    "z4",
    "z5",
    "z6",
    "z7",
    "z8",
    "z9",
    "z10",
    "table_g",
    "impact",
)

# Limits of what may cross the wire, one set for both sides (the ship builds within them, the
# host refuses anything beyond them; issue 14's link adds rate limits on top). The limits of
# what only ships send (event fields, trace batches) are in ship_messages.py beside them.
MAX_PAYLOAD_BYTES = 4096  # any one message, JSON text; the ESP32 parses commands in its heap
MAX_TABLE_ID = 32
MAX_BOOT_ID = 32
MAX_SEQ = 2**53  # events are numbered 1, 2, 3, ... within a boot; JSON keeps this exact
# Events a ship's outbox may hold (its `outbox_size` at most): nothing a ship can still send
# or resend lies further above what the host has, so the host refuses seqs beyond this window.
MAX_OUTBOX = 1024
MAX_ZONES = 16  # zones a ship may be built with (one HX711 a zone), for commands
MAX_ID_LENGTH = 64
MAX_ITEM_NAME = 40
MAX_KEY_LENGTH = 64
MAX_RESEND = 1000
MAX_CALIBRATION_GRAMS = 100000
MAX_COUNTDOWN_S = 120

# Table ids: 1-32 of lower-case letters, digits, '_' and '-', starting with a letter or a
# digit. One rule for the ship's config.json, the host's tables file, topics and the API, so a
# ship is always matched by the table of the same name ("Window" is refused everywhere).
# (Literals, not computed: on the ESP32 a frozen literal stays in flash, off the heap.)
TABLE_ID_FIRST = "abcdefghijklmnopqrstuvwxyz0123456789"
TABLE_ID_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_-"
# The same rule as a regular expression, for schemas (tests prove the three agree).
TABLE_ID_PATTERN = "^[a-z0-9][a-z0-9_-]{0,31}$"

LED_SHOWS = ("off", "prompt", "countdown", "fall", "winner", "error")

# Command name -> {field: (kind, required)}. Kinds are checked by `_check_field`.
COMMAND_FIELDS = {
    "tare": {"zones": ("zone_list", False)},
    "calibrate": {"zone": ("zone_or_mat", True), "grams": ("grams", True)},
    "weigh": {"item": ("item", True), "zone": ("zone", True), "count": ("count", False)},
    "set": {"key": ("key", True), "value": ("any", True)},
    "led": {
        "show": ("show", True),
        "zone": ("zone", False),
        "color": ("color", False),
        "seconds": ("seconds", False),
    },
    "resend": {"boot": ("boot", True), "from": ("seq", True), "to": ("seq", True)},
    "trace": {"on": ("bool", True)},
    "status": {},
    "restart": {},
    "maintenance": {"on": ("bool", True)},
}
COMMAND_NAMES = tuple(sorted(COMMAND_FIELDS))
# Commands that change what the ship measures, where it connects, or restart it: a ship obeys
# them only in maintenance (its button pressed, or `maintenance` on from the host's calibration
# wizard; it ends by itself after MAINTENANCE_S without one of them), and the host sends them
# only from the wizard, never while a game is refereed.
MAINTENANCE_COMMANDS = ("tare", "calibrate", "weigh", "set", "restart")
MAINTENANCE_S = 600
# LED shows -> the fields each one needs.
LED_NEEDS = {
    "off": (),
    "prompt": ("zone", "color"),
    "countdown": ("zone", "color", "seconds"),
    "fall": (),
    "winner": ("color",),
    "error": (),
}


class ProtocolError(ValueError):
    """A message that breaks the protocol; the text says what was wrong."""


class CommandError(ProtocolError):
    """A refused command; `cmd_id` and `name` are what could be read of it (or None)."""

    def __init__(
        self, problem: str, cmd_id: "str | int | None" = None, name: "str | None" = None
    ) -> None:
        super().__init__(problem)
        self.problem = problem
        self.cmd_id = cmd_id
        self.name = name


def is_int(value: object) -> "TypeGuard[int]":
    """A whole number, not a bool (MicroPython's bool is no int subclass, CPython's is)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> "TypeGuard[int | float]":
    """A finite int or float, not a bool."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return value == value and value not in (float("inf"), float("-inf"))


def check_table_id(table: object) -> str:
    """`table` if it is a valid table id (TABLE_ID_CHARACTERS), else ProtocolError saying why."""
    if not isinstance(table, str) or not 1 <= len(table) <= MAX_TABLE_ID:
        raise ProtocolError(f"table id must be 1-{MAX_TABLE_ID} characters, not {table!r}")
    if table[0] not in TABLE_ID_FIRST:
        raise ProtocolError(
            f"table id {table!r} must start with a lower-case letter or a digit (not {table[0]!r})"
        )
    for c in table:
        if c not in TABLE_ID_CHARACTERS:
            raise ProtocolError(
                f"table id {table!r} may hold only lower-case letters, digits, '_' and '-'"
                f" (not {c!r})"
            )
    return table


def topic(table: str, name: str) -> str:
    """The full MQTT topic of `name` (like `ship/event`) for `table`."""
    return f"{ROOT}/{check_table_id(table)}/{name}"


def parse_topic(full: str) -> "tuple[str, str]":
    """(table, name) of a full topic like `bosun/t1/ship/event`; ProtocolError if foreign."""
    parts = full.split("/", 2)
    if len(parts) != 3 or parts[0] != ROOT:
        raise ProtocolError(f"topic {full!r} is not under {ROOT}/<table>/")
    return check_table_id(parts[1]), parts[2]


def encode(msg: object) -> bytes:
    """Compact UTF-8 JSON bytes of a message."""
    return json.dumps(msg, separators=(",", ":")).encode()


LWT_PAYLOAD = encode(LWT)


def _refuse_constant(name: str) -> float:
    raise ProtocolError(f"{name} is not a number JSON has")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ProtocolError(f"{text[:40]} is too large for a number")
    return value


# CPython's json reads NaN and Infinity, which JSON does not have, and turns 1e999 into
# infinity, which pages cannot parse back: refuse them where the parser can be told
# (MicroPython's json takes no keywords; the ship checks numbers itself with is_number).
try:
    _STRICT_JSON = (
        json.loads("1", parse_constant=_refuse_constant, parse_float=_finite_float)  # pyright: ignore[reportCallIssue]
        == 1
    )
except TypeError:
    _STRICT_JSON = False


def decode(payload: object, what: str = "message", limit: int = MAX_PAYLOAD_BYTES) -> dict:
    """The JSON object in `payload` (bytes or str, at most `limit` long); ProtocolError saying
    what was wrong."""
    if isinstance(payload, (bytes, bytearray, memoryview)):
        if len(payload) > limit:
            raise ProtocolError(f"{what} is too long ({len(payload)} bytes)")
        try:
            payload = bytes(payload).decode()
        except UnicodeError:
            raise ProtocolError(f"{what} is not UTF-8 text") from None
    elif not isinstance(payload, str):
        raise ProtocolError(f"{what} must be text, not {type(payload).__name__}")
    if len(payload) > limit:
        raise ProtocolError(f"{what} is too long ({len(payload)} characters)")
    try:
        if _STRICT_JSON:
            # CPython only (_STRICT_JSON): MicroPython's json, which the stubs describe, has no
            # keywords
            msg = json.loads(payload, parse_constant=_refuse_constant, parse_float=_finite_float)  # pyright: ignore[reportCallIssue]
        else:
            msg = json.loads(payload)
    except ProtocolError as why:
        raise ProtocolError(f"{what}: {why}") from None
    except ValueError:
        raise ProtocolError(f"{what} is not valid JSON") from None
    except RuntimeError:  # nested too deep for the parser (CPython's RecursionError too)
        raise ProtocolError(f"{what} is nested too deeply") from None
    if not isinstance(msg, dict):
        raise ProtocolError(f"{what} must be a JSON object")
    return msg


# --- ship -> host --------------------------------------------------------------------------


def event_message(event: dict, boot: str, seq: int) -> dict:
    """A detector event as sent on `ship/event`: a copy with `boot` and `seq` added."""
    msg = dict(event)
    msg["boot"] = boot
    msg["seq"] = seq
    return msg


def check_boot(boot: object) -> str:
    """`boot` if it is a boot id (1-32 characters), else ProtocolError."""
    if not isinstance(boot, str) or not 1 <= len(boot) <= MAX_BOOT_ID:
        raise ProtocolError(f"boot must be an id of 1-{MAX_BOOT_ID} characters, not {boot!r}")
    return boot


def status_message(
    online: bool,
    fw: "str | None" = None,
    boot: "str | None" = None,
    config: "dict | None" = None,
    problems: "list[str] | None" = None,
    extra: "dict | None" = None,
) -> dict:
    """A `ship/status` message; `extra` adds fields such as `loop` or `link`."""
    msg: dict = {"online": bool(online)}
    if fw is not None:
        msg["fw"] = fw
    if boot is not None:
        msg["boot"] = boot
    if config is not None:
        msg["config"] = config
    if problems is not None:
        msg["problems"] = list(problems)
    if extra:
        for key in extra:
            msg[key] = extra[key]
    return msg


def weights_message(
    boot: str,
    t_ms: int,
    zones_g: "list[float]",
    table_g: "float | None",
    faults: "list[int] | tuple[int, ...]" = (),
    settled_g: "list[float] | None" = None,
) -> dict:
    return {
        "boot": boot,
        "t_ms": t_ms,
        "zones_g": [round(g, 2) for g in zones_g],
        "table_g": None if table_g is None else round(table_g, 2),
        "faults": list(faults),
        "settled_g": None if settled_g is None else [round(g, 2) for g in settled_g],
    }


def trace_message(boot: str, rows: list) -> dict:
    """A `ship/trace` batch: rows in TRACE_COLUMNS order (table_g, impact may be None)."""
    return {"boot": boot, "columns": list(TRACE_COLUMNS), "rows": rows}


# --- commands and results --------------------------------------------------------------------


def _check_field(kind: str, name: str, value: object) -> "str | None":
    """None if `value` fits `kind`, else the problem as a sentence."""
    if kind == "any":
        return None
    if kind == "zone":
        if is_int(value) and 1 <= value <= MAX_ZONES:
            return None
        return f"'{name}' must be a zone number 1-{MAX_ZONES}, not {value!r}"
    if kind == "zone_or_mat":
        if value == "mat" or (is_int(value) and 1 <= value <= MAX_ZONES):
            return None
        return f"'{name}' must be a zone number 1-{MAX_ZONES} or 'mat', not {value!r}"
    if kind == "zone_list":
        if not isinstance(value, list) or not value:
            return f"'{name}' must be a non-empty list of zone numbers or \"mat\""
        for zone in value:
            if _check_field("zone_or_mat", name, zone) is not None:
                return f"'{name}' holds {zone!r}: zones are numbers 1-{MAX_ZONES} or 'mat'"
        if len(set(value)) != len(value):
            return f"'{name}' names a zone twice"
        return None
    if kind == "grams":
        if is_number(value) and 1 <= value <= MAX_CALIBRATION_GRAMS:
            return None
        return (
            f"'{name}' must be a weight in grams from 1 to {MAX_CALIBRATION_GRAMS}, not {value!r}"
        )
    if kind == "item":
        if isinstance(value, str) and 1 <= len(value) <= MAX_ITEM_NAME:
            return None
        return f"'{name}' must be an item name of 1-{MAX_ITEM_NAME} characters, not {value!r}"
    if kind == "count":
        if is_int(value) and 1 <= value <= 50:
            return None
        return f"'{name}' must be a number of pieces 1-50, not {value!r}"
    if kind == "key":
        if isinstance(value, str) and 1 <= len(value) <= MAX_KEY_LENGTH:
            return None
        return f"'{name}' must be a config key like \"weights_interval_ms\", not {value!r}"
    if kind == "show":
        if value in LED_SHOWS:
            return None
        return "'" + name + "' must be one of " + ", ".join(LED_SHOWS) + f", not {value!r}"
    if kind == "color":
        if (
            isinstance(value, list)
            and len(value) == 3
            and all(is_int(c) and 0 <= c <= 255 for c in value)
        ):
            return None
        return f"'{name}' must be [red, green, blue] with each 0-255, not {value!r}"
    if kind == "seconds":
        if is_number(value) and 0 < value <= MAX_COUNTDOWN_S:
            return None
        return f"'{name}' must be seconds above 0 and at most {MAX_COUNTDOWN_S}, not {value!r}"
    if kind == "boot":
        if isinstance(value, str) and 1 <= len(value) <= MAX_BOOT_ID:
            return None
        return f"'{name}' must be a boot id, not {value!r}"
    if kind == "seq":
        if is_int(value) and 1 <= value <= MAX_SEQ:
            return None
        return f"'{name}' must be an event number from 1, not {value!r}"
    if kind == "bool":
        if isinstance(value, bool):
            return None
        return f"'{name}' must be true or false, not {value!r}"
    return f"'{name}' has an unknown kind {kind!r}"


def check_command(msg: object) -> dict:
    """`msg` if it is a valid command object, else CommandError (with what could be read)."""
    if not isinstance(msg, dict):
        raise CommandError("a command must be a JSON object")
    cmd_id = msg.get("id")
    if cmd_id is not None and not (
        (isinstance(cmd_id, str) and len(cmd_id) <= MAX_ID_LENGTH) or is_int(cmd_id)
    ):
        raise CommandError(
            f"'id' must be a string of at most {MAX_ID_LENGTH} characters or an integer"
        )
    name = msg.get("cmd")
    if not isinstance(name, str):
        raise CommandError("a command needs 'cmd', one of " + ", ".join(COMMAND_NAMES), cmd_id)
    fields = COMMAND_FIELDS.get(name)
    if fields is None:
        raise CommandError(
            f"unknown command {name!r} (known: " + ", ".join(COMMAND_NAMES) + ")", cmd_id, None
        )
    for key in msg:
        if key not in ("cmd", "id") and key not in fields:
            raise CommandError(f"{name}: unexpected field {key!r}", cmd_id, name)
    for key in fields:
        kind, required = fields[key]
        if key not in msg:
            if required:
                raise CommandError(f"{name}: missing field {key!r}", cmd_id, name)
            continue
        problem = _check_field(kind, key, msg[key])
        if problem is not None:
            raise CommandError(f"{name}: {problem}", cmd_id, name)
    if name == "led":
        for need in LED_NEEDS[msg["show"]]:
            if need not in msg:
                raise CommandError("led " + msg["show"] + f" needs {need!r}", cmd_id, name)
    if name == "resend":
        if msg["to"] < msg["from"]:
            raise CommandError("resend: 'to' must not be below 'from'", cmd_id, name)
        if msg["to"] - msg["from"] >= MAX_RESEND:
            raise CommandError(f"resend: at most {MAX_RESEND} events at a time", cmd_id, name)
    return msg


def parse_command(payload: object) -> dict:
    """The validated command in a `ship/cmd` payload; CommandError if it must be refused."""
    try:
        msg = decode(payload, "command")
    except ProtocolError as error:
        raise CommandError(str(error)) from None
    return check_command(msg)


def command(name: str, cmd_id: "str | int | None" = None, **fields: object) -> dict:
    """A validated command object for `ship/cmd` (host side), e.g. command("tare", "c1")."""
    msg: dict = {"cmd": name}
    if cmd_id is not None:
        msg["id"] = cmd_id
    for key in fields:
        msg[key] = fields[key]
    return check_command(msg)


def result_message(
    cmd_id: "str | int | None",
    name: "str | None",
    ok: bool,
    error: "str | None" = None,
    data: "dict | None" = None,
) -> dict:
    """The `ship/result` answer to command `name` with id `cmd_id`."""
    msg: dict = {"id": cmd_id, "cmd": name, "ok": bool(ok), "error": error}
    if data:
        for key in data:
            if key not in msg:
                msg[key] = data[key]
    return msg


# --- the serial line -----------------------------------------------------------------------


def encode_line(name: str, msg: dict) -> str:
    """One serial line (with its newline) carrying message `msg` for topic name `name`."""
    return json.dumps({"topic": name, "msg": msg}, separators=(",", ":")) + "\n"


def decode_line(line: "str | bytes | bytearray") -> "tuple[str, dict]":
    """(topic name, message) of a serial line; ProtocolError if it is not one of ours."""
    envelope = decode(line.strip() if isinstance(line, str) else bytes(line).strip(), "line")
    name = envelope.get("topic")
    if name not in SERIAL_TOPICS:
        raise ProtocolError(f"line has unknown topic {name!r}")
    msg = envelope.get("msg", {})
    if not isinstance(msg, dict):
        raise ProtocolError("line 'msg' must be a JSON object")
    return name, msg
