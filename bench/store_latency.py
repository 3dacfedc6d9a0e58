"""How long the referee waits on the store: append latency (p50/p99) on SQLite and PostgreSQL.

    .venv/bin/python -m bench.store_latency                 # both databases
    .venv/bin/python -m bench.store_latency --only sqlite --appends 20000

The referee appends every ship event before acting on it, so an append is on the critical
path of every LED prompt. Measured: single keyed appends (a ship event), a duplicate
(a QoS1 redelivery), append_many of 5 (an event with its action and prompts), and the same
appends while another thread flushes raw 80 SPS traces of many tables every 100 ms.
PostgreSQL is a private cluster on loopback with fsync on (as in production).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bosun.store import Store

REPO = Path(__file__).resolve().parent.parent
EVENT = {
    "type": "place",
    "zone": 7,
    "grams": 11.8,
    "item": "boat",
    "t_ms": 1234,
    "decided_ms": 1301,
}


def percentiles(samples_s: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples_s)
    p50 = statistics.median(ms)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"p50 {p50:6.3f} ms  p99 {p99:6.3f} ms  max {ms[-1]:7.3f} ms  (n={len(ms)})"


def timed(calls: int, call) -> list[float]:
    took = []
    for n in range(calls):
        start = time.perf_counter()
        call(n)
        took.append(time.perf_counter() - start)
    return took


def trace_load(store: Store, tables: int, stop: threading.Event, flush_s: list[float]) -> None:
    """Every 100 ms, 8 samples (80 SPS) of every table in one append_traces commit."""
    t_ms = 0.0
    deadline = time.perf_counter()
    while not stop.is_set():
        batch = []
        for table in range(tables):
            rows = [[t_ms + 12.5 * k] + [100.0 + k] * 10 + [5.0, 0] for k in range(8)]
            batch.append({"table_id": f"t{table}", "boot": "b", "rows": rows, "at_ms": 1})
        start = time.perf_counter()
        store.append_traces(batch)
        flush_s.append(time.perf_counter() - start)
        t_ms += 100.0
        deadline += 0.1
        stop.wait(max(0.0, deadline - time.perf_counter()))


def measure(label: str, url: str, appends: int, tables: int) -> None:
    store = Store.open(url)
    table = "bench"
    print(f"\n{label}  ({store.url})", flush=True)
    seq = iter(range(10**9))
    timed(200, lambda n: store.append(table, "ship_event", EVENT, at_ms=n, boot="w", seq=next(seq)))
    took = timed(
        appends,
        lambda n: store.append(table, "ship_event", EVENT, at_ms=n, boot="b1", seq=n),
    )
    print(f"  append (keyed ship event)       {percentiles(took)}", flush=True)
    took = timed(
        appends // 4,
        lambda n: store.append(table, "ship_event", EVENT, at_ms=n, boot="b1", seq=n),
    )
    print(f"  append (duplicate, ignored)     {percentiles(took)}", flush=True)
    rows = [{"table_id": table, "kind": "prompt", "payload": EVENT, "at_ms": 1}] * 4
    took = timed(
        appends // 4,
        lambda n: store.append_many(
            [
                {
                    "table_id": table,
                    "kind": "ship_event",
                    "payload": EVENT,
                    "at_ms": n,
                    "boot": "b2",
                    "seq": n,
                },
                *rows,
            ]  # fmt: skip
        ),
    )
    print(f"  append_many (5 entries)         {percentiles(took)}", flush=True)

    stop = threading.Event()
    flush_s: list[float] = []
    loader = threading.Thread(target=trace_load, args=(store, tables, stop, flush_s))
    started = time.perf_counter()
    loader.start()
    took = timed(
        appends,
        lambda n: store.append(table, "ship_event", EVENT, at_ms=n, boot="b3", seq=n),
    )
    stop.set()
    loader.join()
    rate = len(flush_s) * tables * 8 / (time.perf_counter() - started)
    print(
        f"  append with {tables} tables' traces  {percentiles(took)}\n"
        f"  trace flush ({tables} x 8 samples) {percentiles(flush_s)}\n"
        f"      (traces written meanwhile: {rate:,.0f} samples/s; {tables} tables at 80 SPS "
        f"need {tables * 80:,})",
        flush=True,
    )
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    parser.add_argument("--appends", type=int, default=5000, help="appends a measurement")
    parser.add_argument("--tables", type=int, default=200, help="tables streaming raw traces")
    args = parser.parse_args()
    if args.only != "postgresql":
        with tempfile.TemporaryDirectory(prefix="bosun-bench-", dir="/var/tmp") as folder:
            measure(
                "SQLite (WAL, synchronous=NORMAL)",
                f"sqlite:///{folder}/bench.db",
                args.appends,
                args.tables,
            )
    if args.only != "sqlite":
        sys.path.insert(0, str(REPO / "tests"))
        from postgres_server import PostgresCluster, find_postgres_bin

        bin_dir = find_postgres_bin()
        if bin_dir is None:
            print(
                "PostgreSQL is not installed (Debian: apt-get install postgresql)", file=sys.stderr
            )
            return 1
        cluster = PostgresCluster(bin_dir, durable=True).start()
        try:
            measure(
                "PostgreSQL (private cluster, fsync on)",
                cluster.new_database(),
                args.appends,
                args.tables,
            )
        finally:
            cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
