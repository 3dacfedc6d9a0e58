"""The ship's circuit in skidl, with its netlist, drawing, BOM and wiring table.

Regenerate every artefact with `python -m hardware.schematics` (or `make schematics`).
"""
