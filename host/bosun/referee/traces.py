"""Raw samples from every ship, written to the store together every few hundred ms.

At 80 SPS a ship sends ten trace batches a second; a commit for each of them, on every
table, would cost the store more than everything else the referee does. One writer serves
all tables of a service and commits whatever arrived in one transaction.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

log = logging.getLogger(__name__)

FLUSH_MS = 250


class TraceWriter:
    """Collects trace batches from all tables and stores them in one commit per interval."""

    def __init__(self, store, clock, flush_ms: int = FLUSH_MS) -> None:
        self.store = store
        self.clock = clock
        self.flush_ms = flush_ms
        self._batches: list[dict[str, Any]] = []
        self._timer = None

    def add(self, table_id: str, boot: str, rows: list, at_ms: int) -> None:
        self._batches.append({"table_id": table_id, "boot": boot, "rows": rows, "at_ms": at_ms})
        if self._timer is None:
            self._timer = self.clock.call_at_ms(at_ms + self.flush_ms, self.flush)

    def flush(self) -> None:
        self._timer = None
        batches, self._batches = self._batches, []
        if not batches:
            return
        try:
            self.store.append_traces(batches)
        except ValueError as why:  # one bad batch must not lose the others: store them singly
            log.warning("a trace batch was refused: %s", why)
            for batch in batches:
                with contextlib.suppress(ValueError):
                    self.store.append_traces([batch])

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.flush()
