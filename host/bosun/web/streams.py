"""Live streams (server-sent events): a snapshot now, then what changed after every change.

A stream opens with the whole snapshot (`snapshot`); after that it sends only what changed
since the last one it sent (`patch`, a JSON Patch: bosun.web.patches), or the whole snapshot
again when that is shorter. A page that reconnects opens a new stream: it starts whole.

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
from bosun.web.patches import make_patch

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
    seat: str | None = None,
) -> AsyncIterator[dict[str, str]]:
    """Send the snapshot now and what changed after every change; drop stale ones under load.

    With `valid`, the stream ends with an `ended` event once it returns False (a seat link
    of a finished game must not show that seat's next game). With `seat`, the stream is that
    seat's page: while it is open the table shows the seat as present.
    """
    streams: LiveStreams = request.app.state.streams
    changed = asyncio.Event()

    def listener() -> None:
        changed.set()

    view.watch(listener)
    streams.opened(changed)
    if seat is not None:
        view.seat_page_opened(seat)
    try:
        whole = json.dumps(build(), allow_nan=False)
        # what the page holds, as JSON: a copy (a build may share state that changes in
        # place, the calibration wizard's does) with JSON's keys and lists
        sent = json.loads(whole)
        yield {"event": "snapshot", "data": whole}
        while not streams.closing and not await request.is_disconnected():
            try:  # (asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancel)
                async with asyncio.timeout(IDLE_CHECK_S):
                    await changed.wait()
            except TimeoutError:
                continue
            changed.clear()
            if streams.closing or view.closed:
                return  # a table that moved (a cluster): the page finds it again
            if valid is not None and not valid():
                message = "this seat link belongs to a finished game"
                yield {"event": "ended", "data": json.dumps({"error": message})}
                return
            whole = json.dumps(build(), allow_nan=False)
            now = json.loads(whole)
            ops = make_patch(sent, now)
            if all(op["path"] == "/now_ms" for op in ops):
                continue  # nothing this page shows changed (the ship's grams, for players)
            patch = json.dumps(ops)
            sent = now
            if len(patch) < len(whole):
                yield {"event": "patch", "data": patch}
            else:
                yield {"event": "snapshot", "data": whole}
    finally:
        view.unwatch(listener)
        streams.ended(changed)
        if seat is not None:
            view.seat_page_closed(seat)
