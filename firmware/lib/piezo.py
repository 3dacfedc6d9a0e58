"""The piezo drop sensor: a comparator pulse on an interrupt pin, timestamped in the IRQ.

The comparator output rises when something hits the table. The handler runs as a hard
IRQ: it only reads the clock and updates integers (no allocation is allowed there). A
piezo rings for tens of milliseconds after a hit, so edges within `debounce_ms` of the
last accepted one belong to the same impact. The sample loop calls `take()` once a sample.
"""

import time

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    import machine


class Piezo:
    """Counts debounced impacts; `last_ms` is the IRQ time of the latest."""

    def __init__(self, pin: "machine.Pin", debounce_ms: int, trigger: "int | None" = None) -> None:
        self.debounce_ms = debounce_ms
        self.hits = 0
        self.last_ms = time.ticks_add(time.ticks_ms(), -debounce_ms - 1)
        self._taken = 0
        if trigger is None:
            trigger = pin.IRQ_RISING
        try:
            pin.irq(handler=self._edge, trigger=trigger, hard=True)
        except TypeError:  # ports whose irq() has no `hard` keyword
            pin.irq(handler=self._edge, trigger=trigger)

    def _edge(self, pin: "machine.Pin") -> None:
        now = time.ticks_ms()
        if time.ticks_diff(now, self.last_ms) >= self.debounce_ms:
            self.last_ms = now
            self.hits += 1

    def take(self) -> int:
        """1 if an impact happened since the last call, else 0."""
        hits = self.hits
        if hits != self._taken:
            self._taken = hits
            return 1
        return 0
