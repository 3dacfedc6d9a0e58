"""Montego Bay scenarios, one or more per rule of RULES.md (MB1-MB17).

Most scenarios use the explicit board of montego_helpers: five warehouses, so the loop runs
N1 N2 N3 N4 N5 S5 S4 S3 S2 S1; Big workers enter at N1 (card 1), Little workers at S5.
"""

from __future__ import annotations

from montego_helpers import (
    BOARD,
    ORDER,
    answer_anyhow,
    cards,
    cargo,
    do,
    hire,
    load,
    new_game,
    play_round,
    refused,
    unload,
)

from bosun.games.match import Match
from bosun.games.montego_bay import draws
from bosun.games.montego_bay.harbour import majority_scores

PLAYERS = ("ann", "bob", "cy")


def opening(silver: dict[str, int] | None = None) -> tuple[Match, list[dict]]:
    """Round 1 of the reference game, each pending question answered; returns the views."""
    game = new_game(**({"silver": silver} if silver else {}))
    seen = [play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))]
    seen.append(load(game, "cy", d2=3))  # N1: 3 barrels
    seen.append(unload(game, "cy", d2=1))  # S1: 1 broken barrel
    seen.append(load(game, "ann", d3=2))  # N2: 2 barrels and a silver coin
    seen.append(load(game, "bob", d2=2, d4=2))  # N4: 4 barrels (S3's broken ones: bob had none)
    seen.append(load(game, "ann", d3=3))  # S5: 3 barrels and silver; fills the ship at dock 3
    return game, seen


# -- the board (MB1, MB12) -------------------------------------------------------------------


def test_mb1_seeded_board_has_seven_warehouses_or_eight_with_four_players():
    for players, count in ((("a", "b"), 7), (("a", "b", "c"), 7), (("a", "b", "c", "d"), 8)):
        game = Match()
        game.submit({"type": "setup", "game": "montego-bay", "players": list(players), "seed": 3})
        warehouses = game.view()["warehouses"]
        assert len(warehouses) == count
        for pair in warehouses:
            assert len(pair) == 2
            for room in pair:
                assert 0 <= room.get("barrels", 0) <= 4 and 0 <= room.get("broken", 0) <= 2
                assert room.get("silver", 0) in (0, 1)
                assert not ("barrels" in room and "broken" in room)


def test_mb1_the_seed_lays_the_board_in_random_order_and_replays_alike():
    def board(seed: int) -> list:
        game = Match()
        game.submit({"type": "setup", "game": "montego-bay", "players": ["a", "b"], "seed": seed})
        return game.view()["warehouses"]

    assert board(11) == board(11)
    assert len({str(board(seed)) for seed in range(6)}) == 6


def test_mb1_an_explicit_board_is_checked():
    refused(Match(), "setup", "at least 4 warehouses", game="montego-bay",
            players=list(PLAYERS), warehouses=BOARD[:3])  # fmt: skip
    bad_rooms = [
        ({"barrels": 5}, "less than or equal to 4"),
        ({"broken": 3}, "less than or equal to 2"),
        ({"barrels": 1, "silver": 2}, "less than or equal to 1"),
        ({"barrels": 1, "broken": 1}, "not both"),
        ({"barels": 1}, "barels"),
    ]
    for room, reason in bad_rooms:
        board = [[room, {"barrels": 1}], *BOARD[1:]]
        refused(Match(), "setup", reason, game="montego-bay", players=["a", "b"], warehouses=board)


def test_mb12_big_workers_enter_from_the_west_pub_and_little_from_the_east():
    game = new_game()
    assert game.view()["workers"] == {
        "ann:big": "west", "ann:little": "east", "bob:big": "west",
        "bob:little": "east", "cy:big": "west", "cy:little": "east",
    }  # fmt: skip
    view = play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    # Clockwise N1..N5 then S5..S1: a Big card k lands on N<k>; a Little card k on S5..S1.
    assert view["workers"] == {
        "ann:big": "N2", "ann:little": "S5", "bob:big": "N4",
        "bob:little": "S3", "cy:big": "N1", "cy:little": "S1",
    }  # fmt: skip


def test_mb12_the_path_is_a_loop_and_occupied_stops_are_counted():
    game, _ = opening()
    assert game.view()["workers"]["cy:little"] == "S1"
    # Round 2: cy:little moves first (MB11), from S1 round the corner: its 2 steps count N1,
    # where cy:big stands, and land on N2, where ann:big stands.
    hire(game)
    cards(game, cy=(1, 2), ann=(1, 2), bob=(5, 1))
    moves = [e for e in game.view()["events"] if e["kind"] == "move"]
    assert moves[0]["worker"] == "cy:little" and moves[0]["from"] == "S1"
    assert moves[0]["to"] == "N2" and moves[0]["bumped"] == {"worker": "ann:big", "to": "S2"}


