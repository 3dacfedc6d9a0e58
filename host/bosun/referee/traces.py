"""Raw samples from every ship, written to the store together every few hundred ms.

At 80 SPS a ship sends ten trace batches a second; a commit for each of them, on every
table, would cost the store more than everything else the referee does. One writer serves
all tables of a service and commits whatever arrived in one transaction. Batches are checked
and packed when they arrive (a bad one is refused then, naming what is wrong), so a commit
holds only good ones. The commits run in the writer's own thread, one after another in the
order they were handed over, so the event loop never waits for the database's disk.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

log = logging.getLogger(__name__)

FLUSH_MS = 250


class TraceWriter:
    """Collects trace batches from all tables and stores them in one commit per interval."""

    def __init__(
        self, store, clock, flush_ms: int = FLUSH_MS, thread: ThreadPoolExecutor | None = None
    ) -> None:
        """`thread`: a one-thread pool to commit in (the service's, started already)."""
        self.store = store
        self.clock = clock
        self.flush_ms = flush_ms
        self._chunks: list[dict[str, Any]] = []
        self._timer = None
        self._thread = thread or ThreadPoolExecutor(max_workers=1, thread_name_prefix="traces")
        self._last_write: Future | None = None

    def add(self, chunk: dict[str, Any], at_ms: int) -> None:
        """Keep a batch the store has checked and packed (`Store.trace_chunk`) for the next
        commit."""
        self._chunks.append(chunk)
        if self._timer is None:
            self._timer = self.clock.call_at_ms(at_ms + self.flush_ms, self.flush)

    def flush(self) -> Future | None:
        """Hand what arrived to the writer's thread; the future of that commit (None: nothing
        to write). Commits happen in the order of the flushes."""
        self._timer = None
        chunks, self._chunks = self._chunks, []
        if not chunks:
            return self._last_write
        self._last_write = self._thread.submit(self._write, chunks)
        return self._last_write

    def _write(self, chunks: list[dict[str, Any]]) -> int:
        try:
            return self.store.append_trace_chunks(chunks)
        except Exception:  # the store refused or failed: say so, the game goes on
            log.exception("could not store %d raw trace batches", len(chunks))
            return 0

    async def close_async(self) -> None:
        """Write what is left, wait for every commit, then let the writer's thread go."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        last = self.flush()
        if last is not None:
            await asyncio.wrap_future(last)
