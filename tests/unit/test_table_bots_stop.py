"""A virtual table's bots stop when asked, whenever the ask comes (host/bosun/demo/table_bots.py).

Python 3.11's `asyncio.wait_for` swallows a cancel that arrives as the awaited wait ends: the
bots' loop then went on, and the table's stop() waited for it for ever (a test teardown that
did not end within a minute in CI). And their web client is made without a certificate bundle
(30-60 ms of the loop a table, read from disk): they talk to the service's own plain HTTP."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from bosun.demo.table_bots import TableBots

STOP_CEILING_S = 3.0


class Bots(TableBots):
    tick_s = 0.5

    async def _step(self) -> None:
        self.steps += 1


class Network:
    """The broker's side of the bots, which this test does not need."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


def test_the_bots_stop_when_the_stop_comes_as_the_game_changes():
    async def scenario() -> int:
        bots = Bots("t1", None, "http://127.0.0.1:9", "key", ("127.0.0.1", 9), 0, None)
        bots._network = Network()  # noqa: SLF001
        bots.steps = 0
        bots.start()
        while bots.steps == 0:  # the loop runs and waits for the next change
            await asyncio.sleep(0.01)
        bots._state_changed.set()  # noqa: SLF001 - the game changed ...
        await asyncio.sleep(0)  # ... and the wait ends just as the stop comes
        stopping = asyncio.get_running_loop().time()
        # stop() cancels the loop at once; a ceiling that (as the cancel the loop swallowed
        # did) ends it only by cancelling this test's own wait
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(STOP_CEILING_S):
                await bots.stop()
        return asyncio.get_running_loop().time() - stopping

    assert asyncio.run(scenario()) < STOP_CEILING_S / 2  # stopped at once, not at the ceiling


def test_the_bots_play_only_through_the_services_own_plain_http_address():
    # their web client loads no certificate bundle on the loop: so it must never need one
    async def make(url: str) -> Bots:
        return Bots("t1", None, url, "key", ("127.0.0.1", 9), 0, None)

    with pytest.raises(ValueError, match="http:// address"):
        asyncio.run(make("https://bosun.example:8443"))
    bots = asyncio.run(make("http://127.0.0.1:9"))
    assert str(bots.http.base_url) == "http://127.0.0.1:9"
