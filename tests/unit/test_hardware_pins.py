"""The schematic's ESP32 pins are the firmware's pins (firmware/config.json), and sound choices."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # hardware/ is a folder of the repository, not installed

from hardware.schematics import parts  # noqa: E402
from hardware.schematics.circuit import (  # noqa: E402
    FIRMWARE_PIN_NETS,
    SHIP_PINS,
    check_pin_choices,
)
from hardware.schematics.netlist import read_netlist  # noqa: E402

# ESP32-DevKitC V4 header pad of each GPIO (Espressif's pinout; KiCad's ESP32-DEVKITC-32D
# footprint numbers J1 as pads 1-19 and J3 as pads 20-38), kept here independently of
# parts.py so that a slip in the part model shows up as a mismatch.
DEVKITC_PAD_OF_GPIO = {
    36: 3, 39: 4, 34: 5, 35: 6, 32: 7, 33: 8, 25: 9, 26: 10, 27: 11, 14: 12, 12: 13, 13: 15,
    9: 16, 10: 17, 11: 18, 23: 21, 22: 22, 1: 23, 3: 24, 21: 25, 19: 27, 18: 28, 5: 29,
    17: 30, 16: 31, 4: 32, 0: 33, 2: 34, 15: 35, 8: 36, 7: 37, 6: 38,
}  # fmt: skip


@pytest.fixture(scope="module")
def netlist():
    return read_netlist(REPO / "hardware" / "schematics" / "ship.net")


@pytest.fixture(scope="module")
def config_pins():
    return json.loads((REPO / "firmware" / "config.json").read_text(encoding="utf-8"))["pins"]


def pin_number(kind: parts.PartKind, name: str) -> str:
    (number,) = [str(num) for num, pin_name, _ in kind.pins if pin_name == name]
    return number


def by_role(netlist, role: str) -> str:
    (ref,) = [r for r, c in netlist.components.items() if c.fields.get("Role") == role]
    return ref


def esp32_ref(netlist) -> str:
    (ref,) = [r for r, c in netlist.components.items() if c.value == "ESP32-DevKitC-32E"]
    return ref


def signals(config_pins):
    """(config key, GPIO, net name) for every pin in firmware/config.json."""
    for key, gpio in config_pins.items():
        assert key in FIRMWARE_PIN_NETS, f"config.json pins.{key} has no net in the schematic"
        nets = FIRMWARE_PIN_NETS[key]
        if isinstance(gpio, list):
            assert len(gpio) == len(nets), f"pins.{key}: {len(gpio)} GPIOs, {len(nets)} nets"
            for index, (one_gpio, net) in enumerate(zip(gpio, nets, strict=True)):
                yield f"{key}[{index}]", one_gpio, net
        else:
            yield key, gpio, nets


def test_every_config_pin_is_the_esp32_pin_on_its_net(netlist, config_pins):
    esp = esp32_ref(netlist)
    for signal, gpio, net in signals(config_pins):
        esp_pads = [node.pin for node in netlist.nets[net] if node.ref == esp]
        assert esp_pads == [str(DEVKITC_PAD_OF_GPIO[gpio])], f"{signal}: GPIO{gpio} not on {net}"
        assert parts.DEVKITC_HEADER[DEVKITC_PAD_OF_GPIO[gpio] - 1] == f"GPIO{gpio}"


def test_the_schematic_uses_no_esp32_gpio_the_firmware_does_not_know(netlist, config_pins):
    esp = esp32_ref(netlist)
    config_pads = {str(DEVKITC_PAD_OF_GPIO[gpio]) for _, gpio, _ in signals(config_pins)}
    gpio_pads = {str(pad) for pad in DEVKITC_PAD_OF_GPIO.values()}
    used = {node.pin for nodes in netlist.nets.values() for node in nodes if node.ref == esp}
    assert used & gpio_pads == config_pads


def test_each_config_pin_reaches_the_right_chip(netlist, config_pins):
    hx711_dout = pin_number(parts.HX711_MODULE, "DOUT")
    hx711_sck = pin_number(parts.HX711_MODULE, "SCK")
    nodes = {net: {(n.ref, n.pin) for n in found} for net, found in netlist.nets.items()}
    amplifiers = [r for r, c in netlist.components.items() if c.value == "HX711"]
    # one shared clock line for all ten zone boards and the mat's board
    assert {(amp, hx711_sck) for amp in amplifiers} <= nodes[FIRMWARE_PIN_NETS["hx711_sck"]]
    assert len(amplifiers) == 11
    for zone, net in enumerate(FIRMWARE_PIN_NETS["hx711_dout"], start=1):
        amp = by_role(netlist, f"zone {zone}, {_zone_spot(zone)}: amplifier")
        assert (amp, hx711_dout) in nodes[net]
    mat = by_role(netlist, "table mat: amplifier")
    assert (mat, hx711_dout) in nodes[FIRMWARE_PIN_NETS["mat_dout"]]
    shifter = next(r for r, c in netlist.components.items() if c.value == "74AHCT125")
    assert (shifter, pin_number(parts.AHCT125, "1A")) in nodes[FIRMWARE_PIN_NETS["led_data"]]
    comparator = next(r for r, c in netlist.components.items() if c.value == "LM393")
    assert (comparator, pin_number(parts.LM393, "OUT1")) in nodes[FIRMWARE_PIN_NETS["piezo"]]


def _zone_spot(zone: int) -> str:
    if zone <= 4:
        return f"hull quarter {zone}"
    yard = ("lowest", "middle", "top")[(zone - 5) // 2]
    return f"{yard} yard {'left' if zone % 2 else 'right'} half"


def test_the_schematic_pin_map_is_the_config_pin_map(config_pins):
    ours = dataclasses.asdict(SHIP_PINS)
    ours["hx711_dout"] = list(ours["hx711_dout"])
    assert ours == config_pins


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"hx711_dout": (6, 14, 4, 23, 18, 19, 21, 22, 25, 26)}, "flash"),
        ({"hx711_dout": (13, 14, 16, 17, 18, 19, 21, 22, 25, 26)}, "PSRAM on WROVER"),
        ({"mat_dout": 17}, "PSRAM on WROVER"),
        ({"mat_dout": 12}, "strapping"),
        ({"led_data": 2}, "strapping"),
        ({"hx711_sck": 35}, "input-only"),
        ({"led_data": 39}, "input-only"),
        ({"piezo": 1}, "console"),
        ({"mat_dout": 13}, "already used"),
        ({"piezo": 24}, "not on the DevKitC"),
        ({"hx711_dout": (13, 14)}, "one a zone"),
    ],
)
def test_unsound_pin_choices_are_refused_with_the_reason(change, complaint):
    with pytest.raises(ValueError, match=complaint):
        check_pin_choices(dataclasses.replace(SHIP_PINS, **change))


def test_the_chosen_pins_avoid_flash_strapping_console_and_psram_pins():
    check_pin_choices(SHIP_PINS)
    used = {SHIP_PINS.hx711_sck, SHIP_PINS.mat_dout, SHIP_PINS.led_data, SHIP_PINS.piezo}
    used |= set(SHIP_PINS.hx711_dout)
    avoid = parts.FLASH_GPIOS | parts.STRAPPING_GPIOS | parts.CONSOLE_GPIOS | parts.PSRAM_GPIOS
    assert not used & avoid  # so a WROOM and a WROVER DevKitC both take this wiring
    assert SHIP_PINS.piezo in parts.INPUT_ONLY_GPIOS  # GPIO34: input only, as the brief says


def test_every_amplifier_dout_is_in_gpio_in_reg_so_a_pulse_costs_one_read():
    douts = [*SHIP_PINS.hx711_dout, SHIP_PINS.mat_dout]
    assert all(0 <= gpio < 32 for gpio in douts), douts
