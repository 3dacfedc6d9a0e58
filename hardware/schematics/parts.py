"""Part kinds defined pin by pin (no KiCad libraries needed), with what to order for each."""

from __future__ import annotations

import contextlib
import io
import logging
import tempfile
from dataclasses import dataclass, field


def _import_skidl_quietly():
    """Import skidl without the log files and KiCad-library warnings it emits on import.

    skidl opens `<script>.log` and `<script>.erc` in the working directory while it is being
    imported and warns that no KiCad symbol libraries are installed (we define every part
    ourselves). Importing inside a scratch directory keeps those files out of the tree, and
    two pytest workers importing at once cannot race on the same file.
    """
    with (
        tempfile.TemporaryDirectory(prefix="skidl-") as scratch,
        contextlib.chdir(scratch),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        import skidl
        from skidl.logger import stop_log_file_output

        stop_log_file_output()
    skidl.set_default_tool(skidl.SKIDL)
    return skidl


skidl = _import_skidl_quietly()
from skidl.logger import erc_logger, rt_logger  # noqa: E402  (needs the quiet import above)


class _MessageCollector(logging.Handler):
    """Keeps skidl's ERC and netlist messages for the build to report instead of printing them."""

    def __init__(self) -> None:
        super().__init__(level=logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


SKIDL_MESSAGES = _MessageCollector()
for _logger in (erc_logger, rt_logger):
    for _handler in list(_logger.handlers):
        _logger.removeHandler(_handler)
    _logger.addHandler(SKIDL_MESSAGES)

PIN = skidl.Pin.types
IN, OUT, BIDIR, TRI = PIN.INPUT, PIN.OUTPUT, PIN.BIDIR, PIN.TRISTATE
PWR_IN, PWR_OUT, PASSIVE, OPEN_COLLECTOR = PIN.PWRIN, PIN.PWROUT, PIN.PASSIVE, PIN.OPENCOLL


@dataclass(frozen=True)
class PartKind:
    """A kind of part: its pins (number, name, electrical type) and its default order data."""

    name: str
    ref_prefix: str
    pins: tuple[tuple[int, str, object], ...]
    footprint: str
    description: str
    value: str = ""
    order_code: str = ""
    silk: dict[str, str] = field(default_factory=dict)  # pin name -> what the board prints
    title: str = ""  # the BOM's name for it, when the kind's name is a schematic symbol name

    @property
    def bom_part(self) -> str:
        return self.title or self.name

    def template(self):
        """The skidl template part (created once per kind)."""
        return _template(self)


_TEMPLATES: dict[str, object] = {}


def _template(kind: PartKind):
    if kind.name not in _TEMPLATES:
        _TEMPLATES[kind.name] = skidl.Part(
            tool=skidl.SKIDL,
            name=kind.name,
            ref_prefix=kind.ref_prefix,
            dest=skidl.TEMPLATE,
            pins=[skidl.Pin(num=num, name=name, func=func) for num, name, func in kind.pins],
        )
    return _TEMPLATES[kind.name]


# --- The ESP32 board -------------------------------------------------------------------------
# ESP32-DevKitC V4 headers, numbered like KiCad's Module:ESP32-DEVKITC-32D footprint:
# pads 1-19 down the left header J1 (3V3 end first), pads 20-38 down the right header J3.
# GPIO34-39 have no output driver and no internal pull resistors: inputs only.
_DEVKITC_LEFT = [
    "3V3", "EN", "GPIO36", "GPIO39", "GPIO34", "GPIO35", "GPIO32", "GPIO33", "GPIO25",
    "GPIO26", "GPIO27", "GPIO14", "GPIO12", "GND", "GPIO13", "GPIO9", "GPIO10", "GPIO11", "5V",
]  # fmt: skip
_DEVKITC_RIGHT = [
    "GND", "GPIO23", "GPIO22", "GPIO1", "GPIO3", "GPIO21", "GND", "GPIO19", "GPIO18", "GPIO5",
    "GPIO17", "GPIO16", "GPIO4", "GPIO0", "GPIO2", "GPIO15", "GPIO8", "GPIO7", "GPIO6",
]  # fmt: skip
DEVKITC_HEADER = tuple(_DEVKITC_LEFT + _DEVKITC_RIGHT)  # index 0 is pad 1
INPUT_ONLY_GPIOS = frozenset({34, 35, 36, 39})
FLASH_GPIOS = frozenset({6, 7, 8, 9, 10, 11})  # wired to the module's SPI flash
STRAPPING_GPIOS = frozenset({0, 2, 5, 12, 15})  # sampled at reset: boot mode, flash voltage
CONSOLE_GPIOS = frozenset({1, 3})  # UART0: the USB serial console and the serial fallback
PSRAM_GPIOS = frozenset({16, 17})  # on WROVER modules (DevKitC-VE) wired to the PSRAM


def _devkitc_pin_type(name: str):
    if name == "3V3":
        return PWR_OUT  # the board's own 3.3 V regulator
    if name == "5V":
        # USB-powered: the pin carries VBUS out. Nothing else may feed it in this design.
        return PWR_OUT
    if name == "GND":
        return PWR_IN
    if name == "EN":
        return IN
    if int(name.removeprefix("GPIO")) in INPUT_ONLY_GPIOS:
        return IN
    return BIDIR


ESP32_DEVKITC = PartKind(
    name="ESP32-DevKitC",
    title="ESP32 board",
    ref_prefix="U",
    pins=tuple(
        (pad, name, _devkitc_pin_type(name)) for pad, name in enumerate(DEVKITC_HEADER, start=1)
    ),
    footprint="Module:ESP32-DEVKITC-32D",
    description=(
        "ESP32-DevKitC V4 with ESP32-WROOM-32E (4 MB flash, no PSRAM), 38 pins; runs MicroPython "
        "with the firmware frozen in (firmware/manifest.py). A DevKitC-VE (WROVER-E) fits the "
        "same wiring"
    ),
    value="ESP32-DevKitC-32E",
    order_code="Espressif ESP32-DEVKITC-32E (Mouser 356-ESP32-DEVKITC-32E)",
    silk={
        "GPIO36": "VP",
        "GPIO39": "VN",
        "GPIO1": "TX",
        "GPIO3": "RX",
        "GPIO9": "SD2",
        "GPIO10": "SD3",
        "GPIO11": "CMD",
        "GPIO8": "SD1",
        "GPIO7": "SD0",
        "GPIO6": "CLK",
    },  # fmt: skip
)

# --- Sensing ---------------------------------------------------------------------------------
HX711_MODULE = PartKind(
    name="HX711-module",
    title="Load-cell amplifier board",
    ref_prefix="U",
    pins=(
        (1, "VCC", PWR_IN),  # analog supply: the board's AVDD regulator and the bridge
        (2, "VDD", PWR_IN),  # digital supply, sets the DOUT/SCK logic level
        (3, "DOUT", OUT),
        (4, "SCK", IN),
        (5, "GND", PWR_IN),
        (6, "RATE", IN),  # chip pin 15: high = 80 SPS (see the build guide)
        (7, "E+", PWR_OUT),  # bridge excitation = AVDD, also the ADC reference
        (8, "E-", PASSIVE),
        (9, "A-", IN),
        (10, "A+", IN),
        (11, "B-", IN),
        (12, "B+", IN),
    ),
    footprint="bosun:HX711_Module_P2.54mm",
    description="HX711 24-bit load-cell ADC breakout; VCC and VDD both to 3V3_A",
    value="HX711",
    order_code="SparkFun SEN-13879",
    silk={
        "DOUT": "DT or DAT",
        "SCK": "SCK or CLK",
        "E+": "E+ or RED",
        "E-": "E- or BLK",
        "A-": "A- or WHT",
        "A+": "A+ or GRN",
    },
)

# Four-wire bridge; the leads' colours are the industry convention (check the cell's sheet).
LOAD_CELL_LEADS = {"EXC+": "red", "EXC-": "black", "SIG+": "green", "SIG-": "white"}
_LOAD_CELL_PINS = tuple(
    (num, name, PASSIVE) for num, name in enumerate(("EXC+", "EXC-", "SIG+", "SIG-"), start=1)
)
ZONE_LOAD_CELL = PartKind(
    name="LoadCell-500g",
    title="Load cell, zone",
    ref_prefix="LC",
    pins=_LOAD_CELL_PINS,
    footprint="bosun:LoadCell_TAL221_Bar_wire_leads",
    description="500 g straight-bar load cell (TAL221), 4-wire full bridge",
    value="500 g",
    order_code="SparkFun SEN-14728",
)
MAT_LOAD_CELL = PartKind(
    name="LoadCell-5kg",
    title="Load cell, table mat",
    ref_prefix="LC",
    pins=_LOAD_CELL_PINS,
    footprint="bosun:LoadCell_TAL220B_Bar_wire_leads",
    description="5 kg straight-bar load cell (TAL220B) under the table mat plate",
    value="5 kg",
    order_code="SparkFun SEN-14729",
)

PIEZO_DISC = PartKind(
    name="Piezo-disc",
    title="Piezo disc",
    ref_prefix="PZ",
    pins=((1, "+", PASSIVE), (2, "-", PASSIVE)),
    footprint="bosun:Piezo_Disc_27mm_wire_leads",
    description="27 mm piezo disc with leads (drop sensor under the table mat)",
    value="7BB-27-4L0",
    order_code="Murata 7BB-27-4L0",
)

LM393 = PartKind(
    name="LM393",
    title="Comparator",
    ref_prefix="U",
    pins=(
        (1, "OUT1", OPEN_COLLECTOR),
        (2, "IN1-", IN),
        (3, "IN1+", IN),
        (4, "GND", PWR_IN),
        (5, "IN2+", IN),
        (6, "IN2-", IN),
        (7, "OUT2", OPEN_COLLECTOR),
        (8, "VCC", PWR_IN),
    ),
    footprint="Package_DIP:DIP-8_W7.62mm",
    description="dual comparator, open-collector outputs, runs from 3.3 V",
    value="LM393",
    order_code="TI LM393P",
)

# --- Power and LEDs --------------------------------------------------------------------------
MCP1700_TO92 = PartKind(
    name="MCP1700-3.3",
    title="LDO regulator 3.3 V",
    ref_prefix="U",
    pins=((1, "GND", PWR_IN), (2, "VIN", PWR_IN), (3, "VOUT", PWR_OUT)),  # TO-92 pin order
    footprint="Package_TO_SOT_THT:TO-92_Inline",
    description="3.3 V 250 mA low-dropout regulator for the eleven HX711 boards",
    value="MCP1700-3302E",
    order_code="Microchip MCP1700-3302E/TO",
)

AHCT125 = PartKind(
    name="74AHCT125",
    title="Level shifter",
    ref_prefix="U",
    pins=(
        (1, "1OE", IN),  # output enables are active low
        (2, "1A", IN),
        (3, "1Y", TRI),
        (4, "2OE", IN),
        (5, "2A", IN),
        (6, "2Y", TRI),
        (7, "GND", PWR_IN),
        (8, "3Y", TRI),
        (9, "3A", IN),
        (10, "3OE", IN),
        (11, "4Y", TRI),
        (12, "4A", IN),
        (13, "4OE", IN),
        (14, "VCC", PWR_IN),
    ),
    footprint="Package_DIP:DIP-14_W7.62mm",
    description="quad buffer with TTL inputs at 5 V: lifts the 3.3 V LED data to 5 V",
    value="74AHCT125",
    order_code="TI SN74AHCT125N",
)

LED_SEGMENT = PartKind(
    name="WS2812B-strip-4",
    title="LED strip piece",
    ref_prefix="LED",
    pins=((1, "+5V", PWR_IN), (2, "DIN", IN), (3, "GND", PWR_IN), (4, "DOUT", OUT)),
    footprint="bosun:WS2812B_Strip_4LED_60perm",
    description="4 LEDs cut from a 60 LED/m WS2812B strip (one piece marks one zone)",
    value="WS2812B x4",
    order_code="Adafruit 1138 (1 m, 60 LED/m; cut into 10 pieces of 4)",
)

LED_SUPPLY = PartKind(
    name="PSU-5V-4A",
    title="Power supply 5 V",
    ref_prefix="PS",
    # The 0 V terminal is where the two supplies' grounds meet (the star point), so it is
    # the ground rail's single power output for the ERC.
    pins=((1, "+5V", PWR_OUT), (2, "0V", PWR_OUT)),
    footprint="bosun:PSU_Barrel_5.5x2.1mm_ScrewTerminal",
    description="5 V 4 A regulated supply for the LEDs, via a barrel-jack screw terminal",
    value="5 V 4 A",
    order_code="Adafruit 1466 (+ Adafruit 368 jack adapter)",
)

# --- Passives --------------------------------------------------------------------------------
RESISTOR = PartKind(
    name="R",
    title="Resistor",
    ref_prefix="R",
    pins=((1, "1", PASSIVE), (2, "2", PASSIVE)),
    footprint="Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
    description="metal film resistor, 1 %, 0.25 W",
)
TRIMMER = PartKind(
    name="R_Trim",
    title="Trimmer potentiometer",
    ref_prefix="RV",
    pins=((1, "1", PASSIVE), (2, "W", PASSIVE), (3, "3", PASSIVE)),
    footprint="Potentiometer_THT:Potentiometer_Bourns_3362P_Vertical",
    description="single-turn trimmer",
    value="10k",
    order_code="Bourns 3362P-1-103LF",
)
CAPACITOR = PartKind(
    name="C",
    title="Capacitor, ceramic",
    ref_prefix="C",
    pins=((1, "1", PASSIVE), (2, "2", PASSIVE)),
    footprint="Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P5.00mm",
    description="ceramic capacitor, X7R",
)
CAPACITOR_POLARISED = PartKind(
    name="CP",
    title="Capacitor, electrolytic",
    ref_prefix="C",
    pins=((1, "+", PASSIVE), (2, "-", PASSIVE)),
    footprint="Capacitor_THT:CP_Radial_D5.0mm_P2.00mm",
    description="aluminium electrolytic capacitor",
)
SCHOTTKY = PartKind(
    name="D_Schottky",
    title="Schottky diode",
    ref_prefix="D",
    pins=((1, "K", PASSIVE), (2, "A", PASSIVE)),
    footprint="Diode_THT:D_DO-35_SOD27_P7.62mm_Horizontal",
    description="small-signal Schottky diode, 30 V 200 mA",
    value="BAT85",
    order_code="Vishay BAT85-TAP",
)

# Values, order codes and footprints of the passives this design uses.
RESISTOR_CODES = {
    "330": "Yageo MFR-25FBF52-330R",
    "10k": "Yageo MFR-25FBF52-10K",
    "1M": "Yageo MFR-25FBF52-1M",
}
CAPACITOR_CODES = {
    "100n": "KEMET C320C104K5R5TA",
    "1u": "TDK FG28X7R1H105KRT06",
}
POLARISED_CODES = {
    "10u": ("Nichicon UVR1C100MDD", "Capacitor_THT:CP_Radial_D5.0mm_P2.00mm"),
    "1000u": ("Nichicon UVR1A102MPD", "Capacitor_THT:CP_Radial_D10.0mm_P5.00mm"),
}
