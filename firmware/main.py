"""Runs at every boot of the ESP32 (and of the virtual board): start the ship's loop.

A file named `maintenance` on the flash keeps the loop (and its watchdog) from starting,
so that `make flash` can copy files at leisure; `make flash` removes it when done.
"""

import os

try:
    os.stat("maintenance")
    print("bosun: maintenance file present, the ship is not started (remove it and reset)")
except OSError:
    try:
        import ship

        ship.main()
    except MemoryError:
        # Loaded from .mpy files the code alone needs ~93 KB of heap: a WROOM (no PSRAM) has
        # ~109 KB, too little with the ship's state. Say what to do, then fail as usual.
        print(
            "bosun: out of memory starting the ship. An ESP32 without PSRAM needs"
            " MicroPython with the firmware frozen in (firmware/manifest.py) or in a ROMFS"
            " partition (make flash ROMFS=1; README: Firmware)"
        )
        raise
