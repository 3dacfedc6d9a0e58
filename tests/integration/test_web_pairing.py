"""The calibration wizard pairs a real table's ship over HTTP, as `bosun ship add|rotate` do:
the operator alone, the config.json download logs a real MQTT client in to the running
service's ships' listener, and after a rotation the old password is refused."""

from __future__ import annotations

import logging
import queue
import stat

import paho.mqtt.client as mqtt
import pytest
from conftest import require_executable
from support.service import CEILING_S, RunningService, service_options

from bosun.bus.broker import free_port
from bosun.tables import TableConfig, default_seats

PAIRING = "/api/tables/t1/ship/pairing"


def paho_login(config: dict, tmp_path) -> mqtt.ReasonCode:
    """The CONNACK a paho client gets logging in as the ship's config.json says."""
    scheme, address = config["mqtt"]["url"].split("://")
    host, port = address.rsplit(":", 1)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    client.username_pw_set(config["mqtt"]["user"], config["mqtt"]["password"])
    if scheme == "mqtts":
        ca = tmp_path / "ca-from-config.pem"
        ca.write_text(config["mqtt"]["ca"])
        client.tls_set(ca_certs=str(ca))  # the ship verifies bosun's CA from its config
    answer: queue.Queue = queue.Queue()
    client.on_connect = lambda _c, _u, _f, code, _p: answer.put(code)
    client.connect(host, int(port))
    client.loop_start()
    try:
        return answer.get(timeout=CEILING_S)
    finally:
        client.disconnect()
        client.loop_stop()


@pytest.mark.parametrize("tls", [False, True], ids=["mqtt", "mqtts"])
def test_the_wizard_pairs_a_real_tables_ship_and_rotates_it(tmp_path, tls, caplog):
    require_executable("mosquitto", "apt-get install mosquitto")
    caplog.set_level(logging.DEBUG)
    port = free_port()
    table = TableConfig(id="t1", players=default_seats(["ann", "bob", "cy"]), settle_s=0)
    credentials_file = tmp_path / "bosun.ships.json"
    options = service_options(
        None,  # bosun's own broker, as `bosun run` with real tables
        tmp_path,
        [table],
        ships_listener=("127.0.0.1", port),
        credentials_file=str(credentials_file),
        ships_tls=tls,
    )
    with RunningService(options) as service:
        http, key = service.http, {"key": service.key}
        seat = next(iter(service.seats("t1").values()))
        for who in ({}, {"key": seat}):  # nobody, and a player's seat token
            assert http.get(PAIRING, params=who).status_code == 403
            assert http.post(PAIRING, params=who, json={}).status_code == 403
        assert not credentials_file.read_text().count("ship-t1")  # nothing was made

        state = http.get(PAIRING, params=key).json()
        assert state["available"] and not state["paired"]
        scheme = "mqtts" if tls else "mqtt"
        assert state["broker"] == f"{scheme}://127.0.0.1:{port}"
        assert http.post(PAIRING, params=key, json={"rotate": "yes"}).status_code == 400

        paired = http.post(PAIRING, params=key, json={})
        assert paired.status_code == 200, paired.text
        assert paired.headers["cache-control"] == "no-store"
        assert paired.headers["content-disposition"].startswith("attachment;")
        config = paired.json()
        assert config["table"] == "t1" and config["mqtt"]["url"] == state["broker"]
        assert config["mqtt"]["user"] == "ship-t1" and len(config["mqtt"]["password"]) >= 16
        assert (config["mqtt"]["ca"] or "").startswith("-----BEGIN CERTIFICATE") == tls
        assert paho_login(config, tmp_path) == 0  # the broker took it before the answer left
        old_password = config["mqtt"]["password"]

        state = http.get(PAIRING, params=key).json()
        assert state["paired"] and state["user"] == "ship-t1"
        assert old_password not in str(state) and state["password"] == old_password[:3] + "…"
        # paired: a second config.json only with a rotation (the password is shown once)
        assert http.post(PAIRING, params=key, json={}).status_code == 409

        rotated = http.post(PAIRING, params=key, json={"rotate": True}).json()
        assert rotated["mqtt"]["password"] != old_password
        assert paho_login(rotated, tmp_path) == 0
        old = {**rotated, "mqtt": {**rotated["mqtt"], "password": old_password}}
        assert str(paho_login(old, tmp_path)) == "Not authorized"  # it stopped working
        kept = credentials_file.read_text()  # what `bosun ship list` reads
        assert rotated["mqtt"]["password"] in kept and old_password not in kept
        assert stat.S_IMODE(credentials_file.stat().st_mode) == 0o600
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert old_password not in logged and rotated["mqtt"]["password"] not in logged
    assert "ship t1: credentials rotated" in logged
