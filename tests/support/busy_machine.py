"""`make test-busy`: the whole suite, N times in a row, with a CPU-bound process beside it.

A café's laptop or a CI machine is rarely idle; the suite must hold there too. One process
spins on a core for as long as the runs last (as a busy neighbour would); each run is the
same pytest command as `make test`. Stops at the first failing run; prints each run's time.

    python tests/support/busy_machine.py --runs 3 -- .venv/bin/pytest -n 2
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

SPIN = "while True:\n    pass\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs in a row (default 3)")
    parser.add_argument("command", nargs="+", help="the test command, after --")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    busy = subprocess.Popen([sys.executable, "-c", SPIN])
    print(f"a CPU-bound process (pid {busy.pid}) runs beside the suite", flush=True)
    times: list[float] = []
    try:
        for run in range(1, args.runs + 1):
            print(f"run {run}/{args.runs}: {' '.join(args.command)}", flush=True)
            start = time.monotonic()
            code = subprocess.call(args.command)
            times.append(time.monotonic() - start)
            verdict = "passed" if code == 0 else f"FAILED (exit {code})"
            print(f"run {run}/{args.runs}: {verdict} in {_minutes(times[-1])}", flush=True)
            if code != 0:
                return code
    finally:
        busy.kill()
        busy.wait()
    print(
        f"{args.runs} runs in a row passed beside a busy process: "
        + ", ".join(_minutes(t) for t in times)
    )
    return 0


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:.0f} s"


if __name__ == "__main__":
    sys.exit(main())
