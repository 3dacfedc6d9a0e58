"""The ship's circuit: ESP32, eleven HX711 boards on one clock, drop sensors, LEDs and power.

Power budget behind the choices below:
- Each HX711 board draws about 1.5 mA plus its bridge: a 1 kOhm cell at ~3.2 V excitation
  takes 3.2 mA, a 350 Ohm cell 9 mA. Eleven boards: 50-115 mA.
- The HX711 boards run at 3.3 V, so DOUT never exceeds the ESP32's 3.6 V limit whatever the
  board (the common green boards have a single VCC that is also the logic level).
- They get their own MCP1700 LDO from the DevKit's USB 5 V rather than the DevKit's 3V3:
  the ESP32's WiFi bursts (~240 mA peaks) ripple that rail, and the HX711's excitation and
  ADC reference are AVDD, so a quiet, lightly loaded rail is worth one TO-92 part. At 3.3 V
  the boards' AVDD regulators sit in dropout (E+ ~3.2 V); the reading stays ratiometric.
- 40 WS2812B LEDs draw up to 60 mA each at full white: 2.4 A, from their own 5 V 4 A supply.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from dataclasses import dataclass, field

from . import parts
from .parts import SKIDL_MESSAGES, skidl

ZONES = 10
LEDS_PER_ZONE = 4


@dataclass(frozen=True)
class PinMap:
    """ESP32 GPIO numbers for each signal; the same map as firmware/config.json `pins`."""

    hx711_sck: int
    hx711_dout: tuple[int, ...]  # zone 1..10
    mat_dout: int
    led_data: int
    piezo: int


# Binding for firmware and schematic alike (firmware/config.json). None is a strapping pin
# (0, 2, 5, 12, 15), a flash pin (6-11), the console (1, 3) or a PSRAM pin of WROVER modules
# (16, 17), so the same wiring works on a WROOM and a WROVER DevKitC. The eleven DOUT inputs
# take all eleven GPIOs left below 32, so one read of GPIO_IN_REG samples every amplifier
# on each clock pulse; the two outputs (SCK, LED data) go to GPIO32/33, which can drive
# (GPIO34-39 cannot); the piezo comparator uses input-only GPIO34.
SHIP_PINS = PinMap(
    hx711_sck=33,
    hx711_dout=(13, 14, 4, 23, 18, 19, 21, 22, 25, 26),
    mat_dout=27,
    led_data=32,
    piezo=34,
)

# Net names, in the shape of firmware/config.json `pins`: which net carries each signal.
FIRMWARE_PIN_NETS = {
    "hx711_sck": "HX711_SCK",
    "hx711_dout": [f"Z{zone}_DOUT" for zone in range(1, ZONES + 1)],
    "mat_dout": "MAT_DOUT",
    "led_data": "LED_DATA_3V3",
    "piezo": "PIEZO_TRIGGER",
}


@dataclass(frozen=True)
class Place:
    """Where on the table a part sits; wires run from a place to its parent place."""

    label: str
    parent: str | None


PLACES = {
    "base": Place("base board (beside the ship)", None),
    "mat": Place("table mat (edge of the mat plate)", "base"),
    "table": Place("under the table mat (piezo)", "base"),
    "hull": Place("hull (inside, under the deck)", "base"),
    "yard1": Place("lowest yard (zones 5-6)", "hull"),
    "yard2": Place("middle yard (zones 7-8)", "yard1"),
    "yard3": Place("top yard (zones 9-10)", "yard2"),
}


def zone_place(zone: int) -> str:
    """Where zone `zone` sits (RR1: 1-4 hull quarters; 5-6, 7-8, 9-10 the three yards)."""
    if not 1 <= zone <= ZONES:
        raise ValueError(f"zone must be 1..{ZONES}, got {zone}")
    return "hull" if zone <= 4 else f"yard{(zone - 3) // 2}"


def zone_name(zone: int) -> str:
    """A person's name for the spot of zone `zone`."""
    if zone <= 4:
        return f"zone {zone}, hull quarter {zone}"
    side = "left" if zone % 2 else "right"
    return f"zone {zone}, {PLACES[zone_place(zone)].label.split(' (')[0]} {side} half"


