"""Failover time of a cluster's referees: kill -9 the one refereeing a table, again and again.

    .venv/bin/python -m bench.cluster_failover              # 10 kills, 2 referees
    .venv/bin/python -m bench.cluster_failover --kills 20 --referees 3

A private NATS server (JetStream, MQTT listener) and a private PostgreSQL (fsync on, as in
production), `--referees` `bosun run --cluster` processes and one ship on NATS's MQTT
listener. Each round kills the referee holding the table (kill -9), starts it again (so the
count stays), and measures from the kill:
- taken: another referee holds the table (its lease's epoch moved on);
- served: that referee's API serves the table (its game rebuilt from the log);
- LED: the ship has the new referee's first LED prompt (prompts resume).
"""

from __future__ import annotations

import argparse
import os
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psycopg

REPO = Path(__file__).resolve().parent.parent
BOSUN = str(Path(sys.executable).parent / "bosun")
CEILING_S = 60.0
TABLES = """
[[table]]
id = "t1"
settle_s = 0
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" }]
"""


def until(fetch, condition, timeout_s: float = CEILING_S, poll_s: float = 0.005):
    deadline = time.monotonic() + timeout_s
    while True:
        value = fetch()
        if condition(value):
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"not within {timeout_s} s; last {value!r:.300}")
        time.sleep(poll_s)


def lease(db_url: str) -> tuple[str, int] | None:
    with psycopg.connect(db_url) as conn:
        found = conn.execute("SELECT owner, epoch FROM bosun_leases WHERE table_id = 't1'")
        row = found.fetchone()
    return (row[0], row[1]) if row else None


def start_referee(workdir: Path, nats_url: str, db_url: str, port: int) -> subprocess.Popen:
    from bosun.bus.broker import wait_for_port

    env = {**os.environ, "BOSUN_OPERATOR_KEY": "operator-secret"}
    process = subprocess.Popen(
        [
            BOSUN,
            "run",
            "--cluster",
            nats_url,
            "--cluster-password-file",
            str(workdir / "nats-password"),
            "--db",
            db_url,
            "--port",
            str(port),
        ],  # fmt: skip
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if not wait_for_port("127.0.0.1", port, CEILING_S, process):
        raise RuntimeError("a referee did not start")
    return process


def served(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/api/tables/t1", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def figures(name: str, samples_s: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples_s)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (
        f"{name:8s} p50 {statistics.median(ms):7.0f} ms  p99 {p99:7.0f} ms  "
        f"max {ms[-1]:7.0f} ms  (n={len(ms)})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--referees", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "tests"))
    from nats_server import NatsServer, find_nats_server
    from postgres_server import PostgresCluster, find_postgres_bin
    from support.service import BrokerShip

    from bosun.bus.broker import free_port

    executable, bin_dir = find_nats_server(), find_postgres_bin()
    if executable is None or bin_dir is None:
        print("needs nats-server and PostgreSQL (Debian: apt-get install nats-server postgresql)")
        return 1
    workdir = Path(tempfile.mkdtemp(prefix="bosun-failover-"))
    nats = NatsServer(executable, workdir / "nats").start()
    postgres = PostgresCluster(bin_dir, durable=True).start()
    referees: dict[int, subprocess.Popen] = {}
    ship = None
    taken, served_s, led = [], [], []
    try:
        db_url = postgres.new_database()
        (workdir / "bosun.toml").write_text(TABLES)
        (workdir / "nats-password").write_text(nats.referee[1] + "\n")
        for _ in range(args.referees):
            port = free_port()
            referees[port] = start_referee(workdir, nats.url, db_url, port)
        ship = BrokerShip(nats.host, nats.mqtt_port, "t1", login=nats.ship)
        for kill in range(args.kills):
            owner_name, epoch = until(lambda: lease(db_url), lambda found: found is not None)
            port = next(p for p, r in referees.items() if owner_name.endswith(f":{r.pid}"))
            until(lambda port=port: served(port), bool)
            while not ship.commands.empty():
                ship.commands.get_nowait()
            killed_at = time.monotonic()
            referees[port].send_signal(signal.SIGKILL)
            referees[port].wait()
            until(lambda: lease(db_url), lambda found, epoch=epoch: found[1] > epoch)
            taken.append(time.monotonic() - killed_at)
            new_owner = lease(db_url)[0]
            new_port = next(p for p, r in referees.items() if new_owner.endswith(f":{r.pid}"))
            until(lambda new_port=new_port: served(new_port), bool)
            served_s.append(time.monotonic() - killed_at)
            try:
                ship.next_led(CEILING_S)
                led.append(time.monotonic() - killed_at)
            except queue.Empty:
                print(f"kill {kill + 1}: no LED prompt within {CEILING_S} s")
            referees[port] = start_referee(workdir, nats.url, db_url, port)
            print(f"kill {kill + 1}: taken over in {taken[-1] * 1000:.0f} ms", flush=True)
    finally:
        if ship is not None:
            ship.close()
        for process in referees.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(CEILING_S)
        nats.close()
        postgres.stop()
    print(f"failover of one table, {args.referees} referees, {args.kills} kills -9:")
    for name, samples in (("taken", taken), ("served", served_s), ("LED", led)):
        if samples:
            print("  " + figures(name, samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
