"""A private, throwaway NATS server with JetStream and its MQTT listener, for tests and benches.

Nobody connects anonymously: one account with JetStream holds a user for the referees and one
for the ships; both listeners (NATS and MQTT) are on free loopback ports.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

from bosun.bus.broker import free_port, wait_for_port

SHIP_SENDS = ("status", "event", "weights", "trace", "result")
START_S = 20.0  # a busy machine starts JetStream in well under a second; only a ceiling


def find_nats_server() -> str | None:
    return shutil.which("nats-server") or next(
        (p for p in ("/usr/sbin/nats-server", "/usr/bin/nats-server") if Path(p).is_file()), None
    )


class NatsServer:
    """`nats-server -c <generated config>`; `.url`, `.mqtt_port`, the two users' logins."""

    def __init__(self, executable: str, folder: Path | None = None, table: str = "t1") -> None:
        self.executable = executable
        self.table = table  # the one ship user's table
        self.folder = folder or Path(tempfile.mkdtemp(prefix="bosun-nats-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.mqtt_port = free_port()
        self.referee = ("referee", secrets.token_urlsafe(12))
        self.ship = ("ship", secrets.token_urlsafe(12))
        self.process: subprocess.Popen | None = None

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def url(self) -> str:
        """The referees' URL (the user named, the password in `referee[1]`)."""
        return f"nats://{self.referee[0]}@127.0.0.1:{self.port}"

    def config(self) -> str:
        store = self.folder / "jetstream"
        # a ship publishes only its own table's ship/* and reads only its own commands
        ship_topics = ", ".join(f'"bosun.{self.table}.ship.{name}"' for name in SHIP_SENDS)
        ship = (
            f'{{user: "{self.ship[0]}", password: "{self.ship[1]}", permissions: {{'
            f" publish: {{ allow: [{ship_topics}] }},"
            f' subscribe: {{ allow: ["bosun.{self.table}.ship.cmd", "$MQTT.sub.>"] }} }} }}'
        )
        users = f'{{user: "{self.referee[0]}", password: "{self.referee[1]}"}}, {ship}'

        return f"""
server_name: bosun_test_{self.port}
listen: 127.0.0.1:{self.port}
jetstream {{ store_dir: "{store}", max_memory_store: 64MB, max_file_store: 1GB }}
accounts {{
  BOSUN {{ jetstream: enabled, users: [{users}] }}
}}
mqtt {{ listen: 127.0.0.1:{self.mqtt_port} }}
"""

    def start(self) -> NatsServer:
        path = self.folder / "nats.conf"
        path.write_text(self.config())
        path.chmod(0o600)
        log = (self.folder / "nats.log").open("w")
        self.process = subprocess.Popen(
            [self.executable, "-c", str(path)], stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        for port in (self.port, self.mqtt_port):
            if not wait_for_port("127.0.0.1", port, START_S, self.process):
                self.close()
                raise RuntimeError(f"nats-server did not start: {self.log()[-800:]}")
        return self

    def log(self) -> str:
        with contextlib.suppress(OSError):
            return (self.folder / "nats.log").read_text()
        return ""

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
