"""One table's link to its ship: what arrives is checked, de-duplicated and put in order; what
leaves is checked and numbered. Nothing above it sees an unchecked or out-of-order message.

    link = ShipLink("t1", publisher, clock, table, stored_seq=lambda boot: 0)
    link.receive("ship/event", payload)   # from whatever carried it (MQTT today)
    command_id = link.send({"cmd": "tare"})
    link.result(command_id)               # the ship's answer, once it came

Delivery (shipsense.protocol, DESIGN.md): events come at least once, numbered (boot, seq);
each is passed up once, and an event after a gap waits until the gap is filled (a `resend`
asked of the ship's ring) or given up. After a restart, what the store already holds of a
boot counts as delivered (`stored_seq`). Every command to the ship, LED prompts included,
is checked against the protocol and gets an id its result comes back under.

The link does not know where messages come from (`receive` takes the topic name and the
raw payload from the MQTT bus, a serial bridge, or a cluster's stream) nor what they mean:
the table above it (`ShipListener`) decides, stores and publishes. What a link must refuse
or limit is decided here, in one place: sizes and shapes (shipsense.ship_messages), the seq
window (bus/dedup.py), a boot the ship's status has not announced, and rates (a token
bucket per kind of message: a ship gone mad costs the host a constant few microseconds a
message, and a few warning lines, not one a message). What it refused or dropped is counted
in `health()`, which the table's view shows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from bosun.bus.dedup import SEQ_WINDOW, EventDeduplicator
from bosun.bus.limits import LogThrottle, TokenBucket
from shipsense import protocol, ship_messages

log = logging.getLogger(__name__)

MAX_RESULTS = 100  # answers to the host's commands kept for who sent them (by id)
GAP_CHECK_S = 1.0  # while events are missing, look again this often
COUNT_ASKS = 5  # times a restarted host asks a ship to count its events before it gives up
MAX_HELD = SEQ_WINDOW  # events waiting behind gaps; beyond, the oldest gap is given up
WARN_EVERY_MS = 10_000  # a refused or dropped message is logged at most this often a table

# Topic name -> (messages a second, burst) one ship may send; beyond, they are dropped and
# counted. The firmware's fastest: a tumble's few events a second, weights every 100 ms, a
# trace batch a sample at 80 SPS, a status every second, a result per command. An outbox
# replayed after a long outage may hold more events than the burst: those dropped are gaps,
# asked for again while they keep closing, at the rate (a 1,024-event outbox in ~50 s).
RATES = {
    protocol.EVENT: (20.0, 64),
    protocol.STATUS: (2.0, 10),
    protocol.WEIGHTS: (12.0, 24),
    protocol.TRACE: (100.0, 200),
    protocol.RESULT: (20.0, 100),
}


class Publisher(Protocol):
    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None: ...


class Clock(Protocol):
    def now_ms(self) -> int: ...

    def call_at_ms(self, deadline_ms: int, callback: Callable[[], None]) -> Any: ...


class ShipListener(Protocol):
    """What a link delivers to: the table that decides what its ship's messages mean."""

    def ship_event(self, event: dict[str, Any]) -> None:
        """A checked event, new, in its ship's order."""

    def ship_status(self, status: dict[str, Any], birth: bool) -> None:
        """The ship's status; `birth`: it (re)connected and keeps no commands from before."""

    def ship_trace(self, batch: dict[str, Any]) -> None:
        """Raw samples; raises protocol.ProtocolError if a sample is unusable."""

    def ship_result(self, result: dict[str, Any]) -> None:
        """The ship's answer to a command."""

    def ship_changed(self) -> None:
        """Something worth showing changed (fresh weights)."""

    def ship_refused(self, name: str, why: str) -> None:
        """A message was refused (it changed nothing): `why` names what was wrong."""


