"""The hardware watchdog: resets the ship if the sample loop stops feeding it.

Once started on the ESP32 it cannot be stopped, so it is started only when the loop begins
(after config and calibration are read). Ports without `machine.WDT` get a stand-in that
does nothing, and the status says so.
"""

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    import machine


class Watchdog:
    """`feed()` at least every `timeout_ms`; `hardware` says whether a real one is running."""

    def __init__(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms
        self._wdt: machine.WDT | None = None
        try:
            from machine import WDT

            self._wdt = WDT(timeout=timeout_ms)
        except (ImportError, AttributeError, ValueError, OSError):
            pass
        self.hardware = self._wdt is not None

    def feed(self) -> None:
        if self._wdt is not None:
            self._wdt.feed()
