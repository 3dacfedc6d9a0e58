"""config.json: read and checked at boot; every problem is a clear sentence, never a crash.

`load(path)` returns `(config, problems)`: a complete configuration (a bad or missing field
falls back to its default, named in the problem) and the list of sentences for the serial
console and the status message. `check(raw)` does the same for an already parsed object,
`set_value` changes one dotted key for the `set` command, `summary` is what the status
message shows (never a password).

Fields (defaults in DEFAULTS):
  table            table id, the topic root is bosun/<table>/
  link             "mqtt" (WiFi) or "serial" (JSON lines on the USB port, `bosun bridge`)
  wifi.ssid, wifi.password
  mqtt.url         mqtt://host[:port], or mqtts://host[:port] (TLS) with mqtt.ca, the PEM
                   certificate of the CA that signed the broker's; mqtt.user, mqtt.password;
                   mqtt.keepalive_s (the broker fires the last will after 1.5x this);
                   mqtt.backoff_max_s (longest wait between reconnect attempts)
  pins             the wiring, binding for the schematic: hx711_sck, hx711_dout (one GPIO a
                   zone), mat_dout, led_data, piezo
  zones            number of zones (= len(pins.hx711_dout))
  sample_rate_hz   10 or 80: must match the HX711 boards' RATE pin
  drop_sensor      "mat", "piezo", "both" or "none"
  hx711_read       "register" (ESP32: one read of GPIO_IN_REG, and of GPIO_IN1_REG for DOUTs
                   at GPIO32-39, a clock pulse), "pins" (pin by pin) or "auto"
  hx711_gain       128 or 64 (channel A)
  leds.count, leds.brightness (0-1), leds.zones {"1": [led indexes], ...}
  weights_interval_ms, status_interval_s, trace, trace_batch, outbox_size, watchdog_ms,
  piezo_debounce_ms, default_counts_per_g (the scale used before any calibration)
  maintenance_button  a GPIO the ship's maintenance button pulls low (0 = the DevKitC's
                   BOOT button), or null; see commands.py for what maintenance allows
"""

import json

from shipsense.protocol import MAX_OUTBOX, ProtocolError, check_table_id, is_int, is_number

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    # (its name in sentences, its GPIOs, the input-only ones), like ESP32 below
    Board = tuple[str, tuple[int, ...], tuple[int, ...]]

VERSION = 1
# ESP32 GPIOs that exist; 34-39 are inputs only, 6-11 drive the SPI flash.
ESP32_GPIOS = (0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 25, 26, 27) + (
    32,
    33,
    34,
    35,
    36,
    37,
    38,
    39,
)
INPUT_ONLY_GPIOS = (34, 35, 36, 37, 38, 39)
# The board the pins are numbers of: ("an ESP32", its GPIOs, the input-only ones). bosun.pi
# checks a Raspberry Pi's wiring with its own.
ESP32 = ("an ESP32", ESP32_GPIOS, INPUT_ONLY_GPIOS)

DEFAULT_PINS = {
    "hx711_sck": 33,
    "hx711_dout": [13, 14, 4, 23, 18, 19, 21, 22, 25, 26],
    "mat_dout": 27,
    "led_data": 32,
    "piezo": 34,
}

DEFAULTS = {
    "version": VERSION,
    "table": "t1",
    "link": "mqtt",
    "wifi": {"ssid": "", "password": ""},
    "mqtt": {
        "url": "mqtt://192.168.1.10:1883",
        "user": None,
        "password": None,
        "ca": None,
        "keepalive_s": 15,
        "backoff_max_s": 15,
    },
    "pins": DEFAULT_PINS,
    "zones": 10,
    "sample_rate_hz": 80,
    "drop_sensor": "both",
    "hx711_read": "auto",
    "hx711_gain": 128,
    "leds": {"count": 40, "brightness": 0.25, "zones": None},
    "weights_interval_ms": 1000,
    "status_interval_s": 10,
    "trace": False,
    "maintenance_button": None,
    "trace_batch": 20,
    "outbox_size": 128,
    "watchdog_ms": 8000,
    "piezo_debounce_ms": 120,
    "default_counts_per_g": 420.0,
}

# Dotted keys that `set` may change and that apply at once; others need a restart.
LIVE_KEYS = (
    "weights_interval_ms",
    "status_interval_s",
    "trace",
    "trace_batch",
    "leds.brightness",
    "piezo_debounce_ms",
)
SECRET_KEYS = ("wifi.password", "mqtt.password")
FIXED_PREFIXES = ("pins", "version", "zones")


