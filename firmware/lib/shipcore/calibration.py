"""Calibration in flash: tare and scale of every load cell and the weight of each item type.

The file (calibration.json) is versioned JSON:
  {"version": 1,
   "zones": [{"tare": raw counts, "counts_per_g": counts, "calibrated": true,
              "response": [counts a gram on every zone's cell] or absent}, ...one a zone],
   "mat": {"tare": ..., "counts_per_g": ...} or null,
   "items": {"rat": 2.6, ...}}
A zone's `response` is what a known weight on it did to every zone's cell when it was
calibrated: its own cell and, through the wood they share, its neighbours' (crosstalk).
`solve_scales` sets the zones' scales from these so that a weight on any calibrated zone reads
its grams in total over all zones; calibrated one cell at a time, a neighbour's share came on
top and a piece's total read up to a third heavy.
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
# The most of a calibration weight another zone may read: more is a hand or a piece on it.
MAX_SHARE = 0.3
# Solved from the responses, a zone's scale stays within this factor of its own cell's.
MAX_SCALE_CHANGE = 1.6


class Calibration:
    """Tare (raw counts) and scale (counts a gram) per channel; channel `zones` is the mat."""

    def __init__(self, zones: int, default_counts_per_g: float) -> None:
        self.zones = zones
        self.default_counts_per_g = float(default_counts_per_g)
        # One entry a zone plus one for the mat. A tare of None: take it from the readings.
        self.tare: list[int | None] = [None] * (zones + 1)
        self.counts_per_g = [self.default_counts_per_g] * (zones + 1)
        self.calibrated = [False] * (zones + 1)
        # per zone: counts a gram on every zone's cell with a weight on it; None: not measured
        self.response: list = [None] * zones
        self.items: dict[str, float] = {}
        self.source = "defaults"

    def grams(self, channel: int, raw: int) -> float:
        tare = self.tare[channel]
        if tare is None:
            return 0.0
        return (raw - tare) / self.counts_per_g[channel]

    def to_json(self) -> dict:
        def cell(channel: int) -> dict:
            out = {
                "tare": self.tare[channel],
                "counts_per_g": self.counts_per_g[channel],
                "calibrated": self.calibrated[channel],
            }
            if channel < self.zones and self.response[channel] is not None:
                out["response"] = list(self.response[channel])
            return out

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
        other.response = [None if r is None else list(r) for r in self.response]
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


def _response_problem(response: object, where: str, zones: int, own: int) -> "str | None":
    if not isinstance(response, list) or len(response) != zones:
        return f"{where}.response must list {zones} numbers (counts a gram on each zone)"
    for value in response:
        if not is_number(value) or abs(value) > 1000000:
            return f"{where}.response holds {value!r}, not counts a gram"
    if abs(response[own]) < 0.001:
        return f"{where}.response reads nothing on its own cell"
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
        if channel < zones and cell.get("response") is not None:
            problem = _response_problem(cell["response"], where, zones, channel)
            if problem:
                raise ValueError(problem)
            cal.response[channel] = [float(v) for v in cell["response"]]
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


def solve_scales(cal: Calibration) -> "str | None":
    """Set the scale of every zone with a response so that a weight on any of them reads its
    grams in total over all zones; the other zones keep theirs. None, or why not (then `cal`
    is unchanged).

    With R[j][z] the counts a gram zone z's weight puts on cell j and s[j] = 1/counts_per_g[j],
    a weight on z reads sum over j of s[j] * R[j][z] grams a gram: one equation a measured
    zone, its unknowns the measured zones' s (a zone never measured adds its share at its
    present scale)."""
    measured = [z for z in range(cal.zones) if cal.response[z] is not None]
    n = len(measured)
    if not n:
        return None
    rows = []
    for z in measured:
        column = cal.response[z]
        row = [column[j] for j in measured]
        rest = 1.0
        for j in range(cal.zones):
            if cal.response[j] is None:
                rest -= column[j] / cal.counts_per_g[j]
        row.append(rest)
        rows.append(row)
    for i in range(n):  # Gauss-Jordan with partial pivoting: ten unknowns at most
        pivot = i
        for r in range(i + 1, n):
            if abs(rows[r][i]) > abs(rows[pivot][i]):
                pivot = r
        if abs(rows[pivot][i]) < 1e-9:
            return "the zones' responses do not tell the zones apart: calibrate them again"
        rows[i], rows[pivot] = rows[pivot], rows[i]
        for r in range(n):
            if r != i and rows[r][i]:
                f = rows[r][i] / rows[i][i]
                for c in range(i, n + 1):
                    rows[r][c] -= f * rows[i][c]
    scales = []
    for i, z in enumerate(measured):
        s = rows[i][n] / rows[i][i]
        own = cal.response[z][z]
        if not s or not 1 / MAX_SCALE_CHANGE <= own * s <= MAX_SCALE_CHANGE:
            return (
                f"zone {z + 1}'s own cell would read {own * s:.2f} of a weight on it: "
                "calibrate it again"
            )
        scales.append(1 / s)
    for i, z in enumerate(measured):
        cal.counts_per_g[z] = scales[i]
    return None


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