# -- docks, ships and order (MB3, MB4, MB16) -------------------------------------------------


def test_mb3_the_pilot_boat_takes_the_first_dock_and_ships_fill_the_others():
    view = new_game().view()
    assert view["docks"] == [
        {"pilot": True},
        {"slots": 6, "points": [6, 3, 1], "cargo": {}},
        {"slots": 5, "points": [5, 3, 1], "cargo": {}},
        {"slots": 4, "points": [4, 2, 1], "cargo": {}},
    ]
    assert view["deck_left"] == 9


def test_mb3_seeded_ships_have_three_slots_or_more():
    game = Match()
    game.submit({"type": "setup", "game": "montego-bay", "players": ["a", "b", "c"], "seed": 5})
    view = game.view()
    assert view["docks"][0] == {"pilot": True}
    assert all(d["slots"] >= 3 and d["cargo"] == {} for d in view["docks"][1:])
    assert view["deck_left"] == 24 - 3  # bosun's default deck for 3 players


def test_mb3_a_ship_has_three_slots_or_more():
    refused(Match(), "setup", "greater than or equal to 3", game="montego-bay",
            players=["a", "b"], ships=[{"slots": 2, "points": [2, 1, 0]}])  # fmt: skip


def test_mb3_the_pilot_boat_holds_no_cargo():
    game = new_game()
    play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    refused(game, "load", "pilot boat at dock 1 holds no cargo", player="cy",
            ships={"1": 1, "2": 2})  # fmt: skip


def test_mb4_one_order_token_a_worker_in_a_random_row():
    def order(seed: int) -> list[str]:
        game = Match()
        game.submit({"type": "setup", "game": "montego-bay", "players": ["a", "b"], "seed": seed})
        return game.view()["order"]

    assert sorted(order(1)) == ["a:big", "a:little", "b:big", "b:little"]
    assert order(1) == order(1)
    assert len({tuple(order(seed)) for seed in range(10)}) > 1


def test_mb4_an_explicit_order_names_every_worker_once():
    for order, reason in (
        (["ann:big", "bob:big", "cy:big", "ann:little", "bob:little"], "cy:little missing"),
        (["ann:big", "ann:big", "bob:big", "cy:big", "bob:little", "cy:little"], "more than once"),
        (["ann:big", "ann:tall", "bob:big", "cy:big", "bob:little", "cy:little"], "not a worker"),
    ):
        refused(Match(), "setup", reason, game="montego-bay", players=list(PLAYERS), order=order)


def test_mb16_sixteen_barrels_each_and_the_data_files_silver():
    view = new_game().view()
    assert view["players"] == {p: {"points": 0, "silver": 1, "barrels": 16} for p in PLAYERS}
    view = new_game(silver={"bob": 4}).view()
    assert [view["players"][p]["silver"] for p in PLAYERS] == [1, 4, 1]


# -- Lazy Jack (MB5, MB13, MB14) -------------------------------------------------------------


def test_mb5_every_player_declares_and_hiring_costs_three_silver():
    game = new_game(silver={"ann": 3, "bob": 2})
    reason = refused(game, "hire", "costs 3", player="bob", worker="big")
    assert "2 silver" in reason
    do(game, "hire", player="ann", worker="little")
    assert game.view()["phase"] == "hire" and game.view()["jack"] is None
    refused(game, "hire", "already declared", player="ann", worker=None)
    refused(game, "cards", "waiting for bob, cy to declare", player="ann", big=1, little=2, jack=3)
    do(game, "hire", player="bob", worker=None)
    view = do(game, "hire", player="cy", worker=None)
    assert view["phase"] == "cards"
    assert view["jack"] == {"player": "ann", "worker": "little", "at": "east"}  # MB14
    assert view["players"]["ann"]["silver"] == 0


def test_mb5_fewer_points_get_lazy_jack_and_only_he_pays():
    game, _ = opening(silver={"ann": 3, "bob": 3})
    before = game.view()["players"]
    assert before["ann"]["points"] > before["bob"]["points"]
    assert game.view()["order"].index("ann:big") < game.view()["order"].index("bob:big")
    view = hire(game, ann="big", bob="little")
    assert view["jack"]["player"] == "bob"
    assert view["players"]["bob"]["silver"] == before["bob"]["silver"] - 3
    assert view["players"]["ann"]["silver"] == before["ann"]["silver"]


