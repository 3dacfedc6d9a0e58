"""Riff Raff scenarios for where pieces really lie and what is public: RR7 (only the last
round's cards face up), RR9 and RR13 (shifts), RR12 (own_catch), RR13a (pieces by zone and
kind), RR14 (late falls), as DESIGN.md's game log pins them down."""

from __future__ import annotations

import pytest
from riffraff_helpers import cards, do, load, new_game, refused, simple_turn

from bosun.games import Rejected
from bosun.games.match import Match


def setup_with(**options) -> Match:
    match = Match()
    match.submit({"type": "setup", "game": "riffraff", "players": ["ann", "bob", "cy"], **options})
    return match


# -- RR13a: a fall or a catch names each piece by its zone and kind ------------------------


def two_rats_aboard() -> Match:
    """Round 1: cy's rat on zone 5. Round 2: bob (card 9) loads a rat on zone 9, turn open."""
    game = new_game("ann", "bob", "cy", settle_s=3)
    cards(game, ann=3, bob=8, cy=5)
    simple_turn(game, "bob", "boat")
    simple_turn(game, "cy", "rat")
    simple_turn(game, "ann", "crate")
    cards(game, ann=2, bob=9, cy=1)
    view = load(game, "bob", "rat")
    assert view["ship"]["5"] == ["rat"] and view["ship"]["9"] == ["rat"]
    return game


def test_rr13a_the_caught_piece_is_the_one_on_the_named_zone():
    # the case: the old rat on zone 5 is knocked off and caught, bob's fresh one stays
    game = two_rats_aboard()
    view = do(game, "fall", player="bob", caught=[{"item": "rat", "zone": 5}])
    assert view["ship"]["5"] == [] and view["ship"]["9"] == ["rat"]
    assert view["boxed"] == 1  # RR12: not the piece just loaded, so it leaves the game
    assert view["players"]["bob"]["items"]["rat"] == 0
    assert view["turn"] == "ann"  # RR11: the turn ended


def test_rr13a_rr12_the_piece_just_loaded_is_that_very_piece():
    game = two_rats_aboard()
    view = do(game, "fall", player="bob", caught=[{"item": "rat", "zone": 9}])
    assert view["ship"]["5"] == ["rat"] and view["ship"]["9"] == []
    assert view["boxed"] == 0 and view["players"]["bob"]["items"]["rat"] == 1


def test_rr13a_a_fallen_piece_named_by_zone_goes_to_the_active_player():
    game = two_rats_aboard()
    view = do(game, "fall", player="bob", fallen=[{"item": "rat", "zone": 5}])
    assert view["ship"]["5"] == [] and view["ship"]["9"] == ["rat"]
    assert view["players"]["bob"]["items"]["rat"] == 1 and view["boxed"] == 0


def test_rr13a_a_bare_kind_still_means_the_most_recently_loaded_piece():
    game = two_rats_aboard()
    view = do(game, "fall", player="bob", caught=["rat"])
    assert view["ship"]["9"] == [] and view["ship"]["5"] == ["rat"]
    assert view["boxed"] == 0  # it was the piece just loaded (RR12)


def test_rr13a_zone_named_pieces_are_resolved_before_bare_kinds():
    game = two_rats_aboard()
    # "rat" alone would mean bob's newest rat on 9, but zone 9's rat is named: the bare rat
    # is the other one, on zone 5
    view = do(game, "fall", player="bob", fallen=["rat"], caught=[{"item": "rat", "zone": 9}])
    assert view["ship"]["5"] == [] and view["ship"]["9"] == []
    assert view["boxed"] == 0  # the lone caught piece was the one just loaded
    assert view["players"]["bob"]["items"]["rat"] == 2


def test_rr13a_of_two_pieces_of_one_kind_on_one_zone_the_newest_is_meant():
    game = new_game("ann", "bob", settle_s=3)
    cards(game, ann=7, bob=3)
    simple_turn(game, "ann", "rat")
    simple_turn(game, "bob", "boat")
    cards(game, ann=6, bob=7)
    do(game, "announce", player="bob", pieces=2)  # RR9: zone 7 holds ann's rat
    load(game, "bob", "rat")
    view = load(game, "bob", "crate")
    assert view["ship"]["7"] == ["rat", "rat", "crate"]
    # bob catches a rat from zone 7: the newest, his own, which is not the one just loaded
    view = do(game, "fall", player="bob", caught=[{"item": "rat", "zone": 7}])
    assert view["ship"]["7"] == ["rat", "crate"] and view["boxed"] == 1
    # the engine knows which rat is left: ann's older one (a shift can move only it now)
    view = do(game, "shift", item="rat", **{"from": 7, "to": 5})
    assert view["ship"]["7"] == ["crate"] and view["ship"]["5"] == ["rat"]


