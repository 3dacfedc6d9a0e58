"""Tally: a tiny game that exists only in the tests, to prove a game is one kit, nothing more.

Players take turns adding 1 or 2 to a shared count; whoever brings it to the goal wins. It is
registered through the `bosun.games` entry-point group (tests/integration/test_game_kits.py
writes the entry point), and `bosun run` serves it with no edit anywhere in bosun.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from bosun.games.base import ActionModel, EngineBase, Rejected
from bosun.games.registry import Calibration, GameKit
from bosun.referee.base import TableReferee
from bosun.referee.effects import feed

GOAL = 7


class Setup(ActionModel):
    type: Literal["setup"]
    game: Literal["tally"]
    players: list[str] = Field(min_length=2, max_length=4)
    goal: int = Field(default=GOAL, ge=3, le=30)


class Add(ActionModel):
    type: Literal["add"]
    player: str
    by: Literal[1, 2]


@dataclass
class TallyState:
    players: list[str]
    goal: int
    count: int = 0
    turn: int = 0
    phase: str = "play"
    winners: list[str] = field(default_factory=list)


class Tally(EngineBase):
    """The rules: one `add` a turn, in seat order; reaching the goal wins."""

    name = "tally"
    actions = {"setup": TypeAdapter(Setup), "add": TypeAdapter(Add)}

    def setup(self, action: Any) -> TallyState:
        setup = self.parse_setup(action)
        if len(set(setup.players)) != len(setup.players):
            raise Rejected("two players share a name")
        return TallyState(players=list(setup.players), goal=setup.goal)

    def _apply_add(self, state: TallyState, action: Add) -> None:
        self._seat(state, action.player)
        if state.players[state.turn] != action.player:
            raise Rejected(f"it is {state.players[state.turn]}'s turn")
        state.count = min(state.goal, state.count + action.by)
        if state.count == state.goal:
            state.phase, state.winners = "over", [action.player]
        else:
            state.turn = (state.turn + 1) % len(state.players)

    @staticmethod
    def build_view(state: TallyState, viewer: str | None) -> dict[str, Any]:
        view = copy.deepcopy(state.__dict__)
        view["game"] = "tally"
        view["turn"] = None if state.phase == "over" else state.players[state.turn]
        return view

    def legal_actions(self, state: TallyState, player: str) -> list[dict[str, Any]]:
        if state.phase == "over" or state.players[state.turn] != player:
            return []
        return [{"type": "add", "player": player, "by": by} for by in (1, 2)]


class TallyTable(TableReferee):
    """The table referee: players add on their pages; the ship has nothing to say."""

    game_requests = ("add",)

    @staticmethod
    def setup_action(config, players: list[str], options: dict[str, Any]) -> dict[str, Any]:
        goal = options.get("goal")
        return {"type": "setup", "game": "tally", "players": players, "goal": goal or GOAL}

    def player_action(self, seat: str, request: dict[str, Any], now_ms: int) -> list:
        out = self.submit({"type": "add", "player": seat, "by": request.get("by")}, True)
        view = self.view
        return out + [feed(f"{seat} added: {view['count']} of {view['goal']}")]


class TallyOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    goal: int | None = None


KIT = GameKit(
    name="tally",
    title="Tally",
    engine=Tally(),
    referee=TallyTable,
    options=TallyOptions,
    calibration=Calibration(zones=(1,), items=("token",), nominal_g={"token": 1.0}, rule="T1"),
)
