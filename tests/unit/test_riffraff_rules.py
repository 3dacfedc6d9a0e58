"""Riff Raff scenarios, one or more per rule of RULES.md (RR1-RR16)."""

from __future__ import annotations

from riffraff_helpers import cards, do, load, new_game, refused, simple_turn

from bosun.games.riffraff import ITEMS

# -- ship and pieces -----------------------------------------------------------------------


def test_rr1_the_ship_has_ten_zones_and_no_other():
    game = new_game()
    assert list(game.view()["ship"]) == [str(z) for z in range(1, 11)]
    cards(game, ann=10, bob=5, cy=1)
    refused(game, "load", "no zone 11", player="ann", zone=11, item="rat")
    refused(game, "load", "no zone 0", player="ann", zone=0, item="rat")


def test_rr2_three_or_four_players_get_one_of_each_item():
    for players in (("ann", "bob", "cy"), ("ann", "bob", "cy", "dee")):
        view = new_game(*players).view()
        for info in view["players"].values():
            assert info["supply"] == 8
            assert info["items"] == {item: 1 for item in ITEMS}


def test_rr2_two_players_get_two_of_each_item():
    view = new_game("ann", "bob").view()
    for info in view["players"].values():
        assert info["supply"] == 16
        assert info["items"] == {item: 2 for item in ITEMS}


def test_rr2_only_the_eight_items_exist():
    game = new_game()
    cards(game, ann=10, bob=5, cy=1)
    refused(game, "load", "not a Riff Raff piece", player="ann", zone=10, item="anchor")


# -- rounds and captain --------------------------------------------------------------------


def test_rr3_the_oldest_player_is_captain_before_round_one():
    view = new_game("ann", "bob", "cy", captain="bob").view()
    assert view["captain"] == "bob"
    assert view["phase"] == "choose" and view["round"] == 1


def test_rr4_cards_stay_secret_until_everyone_has_chosen():
    game = new_game()
    cards(game, ann=4, bob=9)
    public = game.view()
    assert public["phase"] == "choose"
    assert all(info["card"] is None for info in public["players"].values())
    assert "9" not in str({p: i for p, i in public["players"].items()})
    assert game.view("bob")["my_card"] == 9
    assert game.view("ann")["my_card"] == 4
    assert game.view("cy")["my_card"] is None
    view = cards(game, cy=2)
    assert {p: i["card"] for p, i in view["players"].items()} == {"ann": 4, "bob": 9, "cy": 2}


def test_rr4_a_card_is_one_to_ten():
    game = new_game()
    refused(game, "card", "1 to 10", player="ann", value=11)
    refused(game, "card", "1 to 10", player="ann", value=0)


def test_rr4_one_card_a_round():
    game = new_game()
    cards(game, ann=4)
    refused(game, "card", "already chosen", player="ann", value=5)


def test_rr5_the_highest_card_makes_the_captain_at_once():
    game = new_game()
    view = cards(game, ann=3, bob=8, cy=5)
    assert view["captain"] == "bob"
    assert view["turn"] == "bob" and view["target_zone"] == 8


def test_rr5_tie_for_highest_card_the_previous_captain_chooses():
    game = new_game()
    view = cards(game, ann=3, bob=8, cy=8)
    assert view["phase"] == "decide"
    assert view["pending"] == {"decision": "captain", "by": "ann", "among": ["bob", "cy"]}
    refused(game, "captain", "only ann", by="bob", player="bob")
    refused(game, "captain", "did not play the highest card", by="ann", player="ann")
    view = do(game, "captain", by="ann", player="cy")
    assert view["captain"] == "cy" and view["turn"] == "cy" and view["phase"] == "turn"


def test_rr5_the_previous_captain_may_choose_among_tied_including_themselves():
    game = new_game()
    cards(game, ann=6, bob=6, cy=2)
    view = do(game, "captain", by="ann", player="ann")
    assert view["captain"] == "ann" and view["turn"] == "ann"


