"""Shared test plumbing: tiers by folder, CI's rule that nothing may be skipped, and no test
may hold an asyncio loop (every loop runs in debug mode; tests/support/loopwatch.py)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest
from support.loopwatch import HOLD_LIMIT_S, LoopWatch

REPO = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
TIER_MARKERS = {"micropython": "micropython", "integration": "broker", "browser": "browser"}
LOOP_WATCH = LoopWatch(HOLD_LIMIT_S)


class DebugLoopPolicy(asyncio.DefaultEventLoopPolicy):
    """Every loop a test makes runs in asyncio's debug mode: it raises on a loop call from
    the wrong thread, reports coroutines never awaited, and logs slow callbacks."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        loop = super().new_event_loop()
        loop.set_debug(True)
        loop.slow_callback_duration = HOLD_LIMIT_S
        return loop


def pytest_configure(config: pytest.Config) -> None:
    asyncio.set_event_loop_policy(DebugLoopPolicy())
    LOOP_WATCH.install()


@pytest.fixture(autouse=True)
def no_loop_held():
    """Fail a test during which any asyncio callback held its loop for 100 ms or more."""
    LOOP_WATCH.take()  # what earlier tests' leftovers did is theirs
    yield
    holds = LOOP_WATCH.take()
    if holds:
        pytest.fail("blocking work on an asyncio loop:\n" + "\n".join(f"  {h}" for h in holds))


def require_executable(name: str, how_to_install: str) -> str:
    """The path of a tool a test drives for real; skip without it, but fail under CI."""
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found:
        return found
    message = f"{name} is not installed ({how_to_install})"
    if IN_CI:
        pytest.fail(f"CI needs {message}")
    pytest.skip(message)


@pytest.fixture
def mosquitto():
    """A private, real mosquitto broker on a free loopback port (stop/restart allowed)."""
    from bosun.bus.broker import MosquittoBroker, find_mosquitto

    if find_mosquitto() is None:
        require_executable("mosquitto", "Debian: apt-get install mosquitto")
    broker = MosquittoBroker().start()
    yield broker
    broker.close()


def nats_server_executable() -> str:
    """The nats-server the tests start their own servers with (skip without, fail in CI)."""
    from nats_server import find_nats_server

    found = find_nats_server()
    return found or require_executable("nats-server", "Debian: apt-get install nats-server")


@pytest.fixture
def nats_server(tmp_path):
    """A private, real NATS server with JetStream and its MQTT listener, on free ports."""
    from nats_server import NatsServer

    executable = nats_server_executable()
    server = NatsServer(executable, tmp_path / "nats").start()
    yield server
    server.close()


@pytest.fixture
def nats_cluster(tmp_path):
    """Three private NATS servers in one cluster (JetStream clustered, MQTT on each)."""
    from nats_server import NatsCluster

    executable = nats_server_executable()
    cluster = NatsCluster(executable, tmp_path / "nats").start()
    yield cluster
    cluster.close()


@pytest.fixture(scope="session")
def postgres_cluster():
    """A private, throwaway PostgreSQL cluster on a free loopback port, one per test worker."""
    from postgres_server import PostgresCluster, find_postgres_bin

    bin_dir = find_postgres_bin()
    if bin_dir is None:
        require_executable("initdb", "Debian: apt-get install postgresql")
    cluster = PostgresCluster(bin_dir).start()
    yield cluster
    cluster.stop()


@pytest.fixture
def postgres_url(postgres_cluster) -> str:
    """The URL of a fresh, empty database on the private PostgreSQL cluster."""
    return postgres_cluster.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    """Each store the service supports: a SQLite file, and a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'bosun.db'}"
    return request.getfixturevalue("postgres_url")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = Path(item.fspath).relative_to(REPO / "tests").parts[0]
        if tier in TIER_MARKERS:
            item.add_marker(TIER_MARKERS[tier])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, where nothing may be skipped: {reason}"
