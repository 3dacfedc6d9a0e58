"""Kill -9 the service mid-game and start it again: the game continues with identical state."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from support.polling import until
from support.service import CEILING_S, WHOLE_GAME_CEILING_S, BrokerShip

from bosun.bus.broker import free_port, wait_for_port
from bosun.store import Store
from shipsense.pieces import ITEM_GRAMS as W

BOSUN = str(Path(sys.executable).parent / "bosun")
TABLES = """
[[table]]
id = "t1"
settle_s = 0
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" },
           { name = "cy", colour = "#f4d35e" }]
"""


def store_events(db_url: str) -> list:
    with Store.open(db_url) as store:
        return store.entries("t1")


def start_service(workdir: Path, mqtt_url: str, port: int, db_url: str) -> subprocess.Popen:
    env = {**os.environ, "BOSUN_OPERATOR_KEY": "operator-secret", "BOSUN_DB": db_url}
    process = subprocess.Popen(
        [BOSUN, "run", "--mqtt", mqtt_url, "--port", str(port)],
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert wait_for_port("127.0.0.1", port, 20, process), process.stderr.read()
    return process


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_a_killed_service_resumes_every_game_exactly(tmp_path, mosquitto, store_url):
    (tmp_path / "bosun.toml").write_text(TABLES)
    port = free_port()
    service = start_service(tmp_path, mosquitto.url, port, store_url)
    http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=CEILING_S)
    ship = BrokerShip(mosquitto.host, mosquitto.port, "t1")

    def table():
        return http.get("/api/tables/t1").json()

    until(table, lambda s: s["ship"]["online"])
    seats = http.get("/api/tables/t1/seats", params={"key": "operator-secret"}).json()["seats"]

    def card(player, value):
        response = http.post(f"/api/seat/{seats[player]}", json={"type": "card", "value": value})
        assert response.status_code == 200, response.text

    for player, value in (("ann", 3), ("bob", 8), ("cy", 5)):
        card(player, value)
    for t_ms, zone, item in ((1000.0, 8, "barrel"), (2000.0, 5, "rat"), (3000.0, 3, "boat")):
        ship.event("place", t_ms, zone=zone, grams=W[item])
    until(table, lambda s: s["state"]["round"] == 2)
    for player, value in (("ann", 8), ("bob", 1), ("cy", 2)):
        card(player, value)
    announce = {"type": "announce", "pieces": 2}  # RR9: zone 8 already holds the barrel
    assert http.post(f"/api/seat/{seats['ann']}", json=announce).status_code == 200
    ship.event("place", 4000.0, zone=8, grams=W["chest"])
    mid_turn = until(table, lambda s: s["state"]["pieces_loaded"] == 1)

    service.send_signal(signal.SIGKILL)
    service.wait()
    service = start_service(tmp_path, mosquitto.url, port, store_url)
    try:
        # What the ship sent is stored in batches: an event decided but not yet written when
        # the service died was never published, and the ship's outbox still holds it. The
        # restarted link asks the ship to count its events and for the ones missing.
        resumed = until(table, lambda s: s["state"] == mid_turn["state"])
        assert resumed["game_id"] == mid_turn["game_id"]
        until(  # each event stored once, none lost
            lambda: sorted(e.seq for e in store_events(store_url) if e.kind == "ship_event"),
            lambda seqs: seqs == [1, 2, 3, 4],
        )
        # the seat links still work, and the game goes on from where it was
        assert http.get(f"/api/seat/{seats['ann']}").json()["state"]["my_card"] == 8
        ship.event("place", 9000.0, zone=8, grams=W["crate"])
        after = until(table, lambda s: s["state"]["turn"] == "cy")
        assert after["state"]["ship"]["8"] == ["barrel", "chest", "crate"]
    finally:
        ship.close()
        http.close()
        service.send_signal(signal.SIGTERM)
        assert service.wait(20) == 0
