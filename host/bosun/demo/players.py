"""Bot players at a virtual table, playing through the real service like people would.

They watch the table over the broker (`game/state`, `game/event`; `table_bots.py`), choose
cards and take the captain's decisions through the HTTP API with their seat tokens, and load
pieces by hand on the virtual ship, which now and then tips cargo off. What the referee
decided is checked against what the simulator knows really happened: every difference is a
mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bosun.demo.table_bots import TableBots
from bosun.demo.virtual_ship import VirtualShipNode

TICK_S = 0.05
OUTCOME_TO_RULES = {"landed": "fallen", "bounced": "fallen", "caught": "caught"}
# Ship milliseconds after which a piece the referee never loaded, or a fall it never
# decided, counts as missed (and the bots go on, so a demo never hangs).
PLACE_TIMEOUT_MS = 6000.0
FALL_TIMEOUT_MS = 6000.0


@dataclass
class GameTally:
    """What one finished game came to, with the referee's decisions checked against truth."""

    table: str
    game_id: str
    winners: list[str] = field(default_factory=list)
    rounds: int = 0
    falls: int = 0
    caught: int = 0
    boxed: int = 0
    mismatches: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "game_id": self.game_id,
            "winners": self.winners,
            "rounds": self.rounds,
            "falls": self.falls,
            "caught": self.caught,
            "boxed": self.boxed,
            "mismatches": self.mismatches,
        }


@dataclass(frozen=True)
class BotStyle:
    fall_probability: float = 0.15  # chance that a loaded piece tips cargo off
    catch_probability: float = 0.3
    bounce_probability: float = 0.15
    drag_probability: float = 0.3  # a fall takes another piece along
    two_pieces_probability: float = 0.5
    think_ms: tuple[float, float] = (400.0, 1200.0)  # ship time before a hand moves


