"""How fast and how far one referee process goes: ship event -> LED command, through mosquitto.

A `bosun run` process referees N tables (SQLite store, private mosquitto on loopback). This
process plays every table's ship: each table sends an event once a second at its own moment
(tables are independent), alternately a `leaving` (the referee answers at once with an LED
`fall` flash on `ship/cmd`) and a `stay`, and optionally streams raw samples at 80 SPS on
`ship/trace` (10 batches of 8 a second, spread over the tables the same way). The
time from publishing the event to receiving its LED command is the end-to-end latency:
decoding, validation, de-duplication, the store's transaction, the referee, publishing.

    .venv/bin/python -m bench.referee_load                    # latency at 1 table, then load
    .venv/bin/python -m bench.referee_load --tables 200 --trace
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import paho.mqtt.client as mqtt

from bosun.bus.broker import MosquittoBroker, free_port, wait_for_port
from bosun.bus.mqtt import send_without_delay

BOSUN = str(Path(sys.executable).parent / "bosun")


def tables_file(path: Path, count: int) -> None:
    lines = []
    for i in range(count):
        lines += [
            "[[table]]",
            f'id = "t{i}"',
            'players = [{ name = "ann", colour = "#e63946" },',
            '           { name = "bob", colour = "#2a9df4" }]',
            "",
        ]
    path.write_text("\n".join(lines))


class Ships:
    """Every table's ship on one MQTT connection; LED commands are timed on arrival."""

    def __init__(self, broker: MosquittoBroker, count: int) -> None:
        self.count = count
        self.sent: dict[tuple[int, int], float] = {}
        self.latencies_ms: list[float] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.on_message = self._on_command
        self.client.on_connect = lambda client, *_: send_without_delay(client)
        self.client.connect(broker.host, broker.port)
        self.client.subscribe("bosun/+/ship/cmd", qos=1)
        self.client.loop_start()
        self.seq = [0] * count
        for i in range(count):
            status = {"online": True, "fw": "bench", "boot": "bench"}
            self.client.publish(f"bosun/t{i}/ship/status", json.dumps(status), qos=1, retain=True)

    def _on_command(self, client, userdata, message) -> None:
        arrived = time.perf_counter()
        command = json.loads(message.payload)
        if command.get("cmd") != "led" or command.get("show") != "fall":
            return
        table = int(message.topic.split("/")[1][1:])
        with self.lock:
            pending = [key for key in self.sent if key[0] == table]
            if pending:
                key = min(pending)
                self.latencies_ms.append((arrived - self.sent.pop(key)) * 1000)

    def event(self, table: int, kind: str, grams: float) -> None:
        self.seq[table] += 1
        seq = self.seq[table]
        message = {
            "type": kind,
            "t_ms": seq * 500.0,
            "boot": "bench",
            "seq": seq,
            "grams": grams,
            "zones": [5],
        }
        if kind == "leaving":
            with self.lock:
                self.sent[(table, seq)] = time.perf_counter()
        self.client.publish(f"bosun/t{table}/ship/event", json.dumps(message), qos=1)

    def trace(self, table: int, t_ms: float) -> None:
        rows = [[t_ms + k * 12.5, *([0.1] * 10), 0.0, 0] for k in range(8)]
        self.client.publish(
            f"bosun/t{table}/ship/trace",
            json.dumps({"boot": "bench", "columns": [], "rows": rows}),
        )


def measure(count: int, seconds: float, with_trace: bool) -> dict:
    with tempfile.TemporaryDirectory() as scratch, MosquittoBroker() as broker:
        workdir = Path(scratch)
        tables_file(workdir / "bosun.toml", count)
        port = free_port()
        service = subprocess.Popen(
            [BOSUN, "run", "--mqtt", broker.url, "--port", str(port)],
            cwd=workdir,
            env={**os.environ, "BOSUN_OPERATOR_KEY": "bench"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert wait_for_port("127.0.0.1", port, 120, service), "the service did not start"
            ships = Ships(broker, count)
            deadline = time.monotonic() + 60
            while True:  # every table has seen its ship come online
                tables = httpx.get(f"http://127.0.0.1:{port}/api/tables", timeout=10).json()
                if all(t["ship_online"] for t in tables) or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            start = time.monotonic()
            tick = 0
            while time.monotonic() - start < seconds:
                # 100 ticks a second: each table sends its event once a second at its own
                # moment (tables are independent; a burst of all at once would measure the
                # burst), and with --trace streams a batch of samples ten times a second
                for table in range(tick % 100, count, 100):
                    kind = "leaving" if (tick // 100) % 2 == 0 else "stay"
                    ships.event(table, kind, 3.0)
                if with_trace:
                    for table in range(tick % 10, count, 10):
                        ships.trace(table, tick * 10.0)
                tick += 1
                time.sleep(max(0.0, start + tick * 0.01 - time.monotonic()))
            time.sleep(1.0)  # the last answers
            latencies = sorted(ships.latencies_ms)
            lost = len(ships.sent)
            ships.client.loop_stop()
        finally:
            service.terminate()
            service.wait(30)
    if not latencies:
        return {"tables": count, "trace": with_trace, "events": 0}
    return {
        "tables": count,
        "trace": with_trace,
        "events": len(latencies),
        "unanswered": lost,
        "p50_ms": round(statistics.median(latencies), 2),
        "p99_ms": round(latencies[int(0.99 * (len(latencies) - 1))], 2),
        "max_ms": round(latencies[-1], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="*", default=[1, 50, 100, 200, 300, 400])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--trace", action="store_true", help="only with the raw trace stream")
    parser.add_argument("--no-trace", action="store_true", help="only events")
    args = parser.parse_args()
    modes = [False, True]
    if args.trace:
        modes = [True]
    if args.no_trace:
        modes = [False]
    print(f"{'tables':>6} {'trace':>5} {'events':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}")
    for with_trace in modes:
        for count in args.tables:
            r = measure(count, args.seconds, with_trace)
            print(
                f"{r['tables']:>6} {('on' if with_trace else 'off'):>5} {r['events']:>7} "
                f"{r.get('p50_ms', '-'):>7} {r.get('p99_ms', '-'):>7} {r.get('max_ms', '-'):>7}"
                + (f"  ({r['unanswered']} unanswered)" if r.get("unanswered") else ""),
                flush=True,
            )


if __name__ == "__main__":
    main()
