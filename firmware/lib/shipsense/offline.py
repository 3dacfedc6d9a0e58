"""Offline detection of a trace file, shared by `bosun detect` and firmware/tools/detect.py.

Both commands call `detect_trace(lines, items, write)` so that CPython and MicroPython print
byte-identical events. The sample rate comes from the mean interval of the trace's first 16
timestamps, the table setting from which of its table columns are filled (`detector_for`,
which bench/detection/micropython_cost.py uses too).
"""

from shipsense.detector import Detector
from shipsense.events import event_json
from shipsense.items import check_items
from shipsense.trace import read_trace, table_mode

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

DEFAULT_RATE_HZ = 80
RATE_SAMPLES = 16  # samples whose mean interval gives the trace's rate


def items_from_json(obj: object) -> "dict[str, float]":
    """A validated items table from a parsed ITEMS.json (ValueError naming the problem)."""
    return check_items(obj)


def rate_of(times_ms: "list[float]") -> float:
    """The sample rate (Hz) from the mean interval of a trace's first timestamps, within the
    detector's 1-2000 Hz (DEFAULT_RATE_HZ for a single sample)."""
    if len(times_ms) < 2:
        return DEFAULT_RATE_HZ
    span_ms = times_ms[-1] - times_ms[0]
    rate_hz = 1000.0 * (len(times_ms) - 1) / span_ms if span_ms > 0 else 2000
    if rate_hz > 2000:
        return 2000
    if rate_hz < 1:
        return 1
    return rate_hz


def detector_for(
    rows: "Iterator[tuple]", items: "dict[str, float] | None"
) -> "tuple[Detector | None, list[tuple]]":
    """(detector, head): a detector set up for a trace (its rate and table) from the first
    RATE_SAMPLES of `rows` (read_trace's iterator, which it advances), and those rows, not yet
    fed to it; (None, []) for a trace without samples."""
    # The rate from the mean interval of the first RATE_SAMPLES samples: a ship's clock ticks
    # in whole ms (80 SPS alternates 12 and 13 ms), so two samples alone can misread it.
    head = []
    for row in rows:
        head.append(row)
        if len(head) >= RATE_SAMPLES:
            break
    if not head:
        return None, head
    first = head[0]
    rate_hz = rate_of([row[1] for row in head])
    detector = Detector(rate_hz=rate_hz, table=table_mode(first[3], first[4]), items=items)
    return detector, head


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
    detector, head = detector_for(rows, items)
    if detector is None:
        return 0
    count = 0
    for row in head:
        count += 1
        for event in detector.feed(row[1], row[2], row[3], row[4]):
            write(event_json(event))
    for row in rows:
        count += 1
        for event in detector.feed(row[1], row[2], row[3], row[4]):
            write(event_json(event))
    return count
