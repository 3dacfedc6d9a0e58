"""A private, throwaway NATS server with JetStream and its MQTT listener, for tests and benches.

Nobody connects anonymously: one account with JetStream holds a user for the referees and one
for each table's ship (`ships`, allowed its own table's topics alone); both listeners (NATS
and MQTT) are on free loopback ports.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import nats
import nats.js  # imported here, not at the first jetstream() on a loop (~50 ms of CPU)

from bosun.bus.broker import free_port, wait_for_port

SHIP_SENDS = ("status", "event", "weights", "trace", "result")
START_S = 20.0  # a busy machine starts JetStream in well under a second; only a ceiling


def distinct_free_ports(count: int) -> list[int]:
    """`count` free loopback ports, all different (free_port never picks one twice)."""
    return [free_port() for _ in range(count)]


def find_nats_server() -> str | None:
    return shutil.which("nats-server") or next(
        (p for p in ("/usr/sbin/nats-server", "/usr/bin/nats-server") if Path(p).is_file()), None
    )


def ship_user(table: str, user: str, password: str) -> str:
    """A ship's NATS user: it publishes only its own table's ship/* and reads only its own
    commands."""
    topics = ", ".join(f'"bosun.{table}.ship.{name}"' for name in SHIP_SENDS)
    return (
        f'{{user: "{user}", password: "{password}", permissions: {{'
        f" publish: {{ allow: [{topics}] }},"
        f' subscribe: {{ allow: ["bosun.{table}.ship.cmd", "$MQTT.sub.>"] }} }} }}'
    )


class NatsServer:
    """`nats-server -c <generated config>`; `.url`, `.mqtt_port`, the two users' logins."""

    def __init__(
        self,
        executable: str,
        folder: Path | None = None,
        tables: tuple[str, ...] = ("t1",),
        ports: tuple[int, int] | None = None,
    ) -> None:
        self.executable = executable
        self.cluster = ""  # a cluster's block (NatsCluster), else a server on its own
        self.mqtt_extra = ""  # a cluster's MQTT settings (NatsCluster)
        self.folder = folder or Path(tempfile.mkdtemp(prefix="bosun-nats-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port, self.mqtt_port = ports or distinct_free_ports(2)
        self.referee = ("referee", secrets.token_urlsafe(12))
        # each table's ship its own login; the first table's is `ship`
        self.ships = {
            table: ("ship" if n == 0 else f"ship-{table}", secrets.token_urlsafe(12))
            for n, table in enumerate(tables)
        }
        self.process: subprocess.Popen | None = None

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def ship(self) -> tuple[str, str]:
        """The first table's ship's login."""
        return next(iter(self.ships.values()))

    @property
    def url(self) -> str:
        """The referees' URL (the user named, the password in `referee[1]`)."""
        return f"nats://{self.referee[0]}@127.0.0.1:{self.port}"

    def config(self) -> str:
        store = self.folder / "jetstream"
        users = ", ".join(
            [f'{{user: "{self.referee[0]}", password: "{self.referee[1]}"}}']
            + [ship_user(table, *login) for table, login in self.ships.items()]
        )

        return f"""
server_name: bosun_test_{self.port}
listen: 127.0.0.1:{self.port}
jetstream {{ store_dir: "{store}", max_memory_store: 64MB, max_file_store: 1GB }}
accounts {{
  BOSUN {{ jetstream: enabled, users: [{users}] }}
}}
mqtt {{ listen: 127.0.0.1:{self.mqtt_port}{self.mqtt_extra} }}
{self.cluster}
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

    def stop(self) -> None:
        """Stop the server, its stream store kept: `start()` again goes on from it."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


class NatsCluster:
    """`size` NATS servers routed into one cluster (JetStream clustered, an MQTT listener on
    each), the same two logins on every node; the routes authenticate too."""

    def __init__(
        self, executable: str, folder: Path, size: int = 3, tables: tuple[str, ...] = ("t1",)
    ) -> None:
        ports = distinct_free_ports(3 * size)  # no node may take another's port
        self.nodes = [
            NatsServer(executable, folder / f"n{n}", tables, ports=(ports[3 * n], ports[3 * n + 1]))
            for n in range(size)
        ]
        first = self.nodes[0]
        route = ("route", secrets.token_urlsafe(12))
        route_ports = [ports[3 * n + 2] for n in range(size)]
        for node, port in zip(self.nodes, route_ports, strict=True):
            node.referee, node.ships = first.referee, first.ships
            # the MQTT sessions' own streams on three nodes too: NATS picks their replicas from
            # the routes up when the first ship connects (2 of 3, seen here), and then one
            # node lost is a stream without quorum and every ship on the cluster cut off
            node.mqtt_extra = f", stream_replicas: {min(size, 3)}"
            routes = ", ".join(
                f"nats-route://{route[0]}:{route[1]}@127.0.0.1:{other}"
                for other in route_ports
                if other != port
            )
            node.cluster = f"""
cluster {{
  name: bosun_test
  listen: 127.0.0.1:{port}
  authorization {{ user: "{route[0]}", password: "{route[1]}" }}
  routes: [{routes}]
}}"""

    @property
    def url(self) -> str:
        """Every node, for the referees (the user named once)."""
        first, *others = self.nodes
        return ",".join([first.url, *(f"nats://127.0.0.1:{node.port}" for node in others)])

    def start(self) -> NatsCluster:
        for node in self.nodes:
            node.start()
        try:
            asyncio.run(self._jetstream_ready())
        except BaseException:
            self.close()
            raise
        return self

    async def _jetstream_ready(self) -> None:
        """Once the cluster has elected its JetStream leader (a few seconds after the start),
        so that a referee's first request is answered."""
        deadline = time.monotonic() + START_S
        client = await nats.connect(
            [f"nats://127.0.0.1:{node.port}" for node in self.nodes],
            user=self.referee[0],
            password=self.referee[1],
        )
        try:
            while True:
                if any(
                    node.process is None or node.process.poll() is not None for node in self.nodes
                ):
                    raise RuntimeError("a NATS node stopped: " + self.nodes[0].log()[-500:])
                try:
                    await client.jetstream().account_info()
                    return
                except Exception:
                    if time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.1)  # the leader election has no event to wait on
        finally:
            await client.close()

    # the referees log in as the ships do on any node; the test's ship is on the second
    @property
    def referee(self) -> tuple[str, str]:
        return self.nodes[0].referee

    @property
    def ship(self) -> tuple[str, str]:
        return self.nodes[0].ship

    @property
    def ships(self) -> dict[str, tuple[str, str]]:
        return self.nodes[0].ships

    @property
    def host(self) -> str:
        return "127.0.0.1"

    @property
    def mqtt_port(self) -> int:
        return self.nodes[1].mqtt_port

    def close(self) -> None:
        for node in self.nodes:
            node.close()
