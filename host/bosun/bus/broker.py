"""A private mosquitto broker on a free loopback port, with a generated configuration.

`bosun run` starts one when no broker URL is given; the tests start one per test so that
they never share state or depend on the machine's own broker.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

SEARCH_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class BrokerError(RuntimeError):
    """The broker could not be started."""


def find_mosquitto() -> str | None:
    return shutil.which("mosquitto") or shutil.which("mosquitto", path=SEARCH_PATH)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def port_is_free(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True


def wait_for_port(
    host: str, port: int, timeout_s: float, process: subprocess.Popen | None = None
) -> bool:
    """True once something accepts TCP connections on (host, port); False if `process` dies."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            return False
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.2):
            return True
        time.sleep(0.01)  # polling a port that is not open yet: nothing to wait on instead
    return False


class MosquittoBroker:
    """mosquitto listening on 127.0.0.1 only, anonymous, no persistence; restartable in place."""

    def __init__(self, port: int | None = None, executable: str | None = None) -> None:
        self.executable = executable or find_mosquitto()
        if self.executable is None:
            raise BrokerError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.host = "127.0.0.1"
        self.port = port or free_port(self.host)
        self._dir = Path(tempfile.mkdtemp(prefix="bosun-mosquitto-"))
        self.config_path = self._dir / "mosquitto.conf"
        self.log_path = self._dir / "mosquitto.log"
        self._process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout_s: float = 10.0) -> MosquittoBroker:
        if not port_is_free(self.host, self.port):
            raise BrokerError(f"port {self.port} on {self.host} is already in use")
        self.config_path.write_text(
            f"listener {self.port} {self.host}\n"
            "allow_anonymous true\n"
            "persistence false\n"
            "max_packet_size 1048576\n"
            "set_tcp_nodelay true\n"  # small MQTT packets must not wait for delayed ACKs
            f"log_dest file {self.log_path}\n"
            "log_type error\nlog_type warning\nlog_type notice\n"
        )
        self._process = subprocess.Popen(
            [self.executable, "-c", str(self.config_path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # Ctrl-C stops bosun, which then stops its broker last
        )
        if not wait_for_port(self.host, self.port, timeout_s, self._process):
            self.stop()
            raise BrokerError(f"mosquitto did not open port {self.port}: {self.log_tail()}")
        return self

    def stop(self) -> None:
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process.stderr:
            self._process.stderr.close()
        self._process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def log_tail(self, lines: int = 5) -> str:
        if not self.log_path.exists():
            return "(no log)"
        return " | ".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> MosquittoBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
