"""Under MicroPython: microseconds per sample of the shipsense detector (the ESP32 proxy).

    micropython bench/detection/micropython_cost.py TRACE.csv ITEMS.json [ROWS]

Streams up to ROWS samples (default 14400) from the trace and times only the `feed` calls.
Prints one JSON line: {"samples": n, "us_per_sample": x, "worst_us": w, "events": m} (`worst_us`:
the slowest single sample, garbage collection included).
"""

import sys

_here = __file__.replace("\\", "/")
_folder = _here[: _here.rfind("/")] if "/" in _here else "."
sys.path.insert(0, _folder + "/../../firmware/lib")

import json  # noqa: E402
import time  # noqa: E402

from shipsense.offline import detector_for  # noqa: E402
from shipsense.trace import read_trace  # noqa: E402


def main(argv):
    limit = int(argv[3]) if len(argv) > 3 else 14400
    with open(argv[2]) as f:
        items = json.load(f)
    spent = 0
    worst = 0
    samples = 0
    events = 0
    with open(argv[1]) as f:
        rows = read_trace(f)
        # set up as `bosun detect` and the bench set one up (its rate and table)
        detector, head = detector_for(rows, items)
        if detector is None:
            raise SystemExit("no samples in " + argv[1])
        for row in chain(head, rows):
            t_ms, zones_g, table_g, impact = row[1:]
            start = time.ticks_us()
            events += len(detector.feed(t_ms, zones_g, table_g, impact))
            took = time.ticks_diff(time.ticks_us(), start)
            spent += took
            if took > worst:
                worst = took
            samples += 1
            if samples >= limit:
                break
    print(
        json.dumps(
            {
                "samples": samples,
                "us_per_sample": spent / samples,
                "worst_us": worst,
                "events": events,
            }
        )
    )


def chain(head, rest):
    """The rows read ahead, then the rest (MicroPython has no itertools)."""
    yield from head
    yield from rest


main(sys.argv)
