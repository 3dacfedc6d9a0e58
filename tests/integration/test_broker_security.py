"""bosun's own broker is closed: only the host and each paired ship speak, each on its topics.

The broker is the real mosquitto started by bosun's own code (`MosquittoBroker` with
`BrokerSecurity`, as `bosun run` starts it); the attackers are paho clients: anonymous, with a
wrong password, and with another ship's credentials. "Nothing arrived" is proven by ordering,
never by waiting: a marker the observer may see is sent after the attack, through the same
single-threaded broker, and the attack's messages would have arrived before it.
"""

from __future__ import annotations

import json
import queue
import stat
import threading

import paho.mqtt.client as mqtt
import pytest
from conftest import require_executable
from support.polling import until
from support.service import CEILING_S, RunningService, service_options, with_virtual_table

from bosun.bus.access import BrokerAccess
from bosun.bus.broker import BrokerSecurity, MosquittoBroker, free_port, mqtt_login
from bosun.bus.credentials import BrokerCredentials, Credential
from bosun.bus.mqtt import send_without_delay
from bosun.bus.serial_bridge import SerialBridge
from shipsense import protocol

NOT_AUTHORISED = 5  # MQTT 3.1.1 CONNACK code


@pytest.fixture
def closed_broker(tmp_path):
    require_executable("mosquitto", "apt-get install mosquitto")
    credentials = BrokerCredentials.open(tmp_path / "bosun.ships.json")
    credentials.add("t1")
    credentials.add("t2")
    security = BrokerSecurity(credentials, "127.0.0.1", free_port())
    with MosquittoBroker(security=security) as broker:
        yield broker, credentials


class Client:
    """A paho client logged in as `credential`, collecting what it receives."""

    def __init__(self, port: int, credential: Credential | None, client_id: str = "") -> None:
        self.received: queue.Queue = queue.Queue()
        self.connack: queue.Queue = queue.Queue()
        self.disconnected: queue.Queue = queue.Queue()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311
        )
        if credential is not None:
            self.client.username_pw_set(credential.user, credential.password)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *_: self.disconnected.put(True)
        self.client.on_message = lambda _c, _u, m: self.received.put((m.topic, m.payload))
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        code = self.connack.get(timeout=CEILING_S)
        assert not code.is_failure, code

    def _on_connect(self, client, _userdata, _flags, code, _properties) -> None:
        send_without_delay(client)
        self.connack.put(code)

    def subscribe(self, *topics: str) -> None:
        done: queue.Queue = queue.Queue()
        self.client.on_subscribe = lambda *_: done.put(True)
        self.client.subscribe([(t, 1) for t in topics])
        done.get(timeout=CEILING_S)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(CEILING_S)

    def until_marker(self, marker: bytes) -> list[tuple[str, bytes]]:
        """Everything received up to and including `marker`."""
        seen = []
        while True:
            topic, payload = self.received.get(timeout=CEILING_S)
            seen.append((topic, payload))
            if payload == marker:
                return seen

    def close(self) -> None:
        self.client.disconnect()  # first: it wakes the network thread that loop_stop joins
        self.client.loop_stop()


def test_anonymous_and_wrong_logins_are_refused_on_both_listeners(closed_broker):
    broker, credentials = closed_broker
    t1, t2 = credentials.for_table("t1"), credentials.for_table("t2")
    host = credentials.host
    for port in (broker.port, broker.security.ships_port):
        assert mqtt_login("127.0.0.1", port, None, None) == NOT_AUTHORISED
        assert mqtt_login("127.0.0.1", port, t1.user, "not-the-password-at-all") == NOT_AUTHORISED
        assert mqtt_login("127.0.0.1", port, t1.user, t2.password) == NOT_AUTHORISED
        assert mqtt_login("127.0.0.1", port, host.user, t1.password) == NOT_AUTHORISED
    # each listener its own: bosun on loopback, the ships on theirs (the test can fail)
    assert mqtt_login("127.0.0.1", broker.security.ships_port, t1.user, t1.password) == 0
    assert mqtt_login("127.0.0.1", broker.port, t1.user, t1.password) == NOT_AUTHORISED
    assert mqtt_login("127.0.0.1", broker.port, host.user, host.password) == 0
    assert mqtt_login("127.0.0.1", broker.security.ships_port, host.user, host.password) == 5


