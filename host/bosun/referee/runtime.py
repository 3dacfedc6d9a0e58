"""One table inside the service: its referee, its log in the store, its ship and its watchers.

Every input (ship event, ship status, player input, timer tick) is stored together with
everything the referee decided from it, in one transaction, before anything is published.
After a crash the table replays its stored inputs through a fresh referee and continues
exactly where it was (the referee is deterministic in its inputs).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from bosun.bus.dedup import EventDeduplicator
from bosun.games import Rejected
from bosun.referee import effects as fx
from bosun.referee.base import TableReferee
from bosun.referee.effects import Effect
from bosun.referee.montego_bay import MontegoBayTable
from bosun.referee.riffraff import RiffRaffTable
from bosun.referee.ship_events import (
    BadMessage,
    decode_json_object,
    validate_event,
    validate_status,
)
from bosun.referee.traces import TraceWriter
from bosun.store import InvalidEntry, effective_actions
from bosun.tables import TableConfig
from shipsense import protocol

log = logging.getLogger(__name__)

INPUT_KINDS = ("ship_event", "input", "tick", "status")
MAX_RESULTS = 100
GAP_CHECK_S = 1.0  # while events are missing, look again this often
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


class Publisher(Protocol):
    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None: ...


class Clock(Protocol):
    def now_ms(self) -> int: ...

    def call_at_ms(self, deadline_ms: int, callback: Callable[[], None]) -> Any: ...


REFEREES: dict[str, type[TableReferee]] = {
    "riffraff": RiffRaffTable,
    "montego-bay": MontegoBayTable,
}


def make_referee(config: TableConfig, setup: dict[str, Any]) -> TableReferee:
    return REFEREES[config.game](config, setup)


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
    ) -> None:
        self.config = config
        self.store = store
        self.bus = bus
        self.clock = clock
        self.topic = f"bosun/{config.id}"
        self.traces = traces if traces is not None else TraceWriter(store, clock)
        self.referee: TableReferee | None = None
        self.game_id: str | None = None
        self.seats: dict[str, str] = {}  # player -> secret token
        self.ship: dict[str, Any] = {"online": False, "status": None, "seen_ms": None}
        self.weights: dict[str, Any] | None = None
        self.feed: deque[dict[str, Any]] = deque(maxlen=FEED_LENGTH)
        self.rejected_messages = 0
        self.listeners: set[Callable[[TableRuntime], None]] = set()
        self.dedup = EventDeduplicator()  # (boot, seq) once each; gaps asked for again
        self._known_boots: set[str] = set()
        self._held: list[dict[str, Any]] = []  # events waiting behind a gap
        self.action_ids: list[int] = []  # store ids of the game's effective actions, in order
        # Virtual tables start their next game by themselves (None: people start it).
        self.next_game_after_s: float | None = None
        self.games_left: int | None = None  # how many more games may start by themselves
        self.virtual = None  # a demo's VirtualTable: a simulated ship people can play on
        self.results: dict[str, dict[str, Any]] = {}  # ship/result answers by command id
        # The calibration wizard is weighing things on the ship: its events are not refereed.
        self.calibrating = False
        self._command_number = 0
        self._gap_timer = None
        self._timer = None
        self._next_game_timer = None
        self.closed = False  # the service is stopping: nothing more is decided or stored

    # -- games -----------------------------------------------------------------------------

    def resume_or_start(self) -> str:
        """Continue this table's unfinished game from the store, or start a new one."""
        unfinished = [g for g in self.store.unfinished_games() if g.table_id == self.config.id]
        if unfinished:
            self._rebuild(unfinished[-1])
            return self.game_id
        return self.start_game()

    def start_fresh(self) -> str:
        """Abandon whatever this table left unfinished and start a new game (virtual ships)."""
        now = self.clock.now_ms()
        for game in self.store.unfinished_games():
            if game.table_id == self.config.id:
                self.store.finish_game(game.game_id, [], at_ms=now)
        return self.start_game()

    def start_game(self, players: list[str] | None = None, **options: Any) -> str:
        """A new game at this table; `options` are the game's (captain, settle_s; seed)."""
        now = self.clock.now_ms()
        if self.game_id is not None and self.referee is not None and not self.referee.is_over:
            self.store.finish_game(self.game_id, [], at_ms=now)  # abandoned for a new game
        players = players or self.config.player_names
        setup = REFEREES[self.config.game].setup_action(self.config, players, options)
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

    def _rebuild(self, game) -> None:
        actions = self.store.game_actions(game.game_id)
        referee = make_referee(self.config, actions[0])
        for entry in self.store.entries(self.config.id, game_id=game.game_id, kinds=INPUT_KINDS):
            self._replay_input(referee, entry)
        if referee.match.log != actions:
            log.error("table %s: replayed game differs from its stored actions", self.config.id)
        self.game_id, self.referee = game.game_id, referee
        self.seats = self.store.seat_tokens(game.game_id)
        self.action_ids = self._effective_action_ids(game.game_id)
        log.info("table %s: resumed game %s", self.config.id, game.game_id)
        self._publish_state()
        self._emit(referee.prompt(force=True, now_ms=self.clock.now_ms()))
        self._reschedule()

    def _effective_action_ids(self, game_id: str) -> list[int]:
        entries = self.store.entries(self.config.id, game_id=game_id, kinds=("action", "undo"))
        return [i for i, _ in effective_actions((e.id, e.kind, e.payload) for e in entries)]

    def _replay_input(self, referee: TableReferee, entry) -> None:
        p, at = entry.payload, entry.at_ms
        try:
            if entry.kind == "ship_event":
                self.dedup.accept(entry.boot, entry.seq, at / 1000)
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

    # -- inputs ------------------------------------------------------------------------------

    def on_ship_message(self, kind: str, payload: bytes) -> None:
        """A message from this table's ship (already routed by topic)."""
        try:
            if kind == "event":
                self._on_event(validate_event(decode_json_object(payload, "event")))
            elif kind == "status":
                self._on_status(validate_status(decode_json_object(payload, "status")))
            elif kind == "weights":
                self.weights = decode_json_object(payload, "weights")
                self.notify()
            elif kind == "trace":
                self._on_trace(decode_json_object(payload, "trace"))
            elif kind == "result":
                self._on_result(decode_json_object(payload, "result"))
        except BadMessage as why:
            self.rejected_messages += 1
            log.warning("table %s: rejected %s message: %s", self.config.id, kind, why)
            self._note(fx.feed(f"rejected a {kind} message from the ship: {why}", "debug"))

    def _on_event(self, event: dict[str, Any]) -> None:
        now = self.clock.now_ms()
        boot, seq = event["boot"], event["seq"]
        if boot not in self._known_boots:  # after a restart: what the store already has is old
            self._known_boots.add(boot)
            for stored in range(1, (self.store.last_seq(self.config.id, boot) or 0) + 1):
                self.dedup.accept(boot, stored, now / 1000)
        if not self.dedup.accept(boot, seq, now / 1000):
            return  # a resend we already have (the ship resends after outages)
        self.ship["seen_ms"] = now
        self._held.append(event)
        self._release_held()
        self._ask_for_gaps()

    def _release_held(self) -> None:
        """Referee events in their ship's order: one after a gap waits for the gap to close."""
        self._held.sort(key=lambda e: (e["boot"], e["seq"]))
        ready = [e for e in self._held if e["seq"] <= self.dedup.highest(e["boot"])]
        self._held = [e for e in self._held if e["seq"] > self.dedup.highest(e["boot"])]
        for event in ready:
            self._referee_event(event)

    def _referee_event(self, event: dict[str, Any]) -> None:
        if self.referee is None or self.referee.is_over or self.calibrating:
            # between games people clear the ship, while calibrating they weigh things on it:
            # kept in the log, refereed by nobody
            self.store.append(
                self.config.id,
                "ship_event",
                event,
                at_ms=self.clock.now_ms(),
                boot=event["boot"],
                seq=event["seq"],
            )
            return
        self._process(
            "ship_event",
            event,
            lambda now: self.referee.on_ship_event(event, now),
            boot=event["boot"],
            seq=event["seq"],
        )

    def _on_status(self, status: dict[str, Any]) -> None:
        online = bool(status["online"])
        previous = self.ship["status"] or {}
        # A birth: the ship (re)connected. It keeps no commands across a reconnect (clean
        # session), so it is told again what to stream and what to light.
        birth = online and (not self.ship["online"] or status.get("boot") != previous.get("boot"))
        self.ship.update(online=online, status=status, seen_ms=self.clock.now_ms())
        if birth and self.config.trace:
            self.send_command({"cmd": "trace", "on": True})
        if self.referee is None:
            self.notify()
            return
        if online != self.referee.online:
            self._process(
                "status", {"online": online}, lambda now: self.referee.on_status(online, now)
            )
        else:
            if birth:
                self._emit(self.referee.prompt(force=True, now_ms=self.clock.now_ms()))
            self.notify()

    def _ask_for_gaps(self) -> None:
        """Ask the ship's ring buffer again for events that never arrived (QoS 1 gaps)."""
        self._gap_timer = None
        now_s = self.clock.now_ms() / 1000
        for request in self.dedup.resend_requests(now_s):
            self.send_command({k: v for k, v in request.items() if k != "id"})
        self._release_held()  # gaps given up let the events behind them through
        if self.dedup.gaps() and self._gap_timer is None:
            deadline = self.clock.now_ms() + int(GAP_CHECK_S * 1000)
            self._gap_timer = self.clock.call_at_ms(deadline, self._ask_for_gaps)

    def send_command(self, command: dict[str, Any]) -> str:
        """Send a `ship/cmd` (checked against the protocol first); its id, for `results`."""
        self._command_number += 1
        command = {**command, "id": f"h{self._command_number}"}
        protocol.check_command(command)  # raises protocol.CommandError naming the problem
        self.results.pop(command["id"], None)
        self.bus.publish(f"{self.topic}/ship/cmd", encode(command), qos=1)
        return command["id"]

    def _on_result(self, result: dict[str, Any]) -> None:
        if not isinstance(result.get("ok"), bool):
            raise BadMessage("result: needs 'ok', true or false")
        if result.get("cmd") == "resend":
            self.dedup.handle_result(result)
            self._release_held()
        if isinstance(result.get("id"), str) and result["id"].startswith("h"):
            self.results[result["id"]] = result
            while len(self.results) > MAX_RESULTS:
                self.results.pop(next(iter(self.results)))
        if not result["ok"]:
            self._note(
                fx.feed(
                    f"the ship refused {result.get('cmd')}: {result.get('error')}", level="warning"
                )
            )
        self.notify()

    def _on_trace(self, batch: dict[str, Any]) -> None:
        # The store's packer checks every value (types, finite, ranges, time order) in C
        # loops; at 80 SPS on a whole café, checking value by value in Python cost more than
        # storing.
        now = self.clock.now_ms()
        try:
            protocol.check_boot(batch.get("boot"))
            if not isinstance(batch.get("rows"), list):
                raise protocol.ProtocolError("trace needs 'rows', a list")
            chunk = self.store.trace_chunk(self.config.id, batch["boot"], batch["rows"], now)
        except (protocol.ProtocolError, InvalidEntry) as why:
            raise BadMessage(f"trace: {why}") from None
        if chunk is not None:
            self.traces.add(chunk, now)

    def player_input(self, token: str, request: dict[str, Any]) -> dict[str, Any]:
        """A request from a seat's page; raises Rejected with a reason for the player."""
        seat = self.seat_of(token)
        if seat is None:
            raise Rejected("this seat link is not valid for the game at this table")
        if not isinstance(request, dict):
            raise Rejected("a request must be a JSON object")
        payload = {"seat": seat, "request": request}
        self._process("input", payload, lambda now: self.referee.on_input(seat, request, now))
        return self.player_snapshot(seat)

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

    def _process(self, kind: str, payload: dict[str, Any], decide, boot=None, seq=None) -> None:
        """Decide, store the input with its effects in one transaction, then publish."""
        if self.closed:
            raise Rejected("this table is stopping; try again when bosun is back")
        now = self.clock.now_ms()
        effects: list[Effect] = decide(now)  # Rejected propagates: nothing stored or sent
        common = {"table_id": self.config.id, "game_id": self.game_id, "at_ms": now}
        entries = [{**common, "kind": kind, "payload": payload, "boot": boot, "seq": seq}]
        stack = list(self.action_ids)
        for effect in effects:
            stored = _stored(effect)
            if effect.kind == fx.UNDO:  # the store's undo names the action entry it takes back
                stored = {"undoes": stack.pop(), **stored}
            entries.append({**common, "kind": STORED_EFFECTS[effect.kind], "payload": stored})
        ids = self.store.append_many(entries)
        for effect, entry_id in zip(effects, ids[1:], strict=True):
            if effect.kind == fx.ACTION:
                stack.append(entry_id)
        self.action_ids = stack
        self._emit(effects)
        if any(e.kind in (fx.ACTION, fx.UNDO) for e in effects):
            if self.referee.is_over:
                self.store.finish_game(self.game_id, self.referee.view["winners"], at_ms=now)
                self._schedule_next_game(now)
            self._publish_state(effects)
        else:
            self.notify()
        self._reschedule()

    def _emit(self, effects: list[Effect]) -> None:
        for effect in effects:
            if effect.kind == fx.LED:
                self.bus.publish(f"{self.topic}/ship/cmd", encode(effect.payload), qos=1)
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
            self.bus.publish(f"{self.topic}/game/event", encode(event), qos=1)
        view = self.referee.view if self.referee else None
        self.bus.publish(f"{self.topic}/game/state", encode(view), qos=1, retain=True)
        self.notify()

    def notify(self) -> None:
        for listener in list(self.listeners):
            listener(self)

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
        for timer in (self._timer, self._next_game_timer, self._gap_timer):
            if timer is not None:
                timer.cancel()
        self._timer = self._next_game_timer = self._gap_timer = None
        self.traces.flush()

    # -- what people see ---------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The public picture of the table: never a secret card, never a seat token."""
        referee = self.referee
        return {
            "table": {
                "id": self.config.id,
                "game": self.config.game,
                "players": [s.model_dump() for s in self.config.players],
                "settle_s": self.config.settle_s,
                "table_sensor": self.config.table_sensor,
            },
            "game_id": self.game_id,
            "virtual": self.virtual is not None,
            "calibrating": self.calibrating,
            "humans": sorted(self.virtual.players.humans) if self.virtual else [],
            "state": referee.view if referee else None,
            "referee": referee.referee_state() if referee else None,
            "ship": {
                "online": self.ship["online"],
                "status": self.ship["status"],
                "weights": self.weights,
            },
            "feed": list(self.feed)[-50:],
            "now_ms": self.clock.now_ms(),
        }

    def player_snapshot(self, player: str) -> dict[str, Any]:
        snapshot = self.snapshot()
        snapshot["you"] = player
        snapshot["state"] = self.referee.player_view(player) if self.referee else None
        snapshot["legal"] = (
            self.referee.match.game.legal_actions(self.referee.match.state, player)
            if self.referee
            else []
        )
        return snapshot


def _stored(effect: Effect) -> dict[str, Any]:
    if effect.kind == fx.FLAG_CLOSED:
        return {"closed": True, **effect.payload}
    return effect.payload
