"""Regenerate the ship's netlist, drawing, BOM, wiring table and ERC report from the circuit.

python -m hardware.schematics            # write every artefact next to this file
python -m hardware.schematics --check    # only say which committed artefacts are stale
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .bom import bom_csv
from .circuit import ErcReport, Ship, build_ship, kicad_netlist, run_erc
from .drawing import render_png, render_svg
from .wiring import wiring_csv

HERE = Path(__file__).resolve().parent
NETLIST = HERE / "ship.net"
DRAWING_SVG = HERE / "ship.svg"
DRAWING_PNG = HERE / "ship.png"
BOM = HERE / "bom.csv"
WIRING = HERE / "wiring.csv"
ERC_REPORT = HERE / "erc.txt"


def erc_text(report: ErcReport) -> str:
    """The ERC outcome as the committed erc.txt."""
    lines = [
        "skidl ERC of hardware/schematics/circuit.py",
        f"errors: {len(report.errors)}",
        f"warnings: {len(report.warnings)}",
    ]
    lines += [f"ERROR: {message}" for message in report.errors]
    lines += [f"WARNING: {message}" for message in report.warnings]
    return "\n".join(lines) + "\n"


def text_artefacts(ship: Ship, report: ErcReport) -> dict[Path, str]:
    """Every text artefact, generated fresh (these are reproducible byte for byte)."""
    return {
        NETLIST: kicad_netlist(ship),
        DRAWING_SVG: render_svg(ship),
        BOM: bom_csv(ship),
        WIRING: wiring_csv(ship),
        ERC_REPORT: erc_text(report),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hardware.schematics",
        description="Regenerate the ship's netlist, drawing, BOM, wiring table and ERC report.",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if an artefact is stale"
    )
    parser.add_argument("--no-png", action="store_true", help="skip the PNG (the slow part)")
    args = parser.parse_args(argv)

    started = time.monotonic()
    ship = build_ship()
    nets = len([net for net in ship.circuit.get_nets() if net.pins])
    print(f"circuit: {len(ship.parts)} parts, {nets} nets")
    report = run_erc(ship)
    print(f"ERC: {len(report.errors)} errors, {len(report.warnings)} warnings")
    for message in report.errors + report.warnings:
        print(f"  {message}")
    if not report.passed:
        print("ERC failed: nothing written", file=sys.stderr)
        return 1

    artefacts = text_artefacts(ship, report)
    if args.check:
        stale = [
            path.name
            for path, text in artefacts.items()
            if not path.exists() or path.read_text(encoding="utf-8") != text
        ]
        if stale:
            print(f"stale: {', '.join(stale)} (run: make schematics)", file=sys.stderr)
            return 1
        print("all artefacts match the circuit")
        return 0

    for path, text in artefacts.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(HERE.parent.parent)} ({len(text.encode()) // 1024} kB)")
    if not args.no_png:
        png = render_png(ship)
        DRAWING_PNG.write_bytes(png)
        print(f"wrote {DRAWING_PNG.relative_to(HERE.parent.parent)} ({len(png) // 1024} kB)")
    print(f"done in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