def _copy(value: "Any") -> "Any":
    # A deep copy of JSON data (MicroPython has no copy.deepcopy); JSON is Any, as json.loads
    if isinstance(value, dict):
        return {k: _copy(value[k]) for k in value}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def uses_tls(url: object) -> bool:
    """True for an `mqtts://` broker (TLS, verified against `mqtt.ca`)."""
    return isinstance(url, str) and url.startswith("mqtts://")


def parse_mqtt_url(url: object) -> "tuple[str, int]":
    """(host, port) of `mqtt://host[:port]` or `mqtts://host[:port]` (TLS, port 8883 unless
    given); ValueError naming what is wrong."""
    tls = uses_tls(url)
    if not isinstance(url, str) or not (tls or url.startswith("mqtt://")):
        raise ValueError(f"must look like mqtt://host:1883 or mqtts://host:8883, not {url!r}")
    rest = url[8 if tls else 7 :].rstrip("/")
    if "@" in rest:
        raise ValueError("must not hold credentials: put them in mqtt.user and mqtt.password")
    if "/" in rest or not rest:
        raise ValueError(f"must be mqtt://host or mqtt://host:port, not {url!r}")
    host, port = rest, 8883 if tls else 1883
    if ":" in rest:
        host, _, port_text = rest.rpartition(":")
        try:
            port = int(port_text)
        except ValueError:
            raise ValueError(f"has a bad port {port_text!r}") from None
        if not 1 <= port <= 65535:
            raise ValueError(f"port must be 1-65535, not {port}")
    if not host:
        raise ValueError("has no host name")
    return host, port


class _Checker:
    """Collects problems while copying good values over the defaults."""

    def __init__(self, raw: dict) -> None:
        self.raw = raw
        self.config: dict = _copy(DEFAULTS)
        self.problems: list[str] = []

    def get(self, key: str) -> "tuple[Any, bool]":
        node: Any = self.raw
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return None, False
            node = node[part]
        return node, True

    def put(self, key: str, value: object) -> None:
        node = self.config
        parts = key.split(".")
        for part in parts[:-1]:
            node = node[part]
        node[parts[-1]] = value

    def default(self, key: str) -> "Any":
        node: Any = DEFAULTS
        for part in key.split("."):
            node = node[part]
        return node

    def field(
        self, key: str, ok: "Callable[[Any], bool]", expected: str, required: bool = False
    ) -> "Any":
        """Copy `key` if `ok(value)` holds, else keep the default and note the problem."""
        value, present = self.get(key)
        if not present:
            if required:
                self.problems.append(f"config.json: {key} is missing; using {self.default(key)!r}")
            return self.default(key)
        if ok(value):
            self.put(key, value)
            return value
        shown = "that value" if key in SECRET_KEYS else repr(value)
        self.problems.append(
            f"config.json: {key} must be {expected}, not {shown}; using {self.default(key)!r}"
        )
        return self.default(key)


def _table_ok(value: object) -> bool:
    try:
        check_table_id(value)
    except ProtocolError:
        return False
    return True


def _pins_problem(pins: object, board: "Board") -> "str | None":
    """None if the pin map is usable, else what is wrong with it."""
    name, gpios, input_only = board
    if not isinstance(pins, dict):
        return "pins must be an object"
    for key in ("hx711_sck", "mat_dout", "led_data", "piezo"):
        if not is_int(pins.get(key)) or pins[key] not in gpios:
            return f"pins.{key} must be {name} GPIO number, not {pins.get(key)!r}"
    douts = pins.get("hx711_dout")
    if not isinstance(douts, list) or not 1 <= len(douts) <= 16:
        return "pins.hx711_dout must be a list of 1-16 GPIO numbers, one a zone"
    for gpio in douts:
        if not is_int(gpio) or gpio not in gpios:
            return f"pins.hx711_dout holds {gpio!r}, not {name} GPIO number"
    used = [pins["hx711_sck"], pins["mat_dout"], pins["led_data"], pins["piezo"]] + douts
    for gpio in used:
        if used.count(gpio) > 1:
            return f"pins use GPIO{gpio} twice"
    for key in ("hx711_sck", "led_data"):
        if pins[key] in input_only:
            return f"pins.{key} drives a line but GPIO{pins[key]} is input-only"
    return None