def test_mb14_equal_points_the_earlier_first_order_token_gets_lazy_jack():
    order = ["bob:little", "ann:big", "ann:little", "bob:big", "cy:big", "cy:little"]
    game = new_game(order=order, silver={"ann": 3, "bob": 3})
    view = hire(game, ann="big", bob="big")
    assert view["jack"] == {"player": "bob", "worker": "big", "at": "west"}
    assert view["players"]["ann"]["silver"] == 3 and view["players"]["bob"]["silver"] == 0


def test_mb6_only_lazy_jacks_hirer_plays_a_jack_card_and_must():
    game = new_game(silver={"ann": 3})
    hire(game, ann="big")
    refused(game, "cards", "only Lazy Jack's hirer", player="bob", big=1, little=2, jack=3)
    refused(game, "cards", "choose his card too", player="ann", big=1, little=2)
    game = new_game()
    hire(game)
    refused(game, "cards", "nobody hired him", player="bob", big=1, little=2, jack=3)


def test_mb13_lazy_jacks_card_differs_from_his_workers_card():
    game = new_game(silver={"ann": 3})
    hire(game, ann="little")
    refused(game, "cards", "differ from the little worker's card 4", player="ann",
            big=4, little=4, jack=4)  # fmt: skip
    view = do(game, "cards", player="ann", big=4, little=4, jack=2)  # big's card may be equal
    assert view["chosen"] == ["ann"]


def test_mb7_mb14_lazy_jack_moves_first_from_his_workers_stop_bumps_and_is_bumped():
    game = new_game(silver={"ann": 3})
    hire(game, ann="big")
    view = cards(game, ann=(2, 1, 4), bob=(4, 2), cy=(1, 3))
    moves = [(e["worker"], e["to"]) for e in view["events"] if e["kind"] == "move"]
    assert moves[0] == ("jack", "N4")  # from the west pub, where ann:big waited
    # bob:big lands on Lazy Jack at N4 and pushes him across to S4; bob:little then lands
    # on him at S4, finds N4 taken and goes back to the nearest free stop: S5 is ann's, N5.
    assert view["jack"] == {"player": "ann", "worker": "big", "at": "S4"}
    assert view["workers"] == {
        "ann:big": "N2", "ann:little": "S5", "bob:big": "N4",
        "bob:little": "N5", "cy:big": "N1", "cy:little": "S3",
    }  # fmt: skip


def test_mb14_lazy_jacks_room_pays_his_hirer_silver():
    game = new_game(silver={"ann": 3})
    hire(game, ann="big")
    view = cards(game, ann=(2, 1, 3), bob=(4, 2), cy=(1, 4))  # Lazy Jack on N3: silver
    assert view["jack"]["at"] == "N3"
    answer_anyhow(game)
    view = game.view()
    assert view["players"]["ann"]["silver"] == 0 + 1 + 1 + 1  # N2, N3 (Lazy Jack), S5


def test_mb14_lazy_jacks_good_barrels_are_loaded_by_his_hirer():
    game = new_game(silver={"ann": 3})
    hire(game, ann="big")
    cards(game, ann=(2, 1, 4), bob=(4, 2), cy=(1, 3))  # Lazy Jack bumped to S4: 2 barrels
    load(game, "cy", d2=3)  # N1
    load(game, "ann", d2=2)  # N2
    unload(game, "cy", d2=2)  # S3: 2 broken
    view = load(game, "bob", d3=4)  # N4
    assert view["pending"] == {"player": "ann", "room": "S4", "action": "load", "count": 2}


def test_mb8_mb14_lazy_jack_never_unloads():
    game = new_game(silver={"ann": 3})
    hire(game, ann="little")
    view = cards(game, ann=(2, 1, 3), bob=(4, 4), cy=(1, 2))  # Lazy Jack on S3: 2 broken
    assert view["jack"]["at"] == "S3"
    load(game, "cy", d2=3)  # N1
    load(game, "ann", d3=2)  # N2: now ann has barrels aboard
    view = load(game, "bob", d4=1)  # S2; then S3 (Lazy Jack) takes nothing off
    assert view["pending"]["room"] == "N4"
    assert cargo(view)[2] == {"ann": 2}
    assert {"kind": "room", "stop": "S3", "worker": "jack", "player": "ann"} in view["events"]


def test_mb11_lazy_jack_goes_back_at_the_end_of_the_round():
    game = new_game(silver={"ann": 3})
    hire(game, ann="big")
    cards(game, ann=(2, 1, 3), bob=(4, 2), cy=(1, 4))
    view = answer_anyhow(game)
    assert view["phase"] == "hire" and view["jack"] is None and view["hires"] == {}


# -- secret cards (MB6, MB13) ----------------------------------------------------------------


