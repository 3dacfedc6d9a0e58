"""Catch every callback that holds an asyncio loop for 100 ms or more, in every test.

asyncio's debug mode (on for the whole suite: conftest.py's loop policy) warns about slow
callbacks by wall-clock time, which on a busy machine mostly measures how long the loop's
thread waited for a core. This watch measures what the callback itself cost the loop, from
Linux's per-thread scheduler statistics (/proc/self/task/*/schedstat: time on a CPU, time
runnable in the run queue):

    held = wall - time the loop's thread waited for a core
                - time it plausibly waited for the GIL while its holder waited for a core
                - time the garbage collector ran meanwhile (any thread's: it stops them all)
                - time it waited for the GIL (asleep but woken every few ms: CPython's GIL
                  wait wakes every 5 ms; a join, a sleep or a busy database wakes rarely)

What remains is computing and blocking — a thread join, a sleep, a slow query — exactly what
must not happen on the loop. The third term is bounded by the other threads' run-queue time
in the same interval (the sampler keeps a running total); on a quiet machine it is ~0 and
the measure is exact, on a crowded one it errs towards not blaming the code for the machine.
Without schedstat (not Linux) it falls back to wall time.

The sampler also looks at every loop's running callback twice per limit and keeps the stack
of one that runs past the limit, so a report says where the loop was stuck.
"""

from __future__ import annotations

import asyncio
import bisect
import gc
import os
import sys
import threading
import time
import traceback
from asyncio import events
from collections import deque

HOLD_LIMIT_S = 0.1
_STACK_FRAMES = 14
_GIL_WAKE_S = 0.010  # asleep yet woken at least this often: a GIL wait (5 ms timed waits)
_SERIES_LENGTH = 2000  # run-queue totals kept by the sampler: ~50 s at its pace


class LoopHold:
    """One callback that held its loop too long: what it was, for how long, and where."""

    def __init__(self, callback: str, held_s: float, wall_s: float, stack: str) -> None:
        self.callback = callback
        self.held_s = held_s
        self.wall_s = wall_s
        self.stack = stack

    def __str__(self) -> str:
        text = (
            f"{self.callback} held the asyncio loop for {self.held_s * 1000:.0f} ms "
            f"({self.wall_s * 1000:.0f} ms wall clock)"
        )
        return text + (f"; stuck in:\n{self.stack}" if self.stack else "")


class _Running:
    """The callback a loop thread is running now (for the sampler)."""

    __slots__ = ("handle", "start", "stack")

    def __init__(self, handle: events.Handle, start: float) -> None:
        self.handle = handle
        self.start = start
        self.stack = ""


def _schedstat(fd: int) -> tuple[int, int, int]:
    """(ns on a CPU, ns runnable in the run queue, times scheduled in) of `fd`'s thread."""
    fields = os.pread(fd, 128, 0).split()
    return int(fields[0]), int(fields[1]), int(fields[2])


