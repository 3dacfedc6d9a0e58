"""The suite's loop watch (tests/support/loopwatch.py) catches a callback that blocks its loop,
says where, and lets short callbacks and busy machines be."""

from __future__ import annotations

import asyncio
import threading
import time

from conftest import LOOP_WATCH


def test_a_callback_that_blocks_the_loop_is_caught_with_where_it_blocked():
    async def joins_a_thread() -> None:
        # long enough to stand out even when a crowded machine excuses some of it
        worker = threading.Thread(target=time.sleep, args=(0.8,))
        worker.start()
        worker.join()  # blocking: what must never happen on a loop

    asyncio.run(joins_a_thread())
    holds = LOOP_WATCH.take()
    assert len(holds) == 1, [str(h) for h in holds]
    assert holds[0].held_s >= 0.1  # of the 800 ms join; on a crowded machine some is excused
    assert "joins_a_thread" in holds[0].callback
    assert "join" in holds[0].stack


def test_a_callback_that_computes_too_long_is_caught():
    async def computes() -> None:
        end = time.thread_time() + 0.15
        while time.thread_time() < end:
            pass

    asyncio.run(computes())
    holds = LOOP_WATCH.take()
    assert len(holds) == 1 and holds[0].held_s >= 0.14


def test_short_callbacks_and_waiting_by_awaiting_are_not_holds():
    async def waits_politely() -> None:
        for _ in range(20):
            await asyncio.sleep(0.01)
        await asyncio.to_thread(time.sleep, 0.2)  # blocking, but off the loop

    asyncio.run(waits_politely())
    assert LOOP_WATCH.take() == []


def test_every_loop_runs_in_asyncio_debug_mode():
    async def debug() -> bool:
        return asyncio.get_running_loop().get_debug()

    assert asyncio.run(debug())


def test_waiting_for_the_gil_behind_a_busy_thread_is_not_a_hold():
    stop = threading.Event()

    def spins() -> None:  # pure Python: holds the GIL, hands it over every 5 ms when asked
        while not stop.is_set():
            pass

    async def computes_a_little() -> None:
        end = time.thread_time() + 0.07
        while time.thread_time() < end:
            pass

    neighbour = threading.Thread(target=spins)
    neighbour.start()
    try:
        asyncio.run(computes_a_little())  # ~70 ms of its own, ~140 ms by the wall clock
    finally:
        stop.set()
        neighbour.join()
    assert LOOP_WATCH.take() == []
