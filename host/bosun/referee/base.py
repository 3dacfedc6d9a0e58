"""What every game's table referee shares: the match, flags for people, pause, undo.

A table referee is deterministic in its inputs (ship events, player inputs, timer ticks,
ship status, each with its time), so replaying a table's stored inputs rebuilds it exactly.
Every method returns the effects it decided (`bosun.referee.effects`); the runtime stores,
publishes and shows them. A game's referee subclasses `TableReferee`, handles the ship's
events in `_ship_<type>` methods, turns its players' requests into actions in
`player_action`, answers its own flags in `resolve_flag`, and lights the LEDs in `prompt`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bosun.games import Rejected
from bosun.games.match import Match
from bosun.referee import effects as fx
from bosun.referee.effects import Effect, feed
from bosun.tables import TableConfig

MAX_REASON_CHARS = 200


@dataclass
class Flag:
    """A referee decision waiting for a person: what happened and what they may answer."""

    id: str
    kind: str
    text: str
    options: list[str]
    data: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] | None = None  # public, for a page that corrects the decision

    def public(self) -> dict[str, Any]:
        out = {"id": self.id, "kind": self.kind, "text": self.text, "options": list(self.options)}
        if self.detail is not None:
            out["detail"] = self.detail
        return out


def _sensor_name(event: dict[str, Any]) -> str:
    """'zone 3', 'the table mat', or what the ship called it."""
    if isinstance(event.get("zone"), int):
        return f"zone {event['zone']}"
    if event.get("sensor") == "mat":
        return "the table mat"
    return str(event.get("sensor") or "a sensor")[:20]


def acted_by(action: dict[str, Any]) -> str | None:
    """The player who made `action`: a captain's decision names them in "by" (RR5, RR6), any
    other action its "player" (a load or fall in their turn); None for the referee's own."""
    who = action.get("by") or action.get("player")
    return who if isinstance(who, str) else None


