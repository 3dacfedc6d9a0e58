"""Offline detection of a trace file, shared by `bosun detect` and firmware/tools/detect.py.

Both commands call `detect_trace(lines, items, write)` so that CPython and MicroPython print
byte-identical events. The sample rate is taken from the trace's first two timestamps and
the table setting from which of its table columns are filled.
"""

from shipsense.detector import Detector
from shipsense.events import event_json
from shipsense.items import check_items
from shipsense.trace import read_trace, table_mode

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

DEFAULT_RATE_HZ = 80


def items_from_json(obj: object) -> "dict[str, float]":
    """A validated items table from a parsed ITEMS.json (ValueError naming the problem)."""
    return check_items(obj)


def detect_trace(
    lines: "Iterable[str | bytes]",
    items: "dict[str, float] | None",
    write: "Callable[[str], object]",
) -> int:
    """Run the detector over CSV `lines`, calling `write(text)` with each event's JSON line.

    Returns the number of samples read. Raises `shipsense.trace.TraceError` at the first bad
    line (events decided before it have been written already: detection is online).
    """
    rows = read_trace(lines)
    first = None
    for row in rows:
        first = row
        break
    if first is None:
        return 0
    second = None
    for row in rows:
        second = row
        break
    rate_hz: float = DEFAULT_RATE_HZ
    if second is not None:
        rate_hz = 1000.0 / (second[1] - first[1])
        if rate_hz > 2000:
            rate_hz = 2000
        elif rate_hz < 1:
            rate_hz = 1
    detector = Detector(rate_hz=rate_hz, table=table_mode(first[3], first[4]), items=items)
    count = 0
    for row in (first, second):
        if row is not None:
            count += 1
            for event in detector.feed(row[1], row[2], row[3], row[4]):
                write(event_json(event))
    for row in rows:
        count += 1
        for event in detector.feed(row[1], row[2], row[3], row[4]):
            write(event_json(event))
    return count