@dataclass(frozen=True)
class PartInfo:
    """What the BOM and the wiring table need about one placed part."""

    ref: str
    kind: parts.PartKind
    value: str
    footprint: str
    order_code: str
    role: str
    place: str  # a key of PLACES
    at: str | None = None  # ref of the part whose pins this one is soldered straight onto


@dataclass
class Ship:
    """The built circuit with each part's role and place."""

    circuit: object  # skidl.Circuit
    parts: dict[str, object] = field(default_factory=dict)  # ref -> skidl.Part
    info: dict[str, PartInfo] = field(default_factory=dict)

    def pin(self, ref: str, name: str):
        """The one pin named `name` on part `ref`."""
        matches = pins_named(self.parts[ref], name)
        if len(matches) != 1:
            raise KeyError(f"{ref} has {len(matches)} pins named {name!r}")
        return matches[0]


def pins_named(part, name: str) -> list:
    """Pins of `part` whose name is exactly `name` (skidl's own lookup treats names as regexes)."""
    return [pin for pin in part.pins if pin.name == name]


def check_pin_choices(pins: PinMap) -> None:
    """Raise ValueError naming the signal if a GPIO cannot do its job on a WROOM/WROVER DevKitC."""
    signals = [("hx711_sck", pins.hx711_sck, "output")]
    signals += [(f"hx711_dout[{i}]", gpio, "input") for i, gpio in enumerate(pins.hx711_dout)]
    signals += [
        ("mat_dout", pins.mat_dout, "input"),
        ("led_data", pins.led_data, "output"),
        ("piezo", pins.piezo, "input"),
    ]
    if len(pins.hx711_dout) != ZONES:
        raise ValueError(f"hx711_dout needs {ZONES} GPIOs (one a zone), got {len(pins.hx711_dout)}")
    seen: dict[int, str] = {}
    for signal, gpio, direction in signals:
        if f"GPIO{gpio}" not in parts.DEVKITC_HEADER:
            raise ValueError(f"{signal}: GPIO{gpio} is not on the DevKitC headers")
        if gpio in parts.FLASH_GPIOS:
            raise ValueError(f"{signal}: GPIO{gpio} is wired to the module's flash")
        if gpio in parts.STRAPPING_GPIOS:
            raise ValueError(f"{signal}: GPIO{gpio} is a strapping pin (sampled at reset)")
        if gpio in parts.CONSOLE_GPIOS:
            raise ValueError(f"{signal}: GPIO{gpio} is the USB serial console")
        if gpio in parts.PSRAM_GPIOS:
            raise ValueError(f"{signal}: GPIO{gpio} drives the PSRAM on WROVER modules")
        if direction == "output" and gpio in parts.INPUT_ONLY_GPIOS:
            raise ValueError(f"{signal}: GPIO{gpio} is input-only and cannot drive an output")
        if gpio in seen:
            raise ValueError(f"{signal}: GPIO{gpio} is already used by {seen[gpio]}")
        seen[gpio] = signal


