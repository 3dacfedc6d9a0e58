"""The wiring table: every wire, solder joint and load-cell lead, from where to where, colour.

Each net is wired as a tree over the places of PLACES: within a place its pins are chained
(a bus along the boards), and each place hangs off its parent place (hull off the base
board, each yard off the one below). Passives soldered straight onto a board's pins are
joints, not wires. The LEDs' ground returns on its own heavy wires to the supply's 0 V,
which meets the logic ground in one place only (the star point), so LED current never flows
in the HX711 boards' ground wire.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from . import parts
from .bom import ref_rank
from .circuit import PLACES, Ship

WIRING_COLUMNS = (
    "wire",
    "net",
    "from_ref",
    "from_pin",
    "from_pad",
    "from_where",
    "to_ref",
    "to_pin",
    "to_pad",
    "to_where",
    "colour",
    "gauge",
    "how",
)

HEAVY_GAUGE = "0.5 mm2 (20 AWG)"  # LED power: 2.4 A worst case, ~0.1 V drop over 1.5 m
SIGNAL_GAUGE = "0.14 mm2 (26 AWG)"
LED_POWER_KINDS = (parts.LED_SEGMENT.name, parts.LED_SUPPLY.name)
_SUPPLY_PINS = frozenset({"GND", "VCC", "VIN", "VOUT", "+5V", "0V", "3V3", "5V"})
_NET_ORDER = ("GND", "+5V_LED", "+5V_USB", "+3V3_A", "+3V3", "HX711_SCK", "Z", "MAT_", "LED_")


@dataclass(frozen=True)
class End:
    """One pin on a net."""

    ref: str
    pin: str
    number: int
    drives: bool  # a power or signal output: it goes first in its chain


def net_colour(net: str) -> str:
    """The wire colour for a net (load-cell leads keep their own colours)."""
    if net == "GND":
        return "black"
    if net == "+5V_LED":
        return "red"
    if net == "+5V_USB":
        return "brown"
    if net == "+3V3_A":
        return "orange"
    if net == "+3V3":
        return "violet"
    if net == "HX711_SCK":
        return "yellow"
    if net.endswith("_DOUT"):
        return "blue"
    if net.startswith("LED_"):
        return "green"
    return "grey"


def net_ends(ship: Ship) -> dict[str, list[End]]:
    """Every net of the circuit with its pins."""
    ends: dict[str, list[End]] = {}
    for net in ship.circuit.get_nets():
        if net is ship.circuit.NC or not net.pins:
            continue
        ends[net.name] = [
            End(
                pin.part.ref,
                pin.name,
                int(pin.num),
                pin.func in (parts.PWR_OUT, parts.OUT, parts.OPEN_COLLECTOR, parts.TRI),
            )
            for pin in net.pins
        ]
    return ends


def _pin_label(ship: Ship, end: End) -> str:
    kind = ship.info[end.ref].kind
    label = end.pin
    if kind is parts.ESP32_DEVKITC:
        header = f"J1-{end.number}" if end.number <= 19 else f"J3-{end.number - 19}"
        silk = kind.silk.get(end.pin)
        label = f"{end.pin} ({silk}, {header})" if silk else f"{end.pin} ({header})"
    elif end.pin in kind.silk:
        label = f"{end.pin} ({kind.silk[end.pin]})"
    elif kind.name in (parts.ZONE_LOAD_CELL.name, parts.MAT_LOAD_CELL.name):
        label = f"{end.pin} ({parts.LOAD_CELL_LEADS[end.pin]} lead)"
    return label


def _net_rank(net: str) -> tuple:
    """Power first, then the clock, the zones in order, the mat, the LEDs, the piezo."""
    natural = tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", net))
    for rank, prefix in enumerate(_NET_ORDER):
        if net == prefix or net.startswith(prefix):
            return (rank, natural)
    return (len(_NET_ORDER), natural)


def wiring_rows(ship: Ship) -> list[dict[str, str]]:
    """Every connection needed to build the circuit, net by net."""
    rows: list[dict[str, str]] = []

    def add(net: str, a: End, b: End, how: str, gauge: str, colour: str | None = None) -> None:
        info_a, info_b = ship.info[a.ref], ship.info[b.ref]
        rows.append(
            {
                "wire": "",
                "net": net,
                "from_ref": a.ref,
                "from_pin": _pin_label(ship, a),
                "from_pad": str(a.number),
                "from_where": PLACES[info_a.place].label,
                "to_ref": b.ref,
                "to_pin": _pin_label(ship, b),
                "to_pad": str(b.number),
                "to_where": PLACES[info_b.place].label,
                "colour": colour or net_colour(net),
                "gauge": gauge,
                "how": how,
            }
        )

    for net, ends in sorted(net_ends(ship).items(), key=lambda item: _net_rank(item[0])):
        ends = sorted(ends, key=lambda e: (not e.drives, ref_rank(e.ref), e.number))
        # A passive soldered onto a board: a joint to the board's supply pin on the same net.
        first_pin_of: dict[str, End] = {}
        for end in sorted(ends, key=lambda e: (e.pin not in _SUPPLY_PINS, e.number)):
            first_pin_of.setdefault(end.ref, end)
        wired: list[End] = []
        for end in ends:
            host = ship.info[end.ref].at
            if host in first_pin_of:
                add(net, end, first_pin_of[host], "solder the leg onto the board's pin", "leg")
            else:
                wired.append(end)
        # A load cell's own lead goes straight to its amplifier.
        cells = [e for e in wired if e.pin in parts.LOAD_CELL_LEADS]
        if cells:
            (cell,) = cells
            (amp,) = [e for e in wired if e is not cell]
            add(net, cell, amp, "the cell's own lead", "cell lead", parts.LOAD_CELL_LEADS[cell.pin])
            continue
        if net == "GND":
            led_power = [e for e in wired if ship.info[e.ref].kind.name in LED_POWER_KINDS]
            logic = [e for e in wired if e not in led_power]
            _wire_tree(ship, net, led_power, add, heavy=True)
            _wire_tree(ship, net, logic, add, heavy=False)
            supply_0v = next(e for e in led_power if e.drives)
            add(
                net,
                supply_0v,
                logic[0],
                "star point: the only link of LED and logic ground",
                HEAVY_GAUGE,
            )
        else:
            _wire_tree(ship, net, wired, add, heavy=net == "+5V_LED")
    for number, row in enumerate(rows, start=1):
        row["wire"] = f"W{number}"
    return rows


def _wire_tree(ship: Ship, net: str, ends: list[End], add, heavy: bool) -> None:
    """Chain the ends within each place; hang each place off its nearest present ancestor."""
    by_place: dict[str, list[End]] = {}
    for end in ends:
        by_place.setdefault(ship.info[end.ref].place, []).append(end)
    gauge = HEAVY_GAUGE if heavy else SIGNAL_GAUGE
    for place, group in by_place.items():
        for a, b in zip(group, group[1:], strict=False):
            if a.ref == b.ref and a.pin == b.pin:
                # the same pin twice on one board (the DevKitC's GND pads): joined on it
                add(net, a, b, "joined on the board itself: no wire", "-", "-")
                continue
            how = "wire"
            if a.ref == b.ref:
                how = "short jumper between two pins of the part"
                if "RATE" in (a.pin, b.pin):
                    how = "RATE tied high for 80 SPS (see the build guide)"
            add(net, a, b, how, gauge)
        parent = PLACES[place].parent
        while parent is not None and parent not in by_place:
            parent = PLACES[parent].parent
        if parent is None:
            continue
        # Off the base board every branch starts at the hub (its first pin); further out
        # the bus continues from the last board of the place before.
        parent_group = by_place[parent]
        start = parent_group[0] if PLACES[parent].parent is None else parent_group[-1]
        add(net, start, group[0], _route(parent, place), gauge)


def _route(parent: str, place: str) -> str:
    """How a wire gets from one place to another: the ship sways on its ball joint."""
    crossed = []
    step = place
    while step != parent:
        crossed.append(step)
        step = PLACES[step].parent
    legs = []
    if "hull" in crossed:
        legs.append("in the harness through the ball joint")
    if any(p.startswith("yard") for p in crossed):
        legs.append("up the mast")
    if place == "table":
        legs.append("in the shielded piezo cable")
    if place == "mat":
        legs.append("in the mat cable")
    return "wire " + ", then ".join(legs) if legs else "wire"


def wiring_csv(ship: Ship) -> str:
    """The wiring table as CSV text."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=WIRING_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(wiring_rows(ship))
    return out.getvalue()
