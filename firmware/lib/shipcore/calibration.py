"""Calibration in flash: tare and scale of every load cell and the weight of each item type.

The file (calibration.json) is versioned JSON:
  {"version": 1,
   "zones": [{"tare": raw counts, "counts_per_g": counts}, ...one a zone],
   "mat": {"tare": ..., "counts_per_g": ...} or null,
   "items": {"rat": 2.6, ...}}
`load` never fails: a missing or corrupt file gives safe defaults (every cell tared
automatically from its first settled readings, the nominal scale from config.json, no
items) and a sentence saying so. `save` writes atomically: a power cut during a save leaves
the old file or the new one, never half of one.
"""

import json

from shipsense.protocol import MAX_ITEM_NAME, is_number

VERSION = 1
FILE = "calibration.json"
# HX711 output range: a tare outside it is a corrupt file, not a reading.
RAW_MIN = -0x800000
RAW_MAX = 0x7FFFFF
MAX_ITEM_GRAMS = 10000


class Calibration:
    """Tare (raw counts) and scale (counts a gram) per channel; channel `zones` is the mat."""

    def __init__(self, zones: int, default_counts_per_g: float) -> None:
        self.zones = zones
        self.default_counts_per_g = float(default_counts_per_g)
        # One entry a zone plus one for the mat. A tare of None: take it from the readings.
        self.tare: list[int | None] = [None] * (zones + 1)
        self.counts_per_g = [self.default_counts_per_g] * (zones + 1)
        self.calibrated = [False] * (zones + 1)
        self.items: dict[str, float] = {}
        self.source = "defaults"

    def grams(self, channel: int, raw: int) -> float:
        tare = self.tare[channel]
        if tare is None:
            return 0.0
        return (raw - tare) / self.counts_per_g[channel]

    def to_json(self) -> dict:
        def cell(channel: int) -> dict:
            return {
                "tare": self.tare[channel],
                "counts_per_g": self.counts_per_g[channel],
                "calibrated": self.calibrated[channel],
            }

        return {
            "version": VERSION,
            "zones": [cell(z) for z in range(self.zones)],
            "mat": cell(self.zones),
            "items": dict(self.items),
        }

    def copy(self) -> "Calibration":
        other = Calibration(self.zones, self.default_counts_per_g)
        other.tare = list(self.tare)
        other.counts_per_g = list(self.counts_per_g)
        other.calibrated = list(self.calibrated)
        other.items = dict(self.items)
        other.source = self.source
        return other

    def summary(self) -> dict:
        return {
            "source": self.source,
            "version": VERSION,
            "calibrated_zones": [z + 1 for z in range(self.zones) if self.calibrated[z]],
            "items": dict(self.items),
        }


def _cell_problem(cell: object, where: str) -> "str | None":
    if not isinstance(cell, dict):
        return f"{where} must be an object with tare and counts_per_g"
    tare = cell.get("tare")
    if tare is not None and (not is_number(tare) or not RAW_MIN <= tare <= RAW_MAX):
        return f"{where}.tare must be HX711 counts {RAW_MIN}..{RAW_MAX} or null, not {tare!r}"
    scale = cell.get("counts_per_g")
    if not is_number(scale) or not 0.001 <= abs(scale) <= 1000000:
        return f"{where}.counts_per_g must be a number of magnitude 0.001-1000000, not {scale!r}"
    return None


def from_json(obj: object, zones: int, default_counts_per_g: float) -> Calibration:
    """A Calibration from a parsed file; ValueError naming the first thing wrong."""
    if not isinstance(obj, dict):
        raise ValueError("it is not a JSON object")
    if obj.get("version") != VERSION:
        raise ValueError(f"its version is {obj.get('version')!r}, this firmware reads {VERSION}")
    cells = obj.get("zones")
    if not isinstance(cells, list) or len(cells) != zones:
        raise ValueError(f"it must list {zones} zones")
    cal = Calibration(zones, default_counts_per_g)
    mat = obj.get("mat")
    for channel, cell in enumerate(cells + [mat]):
        where = "mat" if channel == zones else f"zones[{channel}]"
        if channel == zones and cell is None:
            continue
        problem = _cell_problem(cell, where)
        if problem:
            raise ValueError(problem)
        cal.tare[channel] = cell["tare"]
        cal.counts_per_g[channel] = float(cell["counts_per_g"])
        cal.calibrated[channel] = cell.get("calibrated") is True
    items = obj.get("items", {})
    if not isinstance(items, dict):
        raise ValueError("items must be an object of item name -> grams")
    for name in items:
        grams = items[name]
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_ITEM_NAME:
            raise ValueError(f"item name {name!r} must be 1-{MAX_ITEM_NAME} characters")
        if not is_number(grams) or not 0 < grams <= MAX_ITEM_GRAMS:
            raise ValueError(f"item {name!r} must weigh above 0 and at most {MAX_ITEM_GRAMS} g")
        cal.items[name] = float(grams)
    cal.source = "flash"
    return cal


def load(
    zones: int, default_counts_per_g: float, path: str = FILE
) -> "tuple[Calibration, str | None]":
    """(calibration, problem or None); never raises."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        cal = Calibration(zones, default_counts_per_g)
        return cal, (
            f"no {path} yet: zones are tared from their first readings at the nominal "
            "scale; run tare and calibrate"
        )
    reason = ""  # set below on every path that reaches the corrupt-file message
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
        reason = "it is not valid JSON"
    if obj is not None or text.strip() == "null":
        try:
            return from_json(obj, zones, default_counts_per_g), None
        except ValueError as error:
            reason = str(error)
    cal = Calibration(zones, default_counts_per_g)
    cal.source = "defaults (corrupt file)"
    return cal, (
        f"{path} is corrupt ({reason}): using safe defaults (zones tared from their first "
        "readings, nominal scale, no items); calibrate again to replace it"
    )


def save(cal: Calibration, path: str = FILE) -> None:
    """Write atomically: to a temporary file, then rename over the old one."""
    import os

    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(cal.to_json()))
    try:
        os.rename(tmp, path)  # LittleFS (the ESP32 default) replaces atomically
    except OSError:
        os.remove(path)  # FAT refuses to rename over a file
        os.rename(tmp, path)
    cal.source = "flash"