def test_mb6_cards_stay_secret_until_everyone_has_chosen():
    game = new_game(silver={"bob": 3})
    hire(game, bob="little")
    cards(game, ann=(2, 1), bob=(4, 3, 5))
    public = game.view()
    assert public["phase"] == "cards" and public["cards"] == {}
    assert public["chosen"] == ["ann", "bob"]
    assert game.view("bob")["my_cards"] == {"big": 4, "little": 3, "jack": 5}
    assert game.view("ann")["my_cards"] == {"big": 2, "little": 1}
    assert game.view("cy")["my_cards"] == {}
    for viewer in (None, "ann", "cy"):
        assert "jack': 5" not in str(game.view(viewer)) and "'big': 4" not in str(game.view(viewer))
    view = cards(game, cy=(1, 5))
    assert view["cards"] == {
        "ann": {"big": 2, "little": 1},
        "bob": {"big": 4, "little": 3, "jack": 5},
        "cy": {"big": 1, "little": 5},
    }


def test_mb6_one_set_of_cards_a_round():
    game = new_game()
    hire(game)
    do(game, "cards", player="ann", big=1, little=1)
    refused(game, "cards", "already chosen", player="ann", big=2, little=2)


def test_mb2_cards_run_from_one_to_five():
    game = new_game()
    hire(game)
    refused(game, "cards", "big: cards run from 1 to 5, there is no 6", player="ann",
            big=6, little=1)  # fmt: skip
    refused(game, "cards", "little: cards run from 1 to 5, there is no 0", player="ann",
            big=1, little=0)  # fmt: skip


def test_mb13_every_card_comes_back_each_round():
    game, _ = opening()
    hire(game)
    view = cards(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))  # the very same cards again
    assert view["phase"] in ("resolve", "hire") and view["round"] == 2


# -- movement and bumping (MB7, MB15a) -------------------------------------------------------


def test_mb7_a_bumped_worker_goes_across_and_if_taken_the_mover_goes_back():
    game = new_game()
    hire(game)
    view = cards(game, ann=(2, 1), bob=(2, 2), cy=(2, 3))
    # ann:big on N2; bob:big lands there and pushes ann:big across to S2; cy:big lands on
    # bob:big, S2 is taken, so bob:big stays and cy:big goes back to the free N1.
    assert view["workers"] == {
        "ann:big": "S2", "ann:little": "S5", "bob:big": "N2",
        "bob:little": "S4", "cy:big": "N1", "cy:little": "S3",
    }  # fmt: skip
    moves = [e for e in view["events"] if e["kind"] == "move"]
    assert moves[1]["bumped"] == {"worker": "ann:big", "to": "S2"}
    assert moves[2]["pushed_back_from"] == "N2" and moves[2]["to"] == "N1"
    assert "bumped" not in moves[2]


def test_mb15a_bumping_never_chains():
    game = new_game()
    hire(game)
    view = cards(game, ann=(2, 1), bob=(2, 4), cy=(2, 3))
    # ann:big was pushed to S2 by bob:big. bob:little (card 4) lands on S2 too: N2 across is
    # bob:big's, so nobody is pushed on; bob:little goes back counter-clockwise to S3. Then
    # cy:little lands on S3 and pushes bob:little across to the free N3: one push a landing.
    assert view["workers"] == {
        "ann:big": "S2", "ann:little": "S5", "bob:big": "N2",
        "bob:little": "N3", "cy:big": "N1", "cy:little": "S3",
    }  # fmt: skip
    moves = {e["worker"]: e for e in view["events"] if e["kind"] == "move"}
    assert moves["bob:little"]["pushed_back_from"] == "S2" and moves["bob:little"]["to"] == "S3"
    assert "bumped" not in moves["bob:little"]
    assert moves["cy:little"]["bumped"] == {"worker": "bob:little", "to": "N3"}


def test_mb15a_behind_wraps_round_the_loop_and_never_back_into_a_pub():
    order = ["ann:little", "ann:big", "bob:big", "bob:little", "cy:big", "cy:little"]
    game = new_game(order=order)
    hire(game)
    view = cards(game, ann=(1, 5), bob=(1, 1), cy=(3, 2))
    # ann:little to S1, ann:big to N1; bob:big lands on N1, S1 is taken: it goes back from
    # N1 counter-clockwise, round the corner past S1 to S2 — not into the west pub.
    assert view["workers"] == {
        "ann:big": "N1", "ann:little": "S1", "bob:big": "S2",
        "bob:little": "S5", "cy:big": "N3", "cy:little": "S4",
    }  # fmt: skip