def test_rr6_order_is_captain_then_descending_cards():
    game = new_game("ann", "bob", "cy", "dee")
    view = cards(game, ann=2, bob=9, cy=5, dee=7)
    assert view["turn"] == "bob"
    assert view["order"] == ["dee", "cy", "ann"]
    view = simple_turn(game, "bob", "rat")
    assert view["turn"] == "dee" and view["order"] == ["cy", "ann"]
    view = simple_turn(game, "dee", "rat")
    assert view["turn"] == "cy" and view["target_zone"] == 5
    view = simple_turn(game, "cy", "rat")
    assert view["turn"] == "ann" and view["order"] == []


def test_rr6_the_captain_decides_between_tied_players_when_their_turn_comes():
    game = new_game("ann", "bob", "cy", "dee")
    view = cards(game, ann=9, bob=4, cy=4, dee=1)
    # not decided in advance: the captain plays first, and only then is asked
    assert view["turn"] == "ann" and view["pending"] is None
    assert view["order"] == []  # who of bob and cy goes next is not known yet
    view = simple_turn(game, "ann", "boat")
    assert view["phase"] == "decide"
    assert view["pending"] == {"decision": "next", "by": "ann", "among": ["bob", "cy"]}
    refused(game, "next", "only ann", by="bob", player="bob")
    refused(game, "next", "not among the tied", by="ann", player="dee")
    view = do(game, "next", by="ann", player="cy")
    assert view["turn"] == "cy" and view["order"] == ["bob", "dee"]
    view = simple_turn(game, "cy", "boat")
    assert view["turn"] == "bob"  # the last of the tied group needs no decision


def test_rr6_the_new_captain_orders_the_rest_of_a_tie_for_highest():
    game = new_game("ann", "bob", "cy", "dee")
    cards(game, ann=1, bob=7, cy=7, dee=7)
    do(game, "captain", by="ann", player="dee")
    view = simple_turn(game, "dee", "rat")
    assert view["pending"] == {"decision": "next", "by": "dee", "among": ["bob", "cy"]}
    view = do(game, "next", by="dee", player="bob")
    assert view["turn"] == "bob"


def test_rr7_a_round_ends_when_everyone_had_a_turn_and_cards_stay_used():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    for player, item in (("bob", "rat"), ("cy", "rat"), ("ann", "rat")):
        view = simple_turn(game, player, item)
    assert view["phase"] == "choose" and view["round"] == 2
    assert view["players"]["bob"]["played"] == [8]
    refused(game, "card", "already played the 8", player="bob", value=8)
    cards(game, bob=7)


# -- a turn --------------------------------------------------------------------------------


def test_rr8_the_piece_goes_on_the_zone_of_the_card():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    refused(game, "load", "goes on zone 8, not 3", player="bob", zone=3, item="rat")
    refused(game, "load", "bob's turn, not ann's", player="ann", zone=3, item="rat")
    view = load(game, "bob", "rat")
    assert view["ship"]["8"] == ["rat"]
    assert view["players"]["bob"]["items"]["rat"] == 0
    assert view["players"]["bob"]["supply"] == 7
    do(game, "end_turn", player="bob")
    load(game, "cy", "rat")
    do(game, "end_turn", player="cy")
    load(game, "ann", "boat")
    do(game, "end_turn", player="ann")
    cards(game, ann=1, bob=2, cy=3)
    simple_turn(game, "cy", "crate")
    refused(game, "load", "no rat left", player="bob", zone=2, item="rat")


def _zone_seven_holds_cargo():
    """Round 1 puts a piece on zone 7, round 2 gives bob the 7 again... via ann."""
    game = new_game()
    cards(game, ann=3, bob=7, cy=5)
    for player in ("bob", "cy", "ann"):
        simple_turn(game, player, "boat")
    cards(game, ann=7, bob=2, cy=1)
    return game