class _Builder:
    """Places parts with stable references (U1, C7...) and records their role and place."""

    def __init__(self) -> None:
        circuit = skidl.Circuit()
        circuit.no_files = True  # the build writes the artefacts itself
        self.ship = Ship(circuit=circuit)
        self._counts: dict[str, int] = defaultdict(int)
        self._nets: dict[str, object] = {}

    def part(self, kind, role, place, *, value=None, order_code=None, footprint=None, at=None):
        self._counts[kind.ref_prefix] += 1
        ref = f"{kind.ref_prefix}{self._counts[kind.ref_prefix]}"
        value = value or kind.value
        footprint = footprint or kind.footprint
        order_code = order_code or kind.order_code
        part = kind.template()(ref=ref, tag=ref, value=value, footprint=footprint)
        part.description = kind.description
        part.fields["Role"] = role
        part.fields["Place"] = PLACES[place].label
        part.fields["Order code (example)"] = order_code
        self.ship.parts[ref] = part
        self.ship.info[ref] = PartInfo(ref, kind, value, footprint, order_code, role, place, at)
        return ref

    def resistor(self, value, role, place, at=None):
        return self.part(
            parts.RESISTOR, role, place, value=value, order_code=parts.RESISTOR_CODES[value], at=at
        )

    def capacitor(self, value, role, place, at=None):
        if value in parts.POLARISED_CODES:
            code, footprint = parts.POLARISED_CODES[value]
            kind = parts.CAPACITOR_POLARISED
            return self.part(
                kind, role, place, value=value, order_code=code, footprint=footprint, at=at
            )
        code = parts.CAPACITOR_CODES[value]
        return self.part(parts.CAPACITOR, role, place, value=value, order_code=code, at=at)

    def connect(self, net_name: str, *ends: tuple[str, str]) -> None:
        """Join (ref, pin name) ends on the net `net_name`, creating the net on first use."""
        if net_name not in self._nets:
            self._nets[net_name] = skidl.Net(net_name)
        net = self._nets[net_name]
        for ref, pin_name in ends:
            pins = pins_named(self.ship.parts[ref], pin_name)
            if not pins:
                raise KeyError(f"{ref} has no pin named {pin_name!r}")
            for pin in pins:
                net += pin

    def no_connect(self, ref: str, *pin_names: str) -> None:
        """Mark pins as deliberately unused, so the ERC knows they are not forgotten."""
        for pin_name in pin_names:
            for pin in pins_named(self.ship.parts[ref], pin_name):
                pin += self.ship.circuit.NC


def build_ship(pins: PinMap = SHIP_PINS) -> Ship:
    """Build the whole circuit (a fresh skidl Circuit each call)."""
    check_pin_choices(pins)
    builder = _Builder()
    with builder.ship.circuit:
        _build(builder, pins)
    return builder.ship


