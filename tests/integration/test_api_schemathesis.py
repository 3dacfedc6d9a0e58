"""schemathesis, from outside, against the running service's /api/openapi.json: cases made
from every operation's schema (and cases that break it), with the operator key and without,
leave no server error and a service that still answers promptly."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import require_executable
from support.service import RunningService, online_ship, service_options

from bosun.tables import TableConfig, default_seats

MAX_EXAMPLES = 12  # cases an operation and phase; every operation gets examples, coverage, fuzzing
RUN_BUDGET_S = 60  # the whole run: a ceiling, the run takes what its cases take
RESPONSIVE_MS = 500  # /api/tables answers within this afterwards (4 ms on a quiet machine)


@pytest.fixture
def service(mosquitto, tmp_path):
    table = TableConfig(id="t1", players=default_seats(["ann", "bob", "cy"]), settle_s=0)
    options = service_options(mosquitto.url, tmp_path, [table])
    with RunningService(options) as running, online_ship(running, mosquitto):
        yield running


def schemathesis(service, report: Path, *extra: str) -> subprocess.CompletedProcess:
    """One bounded run; whatever it keeps on disk stays in the report's folder."""
    st = str(Path(sys.executable).parent / "st")
    if not Path(st).exists():
        st = require_executable("st", "pip install -e '.[test]' (schemathesis)")
    return subprocess.run(
        [
            st,
            "run",
            f"{service.service.http_url}/api/openapi.json",
            "--checks",
            "not_a_server_error",
            "--phases",
            "examples,coverage,fuzzing",
            "--max-examples",
            str(MAX_EXAMPLES),
            "--seed",
            "14",
            "--generation-database",
            "none",
            "--request-timeout",
            "10",
            # a live stream never ends by itself: tests/integration/test_web_guard.py has them
            "--exclude-path-regex",
            "/stream$",
            "--report",
            "ndjson",
            "--report-ndjson-path",
            str(report),
            "--no-color",
            *extra,
        ],
        cwd=report.parent,
        capture_output=True,
        text=True,
        timeout=RUN_BUDGET_S,
    )


def cases_sent(report: Path) -> int:
    """How many requests the run made (from its event log)."""
    sent = 0
    for line in report.read_text().splitlines():
        event = json.loads(line)
        for value in event.values():
            if isinstance(value, dict) and "recorder" in value:
                sent += len(value["recorder"].get("interactions", {}))
    return sent


@pytest.mark.timeout(2 * RUN_BUDGET_S + 60)
def test_schemathesis_finds_no_server_error_and_the_service_answers_after(service, tmp_path):
    started = time.monotonic()
    as_operator = schemathesis(
        service, tmp_path / "operator.ndjson", "--header", f"X-Bosun-Key: {service.key}"
    )
    as_anyone = schemathesis(service, tmp_path / "anyone.ndjson")
    spent_s = time.monotonic() - started
    for done in (as_operator, as_anyone):
        assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    sent = cases_sent(tmp_path / "operator.ndjson") + cases_sent(tmp_path / "anyone.ndjson")
    print(f"schemathesis: {sent} requests in {spent_s:.1f} s, no server error")
    assert sent > 200  # it did reach the operations, not just the schema
    # still answering, promptly
    before = time.monotonic()
    tables = service.http.get("/api/tables")
    answer_ms = (time.monotonic() - before) * 1000
    assert tables.status_code == 200 and tables.json()[0]["id"] == "t1"
    assert answer_ms < RESPONSIVE_MS, answer_ms
    assert service.http.get("/api/health").json()["ok"] is True