def test_rr9_two_pieces_on_a_yard_that_already_held_cargo():
    game = _zone_seven_holds_cargo()
    view = do(game, "announce", player="ann", pieces=2)
    assert view["pieces_announced"] == 2
    load(game, "ann", "rat")
    refused(game, "end_turn", "still has to load 1 piece", player="ann")
    view = load(game, "ann", "crate")
    assert view["ship"]["7"] == ["boat", "rat", "crate"]
    refused(game, "load", "both announced pieces", player="ann", zone=7, item="chest")
    assert do(game, "end_turn", player="ann")["turn"] == "bob"


def test_rr9_two_pieces_refused_on_the_hull_or_an_empty_yard():
    game = new_game()
    cards(game, ann=3, bob=8, cy=4)
    refused(game, "announce", "was empty before this turn", player="bob", pieces=2)
    simple_turn(game, "bob", "boat")
    refused(game, "announce", "on the hull", player="cy", pieces=2)
    refused(game, "announce", "1 or 2", player="cy", pieces=3)


def test_rr9_the_announcement_cannot_change_and_comes_before_loading():
    game = _zone_seven_holds_cargo()
    do(game, "announce", player="ann", pieces=1)
    refused(game, "announce", "cannot change", player="ann", pieces=2)
    load(game, "ann", "rat")
    refused(game, "load", "one piece this turn", player="ann", zone=7, item="crate")


def test_rr9_loading_without_announcing_means_one_piece():
    game = _zone_seven_holds_cargo()
    load(game, "ann", "rat")
    refused(game, "announce", "cannot change", player="ann", pieces=2)
    refused(game, "load", "one piece", player="ann", zone=7, item="crate")


def test_rr9_if_the_first_of_two_falls_the_second_is_not_loaded():
    game = _zone_seven_holds_cargo()
    do(game, "announce", player="ann", pieces=2)
    load(game, "ann", "rat")
    view = do(game, "fall", player="ann", fallen=["rat"], caught=[])
    assert view["turn"] == "bob"  # RR11: the turn ended; no second piece
    refused(game, "load", "bob's turn", player="ann", zone=7, item="crate")


def test_rr9_the_yard_must_have_held_cargo_before_this_turn():
    game = new_game()
    cards(game, ann=7, bob=2, cy=1)
    refused(game, "announce", "empty before this turn", player="ann", pieces=2)


def test_rr10_a_piece_in_the_wrong_zone_is_not_a_load():
    # RR10 (wrong zone): the engine only ever accepts the target zone; sensors flag the rest.
    game = new_game()
    cards(game, ann=6, bob=2, cy=1)
    refused(game, "load", "goes on zone 6, not 5", player="ann", zone=5, item="rat")


# -- falling cargo -------------------------------------------------------------------------


def test_rr11_a_fall_ends_the_turn_at_once():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    load(game, "bob", "rat")
    view = do(game, "fall", player="bob", fallen=["rat"], caught=[])
    assert view["turn"] == "cy"
    assert view["last_turn"] == "bob"


def test_rr12_caught_pieces_leave_the_game():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    simple_turn(game, "bob", "rat")
    load(game, "cy", "boat")
    view = do(game, "fall", player="cy", fallen=[], caught=["rat", "boat"])
    assert view["boxed"] == 2
    assert view["players"]["cy"]["supply"] == 7
    assert view["ship"]["8"] == [] and view["ship"]["5"] == []


def test_rr12_catching_only_the_piece_just_loaded_returns_it_to_supply():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    simple_turn(game, "bob", "rat")
    load(game, "cy", "boat")
    view = do(game, "fall", player="cy", fallen=[], caught=["boat"])
    assert view["boxed"] == 0
    assert view["players"]["cy"]["items"]["boat"] == 1
    assert view["players"]["cy"]["supply"] == 8


def test_rr12_catching_only_an_older_piece_boxes_it():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    simple_turn(game, "bob", "rat")
    load(game, "cy", "boat")
    view = do(game, "fall", player="cy", fallen=[], caught=["rat"])
    assert view["boxed"] == 1
    assert view["players"]["cy"]["supply"] == 7


