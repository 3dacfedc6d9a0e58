"""Invariants of Montego Bay over many bot games (hypothesis)."""

from __future__ import annotations

import copy
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bosun.bots import SEAT_NAMES
from bosun.bots.montego_bay import BotPolicy, choose_decision
from bosun.games.match import Match, replay
from bosun.games.montego_bay import MontegoBay
from bosun.games.montego_bay.board import parse_stop

ENGINE = MontegoBay()
games = st.tuples(
    st.integers(min_value=0, max_value=2**32),  # seed
    st.integers(min_value=2, max_value=4),  # players
    st.sampled_from([0.0, 0.1, 0.5, 1.0]),  # how often a bot plays any legal move
)


def bot_game(seed: int, n_players: int, randomness: float):
    """Play a bot game, yielding the match after every accepted action."""
    rng = random.Random(seed)
    policy = BotPolicy(random_move_probability=randomness)
    players = list(SEAT_NAMES[:n_players])
    match = Match()
    match.submit({"type": "setup", "game": "montego-bay", "players": players, "seed": seed})
    yield match
    for _ in range(3000):
        if match.is_over:
            return
        actor = next(p for p in players if ENGINE.legal_actions(match.state, p))
        legal = ENGINE.legal_actions(match.state, actor)
        match.submit(choose_decision(rng, match.view(actor), legal, policy))
        yield match
    raise AssertionError("the game did not end within 3000 actions")


def room_at(view: dict, label: str) -> dict:
    w = len(view["warehouses"])
    stop = parse_stop(label, w)
    return view["warehouses"][stop][0] if stop < w else view["warehouses"][2 * w - 1 - stop][1]


def check_invariants(view: dict, before: dict | None) -> None:
    players = view["players"]
    ships = [d for d in view["docks"] if d and "cargo" in d]
    for player, info in players.items():
        aboard = sum(ship["cargo"].get(player, 0) for ship in ships)
        assert info["barrels"] + aboard == 16  # MB16: barrels are conserved
        assert info["silver"] >= 0
        if before:
            assert info["points"] >= before["players"][player]["points"]
    assert len(view["docks"]) == 4
    docked = [d is not None for d in view["docks"]]
    assert docked == sorted(docked, reverse=True)  # MB15b: docks stay packed
    assert all(d != {"pilot": True} for d in view["docks"][1:])
    for ship in ships:
        assert all(n > 0 for n in ship["cargo"].values())
        full = sum(ship["cargo"].values()) >= ship["slots"]
        assert not full or view["phase"] == "over"  # MB9: a full ship sails at once
    if before:
        assert view["deck_left"] <= before["deck_left"]
    tokens = [f"{p}:{k}" for p in players for k in ("big", "little")]
    assert sorted(view["order"]) == sorted(tokens)
    stops = [at for at in view["workers"].values() if at not in ("west", "east")]
    jack = view["jack"]
    if jack and view["phase"] != "cards":
        stops.append(jack["at"])
    assert len(stops) == len(set(stops))  # one worker a stop
    assert (view["pending"] is not None) == (view["phase"] == "resolve")
    if view["pending"]:
        pending = view["pending"]
        room, me = room_at(view, pending["room"]), players[pending["player"]]
        if pending["action"] == "load":  # MB15
            free = sum(s["slots"] - sum(s["cargo"].values()) for s in ships)
            assert pending["count"] == min(room["barrels"], me["barrels"], free) > 0
        else:
            aboard = sum(s["cargo"].get(pending["player"], 0) for s in ships)
            assert pending["count"] == min(room["broken"], aboard) > 0


@settings(max_examples=50, deadline=None)
@given(games)
def test_invariants_hold_after_every_action(game):
    before = None
    for match in bot_game(*game):
        view = match.view()
        check_invariants(view, before)
        before = view


@settings(max_examples=30, deadline=None)
@given(games)
def test_every_game_ends_with_winners_and_replays_to_the_same_state(game):
    *_, match = bot_game(*game)
    final = match.view()
    assert match.is_over and final["winners"]
    top = max(info["points"] for info in final["players"].values())
    assert final["winners"] == [p for p, i in final["players"].items() if i["points"] == top]
    replayed = Match()
    lines = [json.dumps(action) for action in match.log]
    assert list(replay(lines, replayed)) == []
    assert replayed.view() == final
    for player in final["players"]:
        assert replayed.view(player) == match.view(player)


@settings(max_examples=30, deadline=None)
@given(games, st.data())
def test_no_view_leaks_cards_chosen_by_someone_else(game, data):
    """Change the hidden cards of one player: nobody else's view may change (MB6)."""
    for match in bot_game(*game):
        hidden = match.state.hidden_cards
        if not hidden:
            continue
        chooser = data.draw(st.sampled_from(sorted(hidden)))
        twin = Match()
        twin.game, twin.state = match.game, copy.deepcopy(match.state)
        mine = twin.state.hidden_cards[chooser]
        for kind in mine:
            mine[kind] = data.draw(st.sampled_from([v for v in range(1, 6) if v != mine[kind]]))
        for viewer in [None, *match.view()["players"]]:
            if viewer == chooser:
                assert twin.view(viewer)["my_cards"] == mine != match.view(viewer)["my_cards"]
            else:
                assert twin.view(viewer) == match.view(viewer)
        return
