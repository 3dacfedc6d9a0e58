"""The circuit as code: ERC, committed artefacts up to date, BOM and wiring table agree with it."""

from __future__ import annotations

import csv
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # hardware/ is a folder of the repository, not installed

from hardware.schematics import build, parts  # noqa: E402
from hardware.schematics.circuit import build_ship, run_erc  # noqa: E402
from hardware.schematics.netlist import read_netlist  # noqa: E402

SCHEMATICS = REPO / "hardware" / "schematics"


@pytest.fixture(scope="module")
def ship():
    return build_ship()


@pytest.fixture(scope="module")
def netlist():
    return read_netlist(SCHEMATICS / "ship.net")


def read_csv(name: str) -> list[dict[str, str]]:
    with open(SCHEMATICS / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_erc_passes_with_no_errors_and_no_warnings(ship):
    report = run_erc(ship)
    assert report.errors == ()
    assert report.warnings == ()


def test_erc_catches_two_hx711_outputs_shorted_together():
    shorted = build_ship()
    with shorted.circuit:
        net = shorted.pin("U2", "DOUT").net
        net += shorted.pin("U3", "DOUT")
    report = run_erc(shorted)
    assert any("OUTPUT connected to OUTPUT" in e and "U2" in e and "U3" in e for e in report.errors)


def test_erc_catches_the_amplifier_rail_losing_its_regulator():
    unpowered = build_ship()
    regulator = next(r for r, i in unpowered.info.items() if i.kind is parts.MCP1700_TO92)
    unpowered.pin(regulator, "VOUT").disconnect()
    report = run_erc(unpowered)
    starved = [w for w in report.warnings if "Insufficient drive" in w and "+3V3_A" in w]
    assert len(starved) >= 11 * 2  # VCC and VDD of every HX711 board


def test_committed_artefacts_match_a_fresh_generation(ship):
    fresh = build.text_artefacts(ship, run_erc(ship))
    stale = [
        path.name
        for path, text in fresh.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    assert stale == [], f"stale: {stale}; regenerate with `make schematics`\n" + "\n".join(
        _first_difference(path, fresh[path]) for path in fresh if path.name in stale
    )
    assert (SCHEMATICS / "ship.png").stat().st_size > 10_000


def test_a_qr_code_made_earlier_in_the_process_does_not_change_the_drawing(ship):
    # qrcode's SVG images register ElementTree's "svg" prefix for the whole process (the seat
    # pages make them); the drawing came out as <svg:svg> after one in the same test worker.
    import qrcode
    import qrcode.image.svg

    qrcode.make(
        "http://bosun.local/seat/x", image_factory=qrcode.image.svg.SvgPathImage
    ).to_string()
    fresh = build.text_artefacts(ship, run_erc(ship))
    (svg,) = [text for path, text in fresh.items() if path.suffix == ".svg"]
    assert svg.startswith("<svg ") and "<svg:" not in svg


def _first_difference(path: Path, text: str) -> str:
    """Where a fresh artefact first differs from the committed one; the fresh one is kept."""
    kept = Path("test-artifacts") / "schematics" / path.name
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(text, encoding="utf-8")
    old = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    new = text.splitlines()
    for n, (a, b) in enumerate(zip(old, new, strict=False), 1):
        if a != b:
            return f"{path.name}:{n}: committed {a[:160]!r}, fresh {b[:160]!r} (fresh: {kept})"
    return f"{path.name}: {len(old)} lines committed, {len(new)} fresh (fresh: {kept})"


def test_netlist_is_a_kicad_netlist_with_every_part_and_footprint(ship, netlist):
    assert set(netlist.components) == set(ship.parts)
    assert all(component.footprint for component in netlist.components.values())
    assert "HX711_SCK" in netlist.nets and "GND" in netlist.nets


def test_bom_quantities_match_the_parts_in_the_circuit(netlist):
    rows = read_csv("bom.csv")
    refs_in_bom = Counter()
    for row in rows:
        refs = row["references"].split()
        assert int(row["quantity"]) == len(refs), row
        assert row["example_order_code"], row
        for ref in refs:
            refs_in_bom[ref] += 1
            component = netlist.components[ref]
            assert (component.value, component.footprint) == (row["value"], row["footprint"])
    assert refs_in_bom == Counter(netlist.components.keys())  # every part once, nothing extra

    quantity = {(row["part"], row["value"]): int(row["quantity"]) for row in rows}
    assert quantity[("Load-cell amplifier board", "HX711")] == 10 + 1
    assert quantity[("Load cell, zone", "500 g")] == 10
    assert quantity[("Load cell, table mat", "5 kg")] == 1
    assert quantity[("LED strip piece", "WS2812B x4")] == 10  # 40 LEDs, 4 a zone
    assert quantity[("ESP32 board", "ESP32-DevKitC-32E")] == 1
    assert quantity[("Level shifter", "74AHCT125")] == 1
    assert quantity[("Comparator", "LM393")] == 1
    assert quantity[("Piezo disc", "7BB-27-4L0")] == 1
    assert quantity[("Power supply 5 V", "5 V 4 A")] == 1
    assert quantity[("Capacitor, electrolytic", "10u")] == 11
    assert quantity[("Capacitor, ceramic", "100n")] >= 11


def test_every_hx711_board_has_100n_and_10u_on_its_supply_from_the_ldo(ship, netlist):
    amplifiers = [r for r, c in netlist.components.items() if c.value == "HX711"]
    assert len(amplifiers) == 11
    vcc, gnd = (str(n) for n, name, _ in parts.HX711_MODULE.pins if name in ("VCC", "GND"))
    supply = netlist.nets[netlist.net_of(amplifiers[0], vcc)]
    drivers = [node for node in supply if node.pin_type == "POWER-OUT"]
    assert [netlist.components[d.ref].value for d in drivers] == ["MCP1700-3302E"]
    for amp in amplifiers:
        assert netlist.net_of(amp, vcc) == "+3V3_A" and netlist.net_of(amp, gnd) == "GND"
        local = [ref for ref, info in ship.info.items() if info.at == amp]
        assert sorted(netlist.components[ref].value for ref in local) == ["100n", "10u"]
        for ref in local:
            assert {netlist.net_of(ref, "1"), netlist.net_of(ref, "2")} == {"+3V3_A", "GND"}


def test_wiring_table_joins_exactly_the_pins_of_each_net(ship, netlist):
    rows = read_csv("wiring.csv")
    names = {(ref, str(pin.num)): pin.name for ref, part in ship.parts.items() for pin in part.pins}
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(end):
        parent.setdefault(end, end)
        while parent[end] != end:
            end = parent[end]
        return end

    for row in rows:
        a, b = (row["from_ref"], row["from_pad"]), (row["to_ref"], row["to_pad"])
        assert row["from_pin"].split(" ")[0] == names[a] and row["to_pin"].split(" ")[0] == names[b]
        assert netlist.net_of(*a) == netlist.net_of(*b) == row["net"], row
        assert row["colour"] and row["gauge"] and row["how"], row
        parent[root(a)] = root(b)
    for name, nodes in netlist.nets.items():
        if len(nodes) < 2:
            continue
        roots = {root((node.ref, node.pin)) for node in nodes}
        assert len(roots) == 1, f"net {name} is not fully wired in wiring.csv"
    assert [row["wire"] for row in rows] == [f"W{i}" for i in range(1, len(rows) + 1)]


def test_wiring_keeps_led_current_out_of_the_logic_ground(ship):
    rows = read_csv("wiring.csv")
    led_kinds = (parts.LED_SEGMENT, parts.LED_SUPPLY)
    led_refs = {ref for ref, info in ship.info.items() if info.kind in led_kinds}
    bulk = {ref for ref, info in ship.info.items() if info.at in led_refs}
    led_side = led_refs | bulk
    crossings = [
        row
        for row in rows
        if row["net"] == "GND" and ((row["from_ref"] in led_side) != (row["to_ref"] in led_side))
    ]
    assert len(crossings) == 1 and crossings[0]["how"].startswith("star point")


def test_drawing_names_every_part_and_every_net(ship, netlist):
    root = ET.parse(SCHEMATICS / "ship.svg").getroot()
    words = set()
    for text in root.iter():
        if text.text:
            words.update(text.text.split())
    assert set(netlist.components) <= words
    assert {name for name, nodes in netlist.nets.items()} <= words