def test_rr13_fallen_pieces_go_to_the_active_players_supply_whoever_loaded_them():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    simple_turn(game, "bob", "rat")
    load(game, "cy", "boat")
    view = do(game, "fall", player="cy", fallen=["rat", "boat"], caught=[])
    assert view["players"]["cy"]["items"]["rat"] == 2
    assert view["players"]["cy"]["supply"] == 9
    assert view["players"]["bob"]["supply"] == 7
    assert view["boxed"] == 0


def test_rr13_a_fall_names_the_newest_piece_of_each_type_aboard():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    simple_turn(game, "bob", "rat")
    simple_turn(game, "cy", "rat")
    load(game, "ann", "boat")
    view = do(game, "fall", player="ann", fallen=["rat"], caught=[])
    assert view["ship"]["8"] == ["rat"] and view["ship"]["5"] == []  # cy's rat was newer


def test_rr13_unknown_or_missing_pieces_cannot_fall():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    load(game, "bob", "rat")
    refused(game, "fall", "no boat is aboard", player="bob", fallen=["boat"], caught=[])
    refused(game, "fall", "names 2 × rat but only 1", player="bob", fallen=["rat", "rat"])
    refused(game, "fall", "at least one piece", player="bob", fallen=[], caught=[])
    refused(game, "fall", "not a Riff Raff piece", player="bob", fallen=["kraken"])


def test_rr14_cargo_falling_in_the_settle_window_is_the_active_players():
    game = new_game(settle_s=3)
    cards(game, ann=3, bob=8, cy=5)
    simple_turn(game, "bob", "rat")
    load(game, "cy", "boat")
    # the window: cy's piece has come to rest, end_turn not yet sent
    refused(game, "fall", "is cy's", player="bob", fallen=["rat"])
    view = do(game, "fall", player="cy", fallen=["rat"])
    assert view["players"]["cy"]["items"]["rat"] == 2 and view["turn"] == "ann"


def test_rr14_cargo_falling_between_rounds_goes_to_who_played_last():
    game = new_game()
    cards(game, ann=3, bob=8, cy=5)
    for player in ("bob", "cy", "ann"):
        simple_turn(game, player, "rat")
    assert game.view()["phase"] == "choose"
    refused(game, "fall", "goes to ann", player="bob", fallen=["rat"])
    view = do(game, "fall", player="ann", fallen=["rat"])
    assert view["players"]["ann"]["items"]["rat"] == 1
    assert view["phase"] == "choose" and view["round"] == 2


def test_rr14_cargo_falling_while_the_captain_decides_goes_to_who_played_last():
    game = new_game("ann", "bob", "cy", "dee")
    cards(game, ann=9, bob=4, cy=4, dee=1)
    simple_turn(game, "ann", "boat")
    assert game.view()["phase"] == "decide"
    view = do(game, "fall", player="ann", fallen=["boat"])
    assert view["players"]["ann"]["items"]["boat"] == 1  # RR13: back to her supply
    assert view["phase"] == "decide"


def test_rr14_no_fall_before_anything_was_loaded():
    refused(new_game(), "fall", "no turn has been played", player="ann", fallen=["rat"])


def test_rr14_settle_window_is_zero_or_three_seconds():
    from bosun.games import Rejected
    from bosun.games.match import Match

    for settle_s in (0, 3):
        assert new_game(settle_s=settle_s).view()["settle_s"] == settle_s
    game = Match()
    try:
        game.submit({"type": "setup", "game": "riffraff", "players": ["a", "b"], "settle_s": 5})
    except Rejected as err:
        assert "settle_s must be 0" in str(err)
    else:
        raise AssertionError("a 5 s window was accepted")


# -- end of the game -----------------------------------------------------------------------


def _first_item(view, player):
    return next(item for item, n in view["players"][player]["items"].items() if n)


def play_round(game, values, turn=simple_turn):
    """Choose `values`, settle ties with the first candidate, give every player `turn`."""
    view = cards(game, **values)
    round_number = view["round"]
    while view["round"] == round_number and view["phase"] in ("turn", "decide"):
        if view["phase"] == "decide":
            pending = view["pending"]
            view = do(game, pending["decision"], by=pending["by"], player=pending["among"][0])
        else:
            view = turn(game, view["turn"], _first_item(view, view["turn"]))
    return view


