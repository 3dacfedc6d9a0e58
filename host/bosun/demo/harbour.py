"""A virtual Montego Bay table: the ship's load cells as a harbour, and bot players.

The harbour is the virtual ship with `ShipParams.harbour` (docks 1-4 on zones 1-4, barrels
only), published on the broker by a `VirtualShipNode` (the firmware's ship core) like any ship.
The bots play through the real service like people would: they declare for Lazy Jack and choose
cards on their pages, and answer the harbour's questions (MB15) mostly by moving barrels on the
docks and leaving the answer to the referee, sometimes by answering on their page and then
moving the barrels. The table's hands (`HarbourPlayers._keep_harbour`) follow the game as
people do: when ships sail or move up (MB9, MB10) they take the barrels off and move the ships.
Every hand, a bot's or a person's, moves barrels only as the detector can read them
(`bosun.demo.harbour_hands`).

What the referee decided is checked against what the bots really did: a load or unload
that differs from the barrels moved, a flag, an undo or an answer never read is a mismatch.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bosun.bots.montego_bay import BotPolicy, choose_decision
from bosun.demo.harbour_hands import HarbourHands, question_key, signed
from bosun.demo.table_bots import TableBots, VirtualKind, VirtualTableBase
from bosun.demo.virtual_ship import VirtualShipNode
from bosun.games.montego_bay.view import barrels_by_dock
from bosun.sim.params import ShipParams
from shipsense.geometry import HARBOUR_DOCKS

TICK_S = 0.02  # real seconds between steps when nothing happens (the ship runs faster)
# Ship milliseconds after the barrels of a bot's answer came to rest by which the referee
# must have answered for it (QUIET_MS and the detector's own delay, with room to spare).
ANSWER_TIMEOUT_MS = 8000.0
# ... and real seconds it waits at least: the ship's events reach the referee through the
# broker in real time, which a busy machine stretches (at speed 10, 8 s of ship time are
# 0.8 s: one slow hand-over would count as a missed answer).
ANSWER_FLOOR_S = 3.0
FLAG_POLL_MS = 2500.0  # how often the bots look at the table for flags to answer
# People look at the harbour before they decide; the bots give the detector as long to
# report the last move (its decisions come ~0.3-0.6 s after a barrel came to rest).
LOOK_MS = 1000.0
MAX_BARRELS_A_HAND = 8  # a person's hand at a virtual harbour moves at most this many


@dataclass(frozen=True)
class HarbourStyle:
    """How the bots at a virtual harbour play."""

    page_answer_probability: float = 0.3  # answer on the page, then move the barrels
    think_ms: tuple[float, float] = (300.0, 900.0)  # ship time before a bot decides
    gap_ms: tuple[float, float] = (150.0, 400.0)  # between two moves of the table's hands
    policy: BotPolicy = field(default_factory=BotPolicy)


@dataclass
class HarbourTally:
    """One finished Montego Bay game, with the referee's decisions checked against truth."""

    table: str
    game_id: str
    winners: list[str] = field(default_factory=list)
    rounds: int = 0
    points: dict[str, int] = field(default_factory=dict)
    ships_sailed: int = 0
    ships_filled: int = 0
    jack_hired: int = 0
    bumps: int = 0
    page_answers: int = 0  # loads and unloads a bot answered on its page
    harbour_answers: int = 0  # ... that the referee read from the harbour
    mismatches: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "game_id": self.game_id,
            "game": "montego-bay",
            "winners": self.winners,
            "rounds": self.rounds,
            "points": self.points,
            "ships_sailed": self.ships_sailed,
            "ships_filled": self.ships_filled,
            "jack_hired": self.jack_hired,
            "bumps": self.bumps,
            "page_answers": self.page_answers,
            "harbour_answers": self.harbour_answers,
            "mismatches": self.mismatches,
        }