def test_a_ship_cannot_take_over_another_ships_session_by_its_client_id(closed_broker):
    broker, credentials = closed_broker
    ships = broker.security.ships_port
    ship1 = Client(ships, credentials.for_table("t1"), client_id="bosun-t1-240ac454ae37")
    eve = credentials.for_table("t2")
    try:
        # mosquitto would end the session of a client whose id another connection takes;
        # on the ships' listener every client id is its user name, so eve takes only her own
        for client_id in ("ship-t1", "bosun-t1-240ac454ae37", ""):
            assert mqtt_login("127.0.0.1", ships, eve.user, eve.password, None, client_id) == 0
        ship1.publish(protocol.topic("t1", protocol.EVENT), b"still here")
        assert ship1.disconnected.empty()
    finally:
        ship1.close()


def test_another_ships_credentials_cannot_speak_for_a_ship_or_command_it(closed_broker):
    broker, credentials = closed_broker
    ships = broker.security.ships_port
    host = Client(broker.port, credentials.host)
    ship1 = Client(ships, credentials.for_table("t1"))
    eve = Client(ships, credentials.for_table("t2"))  # a paired ship, turned against t1
    host.subscribe(f"{protocol.ROOT}/#")
    ship1.subscribe(protocol.topic("t1", protocol.CMD))
    try:
        fake_place = b'{"type":"place","zone":10,"grams":11.8,"boot":"eve","seq":1}'
        for name, payload, retain in (
            (protocol.EVENT, fake_place, False),
            (protocol.STATUS, protocol.LWT_PAYLOAD, True),  # would pause t1 while retained
            (protocol.WEIGHTS, b'{"zones_g":[1e999]}', False),
            (protocol.RESULT, b'{"id":"h1","ok":true}', False),
            (protocol.CMD, b'{"cmd":"set","key":"mqtt.url","value":"mqtt://6.6.6.6"}', False),
            (protocol.GAME_STATE, b'{"phase":"over"}', True),
        ):
            eve.publish(protocol.topic("t1", name), payload, retain)
        eve.publish(protocol.topic("t2", protocol.CMD), b'{"cmd":"tare"}')  # not even its own
        eve.publish(protocol.topic("t2", protocol.GAME_STATE), b'{"phase":"over"}', retain=True)
        eve.publish(protocol.topic("t2", protocol.EVENT), b"eve-own")  # allowed: its own event
        ship1.publish(protocol.topic("t1", protocol.EVENT), b"marker-1")
        seen = host.until_marker(b"marker-1")
        assert seen == [("bosun/t2/ship/event", b"eve-own"), ("bosun/t1/ship/event", b"marker-1")]

        host.publish(protocol.topic("t1", protocol.CMD), b"marker-2")
        assert ship1.until_marker(b"marker-2") == [("bosun/t1/ship/cmd", b"marker-2")]

        # nothing eve tried was kept: a host that subscribes now finds no retained message
        late = Client(broker.port, credentials.host)
        late.subscribe(protocol.topic("t1", "#"), protocol.topic("t2", "#"))
        host.publish(protocol.topic("t1", protocol.GAME_EVENT), b"marker-3")
        assert late.until_marker(b"marker-3") == [("bosun/t1/game/event", b"marker-3")]
        late.close()
    finally:
        for client in (host, ship1, eve):
            client.close()


