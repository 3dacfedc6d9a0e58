"""Riff Raff bots: legal random decisions, and a table where cargo falls with a set probability,
slides onto other zones and now and then topples just after a turn has passed."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bosun.bots import GameResult
from bosun.games.match import Match
from bosun.games.riffraff import RiffRaff
from shipsense.geometry import ZONES

ENGINE = RiffRaff()


@dataclass(frozen=True)
class BotPolicy:
    """How bots play and how the ship behaves: `fall_probability` per loaded piece, how often
    bots dare two pieces, a piece slides onto another zone (RR13) or topples late (RR14)."""

    fall_probability: float = 0.15
    two_pieces_probability: float = 0.5
    catch_probability: float = 0.35
    settle_s: int = 0
    shift_probability: float = 0.05  # after any decision
    late_fall_share: float = 0.2  # of fall_probability, after a turn has passed


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


def pieces_aboard(ship: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Every piece aboard as the game log names it (RR13a): {"item", "zone"}."""
    return [{"item": item, "zone": int(zone)} for zone, items in ship.items() for item in items]


def cargo_fall(
    rng: random.Random,
    ship: dict[str, list[str]],
    just_loaded: dict[str, Any],
    player: str,
    policy: BotPolicy,
) -> dict[str, Any]:
    """After a load tips the ship: that piece falls, sometimes dragging others along. On its
    zone the piece just loaded is the newest of its kind, which is what a zone-named piece
    means (DESIGN.md)."""
    others = pieces_aboard(ship)
    others.remove(just_loaded)
    dragged = rng.sample(others, k=min(len(others), rng.choice((0, 0, 1, 2))))
    return _split(rng, [just_loaded, *dragged], player, policy)


def late_fall(rng: random.Random, ship: dict[str, list[str]], player: str, policy: BotPolicy):
    """A piece that topples a moment after the turn passed (RR14): the previous player's."""
    aboard = pieces_aboard(ship)
    if not aboard or player is None:
        return None
    return _split(rng, [rng.choice(aboard)], player, policy)


def cargo_shift(rng: random.Random, ship: dict[str, list[str]]) -> dict[str, Any] | None:
    """A piece that slides or drops onto another zone and stays aboard (RR13)."""
    aboard = pieces_aboard(ship)
    if not aboard:
        return None
    piece = rng.choice(aboard)
    to = rng.choice([z for z in ZONES if z != piece["zone"]])
    return {"type": "shift", "item": piece["item"], "from": piece["zone"], "to": to}


def _split(rng, pieces, player, policy) -> dict[str, Any]:
    fallen, caught = [], []
    for piece in pieces:
        (caught if rng.random() < policy.catch_probability else fallen).append(piece)
    return {"type": "fall", "player": player, "fallen": fallen, "caught": caught}


def physical_events(rng: random.Random, match: Match, decided: dict[str, Any], policy: BotPolicy):
    """What the ship does after the decision `decided`: a fall, a late fall (RR14), a shift.
    Each event is made from the state after the one before: submit it before asking for the
    next."""
    if decided["type"] == "load" and rng.random() < policy.fall_probability:
        piece = {"item": decided["item"], "zone": decided["zone"]}
        yield cargo_fall(rng, match.view()["ship"], piece, decided["player"], policy)
    view = match.view()
    # RR14: no turn open, or its player has loaded nothing yet (maybe the same player)
    late = view["falls_to"] is not None and (view["turn"] is None or not view["pieces_loaded"])
    if late and rng.random() < policy.fall_probability * policy.late_fall_share:
        fall = late_fall(rng, view["ship"], view["falls_to"], policy)
        if fall:
            yield fall
    view = match.view()
    if view["phase"] != "over" and rng.random() < policy.shift_probability:
        shift = cargo_shift(rng, view["ship"])
        if shift:
            yield shift


def play_game(rng: random.Random, players: list[str], policy: BotPolicy) -> GameResult:
    """One whole game through the engine; every decision is one the engine offered."""
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
        actor = next(p for p in players if ENGINE.legal_actions(match.state, p))
        action = choose_decision(rng, ENGINE.legal_actions(match.state, actor), policy)
        match.submit(action)
        for event in physical_events(rng, match, action, policy):
            match.submit(event)
            if event["type"] == "fall":
                falls += 1
                caught += len(event["caught"])
    final = match.view()
    return GameResult(
        winners=final["winners"],
        winner_seats=[players.index(w) for w in final["winners"]],
        rounds=final["round"],
        stats={"falls": falls, "caught": caught, "boxed": final["boxed"]},
        log=match.log,
    )


def stand_in(rng: random.Random, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict:
    """A seat's decision when its bot stands in for its person at a table (the decision
    timer, the operator): bosun.referee.presence."""
    return choose_decision(rng, legal, BotPolicy())
