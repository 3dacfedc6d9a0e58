"""Referees of a cluster for the tests: `bosun run --cluster` processes on a private NATS
(tests/nats_server.py) and PostgreSQL, and what the tests read of their leases and store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psycopg

from bosun.bus.broker import free_port, wait_for_port
from bosun.bus.mqtt import send_without_delay
from bosun.store import Store
from support.polling import until
from support.service import CEILING_S, BrokerShip

BOSUN = str(Path(sys.executable).parent / "bosun")
TAKEOVER_S = 5.0  # the promise: a killed referee's tables go on within 5 s
TABLES = """
[[table]]
id = "t1"
settle_s = 0
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" },
           { name = "cy", colour = "#f4d35e" }]
"""
TWO_PLAYERS = '[{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" }]'


def tables_toml(table_ids, players: str = TWO_PLAYERS) -> str:
    """A bosun.toml of these tables, each with `players` and no settle window."""
    return "".join(
        f'[[table]]\nid = "{t}"\nsettle_s = 0\nplayers = {players}\n\n' for t in table_ids
    )


def prepare(workdir: Path, nats, tables: str = TABLES) -> None:
    """The referees' working folder: their bosun.toml and NATS password file."""
    (workdir / "bosun.toml").write_text(tables)
    (workdir / "nats-password").write_text(nats.referee[1] + "\n")


def play_cards(referee: Referee, table_id: str = "t1", **cards: int) -> None:
    """Each player's card, from their seat link (the operator reads the links)."""
    answer = referee.http.get(f"/api/tables/{table_id}/seats", params={"key": "operator-secret"})
    seats = answer.json()["seats"]
    for player, value in cards.items():
        answer = referee.http.post(
            f"/api/seat/{seats[player]}", json={"type": "card", "value": value}
        )
        assert answer.status_code == 200, answer.text


def holder_of(referees: list[Referee], table_id: str = "t1") -> Referee:
    """The referee that serves `table_id`, once one does."""
    return until(
        lambda: next((r for r in referees if r.table(table_id) is not None), None),
        lambda found: found is not None,
    )


def stop_all(referees: list[Referee]) -> None:
    """Stop the referees still running (a test's cleanup)."""
    for referee in referees:
        if referee.process.poll() is None:
            referee.stop()


class Referee:
    """One `bosun run --cluster` process and its web API."""

    def __init__(self, workdir: Path, nats, db_url: str, nats_url: str | None = None) -> None:
        self.port = free_port()
        env = {**os.environ, "BOSUN_OPERATOR_KEY": "operator-secret"}
        self.log = workdir / f"referee-{self.port}.log"  # a file: a pipe nobody reads fills up
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [
                    BOSUN,
                    "run",
                    "--cluster",
                    nats_url or nats.url,
                    "--cluster-password-file",
                    str(workdir / "nats-password"),
                    "--db",
                    db_url,
                    "--port",
                    str(self.port),
                ],
                cwd=workdir,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        assert wait_for_port("127.0.0.1", self.port, CEILING_S, self.process), self.errors()
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=CEILING_S)

    def errors(self) -> str:
        return self.log.read_text()[-2000:]

    def table(self, table_id: str = "t1") -> dict | None:
        response = self.http.get(f"/api/tables/{table_id}")
        return response.json() if response.status_code == 200 else None

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.http.close()

    def stop(self) -> int:
        self.http.close()
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(CEILING_S)


def lease(db_url: str) -> tuple[str, int] | None:
    """(owner, epoch) of table t1's lease, once a referee took it."""
    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT owner, epoch FROM bosun_leases WHERE table_id = 't1'")
        found = row.fetchone()
    return (found[0], found[1]) if found else None


def owner_and_other(referees: list[Referee], db_url: str) -> tuple[Referee, Referee]:
    """The referee that took table t1 first (epoch 1), and the other."""
    owner_name, epoch = until(lambda: lease(db_url), lambda found: found is not None)
    assert epoch == 1
    owner, other = sorted(referees, key=lambda r: not owner_name.endswith(f":{r.process.pid}"))
    assert owner_name.endswith(f":{owner.process.pid}")
    assert other.table() is None  # one referee a table
    return owner, other


def stored(db_url: str, table_id: str = "t1") -> list:
    with Store.open(db_url) as store:
        return store.entries(table_id)


class ReconnectingShip(BrokerShip):
    """A ship that, as the firmware does, announces itself again on every new connection,
    says its status with the count of its events every `status_every_s` (the firmware's
    `status_interval_s`; the host asks again for what it missed) and holds an event until the
    broker took it (a NATS node's MQTT listener may drop its clients while JetStream elects
    new leaders; paho reconnects by itself)."""

    def __init__(self, *args, status_every_s: float = 2.0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.client.on_connect = lambda client, *_: self._announce(client, resubscribe=True)
        self._closing = threading.Event()
        self._every = threading.Thread(target=self._status_every, args=(status_every_s,))
        self._every.start()

    def _announce(self, client, resubscribe: bool = False) -> None:
        if resubscribe:
            send_without_delay(client)
            client.subscribe(self.topic("ship/cmd"), qos=1)
        status = {"online": True, "fw": "test", "boot": self.boot, "seq": self.seq}
        client.publish(self.topic("ship/status"), json.dumps(status), 1, retain=True)

    def _status_every(self, period_s: float) -> None:
        while not self._closing.wait(period_s):
            if self.client.is_connected():
                self._announce(self.client)

    def publish(self, name: str, message, retain: bool = False, raw: bytes | None = None):
        payload = raw if raw is not None else json.dumps(message).encode()
        deadline = time.monotonic() + CEILING_S
        while True:
            until(self.client.is_connected, bool)
            try:
                sent = self.client.publish(self.topic(name), payload, qos=1, retain=retain)
                sent.wait_for_publish(5)
                if sent.is_published():
                    return
            except (RuntimeError, ValueError):
                pass  # the connection went while it was on its way: again, once back
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} not taken by the broker within {CEILING_S} s")

    def close(self) -> None:
        self._closing.set()
        self._every.join()
        super().close()
