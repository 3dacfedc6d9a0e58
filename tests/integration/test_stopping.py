"""Stopping is as reliable as starting: Ctrl-C, a failed start and a stop with live pages open
all end in bounded time, in order, with nothing left running and no error lines."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
from support.service import CEILING_S, service_options, with_virtual_table

BOSUN = str(Path(sys.executable).parent / "bosun")
ERROR_SIGNS = ("ERROR", "Traceback", "Task was destroyed", "Exception")


class StreamReader(threading.Thread):
    """Reads a live stream (server-sent events) until the server ends it."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.snapshots = 0
        self.failure: BaseException | None = None
        self.connected = threading.Event()

    def run(self) -> None:
        try:
            with httpx.stream("GET", self.url, timeout=CEILING_S) as response:
                self.connected.set()
                for line in response.iter_lines():
                    if line.startswith("event: snapshot"):
                        self.snapshots += 1
        except BaseException as why:  # noqa: BLE001 - reported by the test
            self.failure = why
        finally:
            self.connected.set()


def broker_processes(temp_dir: Path) -> list[str]:
    """Command lines of the mosquitto processes whose configuration lies under `temp_dir`
    (one bosun's own private broker)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:  # the process ended meanwhile
            continue
        text = " ".join(a.decode(errors="replace") for a in args)
        if "mosquitto" in text and str(temp_dir) in text:
            found.append(text)
    return found


def test_a_stop_ends_the_live_pages_streams_first_and_leaves_no_error(mosquitto, tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    options = service_options(mosquitto.url, tmp_path)
    with with_virtual_table(options, people=("ann",)) as (service, _table):
        base = service.service.http_url
        token = service.seats("demo-1")["ann"]
        readers = [
            StreamReader(f"{base}/api/tables/demo-1/stream"),
            StreamReader(f"{base}/api/seat/{token}/stream"),
        ]
        for reader in readers:
            reader.start()
            assert reader.connected.wait(CEILING_S)
        started = time.monotonic()
    stopped_in_s = time.monotonic() - started
    for reader in readers:
        reader.join(CEILING_S)
        assert not reader.is_alive(), "the stream was not ended by the stop"
        assert reader.failure is None, f"the stream broke instead of ending: {reader.failure!r}"
        assert reader.snapshots >= 1
    assert stopped_in_s < CEILING_S
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]


def test_ctrl_c_stops_bosun_run_demo_cleanly_with_pages_open(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # bosun's private broker lives under it
    command = [BOSUN, "run", "--demo", "1", "--port", "0"]
    command += ["--db", f"sqlite:///{tmp_path / 'bosun.db'}"]
    process = subprocess.Popen(
        command, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True, bufsize=1
    )
    said: list[str] = []
    web = None
    deadline = time.monotonic() + CEILING_S
    while web is None and time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        said.append(line)
        found = re.search(r"web\s+(http://\S+?)/\?key=", line)
        web = found.group(1) if found else None
    assert web is not None, "".join(said)
    assert broker_processes(tmp_path), "bosun's own mosquitto should be running"
    reader = StreamReader(f"{web}/api/tables/demo-1/stream")
    reader.start()
    assert reader.connected.wait(CEILING_S)

    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=CEILING_S)
    said.append(rest)
    output = "".join(said)
    assert process.returncode == 0, output
    assert "stopped; everything is in the store." in output
    assert not [line for line in output.splitlines() if any(s in line for s in ERROR_SIGNS)], output
    reader.join(CEILING_S)
    assert reader.failure is None and reader.snapshots >= 1
    assert broker_processes(tmp_path) == []


def test_a_failed_start_says_why_in_one_line_and_leaves_nothing_running(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    with socket_taken() as port:
        done = subprocess.run(
            [BOSUN, "run", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'bosun.db'}"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=CEILING_S,
        )
    assert done.returncode == 1
    assert "could not start" in done.stderr
    assert "Traceback" not in done.stderr
    assert broker_processes(tmp_path) == []


class socket_taken:
    """A loopback port that something already listens on."""

    def __enter__(self) -> int:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        return self.sock.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        self.sock.close()
