"""The host side of reliable ship events: accept each (boot, seq) once, find gaps, ask again.

The ship publishes every event with QoS 1 and resends whatever was not acknowledged after
an outage, so the host sees some events twice and, when the ship's ring overflowed or the
host subscribed late, misses some. `EventDeduplicator` is pure (the caller passes the time):

    dedup = EventDeduplicator()
    dedup.announce(status["boot"], status.get("seq"), now_s)  # the ship's status
    if dedup.accept(msg["boot"], msg["seq"], now_s):         # ProtocolError: beyond the window
        referee.handle(msg)                      # new: use it
    for cmd in dedup.resend_requests(now_s):     # gaps older than the grace period
        publish(topic(table, CMD), encode(cmd))  # `resend` commands per shipsense.protocol
    dedup.handle_result(result_msg)              # the ship's `ship/result` to a resend

Sequence numbers live in a window: a ship's outbox holds at most `protocol.MAX_OUTBOX`
events, so nothing it can still send lies more than that above what the host has or what
the ship's status last counted; a seq beyond is refused (a forged or corrupt number must
not open a gap of 2^53 events). Arrivals and gaps are ranges, never walked seq by seq: giving
up a gap or starting from the store's last seq costs the same for 1 event as for 2^53.

A gap is asked for again every `retry_s` up to `max_attempts` times, then given up (it shows
in `lost`). Memory is bounded: at most `max_boots` boots and `max_pending` out-of-order
runs per boot are remembered, and the last `MAX_LOST_SHOWN` gaps given up.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from shipsense import protocol, ship_messages

SEQ_WINDOW = protocol.MAX_OUTBOX  # events a ship can still hold above what the host knows
MAX_LOST_SHOWN = 100  # gaps given up, newest kept (the count goes on in `lost_events`)
MAX_MISSING_PAIRS = 64  # a resend result's `missing` ranges looked at


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
    """What arrived of one boot: every seq <= `contiguous`, and the runs [first, last] in
    `above` (sorted, disjoint, not touching, all above contiguous + 1). `announced`: the
    highest seq the ship's status said it had numbered."""

    contiguous: int = 0
    above: list[list[int]] = field(default_factory=list)
    announced: int = 0
    missing_since: dict[int, float] = field(default_factory=dict)  # gap start -> first seen
    asked: dict[int, tuple[float, int]] = field(default_factory=dict)  # gap start -> (t, n)
    last_seen_s: float = 0.0

    def holds(self, seq: int) -> bool:
        if seq <= self.contiguous:
            return True
        i = bisect.bisect_right(self.above, [seq, float("inf")]) - 1
        return i >= 0 and self.above[i][0] <= seq <= self.above[i][1]

    def add(self, first: int, last: int) -> None:
        """Mark first..last as arrived (or given up): a merge of ranges."""
        first = max(first, self.contiguous + 1)
        if first > last:
            return
        runs = self.above
        i = bisect.bisect_left(runs, [first, first])
        if i > 0 and runs[i - 1][1] >= first - 1:  # touches the run before
            i -= 1
        j = i
        while j < len(runs) and runs[j][0] <= last + 1:
            first, last = min(first, runs[j][0]), max(last, runs[j][1])
            j += 1
        runs[i:j] = [[first, last]]
        if runs and runs[0][0] <= self.contiguous + 1:
            self.contiguous = max(self.contiguous, runs.pop(0)[1])

    def top(self) -> int:
        """The highest seq known to exist: arrived, or counted by the ship's status."""
        return max(self.contiguous, self.above[-1][1] if self.above else 0, self.announced)

    def ranges(self) -> list[tuple[int, int]]:
        """The gaps, as (first, last), in order."""
        gaps, expected = [], self.contiguous + 1
        for first, last in self.above:
            gaps.append((expected, first - 1))
            expected = last + 1
        if self.announced >= expected:
            gaps.append((expected, self.announced))
        return gaps


