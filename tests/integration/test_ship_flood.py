"""One ship floods the real broker; the service keeps answering and stores only what the
table's rate admits (issue 14: 8,000 events a second once made `/api/tables` take 25 s and
stored 91,300 junk events for good).

The flood is valid events of the ship's own announced boot, numbered on (the costliest kind:
each admitted one is checked, ordered, refereed and stored), published at QoS 1 by
`mosquitto_pub -l` in its own process (the attacker is another machine: it must not share
the service's interpreter), fed at FLOOD_RATE lines a second. The test prints what it
measured: the rate the broker delivered, /api/tables' p99, what was stored, CPU and memory.
"""

from __future__ import annotations

import json
import resource
import subprocess
import threading
import time

import pytest
from conftest import require_executable
from support.polling import until
from support.service import RunningService, online_ship, service_options

from bosun.bus.ship_link import RATES
from bosun.tables import TableConfig, default_seats
from shipsense import protocol

TABLE = "t1"
FLOOD_RATE = 10_000  # messages a second
FLOOD_S = 10.0
P99_LIMIT_S = 0.100
POLL_EVERY_S = 0.02
FIRST_FLOOD_SEQ = 1000  # the test ship's own events stay below


def flood_lines(first_seq: int, count: int) -> bytes:
    lines = []
    for seq in range(first_seq, first_seq + count):
        event = {"type": "touch", "t_ms": float(seq), "boot": "b1", "seq": seq, "zone": 3}
        lines.append(json.dumps(event, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode()


def flood(host: str, port: int) -> tuple[int, float]:
    """Publish FLOOD_RATE events a second for FLOOD_S through mosquitto_pub; (sent, seconds)."""
    publisher = subprocess.Popen(
        [
            require_executable("mosquitto_pub", "apt-get install mosquitto-clients"),
            *("-h", host, "-p", str(port), "-q", "1", "-M", "1000", "-l"),
            *("-t", protocol.topic(TABLE, protocol.EVENT)),
        ],
        stdin=subprocess.PIPE,
    )
    tick_s = 0.05
    per_tick = int(FLOOD_RATE * tick_s)
    sent, seq, started = 0, FIRST_FLOOD_SEQ, time.monotonic()
    while (elapsed := time.monotonic() - started) < FLOOD_S:
        due = int(elapsed / tick_s) + 1
        while sent < due * per_tick:
            publisher.stdin.write(flood_lines(seq, per_tick))
            seq += per_tick
            sent += per_tick
        publisher.stdin.flush()
        time.sleep(max(0.0, due * tick_s - (time.monotonic() - started)))  # pacing the sender
    publisher.stdin.close()
    publisher.wait(30)
    return sent, time.monotonic() - started


@pytest.mark.alone  # a latency promise: measured with no other test beside it
@pytest.mark.timeout(120)
def test_a_flooding_ship_neither_slows_the_pages_nor_fills_the_store(mosquitto, tmp_path):
    table = TableConfig(id=TABLE, players=default_seats(["ann", "bob", "cy"]), settle_s=0)
    with (
        RunningService(service_options(mosquitto.url, tmp_path, [table])) as service,
        online_ship(service, mosquitto),
    ):
        store = service.service.store
        inbox = service.service.bus.inbox
        latencies_s: list[float] = []
        flooding = threading.Event()
        flooding.set()

        def poll_tables() -> None:
            while flooding.is_set():
                started = time.monotonic()
                assert service.http.get("/api/tables").status_code == 200
                latencies_s.append(time.monotonic() - started)
                time.sleep(POLL_EVERY_S)

        poller = threading.Thread(target=poll_tables)
        cpu_before_s, rss_before_kb = time.process_time(), _rss_kb()
        poller.start()
        started = time.monotonic()
        try:
            sent, flood_s = flood(mosquitto.host, mosquitto.port)
            # the flood is over once the broker has handed on all it kept for the service
            until(arrivals(inbox), lambda settled: settled)
        finally:
            flooding.clear()
            poller.join()
        received = inbox.delivered + inbox.dropped
        until_settled_s = time.monotonic() - started
        cpu_s = time.process_time() - cpu_before_s
        health = service.table(TABLE)["ship"]["health"]
        stored = service.call(
            lambda: [e.seq for e in store.entries(TABLE) if e.kind == "ship_event"]
        )
        answered_after = service.http.get("/api/tables").status_code

    from_flood = [seq for seq in stored if seq >= FIRST_FLOOD_SEQ]
    rate, burst = RATES[protocol.EVENT]
    admitted_at_most = burst + rate * until_settled_s + 1
    latencies_s.sort()
    p99_s = latencies_s[int(len(latencies_s) * 0.99) - 1]
    print(
        f"\nflood: {sent} events sent in {flood_s:.1f} s ({sent / flood_s:.0f}/s);"
        f" the broker handed the service {received} ({received / flood_s:.0f}/s), of which"
        f" its inbox dropped {inbox.dropped};"
        f" rate-limited {health['rate_limited']}, refused {health['refused']};"
        f" stored {len(from_flood)} (the rate admits at most {admitted_at_most:.0f});"
        f" /api/tables p99 {p99_s * 1000:.1f} ms, max {latencies_s[-1] * 1000:.1f} ms over"
        f" {len(latencies_s)} requests; CPU {cpu_s:.1f} s in {flood_s:.1f} s;"
        f" RSS {rss_before_kb // 1024} -> {_rss_kb() // 1024} MB"
        f" (peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB)"
    )
    assert sent >= FLOOD_RATE * FLOOD_S * 0.9  # the sender kept up with its pace
    assert health["rate_limited"] + health["queue_dropped"] >= received - admitted_at_most
    assert 0 < len(from_flood) <= admitted_at_most
    assert len(set(from_flood)) == len(from_flood)
    assert p99_s < P99_LIMIT_S
    assert answered_after == 200


def arrivals(inbox) -> callable:
    """A fetch for `until`: True once the inbox is empty and nothing arrived for 1 s."""
    seen = {"count": -1, "since": time.monotonic()}

    def settled() -> bool:
        count = inbox.delivered + inbox.dropped
        if count != seen["count"] or len(inbox):
            seen["count"], seen["since"] = count, time.monotonic()
            return False
        return time.monotonic() - seen["since"] >= 1.0

    return settled


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