def test_rr13a_two_named_on_a_zone_holding_one_is_rejected():
    game = two_rats_aboard()
    pieces = [{"item": "rat", "zone": 9}, {"item": "rat", "zone": 9}]
    refused(
        game, "fall", "names 2 rats on zone 9, but only 1 lies there", player="bob", fallen=pieces
    )


def test_rr13a_a_piece_that_is_not_on_that_zone_is_rejected():
    game = two_rats_aboard()
    refused(
        game, "fall", "no rat lies on zone 7", player="bob", fallen=[{"item": "rat", "zone": 7}]
    )
    refused(
        game,
        "fall",
        r"no crate lies on zone 9 \(zone 9 holds rat",
        player="bob",
        caught=[{"item": "crate", "zone": 9}],
    )
    refused(game, "fall", "zone 4 is empty", player="bob", fallen=[{"item": "boat", "zone": 4}])


@pytest.mark.parametrize(
    ("piece", "reason"),
    [
        ({"item": "rat"}, r"fallen\[0\]: the piece needs the zone it left"),
        ({"item": "rat", "zone": 11}, r"fallen\[0\]: there is no zone 11"),
        ({"item": "rat", "zone": 0}, "there is no zone 0"),
        ({"item": "rat", "zone": "9"}, "the zone must be a whole number 1-10, not '9'"),
        ({"item": "rat", "zone": True}, "the zone must be a whole number"),
        ({"item": "rat", "zone": None}, "the zone must be a whole number"),
        ({"item": "rat", "zone": 9.0}, "the zone must be a whole number"),
        ({"zone": 9}, r"fallen\[0\]: a piece names its kind as 'item'"),
        ({"item": "kraken", "zone": 9}, r"fallen\[0\]: 'kraken' is not a Riff Raff piece"),
        (9, r"fallen\[0\]: must be text \(a kind\) or a piece"),
        ([9, "rat"], "must be text"),
    ],
)
def test_rr13a_a_fall_object_without_a_valid_zone_or_kind_is_rejected(piece, reason):
    game = two_rats_aboard()
    refused(game, "fall", reason, player="bob", fallen=[piece])


def test_rr13a_extra_fields_of_a_piece_are_ignored():
    game = two_rats_aboard()
    view = do(game, "fall", player="bob", fallen=[{"item": "rat", "zone": 5, "grams": 2.6}])
    assert view["ship"]["5"] == []


# -- RR13: a piece that drops onto another zone and stays aboard (`shift`) -----------------


def shift(match: Match, item: str, start: int, end: int) -> dict:
    return do(match, "shift", item=item, **{"from": start, "to": end})


def test_rr13_a_shift_moves_exactly_that_piece_and_ends_no_turn():
    game = two_rats_aboard()
    view = shift(game, "rat", 5, 3)
    assert view["ship"]["5"] == [] and view["ship"]["3"] == ["crate", "rat"]
    assert view["turn"] == "bob" and view["pieces_loaded"] == 1
    # the rat on zone 3 is cy's old one: bob's fresh rat on 9 is still the one just loaded
    view = do(game, "fall", player="bob", caught=[{"item": "rat", "zone": 9}])
    assert view["boxed"] == 0 and view["ship"]["3"] == ["crate", "rat"]


def test_rr13_a_shift_may_go_between_any_two_different_zones():
    game = two_rats_aboard()
    assert shift(game, "boat", 8, 10)["ship"]["10"] == ["boat"]  # up, as a push may do
    assert shift(game, "rat", 5, 6)["ship"]["6"] == ["rat"]  # along a yard
    assert shift(game, "crate", 3, 4)["ship"]["4"] == ["crate"]  # along the deck
    refused(game, "shift", "to another zone, not from 4 to 4", item="crate", **{"from": 4, "to": 4})