class ShipLink:
    """Delivery between one table and its ship, whatever carries the messages."""

    def __init__(
        self,
        table_id: str,
        publisher: Publisher,
        clock: Clock,
        listener: ShipListener,
        stored_seq: Callable[[str], int | None],
    ) -> None:
        self.table_id = protocol.check_table_id(table_id)
        self.publisher = publisher
        self.clock = clock
        self.listener = listener
        self._stored_seq = stored_seq
        self._command_topic = protocol.topic(table_id, protocol.CMD)
        # what the ship said last
        self.online = False
        self.status: dict[str, Any] | None = None
        self.seen_ms: int | None = None
        self.weights: dict[str, Any] | None = None
        self.refused = 0  # messages refused as malformed (or beyond the window, or unannounced)
        self.rate_limited = 0  # messages dropped above their kind's rate
        self.queue_dropped = 0  # messages the transport dropped before they reached the link
        self.last_refused: str | None = None
        self.dedup = EventDeduplicator()  # (boot, seq) once each; gaps asked for again
        self._buckets = {name: TokenBucket(rate, burst) for name, (rate, burst) in RATES.items()}
        self._warnings = LogThrottle(log, WARN_EVERY_MS)
        self._held: list[dict[str, Any]] = []  # events waiting behind a gap
        self._results: dict[str, dict[str, Any]] = {}  # answers to our commands, by id
        self._command_number = 0
        self._gap_timer = None
        # A restarted host's question to the ship: [boot, times asked, next ask (clock ms)]
        self._counting: list | None = None

    # -- in --------------------------------------------------------------------------------

    def receive(self, name: str, payload: bytes) -> None:
        """A message from the ship on topic `name` (`ship/event`, ...), as it arrived."""
        bucket = self._buckets.get(name)
        if bucket is not None and not bucket.admit(self.clock.now_ms()):
            self.rate_limited += 1
            self._warnings.warning(
                self.clock.now_ms(),
                "table %s: the ship sends faster than %g %s messages a second: dropping",
                self.table_id,
                RATES[name][0],
                name.rpartition("/")[2],
            )
            return
        try:
            message = self._checked(name, payload)
        except protocol.ProtocolError as why:
            self._refuse(name, str(why))
            return
        if name == protocol.EVENT:
            self._event(message)
        elif name == protocol.STATUS:
            self._status(message)
        elif name == protocol.WEIGHTS:
            self.weights = message
            self.listener.ship_changed()
        elif name == protocol.TRACE:
            try:
                self.listener.ship_trace(message)
            except protocol.ProtocolError as why:
                self._refuse(name, f"trace: {why}")
        elif name == protocol.RESULT:
            self._result(message)

    @staticmethod
    def _checked(name: str, payload: bytes) -> dict[str, Any]:
        if name not in protocol.SHIP_TOPICS:
            raise protocol.ProtocolError(f"a ship does not send {name!r}")
        kind = name.rpartition("/")[2]
        message = protocol.decode(payload, kind, ship_messages.max_bytes(name))
        if name == protocol.EVENT:
            return ship_messages.check_event(message)
        if name == protocol.STATUS:
            return ship_messages.check_status(message)
        if name == protocol.WEIGHTS:
            return ship_messages.check_weights(message)
        if name == protocol.RESULT:
            return ship_messages.check_result(message)
        if name == protocol.TRACE:
            # The store's packer checks every value (types, finite, ranges, time order) in C
            # loops; at 80 SPS on a whole café, checking value by value here cost more.
            protocol.check_boot(message.get("boot"))
            if not isinstance(message.get("rows"), list):
                raise protocol.ProtocolError("trace: needs 'rows', a list")
        return message

    def _refuse(self, name: str, why: str) -> None:
        self.refused += 1
        kind = name.rpartition("/")[2]
        self.last_refused = f"{kind}: {why}"[:200]
        self._warnings.warning(
            self.clock.now_ms(), "table %s: rejected %s message: %s", self.table_id, kind, why
        )
        self.listener.ship_refused(kind, why)

    def health(self) -> dict[str, Any]:
        """What the link refused, dropped or gave up, counted since the service started."""
        return {
            "refused": self.refused,
            "rate_limited": self.rate_limited,
            "queue_dropped": self.queue_dropped,
            "lost_events": self.dedup.lost_events,
            "last_refused": self.last_refused,
        }

    def count_dropped(self, count: int) -> None:
        """The transport dropped `count` of this ship's messages (its queue was full)."""
        self.queue_dropped += count
        self._warnings.warning(
            self.clock.now_ms(),
            "table %s: %d ship messages dropped: the host's queue was full",
            self.table_id,
            count,
        )

    def _event(self, event: dict[str, Any]) -> None:
        now = self.clock.now_ms()
        boot, seq = event["boot"], event["seq"]
        if not self.dedup.knows(boot):
            # Only the ship's status makes a boot (it comes first on every connection): an
            # event of any other is forged or from a ship long gone, and would start a stream.
            self._refuse(protocol.EVENT, f"boot {boot!r} was not announced by the ship's status")
            return
        try:
            if not self.dedup.accept(boot, seq, now / 1000):
                return  # a resend we already have (the ship resends after outages)
        except protocol.ProtocolError as why:
            self._refuse(protocol.EVENT, str(why))
            return
        self.seen_ms = now
        self._held.append(event)
        self._release_held()
        while len(self._held) > MAX_HELD:  # the oldest gap will not close in time: give it up
            oldest = self._held[0]
            self.dedup.give_up_below(oldest["boot"], oldest["seq"], now / 1000)
            self._release_held()
        self._ask_for_gaps()

    def _announce(self, status: dict[str, Any]) -> None:
        """The ship's status names its boot (and how many events it numbered): from now on
        its events count. After a restart, what the store already holds of it is old."""
        boot = status.get("boot")
        if not status["online"] or not isinstance(boot, str):
            return
        now_s = self.clock.now_ms() / 1000
        if not self.dedup.knows(boot):
            stored = self._stored_seq(boot)
            self.dedup.announce(boot, None, now_s)
            if stored:  # the host restarted: what did the ship number since (maybe unstored)?
                self.dedup.start_at(boot, stored, now_s)
                if "seq" not in status or status.get("seq", 0) <= stored:
                    self._counting = [boot, 0, 0]
                    self._ask_to_count(now_s * 1000)
        if self._counting is not None and self._counting[0] == boot and "seq" in status:
            self._counting = None  # the ship counted
        self.dedup.announce(boot, status.get("seq"), now_s)
        self._release_held()
        self._ask_for_gaps()

    def _ask_to_count(self, now_ms: float) -> None:
        """Ask the ship to say how many events it numbered (a `status` with its seq), again
        every GAP_CHECK_S until it does, COUNT_ASKS times at most: one unanswered question
        would leave an event decided but never stored before a restart lost for good."""
        counting = self._counting
        if counting is None or now_ms < counting[2]:
            return
        if counting[1] >= COUNT_ASKS:
            self._counting = None
            return
        counting[1] += 1
        counting[2] = now_ms + GAP_CHECK_S * 1000
        self.send({"cmd": "status"})
        self._wake_at(int(counting[2]))

    def _wake_at(self, deadline_ms: int) -> None:
        if self._gap_timer is None:
            self._gap_timer = self.clock.call_at_ms(deadline_ms, self._on_gap_timer)

    def _release_held(self) -> None:
        """Events in their ship's order: one after a gap waits for the gap to close."""
        self._held.sort(key=lambda e: (e["boot"], e["seq"]))
        highest = self.dedup.highest
        ready = [e for e in self._held if e["seq"] <= highest(e["boot"])]
        self._held = [e for e in self._held if e["seq"] > highest(e["boot"])]
        for event in ready:
            self.listener.ship_event(event)

    def _on_gap_timer(self) -> None:
        self._gap_timer = None
        self._ask_to_count(self.clock.now_ms())
        self._ask_for_gaps()

    def _ask_for_gaps(self) -> None:
        """Ask the ship's ring buffer again for events that never arrived (QoS 1 gaps)."""
        now_s = self.clock.now_ms() / 1000
        for request in self.dedup.resend_requests(now_s):
            self.send({k: v for k, v in request.items() if k != "id"})
        self._release_held()  # gaps given up let the events behind them through
        if self.dedup.gaps():
            self._wake_at(self.clock.now_ms() + int(GAP_CHECK_S * 1000))

    def _status(self, status: dict[str, Any]) -> None:
        online = status["online"]
        previous = self.status or {}
        # A birth: the ship (re)connected. It keeps no commands across a reconnect (clean
        # session), so it must be told again what to stream and what to light.
        birth = online and (not self.online or status.get("boot") != previous.get("boot"))
        self.online, self.status, self.seen_ms = online, status, self.clock.now_ms()
        self._announce(status)
        self.listener.ship_status(status, birth)

    def _result(self, result: dict[str, Any]) -> None:
        if result.get("cmd") == "resend":
            self.dedup.handle_result(result)
            self._release_held()
        command_id = result.get("id")
        if isinstance(command_id, str) and command_id.startswith("h"):
            self._results[command_id] = result
            while len(self._results) > MAX_RESULTS:
                self._results.pop(next(iter(self._results)))
        self.listener.ship_result(result)

    # -- out -------------------------------------------------------------------------------

    def send(self, command: dict[str, Any]) -> str:
        """Publish a `ship/cmd` (checked against the protocol first: protocol.CommandError
        names the problem and nothing is sent); its id, to find its result by."""
        self._command_number += 1
        command = {**command, "id": f"h{self._command_number}"}
        protocol.check_command(command)
        self._results.pop(command["id"], None)
        self.publisher.publish(self._command_topic, protocol.encode(command), qos=1)
        return command["id"]

    def result(self, command_id: str) -> dict[str, Any] | None:
        """The ship's answer to the command sent under `command_id`, once it came."""
        return self._results.get(command_id)

    def close(self) -> None:
        if self._gap_timer is not None:
            self._gap_timer.cancel()
            self._gap_timer = None