def test_mb15a_own_workers_bump_each_other():
    order = ["ann:little", "ann:big", "bob:big", "bob:little"]
    game = new_game(players=("ann", "bob"), warehouses=BOARD[:3], order=order)
    hire(game)
    # Three warehouses: the loop is N1 N2 N3 S3 S2 S1; Little workers enter at S3.
    view = cards(game, ann=(4, 1), bob=(1, 1))
    # ann:little to S3; ann:big (4 steps) lands there and pushes its own Little across to
    # N3; bob:little lands on S3 too, N3 is taken, and goes back past N3 to N2.
    assert view["workers"] == {"ann:big": "S3", "ann:little": "N3", "bob:big": "N1",
                               "bob:little": "N2"}  # fmt: skip


def test_mb15a_the_movers_own_old_stop_counts_as_free():
    game, _ = opening()
    hire(game)
    # Round 2 order: cy:little first. From S1 it lands on N1 (cy:big): across from N1 is S1,
    # the stop cy:little just left, so cy:big is pushed there.
    view = cards(game, cy=(2, 1), ann=(1, 2), bob=(5, 4))
    first = next(e for e in view["events"] if e["kind"] == "move")
    assert first == {"kind": "move", "worker": "cy:little", "steps": 1, "from": "S1",
                     "to": "N1", "bumped": {"worker": "cy:big", "to": "S1"}}  # fmt: skip


def test_mb15a_a_mover_may_go_back_to_its_own_old_stop():
    game = new_game()
    play_round(game, ann=(1, 1), bob=(2, 3), cy=(3, 2))  # N1 ann, N2 bob, N3 cy; S3 bob
    answer_anyhow(game)
    assert game.view()["order"][0] == "cy:little"
    hire(game)
    # cy:little moves first, out of the way; then ann:big from N1 lands on N3 (cy:big), S3
    # is bob's, N2 behind is bob's: the nearest free stop behind is N1, which it just left.
    view = cards(game, ann=(2, 5), bob=(5, 5), cy=(5, 3))
    ann_big = next(e for e in view["events"] if e.get("worker") == "ann:big")
    assert ann_big["pushed_back_from"] == "N3" and ann_big["to"] == "N1"


# -- the warehouses (MB8, MB15) --------------------------------------------------------------


def test_mb15_warehouses_resolve_west_to_east_north_before_south():
    game, seen = opening()
    asked = [v["pending"] for v in seen]
    assert asked == [
        {"player": "cy", "room": "N1", "action": "load", "count": 3},
        {"player": "cy", "room": "S1", "action": "unload", "count": 1},
        {"player": "ann", "room": "N2", "action": "load", "count": 2},
        {"player": "bob", "room": "N4", "action": "load", "count": 4},
        {"player": "ann", "room": "S5", "action": "load", "count": 3},
        None,
    ]
    rooms = [e["stop"] for e in seen[-1]["events"] if e["kind"] == "room"]
    assert rooms == ["N1", "S1", "N2", "S3", "N4", "S5"]  # empty stops are skipped


def test_mb8_silver_comes_from_the_bank():
    _, seen = opening()
    assert seen[1]["players"]["ann"]["silver"] == 1  # N2 not reached yet
    assert seen[2]["players"]["ann"]["silver"] == 2  # N2 pays on arrival, before the load
    assert seen[-1]["players"]["ann"]["silver"] == 3  # and S5


def test_mb8_broken_barrels_take_the_players_own_barrels_off_ships():
    _, seen = opening()
    assert cargo(seen[1])[1] == {"cy": 3}
    assert cargo(seen[2])[1] == {"cy": 2}
    assert seen[2]["players"]["cy"]["barrels"] == 14


def test_mb8_broken_barrels_ask_nothing_of_a_player_with_none_aboard():
    _, seen = opening()
    s3 = next(e for e in seen[-1]["events"] if e.get("stop") == "S3")
    assert s3 == {"kind": "room", "stop": "S3", "worker": "bob:little", "player": "bob",
                  "unload": 0}  # fmt: skip


def test_mb15_exactly_the_asked_number_is_loaded_and_unloaded():
    game = new_game()
    play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    refused(game, "load", "must load exactly 3 barrels, not 2", player="cy", ships={"2": 2})
    refused(game, "load", "must load exactly 3 barrels, not 4", player="cy", ships={"2": 4})
    load(game, "cy", d2=2, d3=1)
    refused(game, "unload", "must unload exactly 1 barrel, not 2", player="cy",
            ships={"2": 1, "3": 1})  # fmt: skip
    refused(game, "unload", "cy has 1 barrel on the ship at dock 3, cannot take off 2",
            player="cy", ships={"3": 2})  # fmt: skip


def test_mb15_a_ship_takes_no_more_than_its_free_slots():
    game, _ = opening()
    hire(game)
    cards(game, cy=(2, 1), ann=(1, 2), bob=(5, 4))
    view = game.view()
    assert view["pending"]["player"] == "cy" and view["pending"]["count"] == 3
    assert cargo(view)[3] == {} and view["docks"][3]["slots"] == 3
    refused(game, "load", "dock 1 has 2 free slots, not room for 3", player="cy",
            ships={"1": 3})  # fmt: skip