class VirtualTablePlayers(TableBots):
    """All bot seats of one virtual Riff Raff table; seats in `humans` are left to people."""

    tick_s = TICK_S

    def __init__(
        self,
        table_id: str,
        node: VirtualShipNode,
        http_url: str,
        operator_key: str,
        broker: tuple[str, int],
        seed: int | str = 0,
        style: BotStyle | None = None,
    ) -> None:
        super().__init__(table_id, node, http_url, operator_key, broker, seed, style or BotStyle())
        self._expected_loads: list[str] = []
        self._expected_falls: list[tuple[float, dict[str, list[str]]]] = []  # (at_ms, truth)
        self._placing: tuple[str, int, float] | None = None  # (player, loads before, at_ms)
        self._next_hand_ms = 0.0

    # -- one step --------------------------------------------------------------------------

    async def _step(self) -> None:
        self._check_actions()
        self._check_timeouts()
        state = await self._follow_game()
        if state is None:
            return
        phase = state["phase"]
        if phase == "choose":
            await self._choose_cards(state)
        elif phase == "decide":
            await self._decide(state)
        elif phase == "turn":
            await self._turn(state)
        await self._answer_flags()

    def _new_tally(self, game_id: str) -> GameTally:
        return GameTally(table=self.table_id, game_id=game_id)

    def _reset(self) -> None:
        self._expected_loads.clear()
        self._expected_falls.clear()
        self._placing = None

    def _close(self, tally: GameTally, state: dict[str, Any]) -> None:
        tally.boxed = state["boxed"]
        for _, expected in self._expected_falls:
            tally.mismatches.append({"kind": "missed_fall", "truth": expected})

    def _check_timeouts(self) -> None:
        now, tally = self.ship.now_ms, self._tally
        if self._placing is not None and now > self._placing[2] + PLACE_TIMEOUT_MS:
            if tally is not None and self._expected_loads:
                missed = self._expected_loads.pop()
                tally.mismatches.append({"kind": "missed_place", "truth": missed})
            self._placing = None
        while self._expected_falls and now > self._expected_falls[0][0] + FALL_TIMEOUT_MS:
            _, missed = self._expected_falls.pop(0)
            if tally is not None:
                tally.mismatches.append({"kind": "missed_fall", "truth": missed})

    async def _choose_cards(self, state: dict[str, Any]) -> None:
        for player, info in state["players"].items():
            key = ("card", state["round"], player)
            if player in self.humans or info["chosen"] or key in self._asked:
                continue
            # RR7: the public state shows only the last round's card; the seat sees its own
            own = await self._get(f"/api/seat/{self._seats[player]}")
            played = own["state"]["players"][player]["played"]
            unused = [v for v in range(1, 11) if v not in played]
            await self._ask_once(key, player, {"type": "card", "value": self.rng.choice(unused)})

    async def _decide(self, state: dict[str, Any]) -> None:
        pending = state["pending"]
        key = ("decide", state["round"], pending["decision"], tuple(pending["among"]))
        if pending["by"] in self.humans or key in self._asked:
            return
        choice = self.rng.choice(pending["among"])
        await self._ask_once(key, pending["by"], {"type": pending["decision"], "player": choice})

    async def _turn(self, state: dict[str, Any]) -> None:
        player, zone = state["turn"], state["target_zone"]
        if player in self.humans:
            return
        loaded, announced = state["pieces_loaded"], state["pieces_announced"]
        key = ("announce", state["round"], player)
        if announced is None and loaded == 0 and key not in self._asked:
            self._asked.add(key)
            supply = state["players"][player]["supply"]
            may_take_two = zone >= 5 and state["ship"][str(zone)] and supply >= 2  # RR9
            if may_take_two and self.rng.random() < self.style.two_pieces_probability:
                await self._ask_once(key, player, {"type": "announce", "pieces": 2})
                return
        if self._placing is not None:
            placed_by, loads_before, _ = self._placing
            if placed_by != player or loaded > loads_before:
                self._placing = None
            return
        if loaded >= (announced or 1) or not self.ship.settled:
            return
        if self._expected_falls or self.ship.on_mat():
            self._tidy_mat()
            return
        now = self.ship.now_ms
        if self._next_hand_ms == 0.0:
            self._next_hand_ms = now + self.rng.uniform(*self.style.think_ms)
        if now < self._next_hand_ms:
            return
        self._next_hand_ms = 0.0
        items = [item for item, n in state["players"][player]["items"].items() if n > 0]
        if not items:
            return
        item = self.rng.choice(items)
        placement = self.ship.place(zone, item)
        self._expected_loads.append(item)
        self._placing = (player, loaded, placement.t_ms)
        if self.rng.random() < self.style.fall_probability:
            self._tip_over(placement)

    def _tip_over(self, placement) -> None:
        """The piece just loaded tips off once it has come to rest, maybe dragging another."""
        pieces = [placement.piece]
        others = [p for p in self.ship.aboard() if p.id != placement.piece]
        if others and self.rng.random() < self.style.drag_probability:
            pieces.append(self.rng.choice(others).id)
        outcomes = []
        for _ in pieces:
            roll = self.rng.random()
            if roll < self.style.catch_probability:
                outcomes.append("caught")
            elif roll < self.style.catch_probability + self.style.bounce_probability:
                outcomes.append("bounced")
            else:
                outcomes.append("landed")
        at_ms = placement.done_ms + self.rng.uniform(300.0, 900.0)
        self.ship.fall(pieces, outcomes, at_ms=at_ms)
        truth: dict[str, list[str]] = {"fallen": [], "caught": []}
        for piece_id, outcome in zip(pieces, outcomes, strict=True):
            truth[OUTCOME_TO_RULES[outcome]].append(self.ship.piece(piece_id).item)
        self._expected_falls.append((at_ms, {k: sorted(v) for k, v in truth.items()}))

    def _tidy_mat(self) -> None:
        if not self._expected_falls and self.ship.on_mat() and self.ship.settled:
            self.ship.collect()

    async def _answer_flags(self) -> None:
        """People at the table answer the referee's questions; bots say what really happened."""
        snapshot = await self._table() if self._wants_flags() else None
        if snapshot is None or not snapshot["referee"]:
            return
        for flag in snapshot["referee"]["flags"]:
            key = ("flag", flag["id"], self._game_id)
            if key in self._asked:
                continue
            option = "count" if "count" in flag["options"] else flag["options"][0]
            seat = self._bot_seat()
            if seat is not None:
                answer = {"type": "confirm", "flag": flag["id"], "option": option}
                await self._ask_once(key, seat, answer)

    def _wants_flags(self) -> bool:
        return bool(self._placing) and self.ship.settled

    # -- truth against the referee ---------------------------------------------------------

    def _check_actions(self) -> None:
        tally = self._tally
        while not self._actions.empty():
            action = self._actions.get_nowait()
            if tally is None:
                continue
            kind = action.get("type")
            if kind == "load":
                truth = self._expected_loads.pop(0) if self._expected_loads else None
                if action["item"] != truth:
                    tally.mismatches.append({"kind": "load", "truth": truth, "referee": action})
            elif kind == "fall":
                tally.falls += 1
                tally.caught += len(action["caught"])
                truth = self._expected_falls.pop(0)[1] if self._expected_falls else None
                decided = {key: sorted(_kinds(action[key])) for key in ("fallen", "caught")}
                if truth != decided:
                    tally.mismatches.append({"kind": "fall", "truth": truth, "referee": decided})
            elif kind == "undo":
                tally.mismatches.append({"kind": "undo", "referee": action})


def _kinds(pieces: list) -> list[str]:
    """The kinds of a fall's pieces, named {"item", "zone"} (RR13a) or by kind alone."""
    return [p["item"] if isinstance(p, dict) else p for p in pieces]
