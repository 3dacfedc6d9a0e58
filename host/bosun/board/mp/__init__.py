"""MicroPython-side modules of the virtual board (run under the unix port, not CPython)."""