class EventDeduplicator:
    """Accepts each ship event (boot, seq) once and produces resend requests for gaps."""

    def __init__(
        self,
        gap_grace_s: float = 1.0,
        retry_s: float = 2.0,
        max_attempts: int = 3,
        max_boots: int = 8,
        max_pending: int = 256,
        window: int = SEQ_WINDOW,
    ) -> None:
        self.gap_grace_s = gap_grace_s
        self.retry_s = retry_s
        self.max_attempts = max_attempts
        self.max_boots = max_boots
        self.max_pending = max_pending
        self.window = window
        self._streams: dict[str, _Stream] = {}
        self.duplicates = 0
        self.lost: list[tuple[str, int, int]] = []  # the newest gaps given up
        self.lost_events = 0  # every event given up, counted
        self._request_count = 0

    # --- arrivals ----------------------------------------------------------------------

    def knows(self, boot: str) -> bool:
        return boot in self._streams

    def start_at(self, boot: str, seq: int, now_s: float) -> None:
        """Count events 1..`seq` of `boot` as arrived (the store holds them after a restart)."""
        ship_messages.check_seq(seq)
        stream = self._stream(boot, now_s)
        stream.add(1, seq)
        self._refresh_missing(stream, now_s)

    def announce(self, boot: str, seq: int | None, now_s: float) -> None:
        """The ship's status: `boot` is its boot now, and it has numbered `seq` events (None:
        not said). What it numbered longer than a window ago is no longer in its outbox:
        such a gap is given up at once."""
        protocol.check_boot(boot)
        stream = self._stream(boot, now_s)
        if seq is None:
            return
        ship_messages.check_seq(seq, zero=True)
        stream.announced = max(stream.announced, seq)
        gone = stream.announced - self.window
        if gone > stream.contiguous:
            for first, last in stream.ranges():
                if first > gone:
                    break
                self._give_up(boot, stream, first, min(last, gone))
        self._refresh_missing(stream, now_s, keep_age=True)

    def accept(self, boot: str, seq: int, now_s: float) -> bool:
        """True if (boot, seq) is new (use the event), False for a duplicate or a given-up one;
        ProtocolError for a seq beyond the window."""
        protocol.check_boot(boot)
        ship_messages.check_seq(seq)
        stream = self._streams.get(boot)
        reference = stream.top() if stream is not None else 0
        if seq > reference + self.window:
            raise protocol.ProtocolError(
                f"seq {seq} is beyond the window: the ship cannot hold more than {self.window}"
                f" events above {reference}"
            )
        if stream is None:
            stream = self._stream(boot, now_s)
        stream.last_seen_s = now_s
        if stream.holds(seq):
            self.duplicates += 1
            return False
        stream.add(seq, seq)
        given_up = False
        while len(stream.above) > self.max_pending:
            first, last = stream.ranges()[0]
            self._give_up(boot, stream, first, last)
            given_up = True
        self._refresh_missing(stream, now_s, keep_age=given_up)
        return True

    def _stream(self, boot: str, now_s: float) -> _Stream:
        stream = self._streams.get(boot)
        if stream is not None:
            return stream
        if len(self._streams) >= self.max_boots:
            oldest = min(self._streams, key=lambda b: self._streams[b].last_seen_s)
            for first, last in self._streams[oldest].ranges():
                self._record_lost(oldest, first, last)
            del self._streams[oldest]
        stream = self._streams[boot] = _Stream(last_seen_s=now_s)
        return stream

    def _refresh_missing(self, stream: _Stream, now_s: float, keep_age: bool = False) -> None:
        """Remember when each gap was first noticed; forget gaps that closed. With
        `keep_age` (after a give-up), what is left of a partly given-up gap keeps its age."""
        old = stream.missing_since
        old_starts = sorted(old)
        fresh: dict[int, float] = {}
        for first, _last in stream.ranges():
            if first in old:
                fresh[first] = old[first]
                continue
            i = bisect.bisect_right(old_starts, first) - 1
            fresh[first] = old[old_starts[i]] if keep_age and i >= 0 else now_s
        stream.missing_since = fresh
        for start in list(stream.asked):
            if start not in fresh:
                del stream.asked[start]

    def _gaps_of(self, boot: str, stream: _Stream) -> list[Gap]:
        gaps = []
        for first, last in stream.ranges():
            asked_s, attempts = stream.asked.get(first, (None, 0))
            gaps.append(
                Gap(boot, first, last, stream.missing_since.get(first, 0.0), asked_s, attempts)
            )
        return gaps

    def _record_lost(self, boot: str, first: int, last: int) -> None:
        self.lost.append((boot, first, last))
        del self.lost[:-MAX_LOST_SHOWN]
        self.lost_events += last - first + 1

    def _give_up(self, boot: str, stream: _Stream, first: int, last: int) -> None:
        """Treat first..last as arrived-and-lost so that later events can flow."""
        first = max(first, stream.contiguous + 1)
        if first > last:
            return
        self._record_lost(boot, first, last)
        stream.add(first, last)

    def give_up_below(self, boot: str, seq: int, now_s: float) -> None:
        """Give up every gap of `boot` below `seq` (what waits behind them may go on)."""
        stream = self._streams.get(boot)
        if stream is None:
            return
        for first, last in stream.ranges():
            if first >= seq:
                break
            self._give_up(boot, stream, first, min(last, seq - 1))
        self._refresh_missing(stream, now_s, keep_age=True)

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
            given_up = False
            for gap in self._gaps_of(boot, stream):
                if now_s - gap.since_s < self.gap_grace_s:
                    continue
                if gap.asked_s is not None and now_s - gap.asked_s < self.retry_s:
                    continue
                if gap.attempts >= self.max_attempts:
                    self._give_up(boot, stream, gap.first, gap.last)
                    given_up = True
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
            if given_up:
                self._refresh_missing(stream, now_s, keep_age=True)
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
        if not isinstance(gone, list):
            return
        for pair in gone[:MAX_MISSING_PAIRS]:
            if (
                isinstance(pair, list)
                and len(pair) == 2
                and all(isinstance(n, int) and not isinstance(n, bool) for n in pair)
                and 1 <= pair[0] <= pair[1]
            ):
                for first, last in stream.ranges():
                    lo, hi = max(first, pair[0]), min(last, pair[1])
                    if lo <= hi:
                        self._give_up(boot, stream, lo, hi)
        self._refresh_missing(stream, stream.last_seen_s, keep_age=True)

    def highest(self, boot: str) -> int:
        """The highest seq of `boot` such that all before it arrived (or were given up)."""
        stream = self._streams.get(boot)
        return 0 if stream is None else stream.contiguous
