"""Invariants of Riff Raff over many random bot games (hypothesis)."""

from __future__ import annotations

import copy
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bosun.bots import SEAT_NAMES
from bosun.bots.riffraff import BotPolicy, choose_decision, physical_events
from bosun.games.match import Match, replay
from bosun.games.riffraff import ITEMS, RiffRaff

ENGINE = RiffRaff()
games = st.tuples(
    st.integers(min_value=0, max_value=2**32),  # seed
    st.integers(min_value=2, max_value=4),  # players
    st.sampled_from([0.0, 0.1, 0.3, 0.6]),  # fall probability
    st.sampled_from([0, 3]),  # settle window
    st.sampled_from([0.0, 0.1, 0.4]),  # shift probability (RR13)
    st.sampled_from(["back", "box"]),  # RR12's own_catch
)


def bot_game(seed, n_players, fall_probability, settle_s, shift_probability=0.0, own="back"):
    """Play a bot game, yielding the match after every accepted action: bots' decisions, and
    the ship's falls (zone-named, RR13a), late falls (RR14) and shifts (RR13)."""
    rng = random.Random(seed)
    policy = BotPolicy(
        fall_probability=fall_probability,
        settle_s=settle_s,
        shift_probability=shift_probability,
        late_fall_share=0.5,
    )
    players = list(SEAT_NAMES[:n_players])
    match = Match()
    match.submit(
        {
            "type": "setup",
            "game": "riffraff",
            "players": players,
            "settle_s": settle_s,
            "own_catch": own,
        }
    )
    yield match
    for _ in range(3000):
        if match.is_over:
            return
        actor = next(p for p in players if ENGINE.legal_actions(match.state, p))
        action = choose_decision(rng, ENGINE.legal_actions(match.state, actor), policy)
        match.submit(action)
        yield match
        for event in physical_events(rng, match, action, policy):
            match.submit(event)
            yield match
    raise AssertionError("the game did not end within 3000 actions")


def ship_pieces(match) -> dict[int, tuple[int, str]]:
    """Every piece aboard by its id: (zone, kind)."""
    return {p.id: (z, p.item) for z, p in match.state.aboard()}


@settings(max_examples=60, deadline=None)
@given(games)
def test_pieces_are_conserved(game):
    """RR2, RR12, RR13: supply + aboard + box is every piece, with shifts and zone falls."""
    for match in bot_game(*game):
        view = match.view()
        per_player = 16 if len(view["players"]) == 2 else 8
        total = per_player * len(view["players"])
        in_supply = sum(info["supply"] for info in view["players"].values())
        aboard = sum(len(zone) for zone in view["ship"].values())
        assert in_supply + aboard + view["boxed"] == total
        for item in ITEMS:  # and kind by kind
            per_kind = (2 if len(view["players"]) == 2 else 1) * len(view["players"])
            supplied = sum(info["items"][item] for info in view["players"].values())
            on_ship = sum(zone.count(item) for zone in view["ship"].values())
            assert supplied + on_ship <= per_kind


@settings(max_examples=60, deadline=None)
@given(games)
def test_rr13_rr13a_shifts_and_falls_move_exactly_the_pieces_they_name(game):
    """A shift moves one piece and no other; a zone-named fall takes exactly the newest piece
    of that kind on that zone; a late fall leaves the open turn as it was (RR14)."""
    before = prior_view = None
    for match in bot_game(*game):
        after = ship_pieces(match)
        action = match.log[-1]
        if before is not None and action["type"] == "shift":
            moved = {i for i in after if after[i] != before.get(i)}
            assert len(moved) == 1 and after.keys() == before.keys()
            (piece,) = moved
            assert before[piece] == (action["from"], action["item"])
            assert after[piece] == (action["to"], action["item"])
            same_kind = [i for i, zk in before.items() if zk == (action["from"], action["item"])]
            assert piece == max(same_kind)  # the newest of that kind on that zone
        elif before is not None and action["type"] == "fall":
            gone = set(before) - set(after)
            assert set(after) <= set(before) and {i: before[i] for i in after} == after
            named = sorted((p["zone"], p["item"]) for p in action["fallen"] + action["caught"])
            assert sorted(before[i] for i in gone) == named
            if prior_view["turn"] is not None and not prior_view["pieces_loaded"]:
                assert action["player"] == prior_view["falls_to"]
                view = match.view()  # a late fall: the open turn goes on
                assert (view["turn"], view["target_zone"]) == (
                    prior_view["turn"],
                    prior_view["target_zone"],
                )
        before = after
        prior_view = match.view()


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


@settings(max_examples=40, deadline=None)
@given(games, st.data())
def test_rr7_no_view_leaks_an_earlier_card_of_someone_else(game, data):
    """Change a card someone played in an earlier round of this cycle: only their own view may
    change (RR7: earlier cards lie face down)."""
    for match in bot_game(*game):
        played = match.state.played
        veterans = sorted(p for p in played if len(played[p]) >= 2)
        if not veterans:
            continue
        player = data.draw(st.sampled_from(veterans))
        earlier = data.draw(st.integers(min_value=0, max_value=len(played[player]) - 2))
        unused = [v for v in range(1, 11) if v not in played[player]]
        if not unused:
            continue
        twin = Match()
        twin.game, twin.state = match.game, copy.deepcopy(match.state)
        twin.state.played[player][earlier] = data.draw(st.sampled_from(unused))
        for viewer in [None, *match.view()["players"]]:
            if viewer == player:
                assert twin.view(viewer) != match.view(viewer)
            else:
                assert twin.view(viewer) == match.view(viewer)
        return