def test_rr13_a_shift_names_a_piece_that_lies_there():
    game = two_rats_aboard()
    refused(game, "shift", "no chest lies on zone 9", item="chest", **{"from": 9, "to": 7})
    refused(game, "shift", "zone 1 is empty", item="rat", **{"from": 1, "to": 2})
    refused(game, "shift", "no zone 11", item="rat", **{"from": 9, "to": 11})
    refused(game, "shift", "not a Riff Raff piece", item="anchor", **{"from": 9, "to": 7})
    refused(game, "shift", "from: missing", item="rat", to=7)
    refused(game, "shift", "must be a whole number", item="rat", **{"from": "9", "to": 7})


def test_rr13_a_shift_is_valid_while_cards_are_chosen_and_while_the_captain_decides():
    game = new_game("ann", "bob", "cy", "dee")
    cards(game, ann=9, bob=4, cy=4, dee=1)
    simple_turn(game, "ann", "boat")
    assert game.view()["phase"] == "decide"
    view = shift(game, "boat", 9, 7)
    assert view["ship"]["7"] == ["boat"] and view["phase"] == "decide"
    do(game, "next", by="ann", player="bob")
    simple_turn(game, "bob", "rat")
    simple_turn(game, "cy", "rat")
    simple_turn(game, "dee", "rat")
    assert game.view()["phase"] == "choose"
    view = shift(game, "rat", 4, 3)
    assert view["ship"]["3"] == ["rat"] and view["phase"] == "choose"


def test_rr13_no_shift_after_the_game_is_over():
    game = ann_wins()
    assert game.view()["ship"]["10"] == ["rat"]
    refused(game, "shift", "game is over: ann won", item="rat", **{"from": 10, "to": 7})


def test_rr9_a_piece_that_slid_onto_an_empty_yard_lets_the_player_load_two():
    game = new_game(settle_s=3)
    cards(game, ann=3, bob=9, cy=5)
    simple_turn(game, "bob", "boat")
    simple_turn(game, "cy", "rat")
    simple_turn(game, "ann", "crate")
    cards(game, ann=7, bob=2, cy=1)
    refused(game, "announce", "zone 7 was empty", player="ann", pieces=2)
    shift(game, "boat", 9, 7)  # bob's boat drops from the top yard onto zone 7 and stays
    assert do(game, "announce", player="ann", pieces=2)["pieces_announced"] == 2


def test_rr9_a_yard_whose_only_piece_slid_away_takes_one_piece():
    game = new_game(settle_s=3)
    cards(game, ann=3, bob=7, cy=5)
    simple_turn(game, "bob", "boat")
    simple_turn(game, "cy", "rat")
    simple_turn(game, "ann", "crate")
    shift(game, "boat", 7, 5)  # between rounds: zone 7 is empty again
    cards(game, ann=7, bob=2, cy=1)
    refused(game, "announce", "zone 7 was empty", player="ann", pieces=2)
    assert {"type": "announce", "player": "ann", "pieces": 2} not in game.game.legal_actions(
        game.state, "ann"
    )


# -- RR12: own_catch ------------------------------------------------------------------------


def test_rr12_own_catch_box_boxes_even_the_piece_just_loaded():
    game = setup_with(own_catch="box", settle_s=0)
    assert game.view()["own_catch"] == "box"
    cards(game, ann=3, bob=8, cy=5)
    load(game, "bob", "rat")
    view = do(game, "fall", player="bob", caught=[{"item": "rat", "zone": 8}])
    assert view["boxed"] == 1 and view["players"]["bob"]["supply"] == 7


def test_rr12_own_catch_back_is_the_default():
    game = setup_with()
    assert game.view()["own_catch"] == "back"
    cards(game, ann=3, bob=8, cy=5)
    load(game, "bob", "rat")
    view = do(game, "fall", player="bob", caught=[{"item": "rat", "zone": 8}])
    assert view["boxed"] == 0 and view["players"]["bob"]["supply"] == 8


@pytest.mark.parametrize("value", ["Box", "keep", "", 1, None, True])
def test_rr12_any_other_own_catch_refuses_the_setup(value):
    with pytest.raises(Rejected, match="own_catch"):
        setup_with(own_catch=value)


# -- RR14: late falls -----------------------------------------------------------------------


