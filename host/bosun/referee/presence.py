"""Who is at a table: seat pages open, decisions waiting, the decision timer, bot stand-ins.

A seat is present while one of its pages holds a live stream open. A decision waits from the
moment the engine first offers a player a kind of move until they made one. The decision
timer (a table option: off unless set at real tables, VIRTUAL_DECISION_S at virtual ones)
and the operator act on a waiting seat only as the rules allow, through the seat's bot:

- at a virtual table the seat goes back to its bot (the demo's bots play it, hands and all);
- at a real table the bot of the game's simulation (bosun.bots.<game>.stand_in) picks one of
  the moves the engine offers the seat on its page, and it is sent as that seat's request. In
  the game log it is an ordinary action of that seat: DESIGN.md's contract has no action for
  a hand-over, so the hand-over itself is only a line on the table's feed. Moves made with
  hands on the ship (a Riff Raff load) are never made up: the timer leaves them to people.

Decision time is people's time: real seconds, also when a demo runs its clock faster.
"""

from __future__ import annotations

import importlib
import logging
import random
from collections import Counter
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from bosun.games import Rejected

if TYPE_CHECKING:
    from bosun.referee.runtime import TableRuntime
    from bosun.referee.view import TableView

log = logging.getLogger(__name__)

VIRTUAL_DECISION_S = 60  # an idle person's seat at a virtual table goes back to its bot
MAX_DECISION_S = 3600
# A new game's decision timer (the game kits' options): seconds, 0 = off, None = the table's.
DecisionSeconds = Annotated[int | None, Field(ge=0, le=MAX_DECISION_S)]


def seat_request(action: dict[str, Any]) -> dict[str, Any]:
    """The seat page's request for an engine action: the action without the seat's name
    (a captain's decision keeps the player it names: `by` is the seat there)."""
    request = {k: v for k, v in action.items() if k != "by"}
    if "by" not in action:
        request.pop("player", None)
    return request