class LoopWatch:
    """Patches asyncio's Handle._run once per process; `take()` returns what was caught."""

    def __init__(self, limit_s: float = HOLD_LIMIT_S) -> None:
        self.limit_s = limit_s
        self._holds: list[LoopHold] = []
        self._lock = threading.Lock()
        self._local = threading.local()
        self._running: dict[int, _Running] = {}  # loop thread id -> its current callback
        # (monotonic s, every thread's run-queue ns so far), appended by the sampler
        self._queued_series: deque[tuple[float, int]] = deque(maxlen=_SERIES_LENGTH)
        self._pending: list[tuple] = []  # slow callbacks waiting for the sampler's judgement
        self._gc_s = 0.0  # seconds the garbage collector has run so far, in any thread
        self._gc_started = 0.0
        self._original = None

    def install(self) -> None:
        if self._original is not None:
            return
        original = self._original = events.Handle._run
        watch, running = self, self._running

        def _run(handle: events.Handle) -> None:
            thread_id = threading.get_ident()
            before = watch._own_stats()
            gc_before = watch._gc_s
            current = running[thread_id] = _Running(handle, time.monotonic())
            try:
                original(handle)
            finally:
                running.pop(thread_id, None)
                wall = time.monotonic() - current.start
                if wall >= watch.limit_s:
                    watch._check(current, wall, before, watch._gc_s - gc_before)

        events.Handle._run = _run
        gc.callbacks.append(self._on_gc)
        threading.Thread(target=self._sample, name="loopwatch", daemon=True).start()

    def _on_gc(self, phase: str, _info: dict) -> None:
        # A collection holds the GIL: it pauses every thread, the loop's included. Its cost is
        # the process's size (the test process is large), not the callback's doing.
        if phase == "start":
            self._gc_started = time.monotonic()
        else:
            self._gc_s += time.monotonic() - self._gc_started

    def take(self) -> list[LoopHold]:
        """What was caught since the last call (once the sampler has judged every slow
        callback that ended before now)."""
        deadline = time.monotonic() + 1.0
        while self._pending and time.monotonic() < deadline:
            time.sleep(0.01)  # the sampler's next round: nothing to wait on instead
        with self._lock:
            holds, self._holds = self._holds, []
        return holds

    # -- measuring ---------------------------------------------------------------------------

    def _own_stats(self) -> tuple[int, int] | None:
        fd = getattr(self._local, "fd", -1)
        if fd == -1:
            try:
                fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
            except OSError:
                fd = None
            self._local.fd = fd
        return None if fd is None else _schedstat(fd)

    def _all_queued_ns(self) -> int | None:
        total = 0
        try:
            for task in os.listdir("/proc/self/task"):
                with open(f"/proc/self/task/{task}/schedstat", "rb") as stats:
                    total += int(stats.read().split()[1])
        except (OSError, ValueError, IndexError):
            return None  # a thread ended while being read: skip this sample
        return total

    def _queued_between(self, start: float, end: float) -> float:
        """Seconds every thread together spent in the run queue between two moments (from
        the sampler's series; 0 if it has none that wide)."""
        series = list(self._queued_series)
        times = [t for t, _ in series]
        first = bisect.bisect_right(times, start) - 1
        last = bisect.bisect_left(times, end)
        if first < 0 or last >= len(series):
            return 0.0
        return (series[last][1] - series[first][1]) / 1e9

    def _check(self, current: _Running, wall_s: float, before, gc_s: float) -> None:
        """A callback ran past the limit by the wall clock: the sampler judges it once it has a
        run-queue total from after the callback's end (nothing waits on the loop for that)."""
        after = self._own_stats()
        with self._lock:
            self._pending.append((current, wall_s, before, after, gc_s))

    def _judge(
        self, current: _Running, wall_s: float, before, after, gc_s: float
    ) -> LoopHold | None:
        held = wall_s - gc_s
        if before is not None and after is not None:
            cpu_s = (after[0] - before[0]) / 1e9
            own_queue_s = (after[1] - before[1]) / 1e9
            blocked_s = max(0.0, wall_s - cpu_s - own_queue_s)
            wakes = after[2] - before[2]
            if blocked_s and wakes >= blocked_s / _GIL_WAKE_S:
                blocked_s = 0.0  # waiting for the GIL while other threads ran
            end = current.start + wall_s
            others_queue_s = max(0.0, self._queued_between(current.start, end) - own_queue_s)
            held = cpu_s + max(0.0, blocked_s - others_queue_s) - gc_s
        if held >= self.limit_s and not _is_browser_driver(current.handle):
            return LoopHold(_describe(current.handle), held, wall_s, current.stack)
        return None

    # -- the sampler thread ------------------------------------------------------------------

    def _sample(self) -> None:
        pace_s = self.limit_s / 4
        while True:
            queued = self._all_queued_ns()
            if queued is not None:
                self._queued_series.append((time.monotonic(), queued))
            self._judge_pending()
            self._keep_stacks()
            time.sleep(pace_s)  # the sampler's own pace: it has nothing to wait on

    def _judge_pending(self) -> None:
        if not self._pending or not self._queued_series:
            return
        latest = self._queued_series[-1][0]
        with self._lock:
            # judged and kept before they leave the pending list: take() waits while it is not
            # empty, and must then find them (a hold judged after it looked went to the next
            # test, in CI once)
            ready = [p for p in self._pending if p[0].start + p[1] < latest]
            for record in ready:
                hold = self._judge(*record)
                if hold is not None:
                    self._holds.append(hold)
            self._pending = [p for p in self._pending if p[0].start + p[1] >= latest]

    def _keep_stacks(self) -> None:
        now = time.monotonic()
        for thread_id, current in list(self._running.items()):
            if current.stack or now - current.start < self.limit_s:
                continue
            frame = sys._current_frames().get(thread_id)
            if frame is not None and self._running.get(thread_id) is current:
                lines = traceback.format_stack(frame)[-_STACK_FRAMES:]
                current.stack = "".join("    " + line for line in lines).rstrip()


def _is_browser_driver(handle: events.Handle) -> bool:
    """playwright's sync API runs the test's own code inside its loop's callbacks (greenlets):
    that loop is the test's, not bosun's."""
    callback = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", callback)
    if isinstance(owner, asyncio.Task):
        owner = owner.get_coro()
    module = getattr(owner, "__module__", None) or getattr(
        getattr(owner, "cr_code", None), "co_filename", ""
    )
    return "playwright" in str(module)


def _describe(handle: events.Handle) -> str:
    callback = getattr(handle, "_callback", None)
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro = task.get_coro()
        return f"task {task.get_name()} ({getattr(coro, '__qualname__', coro)})"
    return repr(handle)