def test_mb15_the_engine_asks_even_when_there_is_one_way_to_answer():
    ships = [{"slots": 3, "points": [3, 2, 1]}]  # one ship at dock 2, docks 3 and 4 empty
    game = new_game(ships=ships)
    view = play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    assert view["docks"] == [{"pilot": True}, {"slots": 3, "points": [3, 2, 1], "cargo": {}},
                             None, None]  # fmt: skip
    assert view["pending"] == {"player": "cy", "room": "N1", "action": "load", "count": 3}
    refused(game, "load", "dock 3 is empty", player="cy", ships={"2": 2, "3": 1})
    assert game.game.legal_actions(game.state, "cy") == [
        {"type": "load", "player": "cy", "ships": {"2": 3}}
    ]


def test_mb9_mb15_one_load_filling_two_ships_sails_both_and_scores_both_last_slots():
    small = [{"slots": 3, "points": [3, 2, 1]}] * 3  # the whole deck: docks 2-4
    game = new_game(ships=small)
    play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    view = load(game, "cy", d2=3)  # N1 fills dock 2: cy +1 for the last slot, +3 for 1st
    assert view["players"]["cy"]["points"] == 4 and view["players"]["cy"]["barrels"] == 16
    assert view["docks"][1:] == [{"slots": 3, "points": [3, 2, 1], "cargo": {}}] * 2 + [None]
    view = load(game, "ann", d2=2)  # N2; S1's broken barrel found cy with nothing aboard
    # N4: bob's 4 barrels are min(4 in the room, 4 free slots)
    assert view["pending"] == {"player": "bob", "room": "N4", "action": "load", "count": 4}
    view = load(game, "bob", d2=1, d3=3)
    sails = [e for e in view["events"] if e["kind"] == "sail"]
    assert [(e["cargo"], e["scores"]) for e in sails[1:3]] == [
        ({"ann": 2, "bob": 1}, {"ann": 3, "bob": 2}),  # dock 2 first
        ({"bob": 3}, {"bob": 3}),
    ]
    # S5: ann's 3 barrels meet no free slot, so nothing is asked; no ships are left, so the
    # round ends the game (MB10) with the pilot boat alone at the docks.
    assert view["phase"] == "over"
    assert view["players"] == {
        "ann": {"points": 3, "silver": 3, "barrels": 16},
        "bob": {"points": 2 + 2 + 3, "silver": 1, "barrels": 16},
        "cy": {"points": 4, "silver": 1, "barrels": 16},
    }
    assert view["winners"] == ["bob"]


def test_mb15_loading_is_limited_by_free_slots():
    small = [{"slots": 3, "points": [3, 2, 1]}] * 3
    game = new_game(ships=small)
    play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    load(game, "cy", d2=3)
    view = load(game, "ann", d2=2)
    assert view["pending"]["count"] == 4  # room 4, supply 16, free slots 1 + 3
    view = load(game, "bob", d2=1, d3=3)
    s5 = next(e for e in view["events"] if e.get("stop") == "S5")
    assert s5["load"] == 0 and s5["silver"] == 1


# -- ships sail (MB9, MB10, MB15b) -----------------------------------------------------------


def test_mb9_filling_the_last_slot_scores_one_point_and_the_ship_sails_at_once():
    _, seen = opening()
    before, after = seen[-2], seen[-1]
    assert before["docks"][2] == {"slots": 5, "points": [5, 3, 1], "cargo": {"ann": 2}}
    sail = next(e for e in after["events"] if e["kind"] == "sail" and e["why"] == "filled")
    assert sail == {"kind": "sail", "dock": 3, "why": "filled", "slots": 5,
                    "points": [5, 3, 1], "cargo": {"ann": 5}, "scores": {"ann": 5},
                    "filled_by": "ann"}  # fmt: skip
    assert after["players"]["ann"] == {"points": 1 + 5, "silver": 3, "barrels": 16}


def test_mb9_mb15b_ships_move_up_and_a_new_ship_takes_the_last_dock():
    _, seen = opening()
    three = {"slots": 3, "points": [3, 2, 1], "cargo": {}}
    # After dock 3 sailed in round 1 the 4-slot ship moved up and a 3-slot ship came; at the
    # end of the round the pilot boat sailed (MB10) and everything moved up again.
    assert seen[-1]["docks"] == [
        {"slots": 6, "points": [6, 3, 1], "cargo": {"cy": 2, "bob": 2}},
        {"slots": 4, "points": [4, 2, 1], "cargo": {"bob": 2}},
        three,
        three,
    ]
    assert seen[-1]["deck_left"] == 12 - 3 - 2


