"""Runs at every boot of the ESP32 (and of the virtual board): start the ship's loop.

A file named `maintenance` on the flash keeps the loop (and its watchdog) from starting,
so that `make flash` can copy files at leisure; `make flash` removes it when done.
"""

import os

try:
    os.stat("maintenance")
    print("bosun: maintenance file present, the ship is not started (remove it and reset)")
except OSError:
    import ship

    ship.main()