class SeatWatch:
    """One table's seats: pages open, decisions waiting, the timer, seats given to bots."""

    def __init__(self, view: TableView, runtime: TableRuntime) -> None:
        self._view = view
        self._runtime = runtime
        self.pages: Counter[str] = Counter()  # open live streams of each seat's pages
        self.left_ms: dict[str, int] = {}  # when the last page of a seat closed
        self.decision_s: int | None = view.config.decision_s  # None: the table's default
        # A timer set while a decision already waits counts from when it was set.
        self.timer_from_ms = 0
        self.bots: set[str] = set()  # real-table seats the operator gave to a bot
        self._waiting: dict[str, tuple[frozenset, int]] = {}  # player -> (move kinds, since)
        self._seen: tuple | None = None
        self._timer = None
        self._soon = None

    # -- what the pages show ---------------------------------------------------------------

    @property
    def timer_s(self) -> int:
        """The decision timer in force (0: off)."""
        if self.decision_s is not None:
            return self.decision_s
        return VIRTUAL_DECISION_S if self._view.virtual is not None else 0

    def public(self) -> dict[str, Any]:
        """Each seat's presence for the snapshots (no token, no card)."""
        self.refresh()
        humans = self._view.virtual.humans if self._view.virtual is not None else set()
        seats = {}
        for player in self._view.seat_tokens():
            waiting = self._waiting.get(player)
            seats[player] = {
                "online": self.pages[player] > 0,
                "left_ms": self.left_ms.get(player) if self.pages[player] == 0 else None,
                "waiting_since_ms": waiting[1] if waiting else None,
                "deadline_ms": self._deadline_ms(player),
                "bot": player in self.bots
                or (self._view.virtual is not None and player not in humans),
            }
        return {"decision_s": self.timer_s, "seats": seats}

    # -- pages come and go -------------------------------------------------------------------

    def page_opened(self, player: str) -> None:
        self.pages[player] += 1
        self.left_ms.pop(player, None)
        self._view.changed()

    def page_closed(self, player: str) -> None:
        self.pages[player] -= 1
        if self.pages[player] <= 0:
            del self.pages[player]
            self.left_ms[player] = self._view.now_ms()
        if not self._runtime.closed:
            self._view.changed()

    # -- waiting decisions -------------------------------------------------------------------

    def refresh(self) -> None:
        """Who the engine waits for now, and since when (called after every change)."""
        runtime = self._runtime
        referee = runtime.referee
        match = referee.match if referee else None
        virtual = self._view.virtual
        humans = frozenset(virtual.humans) if virtual is not None else None
        key = (runtime.game_id, id(match), len(match.log) if match else 0, runtime.calibrating)
        key += (referee.online if referee else None, humans, frozenset(self.bots), self.timer_s)
        if key == self._seen:
            return
        if self._seen is None or self._seen[0] != key[0]:
            self._waiting.clear()
        self._seen = key
        now = self._view.now_ms()
        waiting: dict[str, tuple[frozenset, int]] = {}
        playing = referee is not None and not referee.is_over and referee.online
        if playing and not runtime.calibrating:
            for player in runtime.seats:
                try:
                    kinds = frozenset(a["type"] for a in self._legal(player))
                except Exception:  # an engine's slip must never stop the table it watches
                    log.exception("table %s: no legal moves for %s", self._view.id, player)
                    continue
                if kinds:
                    before = self._waiting.get(player)
                    since = before[1] if before and before[0] == kinds else now
                    waiting[player] = (kinds, since)
        self._waiting = waiting
        self._schedule()

    def _legal(self, player: str) -> list[dict[str, Any]]:
        referee = self._runtime.referee
        return referee.match.game.legal_actions(referee.match.state, player)

    def _page_moves(self, player: str) -> list[dict[str, Any]]:
        """What the engine offers `player` that their page may send (not hands on the ship)."""
        referee = self._runtime.referee
        if referee is None:
            return []
        return [a for a in self._legal(player) if a["type"] in referee.game_requests]

    def _timed(self, player: str) -> bool:
        """Whether the decision timer runs for `player`'s waiting decision."""
        if player not in self._waiting or not self.timer_s:
            return False
        virtual = self._view.virtual
        if virtual is not None:
            return player in virtual.humans
        kinds = self._waiting[player][0]
        referee = self._runtime.referee
        return bool(kinds & set(referee.game_requests))

    def _deadline_ms(self, player: str) -> int | None:
        if not self._timed(player):
            return None
        # people's seconds: a demo's faster clock runs them faster on the table's clock
        span_ms = self.timer_s * 1000 * self._view.clock_scale
        return max(self._waiting[player][1], self.timer_from_ms) + int(span_ms)

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._runtime.closed:
            return
        deadlines = [d for p in self._waiting if (d := self._deadline_ms(p)) is not None]
        if deadlines:
            self._timer = self._runtime.clock.call_at_ms(min(deadlines), self._expired)
        bots = [p for p in self._waiting if p in self.bots and self._page_moves(p)]
        if bots and self._soon is None:  # not inside the change that woke us
            self._soon = self._runtime.clock.call_at_ms(self._view.now_ms(), self._bots_decide)

    def _expired(self) -> None:
        self._timer = None
        now = self._view.now_ms()
        for player in list(self._waiting):
            deadline = self._deadline_ms(player)
            if deadline is not None and deadline <= now:
                self._try(player, f"no answer in {self.timer_s} s")
        self._schedule()

    def _try(self, player: str, why: str, quiet: bool = False) -> None:
        try:
            self.stand_in(player, why, quiet)
        except Rejected as reason:  # the game moved on meanwhile: nothing to stand in for
            log.info("table %s: no stand-in for %s: %s", self._view.id, player, reason)

    def _bots_decide(self) -> None:
        self._soon = None
        for player in list(self._waiting):
            if player in self.bots and self._page_moves(player):
                self._try(player, "the operator gave the seat to a bot", quiet=True)

    # -- the operator's and the timer's hand ---------------------------------------------------

    def give_to_bot(self, player: str, bot: bool) -> None:
        """The operator hands `player`'s seat to its bot (or, at a real table, back)."""
        virtual = self._view.virtual
        if virtual is not None:
            if not bot:
                raise Rejected("at a virtual table a person takes a seat on its own page")
            virtual.claim(player, False)
            self._view.note(f"{player}'s seat goes to its bot (the operator)")
        elif bot:
            self.bots.add(player)
            self._view.note(f"{player}'s seat is played by a bot (the operator)")
        else:
            self.bots.discard(player)
            self._view.note(f"{player} plays their seat again (the operator)")
        self._seen = None
        self._view.changed()

    def stand_in(self, player: str, why: str, quiet: bool = False) -> str:
        """The seat's bot takes `player`'s waiting decision, as the module says; what it did,
        or Rejected when there is nothing a bot may do for them."""
        self.refresh()
        if player not in self._waiting:
            raise Rejected(f"{player} has no decision to make now")
        virtual = self._view.virtual
        if virtual is not None:
            if player not in virtual.humans:
                raise Rejected(f"{player}'s seat is already played by its bot")
            virtual.claim(player, False)
            self._view.note(f"{player}'s seat went back to its bot: {why}", "warning")
            self._view.changed()
            return "bot"
        moves = self._page_moves(player)
        if not moves:
            raise Rejected(
                f"{player}'s move is made by hand on the {self._view.kit.calibration.board}: "
                "no bot can make it"
            )
        kit, runtime = self._view.kit, self._runtime
        bots = importlib.import_module(kit.simulation) if kit.simulation else None
        if not hasattr(bots, "stand_in"):
            raise Rejected(f"{kit.title} has no bot to decide for {player}")
        rng = random.Random(f"{runtime.game_id}/{len(runtime.referee.match.log)}/{player}")
        view = runtime.referee.player_view(player)
        request = seat_request(bots.stand_in(rng, view, moves))
        if not quiet:
            self._view.note(f"a bot decided for {player}: {why}", "warning")
        self._view.player_input(runtime.seats[player], request)
        return request["type"]
