"""`bosun tables` lists the tables with their ship's status from the running service."""

from __future__ import annotations

from support.service import BrokerShip, RunningService

from bosun.cli import main
from bosun.service import ServiceOptions
from bosun.tables import load_tables

TABLES = """
[[table]]
id = "t1"
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" }]

[[table]]
id = "t2"
players = [{ name = "cy", colour = "#e63946" }, { name = "dee", colour = "#2a9df4" }]
"""


def test_tables_with_ship_status(tmp_path, mosquitto, capsys):
    path = tmp_path / "bosun.toml"
    path.write_text(TABLES)
    options = ServiceOptions(
        tables=load_tables(path),
        db_url=f"sqlite:///{tmp_path / 'b.db'}",
        mqtt_url=mosquitto.url,
        http_port=0,
    )
    with RunningService(options) as running:
        ship = BrokerShip(mosquitto.host, mosquitto.port, "t1")
        running.wait_for("t1", lambda s: s["ship"]["online"])
        status = main(["tables", "--tables", str(path), "--service", running.service.http_url])
        ship.close()
    out = capsys.readouterr().out
    assert status == 0
    t1 = next(line for line in out.splitlines() if " t1 " in line)
    t2 = next(line for line in out.splitlines() if " t2 " in line)
    assert "online" in t1 and "round 1, choose" in t1
    assert "offline" in t2 and "cy, dee" in t2


def test_without_the_service_the_status_is_unknown(tmp_path, capsys):
    path = tmp_path / "bosun.toml"
    path.write_text(TABLES)
    status = main(["tables", "--tables", str(path), "--service", "http://127.0.0.1:9"])
    out = capsys.readouterr().out
    assert status == 1
    assert "not running" in out and "unknown" in out


def test_a_broken_tables_file_is_named(tmp_path, capsys):
    path = tmp_path / "bosun.toml"
    path.write_text('[[table]]\nid = "T 1"\n')
    assert main(["tables", "--tables", str(path)]) == 2
    assert "bosun.toml" in capsys.readouterr().out
