"""The host side of reliable ship events: accept each (boot, seq) once, find gaps, ask again.

The ship publishes every event with QoS 1 and resends whatever was not acknowledged after
an outage, so the host sees some events twice and, when the ship's ring overflowed or the
host subscribed late, misses some. `EventDeduplicator` is pure (the caller passes the time):

    dedup = EventDeduplicator()
    if dedup.accept(msg["boot"], msg["seq"], now_s):
        referee.handle(msg)                      # new: use it
    for cmd in dedup.resend_requests(now_s):     # gaps older than the grace period
        publish(topic(table, CMD), encode(cmd))  # `resend` commands per shipsense.protocol
    dedup.handle_result(result_msg)              # the ship's `ship/result` to a resend

A gap is asked for again every `retry_s` up to `max_attempts` times, then given up (it shows
in `lost`). Memory is bounded: at most `max_boots` boots and `max_pending` out-of-order
seqs per boot are remembered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shipsense import protocol, ship_messages


@dataclass
class Gap:
    """Events `first`..`last` (inclusive) of `boot` that have not arrived."""

    boot: str
    first: int
    last: int
    since_s: float
    asked_s: float | None = None
    attempts: int = 0


@dataclass
class _Stream:
    """What arrived of one boot: every seq <= `contiguous` and those in `above`."""

    contiguous: int = 0
    above: set[int] = field(default_factory=set)
    missing_since: dict[int, float] = field(default_factory=dict)  # gap start -> first seen
    asked: dict[int, tuple[float, int]] = field(default_factory=dict)  # gap start -> (t, n)
    last_seen_s: float = 0.0


class EventDeduplicator:
    """Accepts each ship event (boot, seq) once and produces resend requests for gaps."""

    def __init__(
        self,
        gap_grace_s: float = 1.0,
        retry_s: float = 2.0,
        max_attempts: int = 3,
        max_boots: int = 8,
        max_pending: int = 4096,
    ) -> None:
        self.gap_grace_s = gap_grace_s
        self.retry_s = retry_s
        self.max_attempts = max_attempts
        self.max_boots = max_boots
        self.max_pending = max_pending
        self._streams: dict[str, _Stream] = {}
        self.duplicates = 0
        self.lost: list[tuple[str, int, int]] = []
        self._request_count = 0

    # --- arrivals ----------------------------------------------------------------------

    def accept(self, boot: str, seq: int, now_s: float) -> bool:
        """True if (boot, seq) is new (use the event), False for a duplicate or a given-up one."""
        protocol.check_boot(boot)
        ship_messages.check_seq(seq)
        stream = self._streams.get(boot)
        if stream is None:
            stream = self._new_stream(boot)
        stream.last_seen_s = now_s
        if seq <= stream.contiguous or seq in stream.above:
            self.duplicates += 1
            return False
        if seq == stream.contiguous + 1:
            stream.contiguous = seq
            while stream.contiguous + 1 in stream.above:
                stream.contiguous += 1
                stream.above.discard(stream.contiguous)
        else:
            stream.above.add(seq)
            if len(stream.above) > self.max_pending:
                self._give_up_oldest(boot, stream)
        self._refresh_missing(stream, now_s)
        return True

    def _new_stream(self, boot: str) -> _Stream:
        if len(self._streams) >= self.max_boots:
            oldest = min(self._streams, key=lambda b: self._streams[b].last_seen_s)
            for gap in self._gaps_of(oldest, self._streams[oldest]):
                self.lost.append((oldest, gap.first, gap.last))
            del self._streams[oldest]
        stream = _Stream()
        self._streams[boot] = stream
        return stream

    def _refresh_missing(self, stream: _Stream, now_s: float) -> None:
        """Remember when each gap was first noticed; forget gaps that closed."""
        starts = {first for first, _last in self._ranges(stream)}
        for first in list(stream.missing_since):
            if first not in starts:
                del stream.missing_since[first]
                stream.asked.pop(first, None)
        for first in starts:
            stream.missing_since.setdefault(first, now_s)

    @staticmethod
    def _ranges(stream: _Stream) -> list[tuple[int, int]]:
        ranges = []
        expected = stream.contiguous + 1
        for seq in sorted(stream.above):
            if seq > expected:
                ranges.append((expected, seq - 1))
            expected = seq + 1
        return ranges

    def _gaps_of(self, boot: str, stream: _Stream) -> list[Gap]:
        gaps = []
        for first, last in self._ranges(stream):
            asked_s, attempts = stream.asked.get(first, (None, 0))
            gaps.append(
                Gap(boot, first, last, stream.missing_since.get(first, 0.0), asked_s, attempts)
            )
        return gaps

    def _give_up_oldest(self, boot: str, stream: _Stream) -> None:
        ranges = self._ranges(stream)
        if ranges:
            self._give_up(boot, stream, ranges[0][0], ranges[0][1])

    def _give_up(self, boot: str, stream: _Stream, first: int, last: int) -> None:
        """Treat first..last as arrived-and-lost so that later events can flow."""
        self.lost.append((boot, first, last))
        since = {start: stream.missing_since[start] for start in stream.missing_since}
        for seq in range(max(first, stream.contiguous + 1), last + 1):
            stream.above.add(seq)
        while stream.contiguous + 1 in stream.above:
            stream.contiguous += 1
            stream.above.discard(stream.contiguous)
        # What is left of a partly given-up gap keeps its age.
        stream.missing_since.clear()
        for start, _end in self._ranges(stream):
            containing = [old for old in since if old <= start]
            stream.missing_since[start] = since[max(containing)] if containing else 0.0
        for start in list(stream.asked):
            if start not in stream.missing_since:
                del stream.asked[start]

    # --- gaps and resends --------------------------------------------------------------

    def gaps(self) -> list[Gap]:
        """Every open gap, oldest boot first."""
        return [
            gap for boot, stream in self._streams.items() for gap in self._gaps_of(boot, stream)
        ]

    def resend_requests(self, now_s: float) -> list[dict]:
        """`resend` commands for gaps older than the grace period and not asked too recently."""
        requests = []
        for boot, stream in self._streams.items():
            for gap in self._gaps_of(boot, stream):
                if now_s - gap.since_s < self.gap_grace_s:
                    continue
                if gap.asked_s is not None and now_s - gap.asked_s < self.retry_s:
                    continue
                if gap.attempts >= self.max_attempts:
                    self._give_up(boot, stream, gap.first, gap.last)
                    continue
                stream.asked[gap.first] = (now_s, gap.attempts + 1)
                last = min(gap.last, gap.first + protocol.MAX_RESEND - 1)
                self._request_count += 1
                requests.append(
                    protocol.command(
                        "resend",
                        f"resend-{self._request_count}",
                        boot=boot,
                        **{"from": gap.first, "to": last},
                    )
                )
        return requests

    def handle_result(self, result: dict) -> None:
        """Give up the events a `resend` result reports as gone (or the whole boot's range)."""
        if result.get("cmd") != "resend":
            return
        boot = result.get("boot")
        stream = self._streams.get(boot) if isinstance(boot, str) else None
        if stream is None:
            return
        if not result.get("ok"):
            return  # refused (busy, malformed): the gap stays open and is asked again
        gone = result.get("missing", [])
        for pair in gone:
            if (
                isinstance(pair, list)
                and len(pair) == 2
                and all(isinstance(n, int) and not isinstance(n, bool) for n in pair)
                and 1 <= pair[0] <= pair[1]
            ):
                for first, last in self._ranges(stream):
                    lo, hi = max(first, pair[0]), min(last, pair[1])
                    if lo <= hi:
                        self._give_up(boot, stream, lo, hi)

    def highest(self, boot: str) -> int:
        """The highest seq of `boot` such that all before it arrived (or were given up)."""
        stream = self._streams.get(boot)
        return 0 if stream is None else stream.contiguous
