"""How bosun reaches a broker: URLs with a user but never a password, the password from a file
or the environment, TLS; and the credentials file bosun keeps."""

from __future__ import annotations

import base64
import hashlib
import json
import stat

import pytest

from bosun.bus.access import BrokerAccess, broker_access, parse_broker_url, shown_url
from bosun.bus.credentials import BrokerCredentials, CredentialsError, mosquitto_hash
from bosun.cli import main

SECRET = "hunter2-very-secret"


@pytest.mark.parametrize(
    "url, expected",
    [
        ("mqtt://10.0.0.2", BrokerAccess("10.0.0.2", 1883)),
        ("mqtt://ops@broker.lan:1884", BrokerAccess("broker.lan", 1884, "ops")),
        ("mqtts://ops@broker.lan", BrokerAccess("broker.lan", 8883, "ops", tls=True)),
        ("tcp://[::1]:1883", BrokerAccess("::1", 1883)),
    ],
)
def test_broker_urls_name_the_broker_and_at_most_the_user(url, expected):
    assert parse_broker_url(url) == expected


@pytest.mark.parametrize(
    "url, problem",
    [
        (f"mqtt://ops:{SECRET}@broker.lan:1883", "must not hold a password"),
        (f"mqtts://ops:{SECRET}@broker.lan:99999", "bad port"),
        ("http://broker.lan", "must look like mqtt://host:1883"),
        ("mqtt://broker.lan/topic", "nothing after host:port"),
    ],
)
def test_a_bad_url_is_refused_without_repeating_a_password(url, problem):
    with pytest.raises(ValueError, match=problem) as refused:
        parse_broker_url(url)
    assert SECRET not in str(refused.value)
    assert SECRET not in shown_url(url)


def test_the_password_comes_from_a_file_or_the_environment_never_the_url(tmp_path):
    password_file = tmp_path / "password"
    password_file.write_text(SECRET + "\n")
    access = broker_access("mqtt://ops@b:1883", password_file=password_file, environ={})
    assert access.password == SECRET and access.user == "ops"
    assert SECRET not in repr(access) and SECRET not in access.url
    from_env = broker_access("mqtt://ops@b", environ={"BOSUN_MQTT_PASSWORD": SECRET})
    assert from_env.password == SECRET
    with pytest.raises(ValueError, match="needs a user"):
        broker_access("mqtt://b", password_file=password_file, environ={})
    with pytest.raises(ValueError, match="needs an mqtts"):
        broker_access("mqtt://ops@b", ca_file=password_file, environ={})
    with pytest.raises(ValueError, match="cannot read"):
        broker_access("mqtt://ops@b", password_file=tmp_path / "missing", environ={})


def test_bosun_run_refuses_a_password_in_the_url_without_echoing_it(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["run", "--mqtt", f"mqtt://ops:{SECRET}@broker.lan:1883"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "must not hold a password" in err and SECRET not in err


def test_mosquitto_hashes_are_pbkdf2_sha512_as_mosquitto_passwd_writes_them():
    salt = bytes(range(12))
    digest = hashlib.pbkdf2_hmac("sha512", SECRET.encode(), salt, 101)
    expected = f"$7$101${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"
    assert mosquitto_hash(SECRET, salt) == expected


def test_the_credentials_file_is_owner_only_and_refused_when_tampered(tmp_path):
    path = tmp_path / "bosun.ships.json"
    credentials = BrokerCredentials.open(path)
    made = credentials.add("window")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = BrokerCredentials(path)
    assert again.for_table("window") == made and again.host == credentials.host
    path.chmod(0o644)
    BrokerCredentials(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # narrowed again on reading
    data = json.loads(path.read_text())
    data["ships"]["window"]["user"] = "bosun-host"  # a ship may not become the host
    path.write_text(json.dumps(data))
    with pytest.raises(CredentialsError, match="should be 'ship-window'"):
        BrokerCredentials(path)
    path.write_text("{not json")
    with pytest.raises(CredentialsError, match="cannot read"):
        BrokerCredentials(path)


def test_bosun_ship_add_writes_the_config_and_shows_the_password_masked(tmp_path, capsys):
    credentials = tmp_path / "bosun.ships.json"
    config = tmp_path / "t9.json"
    config.write_text(json.dumps({"table": "old", "wifi": {"ssid": "cafe", "password": "w"}}))
    args = ["ship", "--credentials", str(credentials)]
    assert main([*args, "add", "t9", "--broker", "192.168.1.5", "--config", str(config)]) == 0
    written = json.loads(config.read_text())
    assert written["table"] == "t9" and written["wifi"]["ssid"] == "cafe"
    assert written["mqtt"]["url"] == "mqtt://192.168.1.5:1883"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    first = written["mqtt"]["password"]
    assert main([*args, "rotate", "t9", "--broker", "192.168.1.5", "--config", str(config)]) == 0
    second = json.loads(config.read_text())["mqtt"]["password"]
    assert second != first
    assert main([*args, "list"]) == 0
    assert main([*args, "remove", "t9"]) == 0
    assert main([*args, "remove", "t9"]) == 1
    out = capsys.readouterr()
    assert first not in out.out + out.err and second not in out.out + out.err
    assert "ship-t9" in out.out