def bob_then_cy(settle_s: int) -> Match:
    """bob's turn (rat on zone 8) ended; cy's turn on zone 5 is open, nothing loaded."""
    game = new_game(settle_s=settle_s)
    cards(game, ann=3, bob=8, cy=5)
    load(game, "bob", "rat")
    view = do(game, "end_turn", player="bob")
    assert view["turn"] == "cy" and view["pieces_loaded"] == 0
    return game


@pytest.mark.parametrize("settle_s", [0, 3])
def test_rr14_a_late_fall_goes_to_the_previous_player_and_the_turn_goes_on(settle_s):
    game = bob_then_cy(settle_s)
    assert game.view()["falls_to"] == "bob"
    refused(
        game,
        "fall",
        "cy has loaded nothing: cargo that falls now goes to bob",
        player="cy",
        fallen=[{"item": "rat", "zone": 8}],
    )
    view = do(game, "fall", player="bob", fallen=[{"item": "rat", "zone": 8}])
    assert view["turn"] == "cy" and view["phase"] == "turn" and view["target_zone"] == 5
    assert view["players"]["bob"]["supply"] == 8 and view["players"]["cy"]["supply"] == 8
    # the open turn goes on: cy loads, and from then on a fall is hers
    view = load(game, "cy", "boat")
    assert view["falls_to"] == "cy"
    refused(game, "fall", "is cy's", player="bob", fallen=[{"item": "boat", "zone": 5}])


def test_rr14_nobody_ends_a_late_fall_with_more_pieces_than_they_started():
    # the case: with "immediately" a topple a moment after the turn passed used to
    # cost the next player their turn and leave them with more pieces than they started with
    game = bob_then_cy(0)
    view = do(game, "fall", player="bob", fallen=["rat"])
    assert {p: i["supply"] for p, i in view["players"].items()} == {"ann": 8, "bob": 8, "cy": 8}
    assert view["turn"] == "cy"


def test_rr14_pieces_caught_in_a_late_fall_are_boxed():
    game = bob_then_cy(0)
    view = do(game, "fall", player="bob", caught=[{"item": "rat", "zone": 8}])
    assert view["boxed"] == 1 and view["players"]["bob"]["supply"] == 7


def test_rr14_a_late_fall_between_rounds_boxes_what_was_caught():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    for player in ("bob", "cy", "ann"):
        simple_turn(game, player, "rat")
    view = do(game, "fall", player="ann", caught=[{"item": "rat", "zone": 3}])
    assert view["boxed"] == 1 and view["players"]["ann"]["supply"] == 7
    assert view["phase"] == "choose"


@pytest.mark.parametrize("settle_s", [0, 3])
def test_rr14_the_same_player_closing_a_round_and_opening_the_next(settle_s):
    game = new_game(settle_s=settle_s)
    cards(game, ann=3, bob=8, cy=5)
    for player in ("bob", "cy", "ann"):
        simple_turn(game, player, "rat")
    view = cards(game, ann=10, bob=2, cy=1)
    assert view["turn"] == "ann" and view["last_turn"] == "ann" and view["pieces_loaded"] == 0
    view = do(game, "fall", player="ann", fallen=[{"item": "rat", "zone": 3}])
    assert view["turn"] == "ann" and view["target_zone"] == 10  # her new turn goes on
    assert view["players"]["ann"]["supply"] == 8
    view = do(game, "fall", player="ann", caught=[{"item": "rat", "zone": 8}])
    assert view["turn"] == "ann" and view["boxed"] == 1  # caught in a late fall: boxed
    view = load(game, "ann", "boat")
    view = do(game, "fall", player="ann", caught=[{"item": "boat", "zone": 10}])
    assert view["turn"] == "bob" and view["boxed"] == 1  # in her turn: the piece just loaded


def test_rr14_a_fall_in_the_first_turn_before_anything_was_loaded_is_refused():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    refused(game, "fall", "no turn has been played yet", player="bob", fallen=["rat"])


def ann_wins() -> Match:
    """Seven rounds with ann first empty everyone's supply but one; ann's rat on 10 wins."""
    game = new_game("ann", "bob", "cy")
    for r in range(1, 8):
        cards(game, ann=r + 2, bob=r + 1, cy=r)
        while game.view()["phase"] == "turn":
            player = game.view()["turn"]
            items = game.view()["players"][player]["items"]
            simple_turn(game, player, next(i for i, n in items.items() if n))
    cards(game, ann=10, bob=9, cy=8)
    load(game, "ann", "rat")
    view = do(game, "end_turn", player="ann")
    assert view["phase"] == "over" and view["winners"] == ["ann"]
    return game


