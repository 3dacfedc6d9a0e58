"""The virtual board: the ESP32 firmware, unmodified, in real MicroPython, fed by a virtual ship.

`VirtualBoard` (launcher.py) starts it; `ShipSource`, `RowsSource`, `StillSource`
(sources.py) say what its load cells feel; analog.py turns grams into HX711 counts;
micropython.py finds the interpreter and the firmware. The MicroPython-side modules (the
virtual `machine`, `neopixel`, `network`, the HX711 chip model) live in mp/.
"""

from bosun.board.launcher import BoardError, VirtualBoard
from bosun.board.micropython import MicroPythonMissing, find_micropython, run_micropython
from bosun.board.sources import RowsSource, ShipSource, StillSource

__all__ = [
    "BoardError",
    "MicroPythonMissing",
    "RowsSource",
    "ShipSource",
    "StillSource",
    "VirtualBoard",
    "find_micropython",
    "run_micropython",
]
