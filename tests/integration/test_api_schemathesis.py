"""schemathesis, from outside, against the running service's /api/openapi.json: cases made
from every operation's schema (and cases that break it) leave no server error and a service
that still answers promptly."""

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

MAX_EXAMPLES = 10  # cases an operation and phase; every operation gets examples, coverage, fuzzing
RUN_TIME_S = 35  # schemathesis stops there (on a quiet machine it is done well before)
RUN_BUDGET_S = 60  # a ceiling on the whole run, its start-up included
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
            "--max-time",
            str(RUN_TIME_S),
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


def requests_by_operation(report: Path) -> dict[str, int]:
    """How many requests the run sent to each operation ("POST /api/seat/{token}": 40)."""
    sent: dict[str, int] = {}
    for line in report.read_text().splitlines():
        for value in json.loads(line).values():
            if isinstance(value, dict) and "recorder" in value:
                recorder = value["recorder"]
                count = len(recorder.get("interactions") or {})
                sent[recorder["label"]] = sent.get(recorder["label"], 0) + count
    return sent


@pytest.mark.timeout(RUN_BUDGET_S + 60)
def test_schemathesis_finds_no_server_error_and_the_service_answers_after(service, tmp_path):
    # with the operator key: its operations go past the key check into their bodies, and
    # the public and seat operations are the same with it as without
    started = time.monotonic()
    report = tmp_path / "schemathesis.ndjson"
    done = schemathesis(service, report, "--header", f"X-Bosun-Key: {service.key}")
    spent_s = time.monotonic() - started
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    sent = requests_by_operation(report)
    print(
        f"schemathesis: {sum(sent.values())} requests to {len(sent)} operations in "
        f"{spent_s:.1f} s, no server error"
    )
    # it reached every operation (not just the schema), each with more than one case
    schema = service.http.get("/api/openapi.json").json()
    operations = {
        f"{method.upper()} {path}"
        for path, methods in schema["paths"].items()
        if not path.endswith("/stream")
        for method in methods
    }
    assert operations <= {label for label, count in sent.items() if count > 1}, sent
    # still answering, promptly
    before = time.monotonic()
    tables = service.http.get("/api/tables")
    answer_ms = (time.monotonic() - before) * 1000
    assert tables.status_code == 200 and tables.json()[0]["id"] == "t1"
    assert answer_ms < RESPONSIVE_MS, answer_ms
    assert service.http.get("/api/health").json()["ok"] is True
