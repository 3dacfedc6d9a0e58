"""Montego Bay bots: greedy players that pick, among the engine's legal actions, what pays.

A bot sees only what a player at the table sees: the public view and its own cards.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bosun.bots import GameResult
from bosun.games.match import Match
from bosun.games.montego_bay import MontegoBay
from bosun.games.montego_bay.board import landing_stop, parse_stop, stop_label


@dataclass(frozen=True)
class BotPolicy:
    """How bots play: how keen they are on Lazy Jack, and how often they play at random."""

    hire_probability: float = 0.6
    random_move_probability: float = 0.1
    silver_value: float = 1.2  # a silver coin, in barrels, when choosing where to go


def choose_decision(
    rng: random.Random, view: dict[str, Any], legal: list[dict[str, Any]], policy: BotPolicy
) -> dict[str, Any]:
    """A bot's pick among the engine's legal decisions, given the view of the bot's seat."""
    if rng.random() < policy.random_move_probability:
        return rng.choice(legal)
    kind = legal[0]["type"]
    if kind == "hire":
        hiring = [a for a in legal if a["worker"] is not None]
        if hiring and rng.random() < policy.hire_probability:
            return max(hiring, key=lambda a: _best_stop_value(view, a["worker"], policy))
        return next(a for a in legal if a["worker"] is None)
    if kind == "cards":
        return _best(rng, legal, lambda a: _cards_value(view, a, policy))
    return _best(rng, legal, lambda a: _cargo_value(view, a))


def _best(rng: random.Random, legal: list[dict], value) -> dict:
    scored = [(value(a), i) for i, a in enumerate(legal)]
    top = max(v for v, _ in scored)
    return legal[rng.choice([i for v, i in scored if v >= top - 1e-9])]


# -- where to go -------------------------------------------------------------------------


def _room_value(view: dict, player: str, label: str, is_jack: bool, policy: BotPolicy) -> float:
    warehouses = view["warehouses"]
    w = len(warehouses)
    stop = parse_stop(label, w)
    index = stop if stop < w else 2 * w - 1 - stop
    room = warehouses[index][0 if stop < w else 1]
    me = view["players"][player]
    value = policy.silver_value * room.get("silver", 0)
    free = sum(d["slots"] - sum(d["cargo"].values()) for d in view["docks"] if d and "slots" in d)
    value += min(room.get("barrels", 0), me["barrels"], free)
    if not is_jack:
        aboard = sum(d["cargo"].get(player, 0) for d in view["docks"] if d and "cargo" in d)
        value -= 1.5 * min(room.get("broken", 0), aboard)
    return value


def _best_stop_value(view: dict, worker: str, policy: BotPolicy) -> float:
    player = view["you"]
    start = view["workers"][f"{player}:{worker}"]
    return max(
        _room_value(view, player, _landing(view, start, steps), True, policy)
        for steps in range(1, 6)
    )


def _landing(view: dict, start_label: str, steps: int) -> str:
    w = len(view["warehouses"])
    start = start_label if start_label in ("west", "east") else parse_stop(start_label, w)
    return stop_label(landing_stop(start, steps, w), w)


def _cards_value(view: dict, cards: dict, policy: BotPolicy) -> float:
    """What the rooms the cards lead to are worth, bumps ignored; own workers kept apart."""
    player = view["you"]
    targets = []
    for kind in ("big", "little"):
        start = view["workers"][f"{player}:{kind}"]
        targets.append((_landing(view, start, cards[kind]), False))
    if "jack" in cards:
        targets.append((_landing(view, view["jack"]["at"], cards["jack"]), True))
    value = sum(_room_value(view, player, label, is_jack, policy) for label, is_jack in targets)
    labels = [label for label, _ in targets]
    occupied = {at for token, at in view["workers"].items() if not token.startswith(player + ":")}
    value -= 0.5 * sum(label in occupied for label in labels)  # a bump may send us elsewhere
    return value - 3 * (len(labels) - len(set(labels)))


# -- which ships ---------------------------------------------------------------------------


def _standing(points: list[int], mine: int, others: list[int]) -> float:
    if mine == 0:
        return 0.0
    ahead = sum(o > mine for o in others)
    tied = sum(o == mine for o in others)
    worth = [*points, 0, 0, 0]
    return sum(worth[ahead : ahead + tied + 1]) / (tied + 1)


def _cargo_value(view: dict, answer: dict) -> float:
    """How much a load or unload improves the bot's standing on the ships it touches."""
    player = view["you"]
    sign = 1 if answer["type"] == "load" else -1
    gain = 0.0
    for dock, count in answer["ships"].items():
        ship = view["docks"][int(dock) - 1]
        mine = ship["cargo"].get(player, 0)
        others = [n for p, n in ship["cargo"].items() if p != player]
        before = _standing(ship["points"], mine, others)
        after = _standing(ship["points"], mine + sign * count, others)
        fills = sign > 0 and count == ship["slots"] - sum(ship["cargo"].values())
        # A ship that sails now pays for sure; one that stays may still be taken from us.
        gain += (after - before) * (1.0 if fills else 0.6) + (1.0 if fills else 0.0)
    return gain


# -- a whole game ------------------------------------------------------------------------


def play_game(rng: random.Random, players: list[str], policy: BotPolicy) -> GameResult:
    """One whole game through the engine; every decision is one the engine offered."""
    engine = MontegoBay()
    match = Match()
    match.submit(
        {"type": "setup", "game": "montego-bay", "players": players, "seed": rng.randrange(2**32)}
    )
    counts = {"ships_sailed": 0, "ships_filled": 0, "jack_hired": 0, "bumps": 0, "reshuffles": 0}
    seen: list[dict] = []
    while not match.is_over:
        actor = next(p for p in players if engine.legal_actions(match.state, p))
        legal = engine.legal_actions(match.state, actor)
        match.submit(choose_decision(rng, match.view(actor), legal, policy))
        events = match.state.events
        fresh = events[len(seen) :] if events[: len(seen)] == seen else events
        seen = list(events)
        for event in fresh:
            _count(counts, event)
    final = match.view()
    return GameResult(
        winners=final["winners"],
        winner_seats=[players.index(w) for w in final["winners"]],
        rounds=final["round"],
        stats={**counts, "winning_points": max(p["points"] for p in final["players"].values())},
        log=match.log,
    )


def _count(counts: dict[str, int], event: dict) -> None:
    kind = event["kind"]
    if kind == "sail" and not event.get("pilot"):
        counts["ships_sailed"] += 1
        counts["ships_filled"] += event["why"] == "filled"
    elif kind == "reveal":
        counts["jack_hired"] += any("jack" in c for c in event["cards"].values())
    elif kind == "move":
        counts["bumps"] += "bumped" in event or "pushed_back_from" in event
    elif kind == "order":
        counts["reshuffles"] += event["reshuffled"]


def stand_in(rng: random.Random, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict:
    """A seat's decision when its bot stands in for its person at a table (the decision
    timer, the operator): bosun.referee.presence. `view` is the seat's own."""
    return choose_decision(rng, view, legal, BotPolicy())
