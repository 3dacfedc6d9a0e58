"""What a table view's live stream costs on the wire: bytes an hour and updates a second.

Runs `bosun run --demo 1` (a virtual Riff Raff ship, bots playing in real time, its own
private broker and a fresh store) and listens to `/api/tables/demo-1/stream` as a table
view does. The stream opens with a whole snapshot and then sends only what changed (JSON
Patch, `patch` events). Every update is also rebuilt into its whole snapshot here, so the
same run gives what sending whole snapshots each time would have cost ("before"); the
rebuilt snapshot is checked against a fresh `GET /api/tables/demo-1` at the end.

    .venv/bin/python -m bench.table_view_bytes              # 120 s
    .venv/bin/python -m bench.table_view_bytes --seconds 600
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bosun.bus.broker import free_port, wait_for_port
from bosun.web.patches import apply_patch, make_patch

BOSUN = str(Path(sys.executable).parent / "bosun")


def sse_event(name: str, data: str) -> int:
    """Bytes of one server-sent event as the server frames it (sse_starlette, CRLF)."""
    return len(f"event: {name}\r\ndata: {data}\r\n\r\n".encode())


def listen(url: str, seconds: float) -> dict:
    sent = whole = events = patches = 0
    snapshot = None
    cpu_s = 0.0  # making each patch again here: what the service spends on it
    started = time.monotonic()
    with (
        httpx.Client(timeout=30) as http,
        http.stream("GET", url + "/api/tables/demo-1/stream") as stream,
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
            if time.monotonic() - started > seconds:
                break
        fresh = http.get(url + "/api/tables/demo-1").json()
    elapsed = time.monotonic() - started
    same = {k: v for k, v in snapshot.items() if k not in ("now_ms", "ship")} == {
        k: v for k, v in fresh.items() if k not in ("now_ms", "ship")
    }
    return {
        "seconds": round(elapsed, 1),
        "updates": events,
        "patches": patches,
        "updates_per_s": round(events / elapsed, 2),
        "bytes_per_hour_whole_snapshots": round(whole / elapsed * 3600),
        "bytes_per_hour_patches": round(sent / elapsed * 3600),
        "mean_update_bytes_whole": round(whole / max(events, 1)),
        "mean_update_bytes_patches": round(sent / max(events, 1)),
        "patch_cpu_ms_mean": round(cpu_s * 1000 / max(patches, 1), 3),
        "rebuilt_equals_fresh_load": same,  # the ship's weights move on meanwhile: left out
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        process = subprocess.Popen(
            [BOSUN, "run", "--demo", "1", "--port", str(port), "--db", f"sqlite:///{tmp}/b.db"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port("127.0.0.1", port, 60)
            print(json.dumps(listen(f"http://127.0.0.1:{port}", args.seconds), indent=2))
        finally:
            process.terminate()
            process.wait(30)


if __name__ == "__main__":
    main()