class TableReferee:
    """The game-independent half of a table's referee."""

    # Player requests that change the game, and so wait while the ship is offline.
    game_requests: tuple[str, ...] = ()

    def __init__(self, config: TableConfig, setup: dict[str, Any]) -> None:
        self.config = config
        self.match = Match()
        self.match.submit(setup)
        self.online = True
        self.flags: dict[str, Flag] = {}
        self._next_flag = 1
        self._last_led: dict[str, Any] | None = None

    # -- what the runtime asks -----------------------------------------------------------

    @property
    def view(self) -> dict[str, Any]:
        return self.match.view()

    def player_view(self, player: str) -> dict[str, Any]:
        return self.match.view(player)

    @property
    def is_over(self) -> bool:
        return self.match.is_over

    def next_deadline_ms(self) -> int | None:
        """When `on_timer` must next be called, if ever."""
        return None

    def on_timer(self, now_ms: int) -> list[Effect]:
        return []

    def referee_state(self) -> dict[str, Any]:
        """The referee's own public picture next to the game's: flags, pause, colours."""
        return {
            "online": self.online,
            "flags": [flag.public() for flag in self.flags.values()],
            "colours": {seat.name: seat.colour for seat in self.config.players},
        }

    def prompt(self, force: bool = False, now_ms: int | None = None) -> list[Effect]:
        """The LED command for the game's present state, when it differs from the last one."""
        return []

    # -- ship events ---------------------------------------------------------------------

    def on_ship_event(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        kind = event.get("type")
        handler = getattr(self, f"_ship_{kind}", None)
        if handler is None:
            return [feed(f"ship reported {kind!r}; nothing to referee", level="debug")]
        return handler(event, now_ms)

    def _ship_fault(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        reason = event.get("reason") or event.get("detail") or "no reading"
        return [feed(f"sensor fault on {_sensor_name(event)}: {reason}", level="error")]

    def _ship_recovered(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        return [feed(f"{_sensor_name(event)} reads again")]

    # -- player inputs -------------------------------------------------------------------

    def on_input(self, seat: str, request: dict[str, Any], now_ms: int) -> list[Effect]:
        """A request from `seat`'s page; raises Rejected with a reason for the player."""
        kind = request.get("type")
        if kind == "confirm":
            return self._answer_flag(seat, request, now_ms)
        if kind == "undo":
            return self._undo(seat, request)
        if kind not in self.game_requests:
            raise Rejected(f"unknown request {kind!r}")
        if not self.online:
            raise Rejected("the table is paused: the ship is offline")
        return self.player_action(seat, request, now_ms)

    def player_action(self, seat: str, request: dict[str, Any], now_ms: int) -> list[Effect]:
        raise NotImplementedError

    def _answer_flag(self, seat: str, request: dict[str, Any], now_ms: int) -> list[Effect]:
        flag = self.flags.get(str(request.get("flag")))
        if flag is None:
            raise Rejected("that question has already been answered or does not exist")
        option = request.get("option")
        if option not in flag.options:
            raise Rejected(f"answer one of: {', '.join(flag.options)}")
        if option == "correct":  # the answer carries the correction itself
            out = self.correct_flag(flag, request, seat, now_ms)  # may raise: it stays open
        else:
            out = self.resolve_flag(flag, option, seat, now_ms)  # may raise: it stays open
        del self.flags[flag.id]
        return [Effect(fx.FLAG_CLOSED, {"id": flag.id, "option": option, "by": seat}), *out]

    def resolve_flag(self, flag: Flag, option: str, seat: str, now_ms: int) -> list[Effect]:
        """What answering `flag` with `option` does (nothing, by default)."""
        return []

    def correct_flag(
        self, flag: Flag, request: dict[str, Any], seat: str, now_ms: int
    ) -> list[Effect]:
        """Answering `flag` with "correct": the request says what really happened."""
        raise Rejected("this question takes no correction")

    def _undo(self, seat: str, request: dict[str, Any]) -> list[Effect]:
        reason = request.get("reason")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON_CHARS:
            raise Rejected(f"say why (1-{MAX_REASON_CHARS} characters) when undoing a decision")
        if self.is_over:
            raise Rejected("the game is over: start a new one instead")
        if len(self.match.log) <= 1:
            raise Rejected("there is nothing to undo")
        undone = self.match.log[-1]
        # Only the player who acted takes their action back, or the operator (the web sets
        # "operator" only for a request made with the operator key): one seat cannot walk
        # the others' game back.
        by_operator = request.get("operator") is True
        actor = acted_by(undone)
        if not by_operator and actor != seat:
            if actor is None:
                raise Rejected(f"only the operator can undo the referee's {undone['type']}")
            raise Rejected(f"only {actor} (it was theirs) or the operator can undo that")
        who = "the operator" if by_operator else seat
        self.replay(self.match.log[:-1])
        self.undone()
        return [
            Effect(fx.UNDO, {"action": undone, "reason": reason.strip(), "by": who}),
            feed(f"{who} undid {undone['type']} ({reason.strip()})", level="warning"),
            *self.prompt(),
        ]

    def undone(self) -> None:
        """The game went back a step: forget timers that belonged to the step undone."""

    def rewrite(
        self, seat: str, index: int, corrected: dict | None, reason: str, now_ms: int
    ) -> list[Effect]:
        """Replace the action at `index` (None: take it out): undo back to it, then redo with
        the correction; the LEDs then show the game as it stands at `now_ms` (a window still
        counting down goes on)."""
        later = self.match.log[index + 1 :]
        redo = [corrected, *later] if corrected is not None else later
        before = self.match
        try:
            self.replay([*self.match.log[:index], *redo])
        except Rejected as why:
            self.match = before
            raise Rejected(f"that correction does not fit what happened since: {why}") from None
        undone = list(reversed(before.log[index:]))
        out = [Effect(fx.UNDO, {"action": a, "reason": reason, "by": seat}) for a in undone]
        out += [Effect(fx.ACTION, a) for a in redo]
        out.append(feed(f"{seat} corrected the referee: {reason}", level="warning"))
        return out + self.prompt(now_ms=now_ms)

    def replay(self, actions: list[dict[str, Any]]) -> None:
        rebuilt = Match()
        for action in actions:
            rebuilt.submit(action)
        self.match = rebuilt

    # -- ship status ---------------------------------------------------------------------

    def on_status(self, online: bool, now_ms: int) -> list[Effect]:
        if online == self.online:
            return []
        self.online = online
        if not online:
            return [feed("the ship is offline: the table is paused", level="error")]
        self.resumed(now_ms)
        out = [feed("the ship is back online: the table resumes")]
        return out + self.prompt(force=True, now_ms=now_ms)

    def resumed(self, now_ms: int) -> None:
        """The ship is back: restart whatever was counting when it went away."""

    # -- helpers -------------------------------------------------------------------------

    def submit(self, action: dict[str, Any], by_player: bool = False) -> list[Effect]:
        """Apply an action; the referee's own refused ones become a flag for people."""
        try:
            self.match.submit(action)
        except Rejected as reason:
            if by_player:
                raise
            return [
                Effect(fx.REJECTED, {"action": action, "reason": str(reason)}),
                self.flag(
                    "refused",
                    f"the referee's own decision was refused: {reason}",
                    ["acknowledge"],
                    {"action": action},
                ),
            ]
        return [Effect(fx.ACTION, action)]

    def flag(
        self,
        kind: str,
        text: str,
        options: list[str],
        data: dict[str, Any],
        detail: dict[str, Any] | None = None,
    ) -> Effect:
        flag = Flag(str(self._next_flag), kind, text, options, data, detail)
        self._next_flag += 1
        self.flags[flag.id] = flag
        return Effect(fx.FLAG, flag.public())

    def led(self, command: dict[str, Any], force: bool = False) -> list[Effect]:
        """`command` as an effect, unless it is what the LEDs already show."""
        if command == self._last_led and not force:
            return []
        self._last_led = command
        return [Effect(fx.LED, command)]
