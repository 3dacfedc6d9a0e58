"""A Raspberry Pi ship's config.json: the ESP32's format, checked by the firmware's own rules.

The file is the one the ESP32 reads (shipcore.settings: table, mqtt, zones, sample rate,
drop sensor, intervals ...), `set` commands save it the same way, and `pins` are BCM GPIO
numbers of the Pi (0-27) instead of the ESP32's. What a Pi ship does not drive yet is said,
not silently dropped: no LED strip (leds.count is read as 0), no piezo (a "piezo" or "both"
drop sensor keeps only its mat), no maintenance button (the host's `maintenance` command
opens maintenance), and the network is the Pi's own (wifi and link are unused).
"""

from __future__ import annotations

import json

from shipcore import settings

PI_GPIOS = tuple(range(28))  # BCM GPIO0-27, the 40-pin header's
PI = ("a Raspberry Pi", PI_GPIOS, ())


class ConfigError(ValueError):
    """The config cannot run a ship at all (no file, not JSON, no table)."""


def load(path: str) -> tuple[dict, list[str]]:
    """(config, problems) of the Pi ship's config.json; ConfigError if it cannot run."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        raw = json.loads(text)
    except ValueError as error:
        raise ConfigError(f"{path} is not valid JSON: {error}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path} must hold a JSON object")
    if "table" not in raw:
        raise ConfigError(f'{path} names no table ("table": "t1")')
    if "pins" not in raw:
        raise ConfigError(
            f"{path} has no pins: the Pi's wiring is not the ESP32's, say it "
            '("pins": {"hx711_sck": 5, "hx711_dout": [6, 13, ...], ...}, BCM numbers)'
        )
    config, problems = settings.check(raw, PI)
    wrong = [p for p in problems if p.startswith(("config.json: pins", "config.json: table"))]
    if wrong:
        raise ConfigError(f"{path}: " + "; ".join(p.replace("config.json: ", "") for p in wrong))
    problems = [p for p in problems if "wifi.ssid is empty" not in p]
    config["link"] = "mqtt"  # the Pi's own network: no WiFi for the ship to join
    if config["leds"]["count"]:
        problems.append("a Pi ship drives no LED strip yet: leds.count is read as 0")
        config["leds"]["count"] = 0
    if config["maintenance_button"] is not None:
        problems.append("a Pi ship reads no maintenance button yet: maintenance_button is null")
        config["maintenance_button"] = None
    if config["drop_sensor"] in ("piezo", "both"):
        problems.append(f"a Pi ship reads no piezo yet: drop_sensor {config['drop_sensor']!r}")
        config["drop_sensor"] = "mat" if config["drop_sensor"] == "both" else "none"
    return config, problems