def test_mb10_the_first_dock_sails_at_the_end_of_each_round_scored_by_majority():
    game, seen = opening()
    assert {"kind": "sail", "dock": 1, "pilot": True, "why": "first dock"} in seen[-1]["events"]
    # Round 2: the 6-slot ship at dock 1 holds cy 2, bob 2 and gets ann's 2 from S4.
    hire(game)
    cards(game, cy=(2, 1), ann=(1, 2), bob=(5, 4))
    load(game, "cy", d3=1, d4=2)  # N1
    unload(game, "bob", d2=1)  # S1: bob:little went back round the corner
    load(game, "cy", d2=2)  # N2
    load(game, "bob", d3=1)  # S2
    view = load(game, "ann", d1=2)  # S4: fills dock 1, a three-way tie: (6+3+1)/3 rounds up
    sail = next(e for e in view["events"] if e.get("why") == "filled")
    assert sail["scores"] == {"cy": 4, "bob": 4, "ann": 4}
    # End of round 2: the 4-slot ship now at dock 1 sails: cy 2 beats bob 1.
    end = next(e for e in view["events"] if e.get("why") == "first dock")
    assert end["cargo"] == {"bob": 1, "cy": 2} and end["scores"] == {"cy": 4, "bob": 2}
    assert {p: i["points"] for p, i in view["players"].items()} == {
        "ann": 6 + 1 + 4,
        "bob": 4 + 2,
        "cy": 4 + 4,
    }


def test_mb9_ties_share_the_places_points_rounded_up():
    seats = ["ann", "bob", "cy", "dee"]
    assert majority_scores({"ann": 2, "bob": 2, "cy": 1}, (5, 2, 1), 3, seats) == {
        "ann": 4,
        "bob": 4,
        "cy": 1,
    }  # (5+2)/2 = 3.5 -> 4
    assert majority_scores({"ann": 3, "bob": 1, "cy": 1}, (5, 2, 1), 3, seats) == {
        "ann": 5,
        "bob": 2,
        "cy": 2,
    }  # (2+1)/2 = 1.5 -> 2
    assert majority_scores({"ann": 1, "bob": 1, "cy": 1, "dee": 1}, (6, 3, 2), 3, seats) == {
        p: 3 for p in seats
    }  # (6+3+2+0)/4 = 2.75 -> 3: the fourth place is worth nothing


def test_mb9_third_place_scores_with_three_or_four_players_only():
    seats = ["ann", "bob", "cy", "dee"]
    cargo_ = {"ann": 3, "bob": 2, "cy": 1, "dee": 1}
    assert majority_scores(cargo_, (5, 3, 1), 3, seats) == {"ann": 5, "bob": 3, "cy": 1, "dee": 1}
    assert majority_scores({"ann": 3, "bob": 2}, (5, 3, 1), 2, ["ann", "bob"]) == {
        "ann": 5,
        "bob": 3,
    }
    assert majority_scores({"ann": 2, "bob": 2}, (5, 2, 1), 2, ["ann", "bob"]) == {
        "ann": 4,
        "bob": 4,
    }  # two players tied for 1st share 1st and 2nd only: (5+2)/2 rounds up to 4
    assert majority_scores({}, (5, 3, 1), 3, seats) == {}


def test_mb10_three_ships_or_fewer_end_the_game_and_every_ship_is_scored():
    huge = [{"slots": 20, "points": [6, 3, 1]}] * 3  # the whole deck; none fills
    game = new_game(ships=huge)
    play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    view = answer_anyhow(game)
    # MB16: the pilot boat counted, so four ships stood at the docks: only it sailed.
    assert view["phase"] == "hire" and view["round"] == 2
    assert [d is not None for d in view["docks"]] == [True, True, True, False]
    assert view["deck_left"] == 0
    play_round(game, ann=(1, 1), bob=(1, 1), cy=(1, 1))
    view = answer_anyhow(game)
    assert view["phase"] == "over"
    # Scored where they lie: the final state still shows the ships and their cargo.
    game_end = [e for e in view["events"] if e.get("why") == "game end"]
    assert [(e["kind"], e["dock"]) for e in game_end] == [("score", 1), ("score", 2), ("score", 3)]
    assert [e["cargo"] for e in game_end] == cargo(view)[:3] and view["docks"][3] is None
    for e in game_end:
        assert e["scores"] == majority_scores(e["cargo"], (6, 3, 1), 3, list(PLAYERS))
    assert any(e["scores"] for e in game_end)
    top = max(i["points"] for i in view["players"].values())
    assert view["winners"] == [p for p, i in view["players"].items() if i["points"] == top]
    refused(game, "hire", "the game is over", player="ann", worker=None)


