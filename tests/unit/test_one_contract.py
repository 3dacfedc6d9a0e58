"""Each fact both sides must agree on is defined once, in shipsense: no second copy drifts.

Topic names, wire limits, the table-id rule, the trace columns, the zones and docks and the
pieces' nominal grams live in `shipsense` (protocol.py, geometry.py, pieces.py), which the
ESP32 runs and the host imports. This scans every other module of the product (the host
package and the firmware outside shipsense) for a literal copy of any of them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from shipsense import geometry, pieces, protocol

REPO = Path(__file__).resolve().parents[2]
SHIPSENSE = REPO / "firmware" / "lib" / "shipsense"
PRODUCT = sorted(
    [*(REPO / "host" / "bosun").rglob("*.py"), *(REPO / "firmware").rglob("*.py")],
)
SOURCES = [path for path in PRODUCT if SHIPSENSE not in path.parents]

TOPIC_NAMES = tuple(protocol.DELIVERY) + (protocol.LINK_HELLO, protocol.LINK_ACK)
# Names of the contract's constants: a module-level literal under one of these names is a copy.
# (Topic constants are found by their values; VERSION is each file format's own, and
# TYPE_CHECKING every typed firmware module's: MicroPython has no typing module to import it from.)
CONTRACT_NAMES = {
    name
    for module in (protocol, geometry, pieces)
    for name, value in vars(module).items()
    if name.isupper() and not name.startswith("_") and value not in TOPIC_NAMES
} - {"VERSION", "TYPE_CHECKING"} | {
    "TOPIC_ROOT",
    "SHIP_SUBTOPICS",
    "CSV_HEADER",
    "TRACE_HEADER",
    "HEADER",
    "TABLE_ID",
}
ZONE_RANGE = re.compile(r"zone", re.IGNORECASE)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _is_literal(node: ast.AST) -> bool:
    """A value written out in place: a constant, a collection of them, range(...)/tuple(...)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(_is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(_is_literal(v) for v in node.values)
    if isinstance(node, ast.BinOp):
        return _is_literal(node.left) and _is_literal(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("range", "tuple", "frozenset") and all(
            _is_literal(a) for a in node.args
        )
    return False


def copies_in(path: Path) -> list[str]:
    """Every place in `path` where a fact of the contract is written out again."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    docstrings = _docstrings(tree)
    found = []

    def say(node: ast.AST, what: str) -> None:
        found.append(f"{path.relative_to(REPO)}:{node.lineno}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            text = node.value
            # (a sentence for people may name a topic; a topic itself has no spaces)
            topic_like = not any(c.isspace() for c in text)
            if topic_like and (any(n in text for n in TOPIC_NAMES) or text.startswith("bosun/")):
                say(node, f"a topic written out ({text!r}): use shipsense.protocol")
            if "a-z0-9" in text or "a-zA-Z0-9" in text:
                say(node, f"a table-id pattern ({text!r}): use shipsense.protocol")
            if text in ("z1", "z10") or "table_g,impact" in text:
                say(node, f"trace columns ({text!r}): use shipsense.protocol.TRACE_COLUMNS")
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if node.value is not None and _is_literal(node.value):
                for name in names:
                    if name in CONTRACT_NAMES:
                        say(node, f"{name} defined again: import it from shipsense")
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            numbers = [v for v in node.values if isinstance(v, ast.Constant)]
            if len(set(keys) & set(pieces.ITEMS)) >= 2 and len(numbers) == len(node.values):
                say(node, "pieces' grams written out: use shipsense.pieces.ITEM_GRAMS")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "range"
            and [getattr(a, "value", None) for a in node.args] in ([1, 11], [5, 11], [1, 5])
            and ZONE_RANGE.search(lines[node.lineno - 1])
        ):
            say(node, "zones written out as a range: use shipsense.geometry")
    return found


def test_the_scan_covers_the_host_and_the_firmware():
    names = {p.relative_to(REPO).as_posix() for p in SOURCES}
    assert "host/bosun/bus/mqtt.py" in names and "firmware/lib/shipcore/settings.py" in names
    assert not any(n.startswith("firmware/lib/shipsense/") for n in names)


@pytest.mark.parametrize(
    "copy",
    [
        'TOPIC = "bosun/t1/ship/event"',
        'topic = f"bosun/{table}/ship/cmd"',
        'TableId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_-]{0,31}$")]',
        "MAX_BOOT_ID = 64",
        'HEADER = "t_ms,z1,z2,z3,z4,z5,z6,z7,z8,z9,z10,table_g,impact"',
        "ZONES = tuple(range(1, 11))",
        "HARBOUR_DOCKS = (1, 2, 3, 4)",
        'grams = {"rat": 2.6, "boat": 11.8}',
        "BARREL_G = 2.2",
        "zones = list(range(1, 11))  # every zone",
    ],
)
def test_the_scan_finds_a_copy(tmp_path, copy):
    module = REPO / "host" / "bosun" / "_copy_under_test.py"
    try:
        module.write_text(copy + "\n", encoding="utf-8")
        assert copies_in(module), copy
    finally:
        module.unlink()


def test_no_fact_of_the_contract_is_defined_twice():
    found = [problem for path in SOURCES for problem in copies_in(path)]
    assert found == []


def test_the_table_id_rule_and_its_pattern_agree():
    assert protocol.TABLE_ID_CHARACTERS == protocol.TABLE_ID_FIRST + "_-"
    assert f"{{0,{protocol.MAX_TABLE_ID - 1}}}" in protocol.TABLE_ID_PATTERN
    pattern = re.compile(protocol.TABLE_ID_PATTERN)
    candidates = ["t1", "window", "a", "0-table", "cafe_3", "x" * 32, "x" * 33, ""]
    candidates += ["Window", "-t", "_t", "t 1", "t/1", "+", "#", "tä", "T1"]
    candidates += [f"t{c}" for c in map(chr, range(32, 127))]
    for table in candidates:
        try:
            protocol.check_table_id(table)
            valid = True
        except protocol.ProtocolError:
            valid = False
        assert valid == bool(pattern.fullmatch(table)), table
