"""Live streams (server-sent events): a snapshot now and again after every change.

Every open stream is known to the app's `LiveStreams`, so that a stopping service can end
them all first: each response then completes properly before the web server stops, and a
clean stop prints no "ASGI callable returned without completing response".
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import Request

from bosun.referee.view import TableView

IDLE_CHECK_S = 5.0  # a quiet stream looks this often whether its page is still there


class LiveStreams:
    """The app's open live streams; `close()` ends every one and waits until they have."""

    def __init__(self) -> None:
        self.closing = False
        self._wake: set[asyncio.Event] = set()
        self._ended = asyncio.Event()
        self._ended.set()

    def opened(self, wake: asyncio.Event) -> None:
        self._wake.add(wake)
        self._ended.clear()

    def ended(self, wake: asyncio.Event) -> None:
        self._wake.discard(wake)
        if not self._wake:
            self._ended.set()

    async def close(self) -> None:
        self.closing = True
        for wake in list(self._wake):
            wake.set()
        await self._ended.wait()


async def stream(
    view: TableView,
    request: Request,
    build: Callable[[], dict[str, Any]],
    valid: Callable[[], bool] | None = None,
) -> AsyncIterator[dict[str, str]]:
    """Send the snapshot now and again after every change; drop stale ones under load.

    With `valid`, the stream ends with an `ended` event once it returns False (a seat link
    of a finished game must not show that seat's next game).
    """
    streams: LiveStreams = request.app.state.streams
    changed = asyncio.Event()

    def listener() -> None:
        changed.set()

    view.watch(listener)
    streams.opened(changed)
    try:
        yield {"event": "snapshot", "data": json.dumps(build(), allow_nan=False)}
        while not streams.closing and not await request.is_disconnected():
            try:
                await asyncio.wait_for(changed.wait(), timeout=IDLE_CHECK_S)
            except TimeoutError:
                continue
            changed.clear()
            if streams.closing:
                return
            if valid is not None and not valid():
                message = "this seat link belongs to a finished game"
                yield {"event": "ended", "data": json.dumps({"error": message})}
                return
            yield {"event": "snapshot", "data": json.dumps(build(), allow_nan=False)}
    finally:
        view.unwatch(listener)
        streams.ended(changed)
