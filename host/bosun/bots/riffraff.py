"""Riff Raff bots: legal random decisions, and a table where cargo falls with a set probability."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bosun.bots import GameResult
from bosun.games.match import Match
from bosun.games.riffraff import RiffRaff


@dataclass(frozen=True)
class BotPolicy:
    """How bots play: `fall_probability` per loaded piece, how often they dare two pieces."""

    fall_probability: float = 0.15
    two_pieces_probability: float = 0.5
    catch_probability: float = 0.35
    settle_s: int = 0


def choose_decision(rng: random.Random, legal: list[dict[str, Any]], policy: BotPolicy) -> dict:
    """A bot's pick among the engine's legal decisions."""
    announces = [a for a in legal if a["type"] == "announce"]
    if announces:
        dare = len(announces) == 2 and rng.random() < policy.two_pieces_probability
        return next(a for a in announces if a["pieces"] == (2 if dare else 1))
    loads = [a for a in legal if a["type"] == "load"]
    if loads:
        return rng.choice(loads)
    return rng.choice(legal)


def cargo_fall(
    rng: random.Random, aboard: list[str], just_loaded: str, player: str, policy: BotPolicy
) -> dict[str, Any]:
    """After a load tips the ship: the newest piece falls, sometimes dragging others along."""
    others = list(aboard)
    others.remove(just_loaded)
    dragged = rng.sample(others, k=min(len(others), rng.choice((0, 0, 1, 2))))
    fallen, caught = [], []
    for item in [just_loaded, *dragged]:
        (caught if rng.random() < policy.catch_probability else fallen).append(item)
    return {"type": "fall", "player": player, "fallen": fallen, "caught": caught}


def play_game(rng: random.Random, players: list[str], policy: BotPolicy) -> GameResult:
    """One whole game through the engine; every decision is one the engine offered."""
    engine = RiffRaff()
    match = Match()
    match.submit(
        {
            "type": "setup",
            "game": "riffraff",
            "players": players,
            "captain": players[0],
            "settle_s": policy.settle_s,
        }
    )
    falls = caught = 0
    while not match.is_over:
        actor = next(p for p in players if engine.legal_actions(match.state, p))
        action = choose_decision(rng, engine.legal_actions(match.state, actor), policy)
        match.submit(action)
        if action["type"] == "load" and rng.random() < policy.fall_probability:
            aboard = [item for zone in match.view()["ship"].values() for item in zone]
            fall = cargo_fall(rng, aboard, action["item"], actor, policy)
            match.submit(fall)
            falls += 1
            caught += len(fall["caught"])
    final = match.view()
    return GameResult(
        winners=final["winners"],
        winner_seats=[players.index(w) for w in final["winners"]],
        rounds=final["round"],
        stats={"falls": falls, "caught": caught, "boxed": final["boxed"]},
        log=match.log,
    )
