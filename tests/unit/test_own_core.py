"""MicroPython processes get a real-time priority on one core, and leave the host the others
(host/bosun/board/micropython.py's own_core)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bosun.board.micropython import own_core

CORES = sorted(os.sched_getaffinity(0))


@pytest.fixture
def two_processes():
    sleepers = [
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(2)
    ]
    yield [p.pid for p in sleepers]
    for process in sleepers:
        process.kill()
        process.wait()


def test_two_micropython_processes_share_one_core_and_leave_the_host_the_rest(two_processes):
    granted = [own_core(pid) for pid in two_processes]
    if os.geteuid() != 0:  # no real-time priority for an ordinary user: nothing changes
        assert granted == [False, False]
        assert all(os.sched_getaffinity(pid) == set(CORES) for pid in two_processes)
        return
    assert granted == [True, True]
    assert all(os.sched_getscheduler(pid) == os.SCHED_FIFO for pid in two_processes)
    pinned = [os.sched_getaffinity(pid) for pid in two_processes]
    if len(CORES) > 1:
        assert pinned[0] == pinned[1] and len(pinned[0]) == 1
        assert pinned[0] < set(CORES)  # the other cores stay the host's
    else:
        assert pinned == [set(CORES), set(CORES)]
