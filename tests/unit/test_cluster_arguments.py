"""`bosun run --cluster` refuses what a cluster's referee cannot use before it starts anything;
NATS URLs and subjects are checked in one place."""

from __future__ import annotations

import pytest

from bosun.bus.nats_stream import parse_cluster_urls, ship_subject_parts, subject
from bosun.cli import main

TABLES = """
[[table]]
id = "t1"
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" }]
"""
PG = "postgresql://bosun@127.0.0.1:1/bosun"


@pytest.mark.parametrize(
    "args, complaint",
    [
        (["--db", "sqlite:///bosun.db"], "share one PostgreSQL store"),
        (["--demo"], "--demo cannot go with --cluster"),
        (["--mqtt", "mqtt://h:1883"], "--mqtt cannot go with --cluster"),
        (["--ships", "0.0.0.0:1883"], "--ships cannot go with --cluster"),
    ],
)
def test_a_cluster_referee_refuses_what_it_cannot_use(
    tmp_path, monkeypatch, capsys, args, complaint
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bosun.toml").write_text(TABLES)
    monkeypatch.setenv("BOSUN_NATS_PASSWORD", "secret")
    code = main(["run", "--cluster", "nats://referee@127.0.0.1:4222", "--db", PG, *args])
    assert code == 2
    assert complaint in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bosun.toml"]  # nothing started


def test_a_cluster_referee_needs_tables_and_a_login(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BOSUN_NATS_PASSWORD", raising=False)
    assert main(["run", "--cluster", "nats://referee@127.0.0.1:4222", "--db", PG]) == 2
    assert "none there" in capsys.readouterr().err
    (tmp_path / "bosun.toml").write_text(TABLES)
    assert main(["run", "--cluster", "nats://referee@127.0.0.1:4222", "--db", PG]) == 2
    assert "--cluster-password-file" in capsys.readouterr().err
    assert main(["run", "--cluster-password-file", "pw"]) == 2
    assert "goes with --cluster" in capsys.readouterr().err


@pytest.mark.parametrize(
    "urls, complaint",
    [
        ("", "1 to 16 NATS URLs"),
        ("http://u@h:4222", "is not a NATS URL"),
        ("nats://u:pw@h:4222", "no password in a URL"),
        ("nats://h:4222", "name bosun's NATS user once"),
        ("nats://a@h:4222,nats://b@h2:4222", "name bosun's NATS user once"),
        ("nats://u@h:99999", "is not a NATS URL"),
        ("nats://u@h:4222/x", "no path or query"),
    ],
)
def test_bad_cluster_urls_are_refused_saying_why(urls, complaint):
    with pytest.raises(ValueError, match=complaint):
        parse_cluster_urls(urls, "secret")


def test_cluster_urls_name_every_server_and_hide_the_password():
    access = parse_cluster_urls("nats://ref@h1,nats://h2:4223", "secret")
    assert access.servers == ("nats://h1:4222", "nats://h2:4223")
    assert access.user == "ref"
    assert "secret" not in repr(access)
    with pytest.raises(ValueError, match="--cluster-password-file"):
        parse_cluster_urls("nats://ref@h1", None)


def test_topics_and_subjects_map_as_nats_maps_mqtt():
    assert subject("bosun/t1/ship/cmd") == "bosun.t1.ship.cmd"
    assert ship_subject_parts("bosun.t1.ship.event") == ("t1", "ship/event")
    assert ship_subject_parts("bosun.t1.ship.cmd") is None  # ours, not the ship's
    assert ship_subject_parts("bosun.t1.game.state") is None
    for bad in ("bosun/t.1/ship/cmd", "bosun/*/ship/cmd", "bosun//ship/cmd"):
        with pytest.raises(ValueError):
            subject(bad)


def test_an_unreadable_nats_password_file_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bosun.toml").write_text(TABLES)
    args = ["--cluster-password-file", "missing.pw", "--db", PG]
    assert main(["run", "--cluster", "nats://referee@127.0.0.1:4222", *args]) == 2
    assert "cannot read the NATS password file missing.pw" in capsys.readouterr().err
