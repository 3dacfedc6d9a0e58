"""Every table's log entries, written in the order they were decided, together, off the loop.

A ship's events come as fast as it sends them (the link admits up to its rate's burst at
once); a commit for each of them on the event loop held pages and other tables for as long
as the disk took. Tables hand their entries here instead: one write is in flight at a time,
in the writer's own thread, and whatever was handed over meanwhile goes into the next
transaction. Each group's `done` callback runs on the loop once its entries are durable,
in the order the groups were handed over: that is when the table publishes what the
entries decided (DESIGN.md: decide, store, publish).

`drain()` writes everything handed over, now, on the calling thread: a table calls it
before an input it must answer durably (a person's request, a timer), so that entries
keep their order in the log whichever way they were written.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

log = logging.getLogger(__name__)

Done = Callable[[list[int | None]], None]
Failed = Callable[[Exception], None]


class EntryWriter:
    """Collects entry groups from every table and writes them in order, in batches."""

    def __init__(
        self, store, loop: asyncio.AbstractEventLoop, thread: ThreadPoolExecutor | None = None
    ) -> None:
        """`thread`: a one-thread pool to write in (the service's, started already)."""
        self.store = store
        self._loop = loop
        self._thread = thread or ThreadPoolExecutor(max_workers=1, thread_name_prefix="log")
        self._pending: list[tuple[list[dict[str, Any]], Done, Failed]] = []
        self._in_flight: Future | None = None
        self._in_flight_batch: list = []
        self.batches = 0  # transactions written (for the figures)
        self.groups = 0

    def submit(self, entries: list[dict[str, Any]], done: Done, failed: Failed) -> None:
        """Write `entries` (Store.append_many's items) with the next batch; then `done(ids)`
        on the loop, or `failed(error)` if the store refused them."""
        self._pending.append((entries, done, failed))
        if self._in_flight is None:
            self._start()

    @property
    def waiting(self) -> int:
        """Groups handed over and not yet durable."""
        return len(self._pending) + len(self._in_flight_batch)

    def _start(self) -> None:
        batch, self._pending = self._pending, []
        future = self._thread.submit(self._write, batch)
        self._in_flight, self._in_flight_batch = future, batch
        future.add_done_callback(
            lambda f: self._loop.call_soon_threadsafe(self._finished, f, batch)
        )

    def _write(self, batch: list) -> list[list[int | None] | Exception]:
        """Each group's ids (or what went wrong with it): one transaction for the batch; if
        the store refuses it, group by group, so one bad group costs no other its entries."""
        self.batches += 1
        self.groups += len(batch)
        rows = [entry for entries, _done, _failed in batch for entry in entries]
        try:
            ids = self.store.append_many(rows)
        except Exception:  # find which group it was, and write the others
            outcome: list[list[int | None] | Exception] = []
            for entries, _done, _failed in batch:
                try:
                    outcome.append(self.store.append_many(entries))
                except Exception as error:  # noqa: BLE001 - handed to the group's table
                    outcome.append(error)
            return outcome
        outcome, at = [], 0
        for entries, _done, _failed in batch:
            outcome.append(ids[at : at + len(entries)])
            at += len(entries)
        return outcome

    def _finished(self, future: Future, batch: list) -> None:
        if future is not self._in_flight:
            return  # drain() took care of it
        self._in_flight, self._in_flight_batch = None, []
        self._report(batch, future)
        if self._pending:
            self._start()

    @staticmethod
    def _report(batch: list, future: Future) -> None:
        try:
            outcome = future.result()
        except Exception as error:  # the thread itself failed
            outcome = [error] * len(batch)
        for (_entries, done, failed), result in zip(batch, outcome, strict=True):
            try:
                if isinstance(result, Exception):
                    failed(result)
                else:
                    done(result)
            except Exception:  # one table's bug must not keep the others' effects back
                log.exception("a table failed after its entries were stored")

    def drain(self) -> None:
        """Write everything handed over, now (on the loop: for one input that must be
        answered durably; it waits for at most the write in flight and one more)."""
        if self._in_flight is not None:
            future, batch = self._in_flight, self._in_flight_batch
            self._in_flight, self._in_flight_batch = None, []
            future.result()  # bounded: one transaction already under way
            self._report(batch, future)
        while self._pending:
            batch, self._pending = self._pending, []
            done: Future = Future()
            done.set_result(self._write(batch))
            self._report(batch, done)

    async def close_async(self) -> None:
        """Write what is left, off the loop."""
        while self._in_flight is not None or self._pending:
            if self._in_flight is None:
                self._start()
            await asyncio.wrap_future(self._in_flight)
            await asyncio.sleep(0)  # let its _finished run