class HarbourPlayers(TableBots):
    """All bot seats of one virtual Montego Bay table, and the table's hands; seats in
    `humans` are left to people (their pages stand in for their hands)."""

    tick_s = TICK_S
    rng_stream = "harbour-players"

    def __init__(
        self,
        table_id: str,
        node: VirtualShipNode,
        http_url: str,
        operator_key: str,
        broker: tuple[str, int],
        seed: int | str = 0,
        style: HarbourStyle | None = None,
    ) -> None:
        super().__init__(
            table_id, node, http_url, operator_key, broker, seed, style or HarbourStyle()
        )
        # Barrels moved (or to be moved) for the question now asked, by a bot or a person:
        # the table's hands leave them be. (question key, signed barrels by dock)
        self.answer_moves: tuple[tuple | None, Counter[int]] = (None, Counter())
        self._truths: list[dict[str, Any]] = []  # answers the bots gave with their hands
        self._waiting: dict[str, Any] | None = None  # a harbour answer the referee owes
        self._seen_events: list[dict] = []
        # every hand at the table, a bot's or a person's
        self.hands = HarbourHands(node, put_rest_ms=self.style.gap_ms[0])
        self._next_move_ms = 0.0  # the table's hands rest until then (ship time), at their pace
        self._hand_moves: list[tuple[int, int]] = []  # a bot's answer, dock by dock, to do
        self._next_decision_ms = 0.0
        self._last_flag_poll_ms = -FLAG_POLL_MS

    def _on_state(self, state: dict[str, Any]) -> None:
        self._count_events(state)

    # -- one step --------------------------------------------------------------------------

    async def _step(self) -> None:
        self._check_actions()
        state = await self._follow_game()
        if state is None:
            return
        if not self.ship.settled or self.hands_off():
            return  # hands wait for what is moving to come to rest
        if self._keep_harbour():
            return
        now = self.ship.now_ms
        if now < self.ship.busy_until_ms + LOOK_MS:
            return
        if now - self._last_flag_poll_ms >= FLAG_POLL_MS:
            self._last_flag_poll_ms = now
            await self._answer_flags()
        if await self._check_waiting():
            return
        if now >= self._next_decision_ms and await self._decide(state):
            self._next_decision_ms = now + self.rng.uniform(*self.style.think_ms)

    def _new_tally(self, game_id: str) -> HarbourTally:
        return HarbourTally(table=self.table_id, game_id=game_id)

    def _reset(self) -> None:
        self._truths.clear()
        self._waiting = None
        self._seen_events = []
        self._hand_moves = []
        self.hands.reset()
        self._next_move_ms = 0.0  # a new game: a new ship's clock
        self.answer_moves = (None, Counter())

    def _close(self, tally: HarbourTally, state: dict[str, Any]) -> None:
        tally.points = {p: info["points"] for p, info in state["players"].items()}
        for truth in self._truths:
            tally.mismatches.append({"kind": "unanswered", "truth": truth})

    # -- the table's hands: the harbour follows the game -------------------------------------

    def desired_barrels(self) -> Counter[int]:
        """What the docks should hold: the game's cargo, and the barrels moved for the
        question now asked (an answer not given yet)."""
        desired = barrels_by_dock(self.state)
        key, moves = self.answer_moves
        if key is not None and key == question_key(self._game_id, self.state):
            desired.update(moves)
        return desired

    def harbour_work(self) -> dict[int, int]:
        """Barrels to add (+) or take off (-) dock by dock for the harbour to be as wanted."""
        desired, there = self.desired_barrels(), self.hands.barrels()
        return {d: desired[d] - there[d] for d in HARBOUR_DOCKS if desired[d] != there[d]}

    def _keep_harbour(self) -> bool:
        """One move of the hands at the table, while there is one to make: a bot's answer
        dock by dock first; then, if the harbour is not as the game wants it, the barrels of
        sailed ships off and the ships behind them moved up."""
        if self._hand_moves:
            dock, count = self._hand_moves[0]
        else:
            work = self.harbour_work()
            if not work:
                return False
            dock = min(work, key=lambda d: (work[d] > 0, d))  # take off before putting on
            count = work[dock]
        hands = self.hands
        waiting = not hands.free() or self.ship.now_ms < self._next_move_ms
        if waiting or (count < 0 and not hands.may_take(dock)):
            return True  # the hands rest (after any hand's move, and at their own pace)
        if self._hand_moves:
            self._hand_moves.pop(0)
        if count < 0:
            hands.take(dock, -count)
        else:
            hands.put(dock, count)
        self._next_move_ms = self.ship.busy_until_ms + self.rng.uniform(*self.style.gap_ms)
        return True

    def sees(self, state: dict[str, Any] | None) -> bool:
        """Whether the table's hands see the harbour of `state` (the game as the service has
        it now): the same question and the same cargo dock by dock. Their copy comes over
        the broker and lags on a busy machine."""
        mine = self.state
        return question_key(self._game_id, mine) == question_key(self._game_id, state) and (
            barrels_by_dock(mine) == barrels_by_dock(state)
        )

    def add_answer_moves(self, key: tuple, moves: Counter[int]) -> None:
        held_key, held = self.answer_moves
        total = Counter(held) if held_key == key else Counter()
        total.update(moves)
        self.answer_moves = (key, total)

    # -- bot decisions ---------------------------------------------------------------------

    async def _decide(self, state: dict[str, Any]) -> bool:
        """One bot decision, if one is due: Lazy Jack, cards, or a harbour question."""
        phase = state["phase"]
        if phase == "hire":
            waiting = [p for p in state["players"] if p not in state["hires"]]
        elif phase == "cards":
            waiting = [p for p in state["players"] if p not in state["chosen"]]
        elif phase == "resolve" and state["pending"]:
            waiting = [state["pending"]["player"]]
        else:
            return False
        for player in waiting:
            key = (self._game_id, state["round"], phase, player, json.dumps(state["pending"]))
            if player in self.humans or key in self._asked:
                continue
            self._asked.add(key)
            seat = await self._get(f"/api/seat/{self._seats[player]}")
            legal = seat["legal"]
            if not legal:
                continue
            choice = choose_decision(self.rng, seat["state"], legal, self.style.policy)
            request = {k: v for k, v in choice.items() if k != "player"}
            if choice["type"] in ("hire", "cards"):
                await self._ask_once(key, player, request)
            else:
                await self._answer(player, choice, seat["state"])
            return True
        return False

    async def _answer(self, player: str, choice: dict[str, Any], state: dict[str, Any]) -> None:
        """A bot answers MB15's question: with its hands only, or on its page and then with
        its hands. Either way the barrels go where it said."""
        key = question_key(self._game_id, state)
        moves = signed(choice["type"], choice["ships"])
        self.add_answer_moves(key, moves)
        self._hand_moves = sorted(moves.items())  # done by its hands, dock by dock
        truth = {"type": choice["type"], "player": player, "ships": choice["ships"]}
        if self.rng.random() < self.style.page_answer_probability:
            truth["via"] = "page"
            self._truths.append(truth)
            if await self._act(player, {"type": choice["type"], "ships": choice["ships"]}):
                self._tally.page_answers += 1
            else:
                self._truths.remove(truth)
        else:
            truth["via"] = "harbour"
            self._truths.append(truth)
            self._waiting = {"truth": truth, "key": key, "since_ms": None}

    async def _check_waiting(self) -> bool:
        """A bot moved barrels and waits for the referee to read them; True while it waits.
        Past ANSWER_TIMEOUT_MS (and ANSWER_FLOOR_S) it is a mismatch, and the bot answers on
        its page instead."""
        waiting = self._waiting
        if waiting is None:
            return False
        if waiting["truth"] not in self._truths:
            self._waiting = None  # the referee answered (checked in _check_actions)
            return False
        now, real = self.ship.now_ms, time.monotonic()
        if waiting["since_ms"] is None:  # the barrels are down: the referee's clock starts
            waiting["since_ms"], waiting["since_s"] = now, real
        if (
            now - waiting["since_ms"] < ANSWER_TIMEOUT_MS
            or real - waiting["since_s"] < ANSWER_FLOOR_S
        ):
            return True
        truth = waiting["truth"]
        self._tally.mismatches.append({"kind": "missed_answer", "truth": truth})
        self._truths.remove(truth)
        self._waiting = None
        await self._act(truth["player"], {"type": truth["type"], "ships": truth["ships"]})
        return True

    async def _answer_flags(self) -> None:
        """A flag is a referee decision that differs from what the bots did: a mismatch.
        People at the table confirm it once the harbour is as the game shows it."""
        snapshot = await self._table()
        for flag in (snapshot.get("referee") or {}).get("flags", []):
            key = ("flag", flag["id"], self._game_id)
            if key in self._asked:
                continue
            self._asked.add(key)
            if self._tally is not None:
                self._tally.mismatches.append(
                    {"kind": "flag", "flag": flag["kind"], "text": flag["text"]}
                )
            seat = self._bot_seat()
            if seat is not None:
                answer = {"type": "confirm", "flag": flag["id"], "option": flag["options"][0]}
                await self._act(seat, answer)

    # -- truth against the referee ---------------------------------------------------------

    def _check_actions(self) -> None:
        tally = self._tally
        while not self._actions.empty():
            action = self._actions.get_nowait()
            if tally is None:
                continue
            kind = action.get("type")
            if kind in ("load", "unload"):
                truth = next(
                    (
                        t
                        for t in self._truths
                        if t["player"] == action["player"] and t["type"] == kind
                    ),
                    None,
                )
                if truth is None:
                    continue  # a person's answer: no truth to hold it against
                self._truths.remove(truth)
                decided = {"type": kind, "player": action["player"], "ships": action["ships"]}
                wanted = {k: truth[k] for k in ("type", "player", "ships")}
                if truth["via"] == "harbour":
                    tally.harbour_answers += 1
                if _normal(decided) != _normal(wanted):
                    tally.mismatches.append({"kind": kind, "truth": truth, "referee": decided})
            elif kind == "undo":
                tally.mismatches.append({"kind": "undo", "referee": action})

    def _count_events(self, state: dict[str, Any]) -> None:
        tally = self._tally
        events = state.get("events") or []
        seen = self._seen_events
        fresh = events[len(seen) :] if events[: len(seen)] == seen else events
        self._seen_events = list(events)
        if tally is None:
            return
        for event in fresh:
            kind = event.get("kind")
            if kind == "sail" and not event.get("pilot"):
                tally.ships_sailed += 1
                tally.ships_filled += event.get("why") == "filled"
            elif kind == "reveal":
                tally.jack_hired += any("jack" in c for c in event["cards"].values())
            elif kind == "move":
                tally.bumps += "bumped" in event or "pushed_back_from" in event


