"""How fast the virtual ship runs: microseconds a sample and times real time, per level and rate.

.venv/bin/python -m bench.sim_speed [--seconds 600]
"""

from __future__ import annotations

import argparse
import time

from bosun.sim import ShipParams, VirtualShip, random_session


def measure(level: str, rate: int, seconds: float, seed: int = 3) -> tuple[int, float]:
    ship = VirtualShip(ShipParams.draw(level, seed, rate_sps=rate, table="both"), seed)
    started = time.perf_counter()
    count = sum(1 for _ in random_session(ship, level, seconds, seed))
    return count, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="session length (600)")
    args = parser.parse_args()
    print(f"one virtual ship, random session of {args.seconds:g} s, table both")
    for level in ("normal", "hard"):
        for rate in (80, 10):
            count, elapsed = measure(level, rate, args.seconds)
            per_sample_us = elapsed * 1e6 / count
            print(
                f"{level:6} {rate:2} SPS: {count:6} samples in {elapsed:5.2f} s, "
                f"{per_sample_us:5.1f} us a sample, {args.seconds / elapsed:5.0f}x real time"
            )


if __name__ == "__main__":
    main()
