"""`make test`: the whole suite in two steps, so that latency promises measure bosun.

    python tests/support/suite.py [PYTEST_ARGS ...]

1. every test not marked `alone`, on two workers (`-n 2 --dist worksteal`: an idle worker
   takes half of the other's queue);
2. then the tests marked `alone`, by themselves. They promise a latency (a page under a
   flooding ship answers within 100 ms at p99). Beside the other worker's Chromium or its
   real-time MicroPython processes, such a figure measures the neighbour: the ship flood's
   page p99 is 11-15 ms alone, 18-20 ms beside a busy loop, and was 126-130 ms twice in ten
   fresh-clone runs beside the other worker.

The extra arguments go to both steps. A step that selects no test (pytest's exit status 5) is
not a failure; any other failure stops the suite with pytest's status.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

NO_TESTS = 5  # pytest: nothing was collected or everything was deselected


def main(argv: list[str]) -> int:
    pytest = str(Path(sys.executable).with_name("pytest"))
    steps = [
        [pytest, "-n", "2", "--dist", "worksteal", "-m", "not alone", *argv],
        [pytest, "-m", "alone", *argv],
    ]
    for step in steps:
        print(f"suite: {' '.join(step[1:])}", flush=True)
        code = subprocess.call(step)
        if code not in (0, NO_TESTS):
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