def check(raw: object, board: "Board" = ESP32) -> "tuple[dict, list[str]]":
    """(config, problems) for a parsed config.json object whose pins are `board`'s."""
    if not isinstance(raw, dict):
        checker = _Checker({})
        checker.problems.append("config.json must hold a JSON object; using defaults")
        return checker.config, checker.problems
    c = _Checker(raw)
    known = DEFAULTS
    for key in raw:
        if key not in known:
            c.problems.append(f"config.json: unknown key {key!r} ignored")
    version = raw.get("version", VERSION)
    if version != VERSION:
        c.problems.append(f"config.json: version {version!r} is not {VERSION}; reading it anyway")
    c.field(
        "table",
        _table_ok,
        "1-32 lower-case letters, digits, '_' or '-' (a letter or digit first)",
        required=True,
    )
    c.field("link", lambda v: v in ("mqtt", "serial"), '"mqtt" or "serial"')
    c.field("wifi.ssid", lambda v: isinstance(v, str) and len(v) <= 32, "text up to 32 bytes")
    c.field("wifi.password", lambda v: isinstance(v, str) and len(v) <= 64, "text up to 64")

    def url_ok(value: object) -> bool:
        try:
            parse_mqtt_url(value)
        except ValueError:
            return False
        return True

    url, present = c.get("mqtt.url")
    if present and not url_ok(url):
        try:
            parse_mqtt_url(url)
        except ValueError as error:
            c.problems.append(f"config.json: mqtt.url {error}; using {DEFAULTS['mqtt']['url']!r}")
    elif present:
        c.put("mqtt.url", url)
    nullable_text = lambda v: v is None or (isinstance(v, str) and len(v) <= 64)  # noqa: E731
    c.field("mqtt.user", nullable_text, "text or null")
    c.field("mqtt.password", nullable_text, "text or null")

    # the CA that signed the broker's certificate (PEM, as `bosun ship add --tls` writes it)
    def ca_ok(value: object) -> bool:
        return value is None or (
            isinstance(value, str) and "BEGIN CERTIFICATE" in value and len(value) <= 4096
        )

    c.field("mqtt.ca", ca_ok, "a PEM certificate or null")
    if uses_tls(c.config["mqtt"]["url"]) and c.config["mqtt"]["ca"] is None:
        c.problems.append(
            "config.json: mqtt.url is mqtts:// but mqtt.ca is missing: not connecting"
        )
    c.field("mqtt.keepalive_s", lambda v: is_int(v) and 5 <= v <= 600, "whole seconds 5-600")
    c.field("mqtt.backoff_max_s", lambda v: is_number(v) and 1 <= v <= 300, "seconds 1-300")

    pins, present = c.get("pins")
    if present:
        problem = _pins_problem(pins, board)
        if problem is None:
            c.put("pins", _copy(pins))
        else:
            c.problems.append(f"config.json: {problem}; using the reference wiring")
    n_douts = len(c.config["pins"]["hx711_dout"])
    zones = c.field("zones", lambda v: is_int(v) and 1 <= v <= 16, "a whole number 1-16")
    if zones != n_douts:
        c.problems.append(
            f"config.json: zones is {zones} but pins.hx711_dout lists {n_douts}; using {n_douts}"
        )
    c.config["zones"] = n_douts
    c.field("sample_rate_hz", lambda v: v in (10, 80), "10 or 80 (the HX711 RATE pin)")
    c.field("drop_sensor", lambda v: v in ("mat", "piezo", "both", "none"), "mat/piezo/both/none")
    c.field("hx711_read", lambda v: v in ("auto", "register", "pins"), "auto/register/pins")
    c.field("hx711_gain", lambda v: v in (128, 64), "128 or 64 (channel A)")
    count = c.field("leds.count", lambda v: is_int(v) and 0 <= v <= 512, "a whole number 0-512")
    c.field("leds.brightness", lambda v: is_number(v) and 0 <= v <= 1, "a number 0-1")
    zone_map, present = c.get("leds.zones")
    default_map = even_led_map(count, n_douts)
    if present and zone_map is not None:
        problem = _led_map_problem(zone_map, count, n_douts)
        if problem is None:
            c.put("leds.zones", {str(k): list(zone_map[k]) for k in zone_map})
        else:
            c.problems.append(f"config.json: leds.zones {problem}; spreading LEDs evenly")
            c.put("leds.zones", default_map)
    else:
        c.put("leds.zones", default_map)
    c.field("weights_interval_ms", lambda v: is_int(v) and 100 <= v <= 60000, "ms 100-60000")
    c.field("status_interval_s", lambda v: is_int(v) and 1 <= v <= 3600, "seconds 1-3600")
    c.field("trace", lambda v: isinstance(v, bool), "true or false")
    c.field(
        "maintenance_button",
        lambda v: v is None or (is_int(v) and v in ESP32_GPIOS),
        "an ESP32 GPIO the button pulls low (0: the DevKitC's BOOT button) or null",
    )
    c.field("trace_batch", lambda v: is_int(v) and 1 <= v <= 80, "samples 1-80")
    c.field("outbox_size", lambda v: is_int(v) and 16 <= v <= MAX_OUTBOX, "events 16-1024")
    c.field("watchdog_ms", lambda v: is_int(v) and 2000 <= v <= 60000, "ms 2000-60000")
    c.field("piezo_debounce_ms", lambda v: is_int(v) and 10 <= v <= 1000, "ms 10-1000")
    c.field(
        "default_counts_per_g",
        lambda v: is_number(v) and 1 <= abs(v) <= 1000000,
        "HX711 counts per gram, 1-1000000",
    )
    if c.config["link"] == "mqtt" and not c.config["wifi"]["ssid"]:
        c.problems.append("config.json: wifi.ssid is empty; using the serial link instead")
        c.config["link"] = "serial"
    return c.config, c.problems


