"""The service's clock waits for the virtual ships that pace it (host/bosun/referee/clock.py):
the referee never sees ship time the ship has not sampled yet, and the clock never goes back."""

from __future__ import annotations

import asyncio

import pytest

from bosun.referee.clock import LoopClock


class StoppedLoop(asyncio.SelectorEventLoop):
    """A loop whose time the test sets (the clock reads only `time()` and schedules)."""

    def __init__(self) -> None:
        super().__init__()
        self.t = 1000.0

    def time(self) -> float:
        return self.t


class Ship:
    def __init__(self) -> None:
        self.behind = 0.0

    def behind_ms(self) -> float:
        return self.behind


@pytest.fixture
def loop():
    loop = StoppedLoop()
    yield loop
    loop.close()


def test_a_ship_behind_holds_the_clock_back_and_it_never_goes_back(loop):
    clock = LoopClock(loop, scale=10)
    start = clock.now_ms()
    ship = Ship()
    clock.pace_with(ship)
    loop.t += 1.0  # 10 s of ship time on the wall clock
    assert clock.now_ms() - start == 10_000
    ship.behind = 4_000.0  # the ship could not keep up: it has sampled 6 s of them
    loop.t += 0.1
    assert clock.now_ms() - start == 10_000  # held: 11 s less 4 s is before what it said
    loop.t += 0.5
    assert clock.now_ms() - start == 12_000  # 16 s less 4 s
    ship.behind = 0.0  # caught up
    assert clock.now_ms() - start == 16_000


def test_the_slowest_ship_paces_the_clock_and_a_stopped_one_none(loop):
    clock = LoopClock(loop)
    start = clock.now_ms()
    slow, fast = Ship(), Ship()
    clock.pace_with(slow)
    clock.pace_with(fast)
    slow.behind, fast.behind = 700.0, 100.0
    loop.t += 2.0
    assert clock.now_ms() - start == 1_300
    del slow  # a ship gone (its table removed) paces nothing
    assert clock.now_ms() - start == 1_900


def test_a_timer_is_due_when_the_clock_reads_its_deadline_from_where_it_stands(loop):
    clock = LoopClock(loop, scale=10)
    ship = Ship()
    clock.pace_with(ship)
    now = clock.now_ms()
    assert clock.call_at_ms(now + 1_500, lambda: None).when() == pytest.approx(loop.t + 0.15)
    ship.behind = 1_000.0  # the clock stands still for 0.1 s of real time ...
    loop.t += 0.1
    assert clock.now_ms() == now
    # ... so a deadline 1.5 s ahead is 0.15 s of real time from here, not 0.05 s
    assert clock.call_at_ms(now + 1_500, lambda: None).when() == pytest.approx(loop.t + 0.15)
    assert clock.call_at_ms(now - 5, lambda: None).when() == pytest.approx(loop.t)
