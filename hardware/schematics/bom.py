"""The bill of materials: one line per distinct part, with how many and an example order code."""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict

from .circuit import Ship

BOM_COLUMNS = (
    "part",
    "value",
    "quantity",
    "footprint",
    "example_order_code",
    "references",
    "description",
)
_PREFIX_ORDER = ("U", "LC", "PZ", "LED", "PS", "D", "RV", "R", "C")


def natural_key(ref: str) -> tuple[str, int]:
    """Sort key that puts U2 before U10."""
    match = re.fullmatch(r"([A-Za-z]+)(\d+)", ref)
    return (match.group(1), int(match.group(2))) if match else (ref, 0)


def ref_rank(ref: str) -> tuple[int, tuple[str, int]]:
    """Sort key: boards and chips first, then sensors, LEDs, supply, passives; U2 before U10."""
    prefix = natural_key(ref)[0]
    rank = _PREFIX_ORDER.index(prefix) if prefix in _PREFIX_ORDER else len(_PREFIX_ORDER)
    return (rank, natural_key(ref))


def bom_rows(ship: Ship) -> list[dict[str, str]]:
    """Group identical parts (kind, value, footprint, order code) into BOM lines."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for ref, info in ship.info.items():
        groups[(info.kind.name, info.value, info.footprint, info.order_code)].append(ref)

    rows = []
    for refs in sorted(groups.values(), key=lambda refs: ref_rank(min(refs, key=natural_key))):
        refs = sorted(refs, key=natural_key)
        info = ship.info[refs[0]]
        rows.append(
            {
                "part": info.kind.bom_part,
                "value": info.value,
                "quantity": str(len(refs)),
                "footprint": info.footprint,
                "example_order_code": info.order_code,
                "references": " ".join(refs),
                "description": info.kind.description,
            }
        )
    return rows


def bom_csv(ship: Ship) -> str:
    """The BOM as CSV text."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=BOM_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(bom_rows(ship))
    return out.getvalue()
