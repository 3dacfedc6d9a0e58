"""Raw samples from every ship, written to the store together every few hundred ms.

At 80 SPS a ship sends ten trace batches a second; a commit for each of them, on every
table, would cost the store more than everything else the referee does. One writer serves
all tables of a service and commits whatever arrived in one transaction. Batches are checked
and packed when they arrive (a bad one is refused then, naming what is wrong), so a commit
holds only good ones.
"""

from __future__ import annotations

from typing import Any

FLUSH_MS = 250


class TraceWriter:
    """Collects trace batches from all tables and stores them in one commit per interval."""

    def __init__(self, store, clock, flush_ms: int = FLUSH_MS) -> None:
        self.store = store
        self.clock = clock
        self.flush_ms = flush_ms
        self._chunks: list[dict[str, Any]] = []
        self._timer = None

    def add(self, chunk: dict[str, Any], at_ms: int) -> None:
        """Keep a batch the store has checked and packed (`Store.trace_chunk`) for the next
        commit."""
        self._chunks.append(chunk)
        if self._timer is None:
            self._timer = self.clock.call_at_ms(at_ms + self.flush_ms, self.flush)

    def flush(self) -> None:
        self._timer = None
        chunks, self._chunks = self._chunks, []
        if chunks:
            self.store.append_trace_chunks(chunks)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.flush()
