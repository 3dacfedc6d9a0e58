"""How far Linux scheduling stretches an HX711 clock pulse driven from CPython (bosun.pi).

    nice -n 15 .venv/bin/python -m bench.pi_timing [--seconds 10] [--fifo]

The HX711 powers down when SCK stays high for more than 60 us; the firmware's driver
(shipcore.hx711, run by the Raspberry Pi ship) throws a train away when one of its pulses
was high for more than 50 us. On a Pi the high time is two gpiod calls (set_value ACTIVE,
set_value INACTIVE: an ioctl each) between two perf_counter_ns readings, and nothing stops
the kernel from preempting the process in between. This measures, on this machine:
1. busy-wait lateness: spin on time.perf_counter_ns() until a deadline 20 us ahead, how
   late the loop sees it (the scheduler's and the interpreter's jitter, no I/O);
2. pulse high times: trains of 25 pulses, each "high" being two real system calls (ioctl
   FIONREAD on a pipe, as cheap as the GPIO ioctl) measured as the driver measures them,
   with the garbage collector off during a train as bosun.pi's bus does;
and reports the percentiles, the longest, and how many trains would be thrown away (a pulse
over 50 us, or the whole train held up past a quarter of the 80 SPS period, after which
bosun.pi resets the amplifiers) or would have powered the amplifiers down (over 60 us).
--fifo asks for SCHED_FIFO first (needs CAP_SYS_NICE; said if refused).
"""

from __future__ import annotations

import argparse
import array
import fcntl
import gc
import json
import os
import termios
import time

PULSES = 25
DISCARD_US = 50
POWER_DOWN_US = 60
SLOW_TRAIN_US = 3125  # bosun.pi.lines.PiBus: a quarter of the 80 SPS period


def percentiles(values: list[int]) -> dict[str, float]:
    ordered = sorted(values)
    n = len(ordered)

    def at(q: float) -> float:
        return ordered[min(n - 1, int(q * n))] / 1000

    return {
        "p50_us": at(0.5),
        "p99_us": at(0.99),
        "p99_9_us": at(0.999),
        "p99_99_us": at(0.9999),
        "max_us": ordered[-1] / 1000,
    }


def busy_wait_lateness(seconds: float, ahead_ns: int = 20_000) -> dict:
    clock = time.perf_counter_ns
    late: list[int] = []
    end = clock() + int(seconds * 1e9)
    while True:
        deadline = clock() + ahead_ns
        if deadline > end:
            break
        now = clock()
        while now < deadline:
            now = clock()
        late.append(now - deadline)
    found = percentiles(late)
    found["waits"] = len(late)
    found["over_50_us"] = sum(1 for ns in late if ns > DISCARD_US * 1000)
    found["over_60_us"] = sum(1 for ns in late if ns > POWER_DOWN_US * 1000)
    return found


def pulse_trains(seconds: float) -> dict:
    clock = time.perf_counter_ns
    read_fd, write_fd = os.pipe()
    buf = array.array("i", [0])
    ioctl = fcntl.ioctl

    def line(_level: int) -> None:  # one GPIO set_value: an ioctl on a character device
        ioctl(read_fd, termios.FIONREAD, buf, True)

    highs: list[int] = []
    trains = discarded = powered_down = slow = 0
    end = clock() + int(seconds * 1e9)
    try:
        while clock() < end:
            longest = 0
            start = clock()
            gc.disable()
            try:
                for _ in range(PULSES):
                    t0 = clock()
                    line(1)
                    line(0)
                    high = clock() - t0
                    highs.append(high)
                    if high > longest:
                        longest = high
            finally:
                gc.enable()
            slow += clock() - start > SLOW_TRAIN_US * 1000
            trains += 1
            discarded += longest > DISCARD_US * 1000
            powered_down += longest > POWER_DOWN_US * 1000
            time.sleep(0.0005)  # the rest of the 12.5 ms period, shortened to get many trains
    finally:
        os.close(read_fd)
        os.close(write_fd)
    found = percentiles(highs)
    found.update(
        pulses=len(highs),
        trains=trains,
        trains_discarded=discarded,
        trains_powering_down=powered_down,
        trains_held_up=slow,
        discarded_per_hour_at_80_sps=round(discarded / trains * 80 * 3600, 1),
        powered_down_per_hour_at_80_sps=round(powered_down / trains * 80 * 3600, 1),
        held_up_per_hour_at_80_sps=round(slow / trains * 80 * 3600, 1),
    )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="each part (default 10)")
    parser.add_argument("--fifo", action="store_true", help="try SCHED_FIFO priority 50 first")
    args = parser.parse_args()
    results: dict = {"load_average": os.getloadavg(), "cpus": os.cpu_count()}
    if args.fifo:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
            results["scheduler"] = "SCHED_FIFO 50"
        except PermissionError as error:
            results["scheduler"] = f"SCHED_OTHER (SCHED_FIFO refused: {error.strerror})"
    else:
        results["scheduler"] = "SCHED_OTHER"
    results["busy_wait_20us"] = busy_wait_lateness(args.seconds)
    results["pulse_high"] = pulse_trains(args.seconds)
    results["load_average_after"] = os.getloadavg()
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
