"""`bosun run` and its files: a damaged or emptied store stops the start in one line before
any broker runs; the store and the operator key it makes are owner-only (0600)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_executable
from support.service import CEILING_S

from bosun.bus.broker import find_mosquitto

BOSUN = str(Path(sys.executable).parent / "bosun")


def broker_spy(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """An environment whose `mosquitto` is the real one behind a script that notes each
    start in a file: (the environment, the file)."""
    real = find_mosquitto() or require_executable("mosquitto", "Debian: apt-get install mosquitto")
    spy_bin = tmp_path / "spy-bin"
    spy_bin.mkdir()
    starts = tmp_path / "broker-starts"
    spy = spy_bin / "mosquitto"
    spy.write_text(f'#!/bin/sh\necho started >> "{starts}"\nexec "{real}" "$@"\n')
    spy.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("BOSUN_DB", "BOSUN_OPERATOR_KEY")}
    env["PATH"] = f"{spy_bin}{os.pathsep}{env.get('PATH', '')}"
    return env, starts


def damaged_copy(tmp_path: Path) -> bytes:
    """A real store's first third: what a copy cut short leaves."""
    from bosun.store import Store

    setup = {"type": "setup", "game": "riffraff", "players": ["ann", "bob"], "captain": "ann"}
    scratch = tmp_path / "scratch.db"
    with Store.open(f"sqlite:///{scratch}") as store:
        for n in range(20):
            store.start_game(f"t{n}", "riffraff", ["ann", "bob"], setup, None, n + 1)
    whole = scratch.read_bytes()
    return whole[: len(whole) // 3]


@pytest.mark.parametrize("damage", ["random bytes", "empty", "cut short"])
def test_a_damaged_store_is_one_line_and_starts_nothing(tmp_path, damage):
    env, starts = broker_spy(tmp_path)
    workdir = tmp_path / "cafe"
    workdir.mkdir()
    content = {"random bytes": os.urandom(20_000), "empty": b"", "cut short": None}[damage]
    (workdir / "bosun.db").write_bytes(content if content is not None else damaged_copy(tmp_path))
    before = (workdir / "bosun.db").read_bytes()
    done = subprocess.run(
        [BOSUN, "run", "--port", "0"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=CEILING_S,
    )
    said = done.stderr.strip().splitlines()
    assert done.returncode == 1, done.stderr
    assert len(said) == 1 and "Traceback" not in done.stderr, done.stderr
    assert said[0].startswith("bosun run: could not start:") and "bosun.db" in said[0]
    assert not starts.exists(), "a broker was started before the store was checked"
    assert (workdir / "bosun.db").read_bytes() == before  # left as it was, for a rescue


def test_a_new_store_and_operator_key_are_owner_only_and_the_broker_runs(tmp_path):
    env, starts = broker_spy(tmp_path)
    workdir = tmp_path / "cafe"
    workdir.mkdir()
    process = subprocess.Popen(
        # the usual shell's umask: a file made without care would be 0644
        ["/bin/sh", "-c", f'umask 022 && exec "{BOSUN}" run --port 0'],
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        said = []
        for line in process.stderr:  # returns at the announcement, or when bosun ends
            said.append(line)
            if "Ctrl-C stops" in line:
                break
        assert any("bosun is running" in line for line in said), "".join(said)
        assert starts.exists()  # the spy does see a broker start: the test above can fail
        for name in ("bosun.db", "bosun.db-wal", "bosun.db-shm", "bosun.key"):
            path = workdir / name
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, name
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=CEILING_S)
    assert process.returncode == 0
