"""A private, throwaway PostgreSQL cluster on a free loopback port, for tests and benchmarks.

`initdb` refuses to run as root, so as root the cluster belongs to the `postgres` user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from bosun.bus.broker import free_port


def find_postgres_bin() -> Path | None:
    """The folder holding initdb and pg_ctl (on PATH, or Debian's versioned folder)."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(os.path.realpath(on_path)).parent
    folders = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True
    )
    for folder in folders:
        if Path(folder, "initdb").is_file() and Path(folder, "pg_ctl").is_file():
            return Path(folder)
    return None


class PostgresCluster:
    """initdb + pg_ctl start on 127.0.0.1:port; `new_database()` gives a fresh database URL."""

    def __init__(self, bin_dir: Path, *, durable: bool = False) -> None:
        self.bin_dir = bin_dir
        self.durable = durable  # False: no fsync, for fast tests; True for benchmarks
        self.root = Path(tempfile.mkdtemp(prefix="bosun-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            # initdb refuses root; the folder must be the server user's.
            shutil.chown(self.root, "postgres", "postgres")
            self._as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        result = subprocess.run(
            [*self._as_user, *args], capture_output=True, text=True, timeout=60, check=False
        )
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {result.stderr.strip()[-500:]}")

    def start(self) -> PostgresCluster:
        self._run(
            str(self.bin_dir / "initdb"),
            "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync",
            "-E", "UTF8", "--locale=C",
        )  # fmt: skip
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        if not self.durable:
            options += " -c fsync=off -c full_page_writes=off"
        self._run(
            str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-o", options,
            "-l", str(self.root / "server.log"), "-w", "start",
        )  # fmt: skip
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
