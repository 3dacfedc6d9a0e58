"""One table inside the service: decide, store, publish, for every input it is given.

Its inputs: the ship's events and status, already checked and in order (its `ShipLink`,
bosun.bus.ship_link, which it listens to), player requests, timer ticks. Every input is
stored together with everything the referee decided from it, in one transaction, before
anything is published: LED commands go to the ship through the link, the game's state and
log to `game/*`, a note to whoever watches the table. After a crash the table replays its
stored inputs through a fresh referee and continues exactly where it was (the referee is
deterministic in its inputs). What people see of it is built by its `TableView`.

With an `EntryWriter` (the service's), what the ship sends is stored in batches off the
loop, and its effects are published once the batch is durable; a person's request, a
timer tick and a new game first write whatever is waiting, then their own entries at once,
so the log keeps the order of the decisions and a request is answered only when stored.
A crash can lose only ship inputs decided but not yet written, of which nothing was
published: the ship still holds them in its outbox, its status (on the restart) counts
them, and the link asks for them again (tests/integration/test_crash_recovery.py).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bosun.bus.ship_link import Clock, Publisher, ShipLink
from bosun.games import Rejected, registry
from bosun.referee import effects as fx
from bosun.referee.base import TableReferee
from bosun.referee.effects import Effect
from bosun.referee.entry_writer import EntryWriter
from bosun.referee.traces import TraceWriter
from bosun.store import InvalidEntry, effective_actions
from bosun.tables import TableConfig
from shipsense import protocol

log = logging.getLogger(__name__)

INPUT_KINDS = ("ship_event", "input", "tick", "status")
FEED_LENGTH = 200
# Effect kinds as they are stored in the table's log.
STORED_EFFECTS = {
    fx.ACTION: "action",
    fx.REJECTED: "rejected",
    fx.LED: "prompt",
    fx.FEED: "note",
    fx.FLAG: "flag",
    fx.FLAG_CLOSED: "flag",
    fx.UNDO: "undo",
}


@dataclass
class Unfinished:
    """A table's unfinished game as its log rebuilt it: its referee, seats and action ids."""

    game_id: str
    referee: TableReferee
    seats: dict[str, str]  # player -> secret token
    action_ids: list[int]  # store ids of the game's effective actions, in order


def make_referee(config: TableConfig, setup: dict[str, Any]) -> TableReferee:
    """A fresh referee of the table's game (its kit's), set up with `setup`."""
    return registry.kit(config.game).referee(config, setup)


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