def even_led_map(count: int, zones: int) -> "dict[str, list[int]]":
    """LEDs spread evenly over the zones in order: {"1": [0, 1, 2, 3], "2": [4, ...], ...}."""
    result = {}
    per_zone = count // zones if zones else 0
    for zone in range(zones):
        result[str(zone + 1)] = list(range(zone * per_zone, (zone + 1) * per_zone))
    return result


def _led_map_problem(zone_map: object, count: int, zones: int) -> "str | None":
    if not isinstance(zone_map, dict):
        return "must map zone numbers to lists of LED indexes"
    for key in zone_map:
        if key not in [str(z + 1) for z in range(zones)]:
            return f"names {key!r}, not a zone 1-{zones}"
        leds = zone_map[key]
        if not isinstance(leds, list) or not all(is_int(i) and 0 <= i < count for i in leds):
            return f"zone {key} must list LED indexes 0-{count - 1}"
    return None


def load(path: str = "config.json") -> "tuple[dict, list[str]]":
    """(config, problems) from the file at `path`; defaults when it is missing or broken."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        config, problems = check({})
        return config, [f"{path} is missing; using defaults"] + problems
    try:
        raw = json.loads(text)
    except ValueError:
        config, problems = check({})
        return config, [f"{path} is not valid JSON; using defaults"] + problems
    return check(raw)


def save(raw: dict, path: str = "config.json") -> None:
    """Write `raw` to flash atomically (a power cut leaves the old or the new file)."""
    import os

    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(raw))
    try:
        os.rename(tmp, path)  # LittleFS (the ESP32 default) replaces atomically
    except OSError:
        os.remove(path)  # FAT refuses to rename over a file
        os.rename(tmp, path)


def set_value(raw: object, key: object, value: object) -> "tuple[Any, str | None, bool]":
    """(new raw config, problem or None, needs_restart) for `set key value` on `raw`."""
    if not isinstance(key, str) or not key:
        return raw, "key must be a dotted name like 'leds.brightness'", False
    for prefix in FIXED_PREFIXES:
        if key == prefix or key.startswith(prefix + "."):
            return raw, f"{key} is fixed by the wiring; edit config.json on the ship", False
    parts = key.split(".")
    node: Any = DEFAULTS
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            return raw, f"unknown config key {key!r}", False
        node = node[part]
    changed: dict = _copy(raw) if isinstance(raw, dict) else {}
    target = changed
    for part in parts[:-1]:
        if not isinstance(target.get(part), dict):
            target[part] = {}
        target = target[part]
    target[parts[-1]] = value
    before = len(check(raw)[1]) if isinstance(raw, dict) else 0
    config, problems = check(changed)
    for problem in problems:
        if (key + " ") in problem or (key + ":") in problem:
            return raw, problem.replace("config.json: ", ""), False
    if len(problems) > before:
        return raw, problems[-1].replace("config.json: ", ""), False
    return changed, None, key not in LIVE_KEYS


def summary(config: dict) -> dict:
    """The configuration as the status message shows it: no passwords."""
    shown = _copy(config)
    shown["wifi"] = {"ssid": config["wifi"]["ssid"]}
    shown["mqtt"] = {
        "url": config["mqtt"]["url"],
        "user": config["mqtt"]["user"],
        "keepalive_s": config["mqtt"]["keepalive_s"],
        "tls": uses_tls(config["mqtt"]["url"]),
    }
    shown.pop("leds", None)
    shown["leds"] = {"count": config["leds"]["count"], "brightness": config["leds"]["brightness"]}
    return shown
