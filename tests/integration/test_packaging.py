"""`pip install .` alone (no extras) gives a working `bosun`: every command, the demo, the
pages and the API docs (served from the package, not a CDN)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from conftest import REPO
from support.polling import until

from bosun.bus.broker import free_port, wait_for_port


def run(*command: str | Path, timeout_s: float = 600, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(c) for c in command], capture_output=True, text=True, timeout=timeout_s, **kwargs
    )
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done


@pytest.mark.timeout(900)  # a fresh virtual environment installs every dependency
def test_the_wheel_without_extras_runs_every_command_and_serves_the_api_docs(tmp_path):
    run(sys.executable, "-m", "pip", "wheel", REPO, "--no-deps", "-q", "-w", tmp_path / "dist")
    [wheel] = (tmp_path / "dist").glob("bosun-*.whl")
    run(sys.executable, "-m", "venv", tmp_path / "venv")
    pip = tmp_path / "venv" / "bin" / "pip"
    run(pip, "install", "-q", "--disable-pip-version-check", wheel)
    bosun = tmp_path / "venv" / "bin" / "bosun"
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "BOSUN_OPERATOR_KEY": "operator-secret"}
    env.pop("PYTHONPATH", None)

    version = run(bosun, "--version", env=env).stdout
    assert re.fullmatch(r"bosun \d+\.\d+\.\d+\S*\n", version), version
    helped = run(bosun, "--help", env=env).stdout
    for command in ("run", "demo", "tables", "simulate", "replay", "detect", "bridge"):
        assert command in helped
    simulated = run(bosun, "simulate", "riffraff", "--games", "3", "--json", env=env).stdout
    assert '"games": 3' in simulated

    port = free_port()
    service = subprocess.Popen(
        [str(bosun), "run", "--demo", "1", "--port", str(port)],
        cwd=home,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for_port("127.0.0.1", port, 120, service), service.stderr.read()
        base = f"http://127.0.0.1:{port}"
        # the web answers first; the demo's table joins a moment later (its ship boots)
        home_page = until(
            lambda: httpx.get(f"{base}/", timeout=30),
            lambda page: page.status_code == 200 and "demo-1" in page.text,
        )
        assert home_page.status_code == 200
        docs = httpx.get(f"{base}/api/docs", timeout=30)
        assert docs.status_code == 200
        assert "http" not in docs.text.replace(base, "")  # nothing from elsewhere
        for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', docs.text):
            assert httpx.get(f"{base}{asset}", timeout=30).status_code == 200, asset
        listed = run(bosun, "tables", "--service", base, env=env, cwd=home).stdout
        assert "demo-1" in listed and "online" in listed
    finally:
        service.terminate()
        service.wait(60)
