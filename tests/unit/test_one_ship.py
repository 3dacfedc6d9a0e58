"""One ship: production never uses the simulator, and the host has no second ship of its own.

The referee, the games, the store, the bus, the web and the Pi ship import nothing from
`bosun.sim` (nor from `bosun.demo` and `bosun.board`, which feed it to a ship): only the
simulator's own users do. And the virtual ship is the firmware's core
(`shipcore.core.ShipCore`), so no host module re-implements the ship's commands: the
calibration's steadiness rule and measuring constants exist once, in
firmware/lib/shipcore/commands.py.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bosun.demo import virtual_ship
from shipcore import commands as ship_commands
from shipcore.core import ShipCore

REPO = Path(__file__).resolve().parents[2]
HOST = REPO / "host" / "bosun"
PRODUCTION = ("referee", "games", "store", "bus", "web", "pi")
SIMULATION = ("bosun.sim", "bosun.demo", "bosun.board")
# The ship's command rules: defined in shipcore.commands and nowhere on the host.
SHIP_RULES = ("MEASURE_MS", "STEADY_G", "STEADY_FRACTION", "MIN_COUNTS_PER_G")


def _is_simulation(name: str) -> bool:
    return any(name == s or name.startswith(s + ".") for s in SIMULATION)


def simulation_imports(source: str, package: str) -> list[str]:
    """Every import of the simulator (or of its users) in `source`, wherever it sits (a
    function's lazy import too), as "line N: module"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the module's package
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = getattr(func, "attr", getattr(func, "id", ""))
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        found += [f"line {node.lineno}: {name}" for name in names if _is_simulation(name)]
    return found


def production_files() -> list[Path]:
    return sorted(p for folder in PRODUCTION for p in (HOST / folder).rglob("*.py"))


def test_the_scan_sees_every_kind_of_import():
    planted = (
        "import bosun.sim\n"
        "from bosun.sim.params import ShipParams\n"
        "def f():\n    from bosun import sim\n    from ..demo import runner\n"
        "importlib.import_module('bosun.board.analog')\n"
        "from bosun.simple import x\n"  # a different package that only starts alike
    )
    found = simulation_imports(planted, "bosun.web")
    assert [f.split(": ")[0] for f in found] == [
        "line 1",
        "line 2",
        "line 2",
        "line 4",
        "line 5",
        "line 5",
        "line 6",
    ], found


def test_production_modules_import_nothing_of_the_simulator():
    files = production_files()
    assert len(files) > 40 and HOST / "web" / "calibration.py" in files
    problems = []
    for path in files:
        package = ".".join(path.relative_to(HOST.parent).with_suffix("").parts[:-1])
        for found in simulation_imports(path.read_text(encoding="utf-8"), package):
            problems.append(f"{path.relative_to(REPO)} {found}")
    assert problems == []


def test_importing_all_of_production_loads_no_simulator_module():
    # Transitively too: a fresh interpreter imports every production module (but alembic's
    # migration scripts, which only alembic runs), then lists what got loaded.
    script = (
        "import importlib, json, pkgutil, sys\n"
        f"for name in {list(PRODUCTION)!r}:\n"
        "    package = importlib.import_module('bosun.' + name)\n"
        "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        if '.migrations' not in info.name:\n"
        "            importlib.import_module(info.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert "bosun.web.calibration" in loaded and "bosun.referee.riffraff" in loaded
    assert [name for name in loaded if _is_simulation(name)] == []


def test_the_virtual_ship_is_the_firmware_core():
    assert issubclass(virtual_ship.NodeCore, ShipCore)
    assert ShipCore.__module__ == "shipcore.core"
    assert Path(ship_commands.__file__).resolve() == (
        REPO / "firmware" / "lib" / "shipcore" / "commands.py"
    )
    assert not (HOST / "demo" / "ship_node.py").exists()


@pytest.mark.parametrize("rule", SHIP_RULES)
def test_the_ships_command_rules_are_defined_once(rule):
    assert hasattr(ship_commands, rule)
    copies = []
    for path in sorted(HOST.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == rule for t in node.targets
            ):
                copies.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert copies == []