def test_no_ship_reads_game_or_other_ships_topics(closed_broker):
    broker, credentials = closed_broker
    ships = broker.security.ships_port
    host = Client(broker.port, credentials.host)
    ship1 = Client(ships, credentials.for_table("t1"))
    eve = Client(ships, credentials.for_table("t2"))
    eve.subscribe("#", f"{protocol.ROOT}/#", protocol.topic("t1", "#"), "$SYS/#")
    try:
        host.publish(protocol.topic("t1", protocol.GAME_STATE), b'{"phase":"turn"}', retain=True)
        host.publish(protocol.topic("t1", protocol.GAME_EVENT), b'{"type":"card"}')
        host.publish(protocol.topic("t1", protocol.CMD), b'{"cmd":"led","show":"off"}')
        host.publish(protocol.topic("t2", protocol.GAME_STATE), b'{"phase":"turn"}')
        ship1.publish(protocol.topic("t1", protocol.EVENT), b'{"type":"place"}')
        ship1.publish(protocol.topic("t1", protocol.STATUS), b'{"online":true}', retain=True)
        host.publish(protocol.topic("t2", protocol.CMD), b"marker")  # eve's own commands
        assert eve.until_marker(b"marker") == [("bosun/t2/ship/cmd", b"marker")]
    finally:
        for client in (host, ship1, eve):
            client.close()


def test_credentials_are_owner_only_and_never_shown_in_full(closed_broker, tmp_path):
    broker, credentials = closed_broker
    for path in (credentials.path, broker.password_path, broker.acl_path, broker.config_path):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    t1 = credentials.for_table("t1")
    assert t1.password not in repr(t1) and t1.password not in repr(credentials.ships)
    # the broker keeps only salted PBKDF2 hashes
    assert t1.password not in broker.password_path.read_text()
    assert "$7$101$" in broker.password_path.read_text()


def test_a_ship_paired_while_the_broker_runs_logs_in_and_a_removed_one_cannot(closed_broker):
    broker, credentials = closed_broker
    ships = broker.security.ships_port
    new = credentials.add("t3")
    assert broker.reload(check=new)
    assert mqtt_login("127.0.0.1", ships, new.user, new.password) == 0
    old = credentials.for_table("t1")
    gone = credentials.for_table("t2")
    connected = Client(ships, gone)
    rotated = credentials.rotate("t1")
    credentials.remove("t2")
    assert broker.reload(check=rotated)
    assert connected.disconnected.get(timeout=CEILING_S)  # a removed ship is put out at once
    connected.client.loop_stop()
    assert mqtt_login("127.0.0.1", ships, old.user, old.password) == NOT_AUTHORISED
    assert mqtt_login("127.0.0.1", ships, gone.user, gone.password) == NOT_AUTHORISED


def test_bosun_logs_in_with_a_password_and_says_why_when_refused(closed_broker, tmp_path, caplog):
    broker, credentials = closed_broker
    url = f"mqtt://{credentials.host.user}@127.0.0.1:{broker.port}"
    good = service_options(url, tmp_path, mqtt_password=credentials.host.password)
    with RunningService(good) as service:
        assert service.service.bus.connected
        assert service.service.mqtt_url == url  # what it shows: never the password
    bad = service_options(url, tmp_path, mqtt_password="not-the-password-at-all")
    with pytest.raises(ConnectionError, match="refused bosun: Not authorized"):
        RunningService(bad).__enter__()
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert credentials.host.password not in logged and "not-the-password" not in logged