def test_rr14_after_the_game_is_over_a_fall_is_rejected_and_the_result_stands():
    game = ann_wins()
    assert game.view()["falls_to"] is None
    refused(
        game, "fall", "game is over: ann won", player="ann", fallen=[{"item": "rat", "zone": 10}]
    )


# -- RR7: only the most recent round's cards are face up ------------------------------------


def test_rr7_the_public_state_shows_only_the_last_revealed_rounds_card():
    game = new_game()
    assert {p: i["played"] for p, i in game.view()["players"].items()} == {
        "ann": [],
        "bob": [],
        "cy": [],
    }
    cards(game, ann=3, bob=8, cy=5)
    for player in ("bob", "cy", "ann"):
        simple_turn(game, player, "rat")
    # between rounds round 1's cards still lie face up
    assert {p: i["played"] for p, i in game.view()["players"].items()} == {
        "ann": [3],
        "bob": [8],
        "cy": [5],
    }
    cards(game, ann=4, bob=9)
    assert game.view()["players"]["bob"]["played"] == [8]  # no hint of the 9 (RR4)
    view = cards(game, cy=6)
    assert {p: i["played"] for p, i in view["players"].items()} == {
        "ann": [4],
        "bob": [9],
        "cy": [6],
    }


def test_rr7_each_player_sees_all_of_their_own_cards_of_the_cycle():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    for player in ("bob", "cy", "ann"):
        simple_turn(game, player, "rat")
    cards(game, ann=4, bob=9, cy=6)
    bob = game.view("bob")
    assert bob["players"]["bob"]["played"] == [8, 9]
    assert bob["players"]["ann"]["played"] == [4] and bob["players"]["cy"]["played"] == [6]
    assert game.view("ann")["players"]["ann"]["played"] == [3, 4]
    assert game.view("ann")["players"]["bob"]["played"] == [9]


def test_rr7_in_cycle_two_before_its_first_reveal_played_is_empty():
    game = new_game("ann", "bob")
    for r in range(1, 11):
        cards(game, ann=r, bob=11 - r)
        while game.view()["phase"] in ("turn", "decide") and game.view()["round"] == r:
            view = game.view()
            if view["phase"] == "decide":
                do(
                    game,
                    view["pending"]["decision"],
                    by=view["pending"]["by"],
                    player=view["pending"]["among"][0],
                )
                continue
            player = view["turn"]
            load(game, player, next(i for i, n in view["players"][player]["items"].items() if n))
            do(
                game,
                "fall",
                player=player,
                fallen=[{"item": game.log[-1]["item"], "zone": view["target_zone"]}],
            )
    view = game.view()
    assert view["cycle"] == 2 and view["round"] == 11 and view["phase"] == "choose"
    assert [i["played"] for i in view["players"].values()] == [[], []]
    assert game.view("ann")["players"]["ann"]["played"] == []
    cards(game, ann=10)
    assert game.view("ann")["players"]["ann"]["played"] == []  # chosen, not yet played
    view = cards(game, bob=10)
    assert view["players"]["ann"]["played"] == [10]


# -- old logs: rules edition 1 replays games stored before late falls kept the turn going ---


def test_rr14_rules_edition_1_replays_a_stored_late_fall_as_it_was_decided():
    game = setup_with(settle_s=0, rules_edition=1)
    cards(game, ann=3, bob=8, cy=5)
    load(game, "bob", "rat")
    do(game, "end_turn", player="bob")
    assert game.view()["falls_to"] == "cy"
    view = do(game, "fall", player="cy", caught=["rat"])  # stored then as cy's, ending her turn
    assert view["turn"] == "ann" and view["boxed"] == 1
    cards_game = setup_with(settle_s=0, rules_edition=1)
    cards(cards_game, ann=3, bob=8, cy=5)
    for player in ("bob", "cy", "ann"):
        simple_turn(cards_game, player, "rat")
    view = do(cards_game, "fall", player="ann", caught=["rat"])
    assert view["boxed"] == 0 and view["players"]["ann"]["supply"] == 8  # back, as it was


def test_an_unknown_rules_edition_refuses_the_setup():
    with pytest.raises(Rejected, match="rules_edition must be 1 or 2, not 3"):
        setup_with(rules_edition=3)
