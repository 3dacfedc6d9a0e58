"""The schematic drawing, rendered with schemdraw straight from the built circuit.

Every part is drawn with its pins; each pin ends in the name of its net, so pins carrying the
same name are connected. Nothing is drawn by hand, so the drawing cannot disagree with the
netlist.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from xml.etree import ElementTree

import schemdraw
import schemdraw.elements as elm

from . import parts
from .circuit import ZONES, Ship

SVG_NAMESPACE = "http://www.w3.org/2000/svg"

PIN_SPACING = 0.6
LEAD = 0.6
NC_NET = "__NOCONNECT"  # skidl's no-connect net
NET_LABEL_SIZE = 10
COLUMN_GAP = 3.0
ITEM_GAP = 1.2


@dataclass(frozen=True)
class Column:
    """One column of the sheet: a title and the groups of parts drawn in it, top to bottom."""

    title: str
    groups: tuple[tuple[str, ...], ...]  # each group: refs drawn side by side


def _pin_net(ship: Ship, ref: str) -> dict[str, str | None]:
    """Net name per pin number (as text) of part `ref`; None for a deliberately open pin."""
    nets = {}
    for pin in ship.parts[ref].pins:
        net = pin.net
        nets[str(pin.num)] = None if net is None or net.name == NC_NET else net.name
    return nets


def _block_sides(ship: Ship, ref: str) -> tuple[list, list]:
    """Pins on the left and right of a block, top to bottom, as (number, name) pairs."""
    kind = ship.info[ref].kind
    pins = [(int(p.num), p.name) for p in ship.parts[ref].pins]
    by_name = {name: (num, name) for num, name in pins}
    if kind is parts.ESP32_DEVKITC:
        return pins[:19], pins[19:]
    if kind is parts.HX711_MODULE:
        left = ["VCC", "VDD", "RATE", "GND", "SCK", "DOUT"]
        right = ["E+", "E-", "A+", "A-", "B+", "B-"]
        return [by_name[n] for n in left], [by_name[n] for n in right]
    if kind in (parts.ZONE_LOAD_CELL, parts.MAT_LOAD_CELL):
        return pins, []
    if kind is parts.MCP1700_TO92:
        return [by_name["VIN"], by_name["GND"]], [by_name["VOUT"]]
    if kind is parts.LED_SEGMENT:
        return [by_name["+5V"], by_name["DIN"], by_name["GND"]], [by_name["DOUT"]]
    if kind is parts.LED_SUPPLY:
        return [], pins
    # DIP packages: pin 1 top left, counting down the left and up the right.
    half = len(pins) // 2
    return pins[:half], list(reversed(pins[half:]))


def _draw_block(d: schemdraw.Drawing, ship: Ship, ref: str) -> None:
    info = ship.info[ref]
    left, right = _block_sides(ship, ref)
    nets = _pin_net(ship, ref)
    ic_pins = [
        elm.IcPin(name=name, side="L", anchorname=f"p{num}") for num, name in reversed(left)
    ] + [elm.IcPin(name=name, side="R", anchorname=f"p{num}") for num, name in reversed(right)]
    title = f"{ref}  {info.value}"
    block = elm.Ic(pins=ic_pins, pinspacing=PIN_SPACING, edgepadH=0.45, leadlen=LEAD)
    d.add(block.at((0, 0)).label(title, loc="top", fontsize=12))
    for side, side_pins in (("L", left), ("R", right)):
        for num, _name in side_pins:
            end = block.absanchors[f"p{num}"]
            net = nets[str(num)]
            if net is None:
                d.add(elm.NoConnect().at(end))
                continue
            halign = "right" if side == "L" else "left"
            dx = -0.15 if side == "L" else 0.15
            d.add(
                elm.Label()
                .at((end[0] + dx, end[1]))
                .label(net, halign=halign, valign="center", fontsize=NET_LABEL_SIZE, color="blue")
            )


def _draw_two_terminal(d: schemdraw.Drawing, ship: Ship, ref: str) -> None:
    info = ship.info[ref]
    kind = info.kind
    nets = _pin_net(ship, ref)
    if kind is parts.SCHOTTKY:
        element, first, second = elm.Schottky(), "2", "1"  # anode left, cathode right
    elif kind is parts.CAPACITOR_POLARISED:
        element, first, second = elm.Capacitor(polar=True), "1", "2"
    elif kind is parts.CAPACITOR:
        element, first, second = elm.Capacitor(), "1", "2"
    elif kind is parts.PIEZO_DISC:
        element, first, second = elm.Crystal(), "1", "2"
    else:
        element, first, second = elm.Resistor(), "1", "2"
    d.add(element.at((0, 0)).right(2.4).label(f"{ref}  {info.value}", loc="top", fontsize=12))
    for anchor, pin, halign, dx in (
        ("start", first, "right", -0.15),
        ("end", second, "left", 0.15),
    ):
        point = element.absanchors[anchor]
        d.add(elm.Dot(radius=0.06).at(point))
        d.add(
            elm.Label()
            .at((point[0] + dx, point[1]))
            .label(nets[pin], halign=halign, valign="center", fontsize=NET_LABEL_SIZE, color="blue")
        )


def _draw_trimmer(d: schemdraw.Drawing, ship: Ship, ref: str) -> None:
    info = ship.info[ref]
    nets = _pin_net(ship, ref)
    pot = elm.Potentiometer().at((0, 0)).right(2.4).label(f"{ref}  {info.value}", loc="bottom")
    d.add(pot)
    for anchor, pin, halign, valign, dx, dy in (
        ("start", "1", "right", "center", -0.1, 0),
        ("end", "3", "left", "center", 0.1, 0),
        ("tap", "2", "center", "bottom", 0, 0.1),
    ):
        point = pot.absanchors[anchor]
        d.add(
            elm.Label()
            .at((point[0] + dx, point[1] + dy))
            .label(nets[pin], halign=halign, valign=valign, fontsize=NET_LABEL_SIZE, color="blue")
        )


_TWO_TERMINAL = (
    parts.RESISTOR,
    parts.CAPACITOR,
    parts.CAPACITOR_POLARISED,
    parts.SCHOTTKY,
    parts.PIEZO_DISC,
)


def _draw_part(ship: Ship, ref: str, canvas: str) -> schemdraw.Drawing:
    d = schemdraw.Drawing(canvas=canvas, show=False)
    kind = ship.info[ref].kind
    if kind in _TWO_TERMINAL:
        _draw_two_terminal(d, ship, ref)
    elif kind is parts.TRIMMER:
        _draw_trimmer(d, ship, ref)
    else:
        _draw_block(d, ship, ref)
    return d


def sheet_columns(ship: Ship) -> list[Column]:
    """Which parts go in which column of the sheet."""
    by_role: dict[str, str] = {info.role: ref for ref, info in ship.info.items()}

    def role(text: str) -> str:
        return next(ref for r, ref in by_role.items() if r.startswith(text))

    def amplifier_group(prefix: str) -> tuple[str, ...]:
        amp = role(f"{prefix}: amplifier")
        cell = role(f"{prefix}: load cell")
        caps = [ref for ref, info in ship.info.items() if info.at == amp]
        return (amp, cell, *caps)

    zone_prefixes = [
        ship.info[ref].role.split(": ")[0] for ref in _refs_of(ship, parts.LED_SEGMENT)
    ]
    amp_groups = [amplifier_group(p) for p in zone_prefixes] + [amplifier_group("table mat")]
    placed = {ref for group in amp_groups for ref in group}
    controller = [_refs_of(ship, parts.ESP32_DEVKITC)]
    ldo = _refs_of(ship, parts.MCP1700_TO92)
    power = [ldo + [r for r, i in ship.info.items() if i.at in ldo]]
    led_kinds = (parts.AHCT125, parts.LED_SUPPLY)
    led_refs = [r for r, i in ship.info.items() if i.kind in led_kinds]
    led_refs += [r for r, i in ship.info.items() if i.at in led_refs]
    led_refs += [r for r, i in ship.info.items() if i.role.startswith("LED data")]
    led_refs = list(dict.fromkeys(led_refs))
    segments = _refs_of(ship, parts.LED_SEGMENT)
    bulk = [r for r, i in ship.info.items() if i.at in segments]
    placed |= set(controller[0]) | set(power[0]) | set(led_refs) | set(segments) | set(bulk)
    drop = [ref for ref in ship.info if ref not in placed]
    half = (ZONES + 2) // 2
    return [
        Column("Controller and 3.3 V for the amplifiers", tuple(map(tuple, controller + power))),
        Column("Zone amplifiers and load cells", tuple(amp_groups[:half])),
        Column("More zones and the table mat", tuple(amp_groups[half:])),
        Column("Drop sensor: piezo and comparator", _pairs(drop)),
        Column(
            "LEDs: level shifter, own 5 V supply, 10 x 4 WS2812B",
            _pairs(led_refs + bulk) + _pairs(segments),
        ),
    ]


def _pairs(refs: list[str]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(refs[i : i + 2]) for i in range(0, len(refs), 2))


def _refs_of(ship: Ship, kind: parts.PartKind) -> list[str]:
    return [ref for ref, info in ship.info.items() if info.kind is kind]


def draw_sheet(ship: Ship, canvas: str = "svg") -> schemdraw.Drawing:
    """The whole sheet as one schemdraw Drawing on `canvas` ('svg' or 'matplotlib')."""
    sheet = schemdraw.Drawing(canvas=canvas, show=False)
    sheet.config(fontsize=12)
    x = 0.0
    top = 0.0
    bottom = 0.0
    for column in sheet_columns(ship):
        y = top - 1.5
        width = 0.0
        sheet.add(elm.Label().at((x, top)).label(column.title, halign="left", fontsize=16))
        for group in column.groups:
            group_x = x
            group_height = 0.0
            for ref in group[:2] if len(group) > 2 else group:
                group_x, height, w = _place(sheet, ship, ref, canvas, group_x, y)
                group_height = max(group_height, height)
            row_y = y - group_height - 0.4
            row_x = x
            for ref in group[2:]:
                row_x, height, _ = _place(sheet, ship, ref, canvas, row_x, row_y)
                group_height = max(group_height, y - row_y + height)
            width = max(width, group_x - x, row_x - x)
            y -= group_height + ITEM_GAP
        x += width + COLUMN_GAP
        bottom = min(bottom, y)
    # A frame round the sheet; it also gives the image room for the outermost net names.
    corners = [(-2.0, top + 3.0), (x, top + 3.0), (x, bottom), (-2.0, bottom), (-2.0, top + 3.0)]
    for start, end in zip(corners, corners[1:], strict=False):
        sheet.add(elm.Line().at(start).to(end).color("grey"))
    sheet.add(
        elm.Label()
        .at((0, top + 1.5))
        .label(
            "bosun ship: the circuit (generated from hardware/schematics/circuit.py;"
            " pins with the same blue net name are connected; X = deliberately open)",
            halign="left",
            fontsize=18,
        )
    )
    return sheet


def _place(sheet, ship: Ship, ref: str, canvas: str, x: float, y_top: float):
    """Draw part `ref` with its top-left corner at (x, y_top); return next x, height, width."""
    part_drawing = _draw_part(ship, ref, canvas)
    box = part_drawing.get_bbox()
    margin = _label_margin(ship, ref)
    sheet.add(elm.ElementDrawing(part_drawing).at((x + margin - box.xmin, y_top - box.ymax)))
    width = box.xmax - box.xmin + 2 * margin
    return x + width + 0.8, box.ymax - box.ymin, width


def _label_margin(ship: Ship, ref: str) -> float:
    """Room for the net names, which schemdraw does not count in a drawing's extent."""
    longest = max((len(n) for n in _pin_net(ship, ref).values() if n is not None), default=0)
    return 0.16 * longest + 0.3


def render_svg(ship: Ship) -> str:
    """The sheet as SVG text, with searchable <text> labels (not glyph paths)."""
    schemdraw.svgconfig.text = "text"  # would default to paths if ziamath were installed
    # ElementTree's prefixes are global: qrcode's SVG images register "svg", after which every
    # tag would come out as <svg:g> (a QR code made earlier in the process changed the file).
    ElementTree.register_namespace("", SVG_NAMESPACE)
    return draw_sheet(ship, "svg").get_imagedata("svg").decode("utf-8")


def render_png(ship: Ship) -> bytes:
    """The sheet as a PNG image (matplotlib backend)."""
    import matplotlib
    from PIL import Image

    matplotlib.use("Agg")
    rendered = draw_sheet(ship, "matplotlib").get_imagedata("png")
    # Black, grey, blue and white lines: a 16-colour palette keeps the file a quarter the size.
    image = Image.open(io.BytesIO(rendered)).convert("RGB").quantize(colors=16)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