def falling_turn(game, player, item):
    """The player's piece tips off and lands on the table: their supply is unchanged."""
    load(game, player, item)
    return do(game, "fall", player=player, fallen=[item])


def seven_rounds_ann_first():
    """Rounds 1-7 with ann highest each time: everyone is down to one piece."""
    game = new_game()
    for r in range(1, 8):
        view = play_round(game, {"ann": r + 2, "bob": r + 1, "cy": r})
    assert view["round"] == 8
    assert [info["supply"] for info in view["players"].values()] == [1, 1, 1]
    return game


def test_rr15_an_empty_supply_at_the_end_of_a_turn_wins_at_once():
    game = seven_rounds_ann_first()
    cards(game, ann=10, bob=9, cy=8)
    view = load(game, "ann", "rat")
    assert view["phase"] == "turn"  # not yet: the turn has not ended
    view = do(game, "end_turn", player="ann")
    assert view["phase"] == "over" and view["winners"] == ["ann"]
    assert view["round"] == 8  # the round was not finished
    refused(game, "card", "game is over", player="bob", value=1)


def test_rr15_catching_two_pieces_in_the_last_turn_still_empties_the_supply():
    game = seven_rounds_ann_first()
    cards(game, ann=10, bob=9, cy=8)
    load(game, "ann", "rat")
    view = do(game, "fall", player="ann", caught=["rat", "boat"])  # both boxed (RR12)
    assert view["winners"] == ["ann"] and view["boxed"] == 2


def test_rr15_a_piece_falling_in_the_settle_window_spoils_the_win():
    game = new_game(settle_s=3)
    for r in range(1, 8):
        play_round(game, {"ann": r + 2, "bob": r + 1, "cy": r})
    cards(game, ann=10, bob=9, cy=8)
    load(game, "ann", "rat")
    view = do(game, "fall", player="ann", fallen=["rat"])
    assert view["winners"] == [] and view["turn"] == "bob"


def rotating_cards(players, r):
    """Round r's cards: each player a different value, every value once a cycle."""
    return {p: (r - 1 + seat) % 10 + 1 for seat, p in enumerate(players)}


def play_ten_rounds(game, sticking):
    """Everyone's piece sticks in round 1; from round 2 only `sticking` players' pieces do."""
    players = list(game.view()["players"])
    view = play_round(game, rotating_cards(players, 1))
    for r in range(2, 11):

        def turn(g, player, item, r=r):
            sticks = player in sticking and r == 2
            return simple_turn(g, player, item) if sticks else falling_turn(g, player, item)

        view = play_round(game, rotating_cards(players, r), turn=turn)
    return view


def test_rr16_after_round_ten_the_fewest_pieces_win():
    view = play_ten_rounds(new_game(), sticking={"ann"})
    assert view["phase"] == "over" and view["round"] == 10
    assert {p: i["supply"] for p, i in view["players"].items()} == {"ann": 6, "bob": 7, "cy": 7}
    assert view["winners"] == ["ann"]


def test_rr16_tied_fewest_pieces_all_win():
    view = play_ten_rounds(new_game("ann", "bob", "cy", "dee"), sticking={"bob", "dee"})
    assert view["winners"] == ["bob", "dee"]


def test_rr16_two_players_take_their_cards_back_for_ten_more_rounds():
    game = new_game("ann", "bob")
    view = play_ten_rounds(game, sticking=set())
    assert view["phase"] == "choose"
    assert view["round"] == 11 and view["cycle"] == 2
    assert view["players"]["ann"]["played"] == []  # cards taken back
    for r in range(11, 21):
        view = play_round(game, rotating_cards(["ann", "bob"], r - 10), turn=falling_turn)
        assert view["cycle"] == 2
    assert view["phase"] == "over" and view["round"] == 20
    assert view["winners"] == ["ann", "bob"]  # both kept 15 pieces