def _normal(action: dict[str, Any]) -> dict[str, Any]:
    ships = {str(d): n for d, n in action["ships"].items() if n}
    return {**action, "ships": dict(sorted(ships.items()))}


class VirtualHarbour(VirtualTableBase):
    """One simulated Montego Bay table: its configuration, its harbour on the broker, its
    bot players and hands."""

    players: HarbourPlayers
    what = "virtual harbour"

    def act(
        self, player: str, game_id: str | None, state: dict | None, request: dict[str, Any]
    ) -> None:
        """The barrels a person's hand moves (MB15): `do` put or take, on `dock`, `count`."""
        self.hands(player, state, request.get("do"), request.get("dock"), request.get("count", 1))

    def hands(self, player: str, state: dict[str, Any], do: str, dock: Any, count: Any) -> None:
        """A person's hand at the harbour: `put` barrels on a dock or `take` them off, for the
        question they are asked (MB15). ValueError says why not."""
        self._person(player)
        if do not in ("put", "take"):
            raise ValueError("do must be 'put' or 'take' at a harbour")
        if isinstance(dock, bool) or dock not in HARBOUR_DOCKS:
            raise ValueError("dock must be 1, 2, 3 or 4")
        if isinstance(count, bool) or not isinstance(count, int):
            raise ValueError(f"count must be a whole number of barrels, 1-{MAX_BARRELS_A_HAND}")
        if not 1 <= count <= MAX_BARRELS_A_HAND:
            raise ValueError(f"count must be 1-{MAX_BARRELS_A_HAND} barrels")
        pending = state.get("pending") if state else None
        if not pending or pending["player"] != player:
            raise ValueError("the harbour is not asking you to load or unload now")
        players, ship = self.players, self.node.ship
        if not players.sees(state):
            # the table's hands would still move barrels for the game as it was (a page
            # answer's, ships sailing) after these, and take these for that answer's
            raise ValueError("the table is still catching up with the game; wait a moment")
        key = question_key(players.game_id, state)
        if players.answer_moves[0] != key:
            players.answer_moves = (key, Counter())
        if players.harbour_work():
            raise ValueError("the ships are still being moved up; wait a moment")
        if not players.hands.free():
            raise ValueError("the harbour is still moving; wait a moment")
        if do == "put":
            left = len(ship.supply("barrel"))
            if count > left:
                raise ValueError(f"only {left} barrels are off the docks")
            players.add_answer_moves(key, Counter({dock: count}))
            players.hands.put(dock, count)
        else:
            there = len(ship.aboard(dock))
            if not players.hands.may_take(dock):
                raise ValueError(f"the barrels just set down on dock {dock} are still settling")
            if count > there:
                raise ValueError(f"dock {dock} holds {there} barrel{'s' if there != 1 else ''}")
            players.add_answer_moves(key, Counter({dock: -count}))
            players.hands.take(dock, count)


HARBOUR = VirtualKind(
    table=VirtualHarbour,
    players=HarbourPlayers,
    config={"table_sensor": "none"},
    ship=ShipParams.harbour,
)
