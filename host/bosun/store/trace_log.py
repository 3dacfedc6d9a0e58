"""The raw sensor traces of every table, as a part of the Store: batches in, windows and CSV out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

import sqlalchemy as sa

from bosun.store import traces
from bosun.store.arguments import at_ms as check_at_ms
from bosun.store.arguments import text
from bosun.store.models import trace_chunks
from bosun.store.records import GameRow, InvalidEntry, UnknownGame


class TraceLog:
    """The Store's trace methods; the Store gives the connections and the games."""

    def _write(self) -> AbstractContextManager[sa.Connection]:
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[sa.Connection]:
        raise NotImplementedError

    def game(self, game_id: str) -> GameRow:
        raise NotImplementedError

    def trace_chunk(
        self, table_id: object, boot: object, rows: object, at_ms: object
    ) -> dict | None:
        """One batch of raw samples checked and packed for `append_trace_chunks` (None when
        it holds no rows); InvalidEntry names what is wrong with it. Nothing is written."""
        table_id = text(table_id, "table_id")
        boot = text(boot, "boot")
        at_ms = check_at_ms(at_ms)
        samples, first_t_ms, last_t_ms = traces.pack_rows(rows)
        if not samples:
            return None
        return {
            "table_id": table_id,
            "boot": boot,
            "first_t_ms": first_t_ms,
            "last_t_ms": last_t_ms,
            "row_count": len(rows),
            "samples": samples,
            "at_ms": at_ms,
        }

    def append_trace(
        self, table_id: str, boot: str, rows: Sequence[Sequence[float | None]], at_ms: int
    ) -> int:
        """Store a batch of raw samples `[t_ms, z1..z10, table_g, impact]`; rows stored."""
        return self.append_traces(
            [{"table_id": table_id, "boot": boot, "rows": rows, "at_ms": at_ms}]
        )

    def append_traces(self, batches: Sequence[Mapping[str, Any]]) -> int:
        """Store many batches (`append_trace`'s arguments as dicts) in one transaction.

        At 80 SPS on many tables, flush every few hundred ms with this, not a commit a batch.
        """
        if not isinstance(batches, list | tuple):
            raise InvalidEntry(f"append_traces needs a list, not {type(batches).__name__}")
        chunk_rows = []
        for index, batch in enumerate(batches):
            if not isinstance(batch, Mapping):
                raise InvalidEntry(
                    f"trace batch {index} must be a dict of append_trace's arguments"
                )
            try:
                chunk = self.trace_chunk(
                    batch.get("table_id"), batch.get("boot"), batch.get("rows"), batch.get("at_ms")
                )
            except InvalidEntry as err:
                raise InvalidEntry(f"trace batch {index}: {err}") from None
            if chunk is not None:
                chunk_rows.append(chunk)
        return self.append_trace_chunks(chunk_rows)

    def append_trace_chunks(self, chunks: Sequence[dict]) -> int:
        """Store chunks made by `trace_chunk` in one transaction; rows stored."""
        if not chunks:
            return 0
        with self._write() as conn:
            conn.execute(trace_chunks.insert(), list(chunks))
        return sum(chunk["row_count"] for chunk in chunks)

    def trace(
        self, table_id: str, from_t_ms: float, to_t_ms: float, boot: str | None = None
    ) -> list[list[float | None]]:
        """Samples with from_t_ms <= t_ms <= to_t_ms (ship clock), in arrival order.

        Grams come back rounded to 0.1 mg (storage is float32; see bosun.store.traces).

        t_ms restarts with each boot: name the `boot` unless the window is within one.
        """
        low = traces._number(from_t_ms, "from_t_ms")
        high = traces._number(to_t_ms, "to_t_ms")
        query = (
            sa.select(trace_chunks.c.samples)
            .where(
                trace_chunks.c.table_id == text(table_id, "table_id"),
                trace_chunks.c.last_t_ms >= low,
                trace_chunks.c.first_t_ms <= high,
            )
            .order_by(trace_chunks.c.id)
        )
        if boot is not None:
            query = query.where(trace_chunks.c.boot == text(boot, "boot"))
        with self._read() as conn:
            chunks = conn.execute(query).scalars().all()
        return [
            traces.rounded(row)
            for samples in chunks
            for row in traces.unpack_rows(samples)
            if low <= row[0] <= high
        ]

    def last_trace(self, table_id: str) -> tuple[str, float] | None:
        """(boot, t_ms) of the newest stored sample of a table, or None: where plots start."""
        query = (
            sa.select(trace_chunks.c.boot, trace_chunks.c.last_t_ms)
            .where(trace_chunks.c.table_id == text(table_id, "table_id"))
            .order_by(trace_chunks.c.id.desc())
            .limit(1)
        )
        with self._read() as conn:
            row = conn.execute(query).first()
        return None if row is None else (row.boot, row.last_t_ms)

    def trace_csv(self, table_id: str, game_id: str) -> str:
        """The samples received while the game ran, as DESIGN.md's trace CSV.

        The ship's clock restarts when it reboots; later boots are shifted to go on after
        the last sample (by the wall-clock gap between batches), so t_ms always increases.
        """
        row = self.game(game_id)
        if row.table_id != table_id:
            raise UnknownGame(f"game {game_id} is on table {row.table_id!r}, not {table_id!r}")
        query = (
            sa.select(trace_chunks.c.boot, trace_chunks.c.samples, trace_chunks.c.at_ms)
            .where(
                trace_chunks.c.table_id == row.table_id,
                trace_chunks.c.at_ms >= row.started_at_ms,
            )
            .order_by(trace_chunks.c.id)
        )
        if row.ended_at_ms is not None:
            query = query.where(trace_chunks.c.at_ms <= row.ended_at_ms)
        samples_out: list[list] = []
        offset_ms = 0.0
        boot = last_at_ms = None
        with self._read() as conn:
            for chunk in conn.execute(query):
                rows = traces.unpack_rows(chunk.samples)
                if boot is not None and chunk.boot != boot and samples_out:
                    gap_ms = max(1.0, float(chunk.at_ms - last_at_ms))
                    offset_ms = samples_out[-1][0] + gap_ms - rows[0][0]
                boot, last_at_ms = chunk.boot, chunk.at_ms
                for sample in rows:
                    sample[0] += offset_ms
                    if samples_out and not sample[0] > samples_out[-1][0]:
                        continue  # a batch resent or overlapping: keep time increasing
                    samples_out.append(sample)
        return "\n".join(traces.csv_lines(samples_out)) + "\n"
