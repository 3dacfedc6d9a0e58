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

from shipsense.detector import Detector  # noqa: E402
from shipsense.trace import read_trace, table_mode  # noqa: E402


def main(argv):
    limit = int(argv[3]) if len(argv) > 3 else 14400
    with open(argv[2]) as f:
        items = json.load(f)
    detector = None
    spent = 0
    worst = 0
    samples = 0
    events = 0
    previous = None
    with open(argv[1]) as f:
        for row in read_trace(f):
            t_ms, zones_g, table_g, impact = row[1:]
            if detector is None:
                if previous is None:
                    previous = row[1:]
                    continue
                rate = 1000.0 / (t_ms - previous[0])
                mode = table_mode(previous[2], previous[3])
                detector = Detector(rate_hz=rate, table=mode, items=items)
                detector.feed(*previous)
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


main(sys.argv)