def _build(b: _Builder, pins: PinMap) -> None:
    esp = b.part(
        parts.ESP32_DEVKITC, "controller: reads the sensors, drives the LEDs, WiFi", "base"
    )
    used_gpios: set[str] = set()

    def esp_pin(number: int) -> tuple[str, str]:
        used_gpios.add(f"GPIO{number}")
        return (esp, f"GPIO{number}")

    # --- the HX711 boards: one per zone, all clocked by one SCK line ---------------------
    amplifiers: list[str] = []
    for zone in range(1, ZONES + 1):
        place = zone_place(zone)
        amp = b.part(parts.HX711_MODULE, f"{zone_name(zone)}: amplifier", place)
        cell = b.part(parts.ZONE_LOAD_CELL, f"{zone_name(zone)}: load cell", place)
        amplifiers.append(amp)
        _wire_amplifier(b, amp, cell, f"Z{zone}", place)
        b.connect(f"Z{zone}_DOUT", (amp, "DOUT"), esp_pin(pins.hx711_dout[zone - 1]))
    mat_amp = b.part(parts.HX711_MODULE, "table mat: amplifier", "mat")
    mat_cell = b.part(parts.MAT_LOAD_CELL, "table mat: load cell under the mat plate", "mat")
    _wire_amplifier(b, mat_amp, mat_cell, "MAT", "mat")
    b.connect("MAT_DOUT", (mat_amp, "DOUT"), esp_pin(pins.mat_dout))
    all_amps = amplifiers + [mat_amp]
    b.connect("HX711_SCK", esp_pin(pins.hx711_sck), *[(ref, "SCK") for ref in all_amps])

    # --- power -------------------------------------------------------------------------
    ldo = b.part(parts.MCP1700_TO92, "3.3 V for the HX711 boards (3V3_A)", "base")
    c_in = b.capacitor("1u", "LDO input capacitor", "base", at=ldo)
    c_out = b.capacitor(
        "1u", "LDO output capacitor (the MCP1700 needs >= 1 uF ceramic)", "base", at=ldo
    )
    b.connect("+5V_USB", (esp, "5V"), (ldo, "VIN"), (c_in, "1"))
    b.connect("+3V3_A", (ldo, "VOUT"), (c_out, "1"))
    b.connect("GND", (esp, "GND"), (ldo, "GND"), (c_in, "2"), (c_out, "2"))
    for amp in all_amps:
        # RATE high selects 80 SPS (HX711 datasheet); VDD = VCC keeps DOUT at 3.3 V.
        b.connect("+3V3_A", (amp, "VCC"), (amp, "VDD"), (amp, "RATE"))
        b.connect("GND", (amp, "GND"))

    # --- drop sensor: piezo -> bleed, series R, clamps -> comparator -> GPIO34 -----------
    piezo = b.part(parts.PIEZO_DISC, "drop sensor: feels pieces hitting the table", "table")
    bleed = b.resistor("1M", "piezo bleed: discharges the disc, holds 0 V at rest", "base")
    series = b.resistor("10k", "piezo series: limits clamp current on hard knocks", "base")
    clamp_low = b.part(parts.SCHOTTKY, "clamp: stops negative swings below -0.3 V", "base")
    clamp_high = b.part(parts.SCHOTTKY, "clamp: stops swings above the 3.3 V rail", "base")
    comparator = b.part(parts.LM393, "piezo comparator with adjustable threshold", "base")
    c_comparator = b.capacitor("100n", "LM393 decoupling", "base", at=comparator)
    threshold_top = b.resistor(
        "10k", "threshold divider top: keeps the threshold <= 1.65 V", "base"
    )
    trimmer = b.part(parts.TRIMMER, "threshold adjust, 0-1.65 V", "base")
    c_threshold = b.capacitor("100n", "threshold filter", "base", at=trimmer)
    pull_up = b.resistor("10k", "pull-up: GPIO34 has no internal pull resistors", "base")
    hysteresis = b.resistor("1M", "comparator hysteresis (~30 mV), against chatter", "base")
    b.connect("PIEZO_RAW", (piezo, "+"), (bleed, "1"), (series, "1"))
    b.connect("PIEZO_IN", (series, "2"), (clamp_low, "K"), (clamp_high, "A"))
    b.connect("PIEZO_IN", (comparator, "IN1+"), (hysteresis, "1"))
    b.connect("PIEZO_THRESHOLD", (trimmer, "W"), (comparator, "IN1-"), (c_threshold, "1"))
    b.connect("THRESHOLD_TOP", (threshold_top, "2"), (trimmer, "1"), (comparator, "IN2-"))
    b.connect("PIEZO_TRIGGER", (comparator, "OUT1"), (pull_up, "2"), (hysteresis, "2"))
    b.connect("PIEZO_TRIGGER", esp_pin(pins.piezo))
    b.connect("+3V3", (esp, "3V3"), (clamp_high, "K"), (comparator, "VCC"), (c_comparator, "1"))
    b.connect("+3V3", (threshold_top, "1"), (pull_up, "1"))
    b.connect("GND", (piezo, "-"), (bleed, "2"), (clamp_low, "A"), (comparator, "GND"))
    b.connect("GND", (c_comparator, "2"), (trimmer, "3"), (c_threshold, "2"))
    # The spare comparator: inputs held apart inside the common-mode range, output unused.
    b.connect("GND", (comparator, "IN2+"))
    b.no_connect(comparator, "OUT2")

    # --- LEDs: 74AHCT125 lifts GPIO32 to 5 V; ten 4-LED pieces in one chain ------------------
    supply = b.part(parts.LED_SUPPLY, "5 V for the LEDs and the level shifter", "base")
    shifter = b.part(parts.AHCT125, "3.3 V -> 5 V level shifter for the LED data", "base")
    c_shifter = b.capacitor("100n", "74AHCT125 decoupling", "base", at=shifter)
    data_pull_down = b.resistor(
        "10k", "LED data pull-down: strip stays dark while the ESP32 boots", "base"
    )
    data_series = b.resistor(
        "330", "LED data series resistor: damps ringing on the harness", "base", at=shifter
    )
    b.connect("LED_DATA_3V3", esp_pin(pins.led_data), (shifter, "1A"), (data_pull_down, "1"))
    b.connect("LED_DATA_5V", (shifter, "1Y"), (data_series, "1"))
    b.connect("GND", (shifter, "1OE"), (shifter, "GND"), (c_shifter, "2"), (data_pull_down, "2"))
    b.connect("+5V_LED", (supply, "+5V"), (shifter, "VCC"), (c_shifter, "1"))
    b.connect("GND", (supply, "0V"))
    # Unused buffers: inputs grounded, outputs disabled (OE high), as the datasheet advises.
    for unit in "234":
        b.connect("GND", (shifter, f"{unit}A"))
        b.connect("+5V_LED", (shifter, f"{unit}OE"))
        b.no_connect(shifter, f"{unit}Y")
    data_net = "LED_DIN_1"
    b.connect(data_net, (data_series, "2"))
    for zone in range(1, ZONES + 1):
        led = b.part(
            parts.LED_SEGMENT, f"{zone_name(zone)}: {LEDS_PER_ZONE} LEDs", zone_place(zone)
        )
        if zone == 1:
            bulk = b.capacitor(
                "1000u", "LED bulk capacitor at the strip's power input", "hull", at=led
            )
            b.connect("+5V_LED", (bulk, "+"))
            b.connect("GND", (bulk, "-"))
        b.connect(data_net, (led, "DIN"))
        b.connect("+5V_LED", (led, "+5V"))
        b.connect("GND", (led, "GND"))
        if zone < ZONES:
            data_net = f"LED_DIN_{zone + 1}"
            b.connect(data_net, (led, "DOUT"))
        else:
            b.no_connect(led, "DOUT")

    # Every DevKitC pin not used above is deliberately left open.
    gpios = [name for name in parts.DEVKITC_HEADER if name.startswith("GPIO")]
    spare = [name for name in gpios if name not in used_gpios] + ["EN"]
    b.no_connect(esp, *spare)