def test_mb15b_tied_players_all_win():
    empty = [[{"barrels": 0}, {"barrels": 0}]] * 3
    game = new_game(players=("ann", "bob"), warehouses=empty,
                    ships=[{"slots": 3, "points": [3, 2, 1]}] * 2)  # fmt: skip
    view = play_round(game, ann=(1, 2), bob=(3, 4))
    assert view["phase"] == "over" and view["winners"] == ["ann", "bob"]


def test_mb15c_an_empty_deck_stops_refilling_and_the_game_ends_by_mb10():
    ships = [{"slots": 3, "points": [3, 2, 1]}] * 4
    game = new_game(ships=ships)
    play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    view = load(game, "cy", d2=3)  # fills dock 2; the last card refills dock 4
    assert view["deck_left"] == 0 and all(view["docks"][1:])
    view = answer_anyhow(game)
    docked = [sum(d is not None for d in view["docks"])]
    while view["phase"] != "over":
        assert view["deck_left"] == 0 and view["round"] <= 5
        play_round(game, ann=(1, 1), bob=(1, 2), cy=(1, 3))
        view = answer_anyhow(game)
        docked.append(sum(d is not None for d in view["docks"]))
    assert docked == sorted(docked, reverse=True)  # never refilled


# -- the order of the next round (MB11, MB17) ------------------------------------------------


def test_mb11_without_a_ship_from_the_last_six_the_last_token_moves_to_the_front():
    _, seen = opening()
    assert seen[-1]["order"] == ["cy:little", "ann:big", "bob:big", "cy:big", "ann:little",
                                 "bob:little"]  # fmt: skip
    assert {"kind": "order", "reshuffled": False, "order": seen[-1]["order"]} in seen[-1]["events"]


def test_mb11_mb17_a_ship_from_the_last_six_reshuffles_the_order_from_the_seed():
    seven = [{"slots": 20, "points": [6, 3, 1]}] * 7  # cards 2-7 are the last six

    def first_round(seed: int) -> dict:
        game = new_game(ships=seven, seed=seed)
        play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
        return answer_anyhow(game)

    orders = {}
    for seed in range(5):
        view = first_round(seed)
        assert view["round"] == 2 and view["deck_left"] == 3  # card 4 drawn: the last six
        assert {"kind": "order", "reshuffled": True, "order": view["order"]} in view["events"]
        assert view["order"] == draws.reshuffle_order(seed, 1, ORDER)
        assert first_round(seed)["order"] == view["order"]  # the seed decides, nothing else
        orders[seed] = tuple(view["order"])
    assert len(set(orders.values())) > 1


def test_mb17_ships_drawn_at_setup_do_not_count_as_this_rounds():
    three = [{"slots": 20, "points": [6, 3, 1]}] * 3  # all of them among the last six
    game = new_game(ships=three)
    play_round(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    view = answer_anyhow(game)
    assert view["round"] == 2 and view["deck_left"] == 0
    assert view["order"] == [ORDER[-1], *ORDER[:-1]]  # no ship was drawn this round


def test_mb14_ruling_lazy_jacks_old_stop_is_not_free_while_his_worker_stands_there():
    huge = [{"slots": 20, "points": [6, 3, 1]}] * 12
    game = new_game(warehouses=BOARD[:4], ships=huge, silver={"ann": 3})
    # Four warehouses: N1 N2 N3 N4 S4 S3 S2 S1. bob:little lands on ann:little at S4 and
    # pushes it across to N4.
    play_round(game, ann=(1, 1), bob=(2, 1), cy=(3, 2))
    view = answer_anyhow(game)
    assert view["workers"] == {
        "ann:big": "N1", "ann:little": "N4", "bob:big": "N2",
        "bob:little": "S4", "cy:big": "N3", "cy:little": "S3",
    }  # fmt: skip
    hire(game, ann="big")
    view = cards(game, ann=(2, 2, 3), bob=(1, 1), cy=(1, 1))
    # Lazy Jack leaves N1 for N4: taken, S4 across taken, N3 and N2 behind taken, and N1
    # still holds ann:big, so he goes on round the corner to S1.
    jack = next(e for e in view["events"] if e.get("worker") == "jack")
    assert jack["from"] == "N1" and jack["pushed_back_from"] == "N4" and jack["to"] == "S1"


def test_mb6_a_null_jack_card_from_a_player_without_him_means_none():
    game = new_game()
    hire(game)
    view = do(game, "cards", player="ann", big=1, little=2, jack=None)
    assert view["chosen"] == ["ann"] and game.view("ann")["my_cards"] == {"big": 1, "little": 2}
