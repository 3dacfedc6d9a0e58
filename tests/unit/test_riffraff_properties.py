"""Invariants of Riff Raff over many random bot games (hypothesis)."""

from __future__ import annotations

import copy
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bosun.bots import SEAT_NAMES
from bosun.bots.riffraff import BotPolicy, cargo_fall, choose_decision
from bosun.games.match import Match, replay
from bosun.games.riffraff import RiffRaff

ENGINE = RiffRaff()
games = st.tuples(
    st.integers(min_value=0, max_value=2**32),  # seed
    st.integers(min_value=2, max_value=4),  # players
    st.sampled_from([0.0, 0.1, 0.3, 0.6]),  # fall probability
    st.sampled_from([0, 3]),  # settle window
)


def bot_game(seed: int, n_players: int, fall_probability: float, settle_s: int):
    """Play a bot game, yielding the match after every accepted action."""
    rng = random.Random(seed)
    policy = BotPolicy(fall_probability=fall_probability, settle_s=settle_s)
    players = list(SEAT_NAMES[:n_players])
    match = Match()
    match.submit({"type": "setup", "game": "riffraff", "players": players, "settle_s": settle_s})
    yield match
    for _ in range(2000):
        if match.is_over:
            return
        actor = next(p for p in players if ENGINE.legal_actions(match.state, p))
        action = choose_decision(rng, ENGINE.legal_actions(match.state, actor), policy)
        match.submit(action)
        yield match
        if action["type"] == "load" and rng.random() < fall_probability:
            aboard = [i for zone in match.view()["ship"].values() for i in zone]
            match.submit(cargo_fall(rng, aboard, action["item"], actor, policy))
            yield match
    raise AssertionError("the game did not end within 2000 actions")


@settings(max_examples=60, deadline=None)
@given(games)
def test_pieces_are_conserved(game):
    for match in bot_game(*game):
        view = match.view()
        per_player = 16 if len(view["players"]) == 2 else 8
        total = per_player * len(view["players"])
        in_supply = sum(info["supply"] for info in view["players"].values())
        aboard = sum(len(zone) for zone in view["ship"].values())
        assert in_supply + aboard + view["boxed"] == total


@settings(max_examples=60, deadline=None)
@given(games)
def test_each_card_is_used_once_a_cycle(game):
    for match in bot_game(*game):
        for info in match.view()["players"].values():
            assert len(info["played"]) == len(set(info["played"])) <= 10


@settings(max_examples=60, deadline=None)
@given(games)
def test_the_captain_holds_the_highest_card_once_revealed(game):
    for match in bot_game(*game):
        view = match.view()
        revealed = {p: i["card"] for p, i in view["players"].items() if i["card"] is not None}
        if view["phase"] == "turn" and revealed:
            assert revealed[view["captain"]] == max(revealed.values())


@settings(max_examples=40, deadline=None)
@given(games)
def test_every_game_ends_with_winners_and_replays_to_the_same_state(game):
    *_, match = bot_game(*game)
    assert match.is_over and match.view()["winners"]
    replayed = Match()
    lines = [json.dumps(action) for action in match.log]
    assert list(replay(lines, replayed)) == []
    assert replayed.view() == match.view()
    for player in match.view()["players"]:
        assert replayed.view(player) == match.view(player)


@settings(max_examples=40, deadline=None)
@given(games, st.data())
def test_no_view_leaks_a_card_chosen_by_someone_else(game, data):
    """Swap the hidden card of a player: nobody else's view may change (RR4)."""
    for match in bot_game(*game):
        hidden = match.state.hidden_cards
        if not hidden:
            continue
        chooser = data.draw(st.sampled_from(sorted(hidden)))
        unused = [v for v in range(1, 11) if v not in match.state.played[chooser]]
        other_value = data.draw(st.sampled_from(unused))
        twin = Match()
        twin.game, twin.state = match.game, copy.deepcopy(match.state)
        twin.state.hidden_cards[chooser] = other_value
        for viewer in [None, *match.view()["players"]]:
            if viewer == chooser:
                assert twin.view(viewer)["my_card"] == other_value
            else:
                assert twin.view(viewer) == match.view(viewer)
        return