def _wire_amplifier(b: _Builder, amp: str, cell: str, prefix: str, place: str) -> None:
    """An HX711 board with its load cell on channel A and its 100 nF + 10 uF decoupling."""
    b.connect(f"{prefix}_EXC+", (amp, "E+"), (cell, "EXC+"))
    b.connect(f"{prefix}_EXC-", (amp, "E-"), (cell, "EXC-"))
    b.connect(f"{prefix}_SIG+", (amp, "A+"), (cell, "SIG+"))
    b.connect(f"{prefix}_SIG-", (amp, "A-"), (cell, "SIG-"))
    b.no_connect(amp, "B+", "B-")  # channel B unused: 128x gain on A only
    c_small = b.capacitor("100n", f"{prefix} amplifier decoupling", place, at=amp)
    c_bulk = b.capacitor("10u", f"{prefix} amplifier bulk decoupling", place, at=amp)
    b.connect("+3V3_A", (c_small, "1"), (c_bulk, "+"))
    b.connect("GND", (c_small, "2"), (c_bulk, "-"))


# --- checks and outputs ----------------------------------------------------------------------


@dataclass(frozen=True)
class ErcReport:
    """The outcome of skidl's electrical rules check."""

    errors: tuple[str, ...]
    warnings: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.errors


def run_erc(ship: Ship) -> ErcReport:
    """Run skidl's ERC on the circuit and collect its findings."""
    first = len(SKIDL_MESSAGES.records)
    ship.circuit.ERC()
    records = [r for r in SKIDL_MESSAGES.records[first:] if r.name == parts.erc_logger.name]
    del SKIDL_MESSAGES.records[first:]
    errors = tuple(r.getMessage() for r in records if r.levelno >= logging.ERROR)
    warnings = tuple(r.getMessage() for r in records if r.levelno == logging.WARNING)
    return ErcReport(errors=errors, warnings=warnings)


NETLIST_SOURCE = "hardware/schematics/circuit.py"


def kicad_netlist(ship: Ship) -> str:
    """The KiCad (8) netlist, reproducible: no wall-clock date, no caller path, no line numbers."""
    first = len(SKIDL_MESSAGES.records)
    text = ship.circuit.generate_netlist(tool=skidl.KICAD8, do_backup=False, track_src=False)
    problems = [
        r.getMessage() for r in SKIDL_MESSAGES.records[first:] if r.levelno >= logging.ERROR
    ]
    del SKIDL_MESSAGES.records[first:]
    if problems:
        raise RuntimeError("netlist generation failed: " + "; ".join(problems))
    text = re.sub(r'\(source "[^"]*"\)', f'(source "{NETLIST_SOURCE}")', str(text))
    text = re.sub(r'\(date "[^"]*"\)', '(date "")', text)
    return text if text.endswith("\n") else text + "\n"