def test_the_serial_bridge_speaks_for_its_ship_with_the_ships_login(closed_broker):
    from test_bridge import PtyShip

    broker, credentials = closed_broker
    t1 = credentials.for_table("t1")
    access = BrokerAccess("127.0.0.1", broker.security.ships_port, t1.user, t1.password)
    host = Client(broker.port, credentials.host)
    host.subscribe(protocol.topic("t1", protocol.EVENT))
    ship = PtyShip()
    bridge = SerialBridge(
        ship.port, "t1", access.url, hello_s=0.3, log=lambda _: None, access=access
    )
    runner = threading.Thread(target=bridge.run, daemon=True)
    runner.start()
    try:
        ship.lines.wait_for(lambda lines: any(x["topic"] == protocol.LINK_HELLO for x in lines))
        ship.send(protocol.EVENT, {"type": "place", "t_ms": 10, "zone": 3, "boot": "b1", "seq": 1})
        topic, payload = host.received.get(timeout=CEILING_S)
        assert topic == "bosun/t1/ship/event" and json.loads(payload)["zone"] == 3
        cmd = protocol.command("led", "c1", show="off")
        host.publish(protocol.topic("t1", protocol.CMD), protocol.encode(cmd))
        ship.lines.wait_for(lambda lines: {"topic": protocol.CMD, "msg": cmd} in lines)
    finally:
        bridge.stop()
        runner.join(CEILING_S)
        host.close()
        ship.close()


@pytest.mark.parametrize("tls", [False, True], ids=["mqtt", "mqtts"])
def test_virtual_tables_log_in_as_ships_on_bosuns_own_broker(tmp_path, tls):
    require_executable("mosquitto", "apt-get install mosquitto")
    options = service_options(None, tmp_path, ships_tls=tls)  # no URL: bosun's own broker
    with with_virtual_table(options) as (service, _table):
        running = service.service
        assert running.ships_url.startswith("mqtts://" if tls else "mqtt://")
        assert service.table("demo-1")["ship"]["online"]
        ship = running.credentials.for_table("demo-1")  # made for this run, not written down
        assert ship.user == "ship-demo-1" and "demo-1" not in running.credentials.ships
        host, port = running.broker_address
        assert mqtt_login(host, port, None, None) == NOT_AUTHORISED
        folder = running._tls_folder  # noqa: SLF001
    if tls:
        assert not folder.folder.exists()  # the run's own CA went with it


def test_home_assistant_on_bosuns_broker_reads_its_configs_and_states_only(tmp_path):
    from bosun.home_assistant.settings import HomeAssistantSettings

    require_executable("mosquitto", "apt-get install mosquitto")
    settings = HomeAssistantSettings(enabled=True)
    options = service_options(None, tmp_path, home_assistant=settings)
    with with_virtual_table(options) as (service, _table):
        running = service.service
        assert running.home_assistant.connected.wait(CEILING_S)  # bosun's bridge logged in
        login = running.credentials.home_assistant  # Home Assistant's own
        home_assistant = Client(running._broker.security.ships_port, login)  # noqa: SLF001
        home_assistant.subscribe("#")
        host = Client(running._broker.port, running.credentials.host)  # noqa: SLF001
        host.publish("homeassistant/marker", b"marker")
        seen = home_assistant.until_marker(b"marker")
        topics = {topic for topic, _ in seen}
        assert any(t.startswith("homeassistant/") and t.endswith("/config") for t in topics)
        assert any(t.startswith("bosun/_ha/") for t in topics), topics
        assert not [t for t in topics if t.startswith("bosun/demo-1/")], topics
        home_assistant.publish("homeassistant/status", b"online")  # allowed: it says it is up
        home_assistant.close()
        host.close()


def test_a_ship_paired_while_bosun_runs_can_log_in_within_seconds(tmp_path):
    require_executable("mosquitto", "apt-get install mosquitto")
    path = tmp_path / "bosun.ships.json"
    options = service_options(None, tmp_path, credentials_file=str(path))
    with RunningService(options) as service:
        broker = service.service._broker  # noqa: SLF001
        paired = BrokerCredentials(path).add("t9")  # what `bosun ship add t9` does meanwhile
        until(lambda: broker.login(paired.user, paired.password), lambda code: code == 0)
        BrokerCredentials(path).remove("t9")  # `bosun ship remove t9`
        until(lambda: broker.login(paired.user, paired.password), lambda c: c == NOT_AUTHORISED)
