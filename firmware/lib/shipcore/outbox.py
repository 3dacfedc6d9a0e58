"""The outbox: a bounded ring of reliable messages (events and results) kept across outages.

Every entry is [seq, topic name, payload bytes, state, sent_ms]. Events carry their `seq`
(results have 0). An entry waits until the link sends it, is in flight until the broker
(or the serial bridge) acknowledges it, and then stays delivered in the ring so that a
`resend` command can still answer for it. When the ring is full the oldest entry goes; if
it was never delivered that event is lost and counted in `lost`, which the status shows.
"""

WAITING = 0
IN_FLIGHT = 1
DELIVERED = 2

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from hardware import TicksDiff


class Outbox:
    """Ring of at most `size` entries in the order they were added."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: list[list] = []  # [seq, name, payload, state, sent_ms] each
        self.lost = 0
        self.lost_seqs: list[int] = []  # the first few lost seqs, for the status message
        self.added = 0

    def add(self, name: str, payload: bytes, seq: int = 0) -> list:
        if len(self.entries) >= self.size:
            oldest = self.entries.pop(0)
            if oldest[3] != DELIVERED:
                self.lost += 1
                if len(self.lost_seqs) < 8 and oldest[0]:
                    self.lost_seqs.append(oldest[0])
        entry = [seq, name, payload, WAITING, 0]
        self.entries.append(entry)
        self.added += 1
        return entry

    def next_waiting(self) -> "list | None":
        for entry in self.entries:
            if entry[3] == WAITING:
                return entry
        return None

    def sent(self, entry: list, now_ms: int) -> None:
        entry[3] = IN_FLIGHT
        entry[4] = now_ms

    def delivered(self, entry: list) -> None:
        entry[3] = DELIVERED

    def delivered_seq(self, seq: int) -> bool:
        """Mark the event with `seq` delivered (a serial `link/ack`); True if it was known."""
        for entry in self.entries:
            if entry[0] == seq:
                entry[3] = DELIVERED
                return True
        return False

    def requeue(self) -> None:
        """After a lost connection: everything in flight waits to be sent again."""
        for entry in self.entries:
            if entry[3] == IN_FLIGHT:
                entry[3] = WAITING

    def requeue_older_than(self, now_ms: int, timeout_ms: int, ticks_diff: "TicksDiff") -> None:
        """Entries in flight for longer than `timeout_ms` wait to be sent again."""
        for entry in self.entries:
            if entry[3] == IN_FLIGHT and ticks_diff(now_ms, entry[4]) > timeout_ms:
                entry[3] = WAITING

    def pending(self) -> int:
        """How many entries are not yet delivered."""
        n = 0
        for entry in self.entries:
            if entry[3] != DELIVERED:
                n += 1
        return n

    def resend(self, first: int, last: int) -> "tuple[int, list[list[int]]]":
        """Queue events first..last again; returns (how many, [[a, b], ...] no longer held)."""
        held: dict[int, list] = {}
        for entry in self.entries:
            if entry[0] and first <= entry[0] <= last:
                held[entry[0]] = entry
        count = 0
        missing: list[list[int]] = []
        for seq in range(first, last + 1):
            entry = held.get(seq)
            if entry is None:
                if missing and missing[-1][1] == seq - 1:
                    missing[-1][1] = seq
                else:
                    missing.append([seq, seq])
            else:
                if entry[3] == DELIVERED:
                    entry[3] = WAITING
                count += 1
        return count, missing