class TableRuntime:
    """A configured table: runs its games, stores everything, tells ship and people."""

    def __init__(
        self,
        config: TableConfig,
        store,
        bus: Publisher,
        clock: Clock,
        traces: TraceWriter | None = None,
        writer: EntryWriter | None = None,
    ) -> None:
        self.config = config
        self.writer = writer  # None: every input is written at once, on the caller's thread
        self.store = store
        self.bus = bus
        self.clock = clock
        self.traces = traces if traces is not None else TraceWriter(store, clock)
        self.referee: TableReferee | None = None
        self.game_id: str | None = None
        self.seats: dict[str, str] = {}  # player -> secret token
        self.feed: deque[dict[str, Any]] = deque(maxlen=FEED_LENGTH)
        self.listeners: set[Callable[[], None]] = set()
        self.link = ShipLink(
            config.id, bus, clock, self, lambda boot: store.last_seq(config.id, boot)
        )
        self.action_ids: list[int] = []  # store ids of the game's effective actions, in order
        # Virtual tables start their next game by themselves (None: people start it).
        self.next_game_after_s: float | None = None
        self.games_left: int | None = None  # how many more games may start by themselves
        # The calibration wizard is weighing things on the ship: its events are not refereed.
        self.calibrating = False
        self._timer = None
        self._next_game_timer = None
        self.closed = False  # the service is stopping: nothing more is decided or stored

    # -- games -----------------------------------------------------------------------------

    def resume_or_start(self) -> str:
        """Continue this table's unfinished game from the store, or start a new one."""
        return self.resume(self.read_unfinished())

    def read_unfinished(self) -> Unfinished | None:
        """The table's unfinished game rebuilt from its log, not refereed yet (None: there is
        none). It only reads the store and builds a referee of its own, so it may run off
        the loop: a cluster's referee rebuilds the tables it takes side by side."""
        with self.store.reading():
            return self._read_unfinished()

    def _read_unfinished(self) -> Unfinished | None:
        unfinished = self.store.games(self.config.id, running=True)
        if not unfinished:
            return None
        game_id = unfinished[-1].game_id
        kinds = (*INPUT_KINDS, "action", "undo")  # the inputs and the game's log, in one read
        logged = self.store.entries(self.config.id, game_id=game_id, kinds=kinds)
        effective = effective_actions(
            (e.id, e.kind, e.payload) for e in logged if e.kind in ("action", "undo")
        )
        actions = [payload for _id, payload in effective]
        referee = make_referee(self.config, actions[0])
        for entry in logged:
            if entry.kind in INPUT_KINDS:
                self._replay_input(referee, entry)
        if referee.match.log != actions:
            log.error("table %s: replayed game differs from its stored actions", self.config.id)
        seats = self.store.seat_tokens(game_id)
        return Unfinished(game_id, referee, seats, [entry_id for entry_id, _ in effective])

    def resume(self, unfinished: Unfinished | None) -> str:
        """Referee `unfinished` (read_unfinished's) on from where its log ends, or, with
        None, start a new game."""
        if unfinished is None:
            return self.start_game()
        self.game_id, self.referee = unfinished.game_id, unfinished.referee
        self.seats, self.action_ids = unfinished.seats, unfinished.action_ids
        log.info("table %s: resumed game %s", self.config.id, self.game_id)
        self._publish_state()
        self._emit(self.referee.prompt(force=True, now_ms=self.clock.now_ms()))
        self._reschedule()
        return self.game_id

    def start_fresh(self) -> str:
        """Abandon whatever this table left unfinished and start a new game (virtual ships)."""
        now = self.clock.now_ms()
        for game in self.store.games(self.config.id, running=True):
            self.store.finish_game(game.game_id, [], at_ms=now)
        return self.start_game()

    def start_game(self, players: list[str] | None = None, **options: Any) -> str:
        """A new game at this table; `options` are the game's (captain, settle_s; seed)."""
        self._drain()
        now = self.clock.now_ms()
        if self.game_id is not None and self.referee is not None and not self.referee.is_over:
            self.store.finish_game(self.game_id, [], at_ms=now)  # abandoned for a new game
        players = players or self.config.player_names
        setup = registry.kit(self.config.game).referee.setup_action(self.config, players, options)
        referee = make_referee(self.config, setup)  # raises Rejected for a bad setup
        seats = {player: secrets.token_urlsafe(18) for player in players}
        self.game_id = self.store.start_game(
            self.config.id, self.config.game, players, setup, seats, at_ms=now
        )
        self.referee, self.seats = referee, seats
        self.action_ids = self._effective_action_ids(self.game_id)
        self._note(fx.feed(f"new game of {self.config.game}: {', '.join(players)}"))
        self._publish_state()
        self._emit(referee.prompt(force=True, now_ms=self.clock.now_ms()))
        return self.game_id

    def _effective_action_ids(self, game_id: str) -> list[int]:
        entries = self.store.entries(self.config.id, game_id=game_id, kinds=("action", "undo"))
        return [i for i, _ in effective_actions((e.id, e.kind, e.payload) for e in entries)]

    def _replay_input(self, referee: TableReferee, entry) -> None:
        p, at = entry.payload, entry.at_ms
        try:
            if entry.kind == "ship_event":
                referee.on_ship_event(p, at)
            elif entry.kind == "input":
                referee.on_input(p["seat"], p["request"], at)
            elif entry.kind == "tick":
                referee.on_timer(at)
            elif entry.kind == "status":
                referee.on_status(p["online"], at)
        except Rejected as why:  # cannot happen for stored inputs; keep going regardless
            log.error(
                "table %s: stored input %s refused on replay: %s", self.config.id, entry.id, why
            )

    # -- the ship, through its link (ShipListener) ---------------------------------------

    def ship_event(self, event: dict[str, Any]) -> None:
        if self.referee is None or self.referee.is_over or self.calibrating:
            # between games people clear the ship, while calibrating they weigh things on it:
            # kept in the log, refereed by nobody
            entry = {
                "table_id": self.config.id,
                "kind": "ship_event",
                "payload": event,
                "at_ms": self.clock.now_ms(),
                "boot": event["boot"],
                "seq": event["seq"],
            }
            if self.writer is None:
                self.store.append_many([entry])
            else:
                self.writer.submit([entry], lambda _ids: None, self._write_failed)
            return
        self._process(
            "ship_event",
            event,
            lambda now: self.referee.on_ship_event(event, now),
            boot=event["boot"],
            seq=event["seq"],
            later=True,
        )

    def ship_status(self, status: dict[str, Any], birth: bool) -> None:
        online = status["online"]
        if birth and self.config.trace:
            self.link.send({"cmd": "trace", "on": True})
        if self.referee is None:
            self.notify()
            return
        if online != self.referee.online:
            self._process(
                "status",
                {"online": online},
                lambda now: self.referee.on_status(online, now),
                later=True,
            )
        else:
            if birth:
                self._emit(self.referee.prompt(force=True, now_ms=self.clock.now_ms()))
            self.notify()

    def ship_trace(self, batch: dict[str, Any]) -> None:
        now = self.clock.now_ms()
        try:  # the store's packer checks every value, in C loops
            chunk = self.store.trace_chunk(self.config.id, batch["boot"], batch["rows"], now)
        except InvalidEntry as why:
            raise protocol.ProtocolError(str(why)) from None
        if chunk is not None:
            self.traces.add(chunk, now)

    def ship_result(self, result: dict[str, Any]) -> None:
        if not result["ok"]:
            self._note(
                fx.feed(
                    f"the ship refused {result.get('cmd')}: {result.get('error')}", level="warning"
                )
            )
        self.notify()

    def ship_changed(self) -> None:
        self.notify()

    def ship_refused(self, kind: str, why: str) -> None:
        self._note(fx.feed(f"rejected a {kind} message from the ship: {why}", "debug"))

    def send_command(self, command: dict[str, Any]) -> str:
        """Send a `ship/cmd` through the link (checked against the protocol first); its id."""
        return self.link.send(command)

    # -- people ------------------------------------------------------------------------------

    def player_input(self, token: str, request: dict[str, Any]) -> str:
        """A request from a seat's page; the seat's player, or Rejected with a reason."""
        seat = self.seat_of(token)
        if seat is None:
            raise Rejected("this seat link is not valid for the game at this table")
        if not isinstance(request, dict):
            raise Rejected("a request must be a JSON object")
        payload = {"seat": seat, "request": request}
        self._process("input", payload, lambda now: self.referee.on_input(seat, request, now))
        return seat

    def seat_of(self, token: str) -> str | None:
        for player, secret in self.seats.items():
            if secrets.compare_digest(secret, token):
                return player
        return None

    def _on_timer(self) -> None:
        self._timer = None
        if self.referee is None:
            return
        deadline = self.referee.next_deadline_ms()
        now = self.clock.now_ms()
        if deadline is None or now < deadline:
            self._reschedule()
            return
        try:
            self._process("tick", {}, lambda at: self.referee.on_timer(at))
        except Exception:  # a referee bug: logged, and shown where people look
            log.exception("table %s: the referee failed on its timer", self.config.id)
            self.report_failure("its timer")

    def report_failure(self, what: str) -> None:
        """Say on the table's feed that the referee failed (a bug, in the log) on `what`."""
        text = f"the referee failed on {what} (a bug, see the log): check the game and undo"
        self._note(fx.feed(text + " or correct it by hand", "error"))
        self.notify()

    # -- the common path ---------------------------------------------------------------------

    def _process(
        self, kind: str, payload: dict[str, Any], decide, boot=None, seq=None, later=False
    ) -> None:
        """Decide, store the input with its effects in one transaction, then publish. With
        `later` (what the ship sent), the entries go to the writer and are published once
        durable; otherwise what waits is written first, then these, before this returns."""
        if self.closed:
            raise Rejected("this table is stopping; try again when bosun is back")
        now = self.clock.now_ms()
        effects: list[Effect] = decide(now)  # Rejected propagates: nothing stored or sent
        over = self.referee.is_over
        if later and self.writer is not None and all(e.kind != fx.UNDO for e in effects):
            pending = [_PendingId() for e in effects if e.kind == fx.ACTION]
            entries = self._entries(kind, payload, effects, now, boot, seq, list(self.action_ids))
            # the table view shows the decided state at once: its feed lines go with it
            self._emit([e for e in effects if e.kind == fx.FEED])
            self.action_ids = [*self.action_ids, *pending]
            self.writer.submit(
                entries,
                lambda ids: self._durable(effects, ids, pending, now, over),
                self._write_failed,
            )
            self._reschedule()
            return
        self._drain()  # an undo names entries by id: every earlier one must have its id
        stack = list(self.action_ids)
        entries = self._entries(kind, payload, effects, now, boot, seq, stack)
        ids = self.store.append_many(entries)
        for effect, entry_id in zip(effects, ids[1:], strict=True):
            if effect.kind == fx.ACTION:
                stack.append(entry_id)
        self.action_ids = stack
        self._publish_decided(effects, now, over)

    def _entries(self, kind, payload, effects, now, boot, seq, stack) -> list[dict[str, Any]]:
        """The log entries of one input and its effects (an undo pops `stack`)."""
        common = {"table_id": self.config.id, "game_id": self.game_id, "at_ms": now}
        entries = [{**common, "kind": kind, "payload": payload, "boot": boot, "seq": seq}]
        for effect in effects:
            stored = _stored(effect)
            if effect.kind == fx.UNDO:  # the store's undo names the action entry it takes back
                stored = {"undoes": stack.pop(), **stored}
            entries.append({**common, "kind": STORED_EFFECTS[effect.kind], "payload": stored})
        return entries

    def _durable(self, effects, ids, pending, now: int, over: bool) -> None:
        """The writer stored an input decided earlier: its actions get their ids, and what
        it decided is published now (its feed lines went up with the decision)."""
        action_ids = iter(i for e, i in zip(effects, ids[1:], strict=True) if e.kind == fx.ACTION)
        for placeholder, entry_id in zip(pending, action_ids, strict=True):
            self.action_ids = [entry_id if a is placeholder else a for a in self.action_ids]
        if not self.closed:
            self._publish_decided([e for e in effects if e.kind != fx.FEED], now, over)

    def _write_failed(self, error: Exception) -> None:
        log.error("table %s: could not store what the ship sent: %s", self.config.id, error)
        self.report_failure("storing what the ship sent")

    def _drain(self) -> None:
        if self.writer is not None:
            self.writer.drain()

    def _publish_decided(self, effects: list[Effect], now: int, over: bool) -> None:
        self._emit(effects)
        if any(e.kind in (fx.ACTION, fx.UNDO) for e in effects):
            if over:
                self.store.finish_game(self.game_id, self.referee.view["winners"], at_ms=now)
                self._schedule_next_game(now)
            self._publish_state(effects)
        else:
            self.notify()
        self._reschedule()

    def _emit(self, effects: list[Effect]) -> None:
        for effect in effects:
            if effect.kind == fx.LED:
                try:
                    self.link.send(effect.payload)
                except protocol.CommandError as why:  # a referee bug: the game goes on
                    log.error("table %s: LED command refused: %s", self.config.id, why)
                    self.report_failure(f"an LED command ({why})")
            elif effect.kind == fx.FEED:
                self._note(effect)

    def _note(self, effect: Effect) -> None:
        self.feed.append({"at_ms": self.clock.now_ms(), **effect.payload})

    def _publish_state(self, effects: list[Effect] = ()) -> None:
        game = self.referee.match.game if self.referee else None
        for effect in effects:  # the log as it grows, without a card nobody may see yet
            if effect.kind == fx.ACTION:
                event = game.public_action(effect.payload)
            elif effect.kind == fx.UNDO:
                event = {"type": "undo", **effect.payload}
                event["action"] = game.public_action(event["action"])
            else:
                continue
            self.bus.publish(
                protocol.topic(self.config.id, protocol.GAME_EVENT), encode(event), qos=1
            )
        view = self.referee.view if self.referee else None
        self.bus.publish(
            protocol.topic(self.config.id, protocol.GAME_STATE), encode(view), qos=1, retain=True
        )
        self.notify()

    def notify(self) -> None:
        """Tell whoever watches the table (its view's pages) that something changed."""
        for listener in list(self.listeners):
            listener()

    def _reschedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.closed:
            return
        deadline = self.referee.next_deadline_ms() if self.referee else None
        if deadline is not None:
            self._timer = self.clock.call_at_ms(deadline, self._on_timer)

    def _schedule_next_game(self, now_ms: int) -> None:
        if self.next_game_after_s is None or self.games_left == 0 or self.closed:
            return
        if self.games_left is not None:
            self.games_left -= 1
        deadline = now_ms + int(self.next_game_after_s * 1000)
        self._next_game_timer = self.clock.call_at_ms(deadline, self._start_next_game)

    def _start_next_game(self) -> None:
        self._next_game_timer = None
        if self.referee is not None and self.referee.is_over:
            self.start_game()

    def close(self) -> None:
        """Stop deciding: timers off, raw samples handed to the store's writer."""
        self.closed = True
        for timer in (self._timer, self._next_game_timer):
            if timer is not None:
                timer.cancel()
        self._timer = self._next_game_timer = None
        self.link.close()
        self.traces.flush()


class _PendingId:
    """An action entry's id, until the writer has stored it (an undo drains first)."""


def _stored(effect: Effect) -> dict[str, Any]:
    if effect.kind == fx.FLAG_CLOSED:
        return {"closed": True, **effect.payload}
    return effect.payload
