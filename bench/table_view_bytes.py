"""What a table view's live stream costs on the wire: bytes an hour and updates a second.

Runs `bosun run --demo 1` (a virtual Riff Raff ship, bots playing in real time, its own
private broker and a fresh store) and listens to `/api/tables/demo-1/stream` twice at once,
as the players' table view (or the TV) and as the operator's (with the key: the ship's
grams). A stream opens with a whole snapshot and then sends only what changed (JSON Patch,
`patch` events); the players' leaves the grams out and is quiet while only they change.
Every update is also rebuilt into its whole snapshot here: the operator's stream, which
hears every change, gives what sending the whole snapshot at every change cost before
("whole snapshots"). The rebuilt snapshots are checked against a fresh load at the end.

    .venv/bin/python -m bench.table_view_bytes              # 120 s
    .venv/bin/python -m bench.table_view_bytes --seconds 600
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from bosun.bus.broker import free_port, wait_for_port
from bosun.web.patches import apply_patch, make_patch

BOSUN = str(Path(sys.executable).parent / "bosun")


def sse_event(name: str, data: str) -> int:
    """Bytes of one server-sent event as the server frames it (sse_starlette, CRLF)."""
    return len(f"event: {name}\r\ndata: {data}\r\n\r\n".encode())


def shown(snapshot: dict) -> dict:
    """What to compare with a fresh load: not the clock, not the ship's moving readings."""
    return {k: v for k, v in snapshot.items() if k not in ("now_ms", "ship")}


def listen(url: str, seconds: float, key: dict | None = None) -> dict:
    sent = whole = events = patches = 0
    snapshot: dict = {}
    cpu_s = 0.0  # making each patch again here: what the service spends on it
    figures: dict = {}
    started = time.monotonic()
    with (
        httpx.Client(timeout=60) as http,
        http.stream("GET", url + "/api/tables/demo-1/stream", params=key) as stream,
    ):
        name = None
        for line in stream.iter_lines():
            sent += len(line.encode()) + 2
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:") and name in ("snapshot", "patch"):
                data = line[5:].strip()
                if name == "snapshot":
                    snapshot = json.loads(data)
                else:
                    before = snapshot
                    snapshot = apply_patch(snapshot, json.loads(data))
                    patches += 1
                    t0 = time.perf_counter()
                    json.dumps(make_patch(before, snapshot))
                    cpu_s += time.perf_counter() - t0
                events += 1
                whole += sse_event("snapshot", json.dumps(snapshot))
            if figures:  # after the window: until the rebuilt snapshot meets a fresh load
                fresh = http.get(url + "/api/tables/demo-1").json()
                late = time.monotonic() - started > seconds + 60
                if shown(fresh) == shown(snapshot) or late:
                    figures["rebuilt_equals_fresh_load"] = shown(fresh) == shown(snapshot)
                    figures["games_started"] = sum(
                        f["text"].startswith("new game") for f in snapshot["feed"]
                    )
                    figures["last_line"] = snapshot["feed"][-1]["text"] if snapshot["feed"] else ""
                    return figures
            elapsed = time.monotonic() - started
            if not figures and elapsed > seconds:
                figures = {
                    "seconds": round(elapsed, 1),
                    "updates": events,
                    "patches": patches,
                    "updates_per_s": round(events / elapsed, 2),
                    "bytes_per_hour_whole_snapshots": round(whole / elapsed * 3600),
                    "bytes_per_hour_patches": round(sent / elapsed * 3600),
                    "mean_update_bytes_whole": round(whole / max(events, 1)),
                    "mean_update_bytes_patches": round(sent / max(events, 1)),
                    "patch_cpu_ms_mean": round(cpu_s * 1000 / max(patches, 1), 3),
                }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    args = parser.parse_args()
    port = free_port()
    operator = secrets.token_urlsafe(12)
    with tempfile.TemporaryDirectory() as tmp:
        process = subprocess.Popen(
            [BOSUN, "run", "--demo", "1", "--port", str(port), "--db", f"sqlite:///{tmp}/b.db"],
            env={**os.environ, "BOSUN_OPERATOR_KEY": operator},
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port("127.0.0.1", port, 60)
            url = f"http://127.0.0.1:{port}"
            key = {"key": operator}
            with ThreadPoolExecutor(2) as pool:
                players = pool.submit(listen, url, args.seconds)
                seen = pool.submit(listen, url, args.seconds, key)
                figures = {"players": players.result(), "operator": seen.result()}
            print(json.dumps(figures, indent=2))
        finally:
            process.terminate()
            process.wait(30)


if __name__ == "__main__":
    main()
