"""The Riff Raff table referee: ship events and player inputs become the right game actions."""

from __future__ import annotations

import pytest

from bosun.games import Rejected
from bosun.referee import effects as fx
from bosun.referee import leds
from bosun.referee.riffraff import FALL_EPISODE_MS, RiffRaffTable
from bosun.sim.params import ITEM_GRAMS as W
from bosun.tables import TableConfig, default_seats
from shipsense.protocol import check_command


def table(settle_s=0, sensor="mat", players=("ann", "bob", "cy")) -> RiffRaffTable:
    config = TableConfig(
        id="t1", players=default_seats(list(players)), settle_s=settle_s, table_sensor=sensor
    )
    setup = {"type": "setup", "game": "riffraff", "players": list(players), "settle_s": settle_s}
    return RiffRaffTable(config, setup)


def kinds(effects, kind):
    return [e.payload for e in effects if e.kind == kind]


def actions(effects):
    return kinds(effects, fx.ACTION)


def choose(t: RiffRaffTable, now_ms=0, **values):
    out = []
    for player, value in values.items():
        out += t.on_input(player, {"type": "card", "value": value}, now_ms)
    return out


def P(item: str, zone: int) -> dict:
    """A piece as the game log names it (RR13a)."""
    return {"item": item, "zone": zone}


BARREL8, RAT5 = P("barrel", 8), P("rat", 5)


def place(t, zone, item, now_ms, error_g=0.0):
    return t.on_ship_event({"type": "place", "zone": zone, "grams": W[item] + error_g}, now_ms)


def barrel_then_rat(t: RiffRaffTable) -> None:
    """Bob loads a barrel on 8; after his 3 s window cy loads a rat on 5 and her window runs."""
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    assert actions(t.on_timer(3100)) == [{"type": "end_turn", "player": "bob"}]
    place(t, 5, "rat", 3200)


def test_rr8_a_place_in_the_target_zone_is_a_load_named_by_weight_and_the_turn_ends():
    t = table()
    out = choose(t, ann=3, bob=8, cy=5)
    assert kinds(out, fx.LED)[-1] == leds.prompt(8, t.config.colour_of("bob"))
    out = place(t, 8, "barrel", 1000, error_g=0.3)
    assert actions(out) == [
        {"type": "load", "player": "bob", "zone": 8, "item": "barrel"},
        {"type": "end_turn", "player": "bob"},  # RR14 "immediately"
    ]
    assert kinds(out, fx.LED)[-1]["zone"] == 5  # cy's turn is lit


def test_rr14_the_three_second_window_is_counted_down_before_the_turn_ends():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    out = place(t, 8, "rat", 1000)
    assert actions(out) == [{"type": "load", "player": "bob", "zone": 8, "item": "rat"}]
    assert kinds(out, fx.LED)[-1]["show"] == "countdown"
    assert kinds(out, fx.LED)[-1]["seconds"] == 3
    assert t.next_deadline_ms() == 4000
    assert t.on_timer(3999) == []
    assert actions(t.on_timer(4000)) == [{"type": "end_turn", "player": "bob"}]


def test_rr14_a_fall_in_the_window_is_the_active_players_and_ends_the_turn():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "rat", 1000)
    assert kinds(t.on_ship_event({"type": "leaving", "grams": 2.6, "zones": [8]}, 2000), fx.LED)
    assert t.on_timer(4000) == []  # something is leaving: the window waits
    t.on_ship_event({"type": "fall", "grams": W["rat"], "zones": [8]}, 2300)
    t.on_ship_event({"type": "land", "grams": W["rat"]}, 2400)
    out = t.on_timer(2300 + FALL_EPISODE_MS)
    assert actions(out) == [
        {"type": "fall", "player": "bob", "fallen": [P("rat", 8)], "caught": []}
    ]
    assert t.view["turn"] == "cy"


def test_rr9_two_pieces_announced_the_turn_waits_for_the_second():
    t = table()
    choose(t, ann=1, bob=7, cy=2)
    place(t, 7, "boat", 100)  # bob
    place(t, 2, "boat", 200)  # cy
    place(t, 1, "boat", 300)  # ann
    choose(t, ann=7, bob=2, cy=1)
    t.on_input("ann", {"type": "announce", "pieces": 2}, 400)
    out = place(t, 7, "crate", 500)
    assert [a["type"] for a in actions(out)] == ["load"]
    out = place(t, 7, "chest", 600)
    assert [a["type"] for a in actions(out)] == ["load", "end_turn"]


def test_rr12_rr13_the_mat_tells_fallen_from_caught():
    t = table(settle_s=3)
    barrel_then_rat(t)
    t.on_ship_event({"type": "leaving", "grams": 8.7, "zones": [5, 8]}, 4000)
    t.on_ship_event({"type": "fall", "grams": W["barrel"] + W["rat"], "zones": [5, 8]}, 4300)
    t.on_ship_event({"type": "land", "grams": W["barrel"] + 0.2}, 4350)
    out = t.on_timer(4300 + FALL_EPISODE_MS)
    assert actions(out) == [{"type": "fall", "player": "cy", "fallen": [BARREL8], "caught": [RAT5]}]
    view = t.view
    assert view["players"]["cy"]["items"]["barrel"] == 2  # RR13: fallen to cy's supply
    assert view["players"]["cy"]["items"]["rat"] == 1  # RR12: only the piece just loaded
    assert view["boxed"] == 0 and view["turn"] == "ann"


@pytest.mark.parametrize(
    "mat_g, fallen, caught",
    [
        (W["boat"], [BARREL8, RAT5], []),  # more than fell: everything that fell is on it
        (20_000.0, [BARREL8, RAT5], []),  # a faulty mat cell
        (W["barrel"] + W["boat"], [BARREL8, RAT5], []),
    ],
)
def test_rr12_rr13_a_mat_that_felt_what_fits_no_fallen_piece_names_only_fallen_ones(
    mat_g, fallen, caught
):
    t = table(settle_s=3)
    barrel_then_rat(t)
    t.on_ship_event({"type": "fall", "grams": W["barrel"] + W["rat"], "zones": [5, 8]}, 4300)
    t.on_ship_event({"type": "land", "grams": mat_g}, 4350)
    out = t.on_timer(4300 + FALL_EPISODE_MS)
    assert actions(out) == [{"type": "fall", "player": "cy", "fallen": fallen, "caught": caught}]


def test_rr11_pieces_falling_one_after_another_are_one_fall():
    t = table(settle_s=3)
    barrel_then_rat(t)
    t.on_ship_event({"type": "fall", "grams": W["rat"], "zones": [5]}, 4000)
    t.on_ship_event({"type": "land", "grams": W["rat"]}, 4100)
    t.on_ship_event({"type": "fall", "grams": W["barrel"], "zones": [8]}, 4500)
    t.on_ship_event({"type": "land", "grams": W["barrel"]}, 4600)
    assert t.on_timer(4000 + FALL_EPISODE_MS) == []  # the second fall extended the episode
    out = t.on_timer(4500 + FALL_EPISODE_MS)
    assert actions(out) == [
        {"type": "fall", "player": "cy", "fallen": [BARREL8, RAT5], "caught": []}
    ]


def test_rr12_everything_caught_goes_to_the_box():
    t = table(settle_s=3)
    barrel_then_rat(t)
    t.on_ship_event({"type": "fall", "grams": W["barrel"] + W["rat"], "zones": [5, 8]}, 4000)
    out = t.on_timer(4000 + FALL_EPISODE_MS)
    assert actions(out)[0]["caught"] == [BARREL8, RAT5]
    assert t.view["boxed"] == 2


def test_rr12_piezo_counts_landings():
    t = table(settle_s=3, sensor="piezo")
    barrel_then_rat(t)
    t.on_ship_event({"type": "fall", "grams": W["barrel"] + W["rat"], "zones": [5, 8]}, 4000)
    t.on_ship_event({"type": "land", "grams": None}, 4100)
    out = t.on_timer(4000 + FALL_EPISODE_MS)
    assert actions(out) == [{"type": "fall", "player": "cy", "fallen": [BARREL8], "caught": [RAT5]}]
    assert [f["kind"] for f in kinds(out, fx.FLAG)] == ["which_fell"]  # a guess: people confirm


def test_rr14_a_fall_between_rounds_goes_to_who_played_last():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    place(t, 5, "rat", 200)
    place(t, 3, "boat", 300)
    assert t.view["phase"] == "choose"
    t.on_ship_event({"type": "fall", "grams": W["barrel"], "zones": [8]}, 1000)
    t.on_ship_event({"type": "land", "grams": W["barrel"]}, 1100)
    out = t.on_timer(1000 + FALL_EPISODE_MS)
    assert actions(out) == [{"type": "fall", "player": "ann", "fallen": [BARREL8], "caught": []}]


def test_rr13_a_shift_is_not_a_fall():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    t.on_ship_event({"type": "leaving", "grams": 6.0, "zones": [8]}, 500)
    out = t.on_ship_event({"type": "shift", "from": 8, "to": 3, "grams": 6.1}, 800)
    assert actions(out) == [{"type": "shift", "item": "barrel", "from": 8, "to": 3}]
    assert t.view["ship"]["3"] == ["barrel"] and t.view["turn"] == "bob"
    assert actions(t.on_timer(3100)) == [{"type": "end_turn", "player": "bob"}]


def test_rr10_a_piece_in_another_zone_is_flagged_and_a_person_decides():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    out = place(t, 7, "barrel", 100)
    assert actions(out) == []
    (flag,) = kinds(out, fx.FLAG)
    assert flag["kind"] == "wrong_zone" and flag["options"] == ["count", "removed"]
    with pytest.raises(Rejected, match="answer one of"):
        t.on_input("ann", {"type": "confirm", "flag": flag["id"], "option": "maybe"}, 200)
    out = t.on_input("ann", {"type": "confirm", "flag": flag["id"], "option": "count"}, 200)
    assert actions(out)[0] == {"type": "load", "player": "bob", "zone": 8, "item": "barrel"}
    assert t.referee_state()["flags"] == []


def test_rr10_a_piece_taken_back_off_is_not_a_fall():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    (flag,) = kinds(place(t, 7, "barrel", 100), fx.FLAG)
    t.on_input("bob", {"type": "confirm", "flag": flag["id"], "option": "removed"}, 200)
    out = t.on_ship_event({"type": "fall", "grams": W["barrel"], "zones": [7]}, 300)
    assert t.next_deadline_ms() is None and actions(out) == []
    assert actions(place(t, 8, "barrel", 400))[0]["type"] == "load"


def test_an_ambiguous_weight_is_flagged_and_can_be_corrected():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    between = (W["plank"] + W["barrel"]) / 2
    out = t.on_ship_event({"type": "place", "zone": 8, "grams": between}, 100)
    load = actions(out)[0]
    (flag,) = kinds(out, fx.FLAG)
    assert flag["kind"] == "which_item"
    other = "plank" if load["item"] == "barrel" else "barrel"
    assert other in flag["options"]
    out = t.on_input("cy", {"type": "confirm", "flag": flag["id"], "option": other}, 200)
    assert [u["action"]["type"] for u in kinds(out, fx.UNDO)] == ["end_turn", "load"]
    assert actions(out) == [
        {"type": "load", "player": "bob", "zone": 8, "item": other},
        {"type": "end_turn", "player": "bob"},
    ]
    assert t.view["players"]["bob"]["items"][other] == 0
    assert t.view["turn"] == "cy"


def test_rr14_a_piece_named_again_by_people_during_the_window_keeps_its_countdown():
    # a correction answered while the turn's 3 s window runs: the LEDs go on counting down
    # what is left of it (not the plain prompt, as if the window were over)
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    between = (W["plank"] + W["barrel"]) / 2
    out = t.on_ship_event({"type": "place", "zone": 8, "grams": between}, 100)
    (flag,) = kinds(out, fx.FLAG)
    other = next(option for option in flag["options"] if option != "confirm")
    out = t.on_input("cy", {"type": "confirm", "flag": flag["id"], "option": other}, 1100)
    assert actions(out) == [{"type": "load", "player": "bob", "zone": 8, "item": other}]
    assert [(led["show"], led["seconds"]) for led in kinds(out, fx.LED)] == [("countdown", 2.0)]
    assert actions(t.on_timer(3100)) == [{"type": "end_turn", "player": "bob"}]


def test_rr14_with_the_immediate_rule_a_later_fall_is_the_previous_players_and_the_turn_goes_on():
    t = table(settle_s=0)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)  # bob's turn ends as the piece rests: cy's opens at once
    out = t.on_ship_event({"type": "fall", "grams": W["barrel"], "zones": [8]}, 900)
    bob = leds.rgb(t.config.colour_of("bob"))
    assert kinds(out, fx.LED)[-1] == {"cmd": "led", "show": "fall", "color": bob}
    assert "after bob's turn" in kinds(out, fx.FEED)[-1]["text"]
    t.on_ship_event({"type": "land", "grams": W["barrel"]}, 950)
    out = t.on_timer(900 + FALL_EPISODE_MS)
    assert actions(out) == [{"type": "fall", "player": "bob", "fallen": [BARREL8], "caught": []}]
    view = t.view
    assert view["turn"] == "cy" and view["players"]["bob"]["supply"] == 8
    assert "cy's turn goes on" in kinds(out, fx.FEED)[0]["text"]
    assert kinds(out, fx.LED)[-1] == leds.prompt(5, t.config.colour_of("cy"))


def test_undo_takes_back_the_last_decision_with_a_reason():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    with pytest.raises(Rejected, match="say why"):
        t.on_input("bob", {"type": "undo"}, 200)
    # bob's turn ended: only bob (or the operator) takes that back, never another seat
    with pytest.raises(Rejected, match="only bob"):
        t.on_input("ann", {"type": "undo", "reason": "I want another go"}, 200)
    out = t.on_input("bob", {"type": "undo", "reason": "the barrel was knocked on by ann"}, 200)
    assert kinds(out, fx.UNDO)[0]["action"] == {"type": "end_turn", "player": "bob"}
    assert kinds(out, fx.UNDO)[0]["by"] == "bob"
    assert t.view["turn"] == "bob" and t.view["pieces_loaded"] == 1


def test_the_operator_undoes_anyones_action_and_a_shift_only_they_may():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    out = t.on_input("cy", {"type": "undo", "reason": "bob asked", "operator": True}, 200)
    assert kinds(out, fx.UNDO)[0] == {
        "action": {"type": "card", "player": "cy", "value": 5},
        "reason": "bob asked",
        "by": "the operator",
    }
    assert "the operator undid card (bob asked)" in kinds(out, fx.FEED)[0]["text"]
    choose(t, cy=5)
    t = table(settle_s=3)  # RR13: a shift names nobody: only the operator takes it back
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    t.on_ship_event({"type": "leaving", "grams": 6.0, "zones": [8]}, 500)
    t.on_ship_event({"type": "shift", "from": 8, "to": 3, "grams": 6.1}, 800)
    for seat in ("ann", "bob", "cy"):
        with pytest.raises(Rejected, match="only the operator can undo the referee's shift"):
            t.on_input(seat, {"type": "undo", "reason": "it was not a shift"}, 900)
    out = t.on_input("bob", {"type": "undo", "reason": "it was not", "operator": True}, 900)
    assert kinds(out, fx.UNDO)[0]["action"]["type"] == "shift"


def test_an_offline_ship_pauses_the_table_and_resumes():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "rat", 1000)
    t.on_status(False, 2000)
    assert t.next_deadline_ms() is None and t.on_timer(9000) == []
    with pytest.raises(Rejected, match="paused"):
        t.on_input("bob", {"type": "announce", "pieces": 1}, 2500)
    out = t.on_status(True, 10_000)
    assert kinds(out, fx.LED)  # the prompt is shown again
    assert t.next_deadline_ms() == 13_000  # the window counts again in full


def test_a_player_cannot_act_for_another_seat():
    t = table()
    choose(t, ann=3, bob=8)
    with pytest.raises(Rejected, match="already chosen"):
        t.on_input("bob", {"type": "card", "value": 2}, 0)
    assert t.player_view("bob")["my_card"] == 8
    assert t.player_view("ann")["my_card"] == 3
    assert "8" not in str([p["card"] for p in t.view["players"].values()])


def test_the_same_inputs_give_the_same_referee():
    def play():
        t = table(settle_s=3)
        log = []
        log += choose(t, ann=3, bob=8, cy=5)
        log += place(t, 8, "barrel", 100)
        log += t.on_timer(3100)
        log += place(t, 5, "rat", 3500)
        log += t.on_ship_event({"type": "fall", "grams": 8.6, "zones": [5, 8]}, 4000)
        log += t.on_timer(5000)
        return t.view, log

    assert play() == play()


def test_every_led_command_is_one_the_ship_accepts():
    t = table(settle_s=3)
    out = choose(t, ann=3, bob=8, cy=5)
    out += place(t, 8, "barrel", 100)
    out += t.on_timer(3100)
    out += t.on_ship_event({"type": "leaving", "grams": 2.0, "zones": [5]}, 3200)
    out += t.on_ship_event({"type": "fall", "grams": 2.0, "zones": [5]}, 3300)
    out += t.on_timer(3300 + FALL_EPISODE_MS)
    commands = kinds(out, fx.LED)
    assert {c["show"] for c in commands} >= {"prompt", "countdown", "fall"}
    for command in commands:
        assert check_command(command) == command


def test_rr13_a_piece_that_bounced_off_the_mat_still_reached_the_table():
    t = table(settle_s=3)
    barrel_then_rat(t)
    t.on_ship_event({"type": "fall", "grams": W["barrel"] + W["rat"], "zones": [5, 8]}, 4000)
    t.on_ship_event({"type": "land", "grams": W["rat"], "bounced": False}, 4100)
    t.on_ship_event({"type": "land", "grams": 0.0, "bounced": True}, 4150)
    out = t.on_timer(4000 + FALL_EPISODE_MS)
    assert actions(out) == [
        {"type": "fall", "player": "cy", "fallen": [BARREL8, RAT5], "caught": []}
    ]


def test_a_leaving_that_comes_to_nothing_restores_the_prompt():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    t.on_ship_event({"type": "leaving", "grams": 1.0, "zones": [8]}, 500)
    out = t.on_ship_event({"type": "stay", "grams": 1.0}, 700)
    assert kinds(out, fx.LED)[-1]["show"] == "countdown"
    assert actions(t.on_timer(3100)) == [{"type": "end_turn", "player": "bob"}]


def test_rr13_the_piezo_counts_a_bounce_beside_a_landing():
    t = table(settle_s=3)
    barrel_then_rat(t)
    t.on_ship_event({"type": "fall", "grams": W["barrel"] + W["rat"], "zones": [5, 8]}, 4000)
    t.on_ship_event({"type": "land", "grams": W["rat"], "bounced": False, "impacts": 2}, 4200)
    out = t.on_timer(4000 + FALL_EPISODE_MS)
    assert actions(out) == [
        {"type": "fall", "player": "cy", "fallen": [BARREL8, RAT5], "caught": []}
    ]


def test_rr14_the_settle_window_is_the_games_not_the_tables_default():
    config = TableConfig(id="t1", players=default_seats(["ann", "bob"]), settle_s=0)
    setup = {"type": "setup", "game": "riffraff", "players": ["ann", "bob"], "settle_s": 3}
    t = RiffRaffTable(config, setup)
    choose(t, ann=8, bob=3)
    out = place(t, 8, "rat", 1000)
    assert [a["type"] for a in actions(out)] == ["load"]  # the turn waits for the window
    assert t.next_deadline_ms() == 4000


def held_down(t: RiffRaffTable, zone: int, item: str, hand_g: float, now_ms: int) -> list:
    """A piece held down still on `zone` long enough to be placed with the hand on it."""
    return t.on_ship_event({"type": "place", "zone": zone, "grams": W[item] + hand_g}, now_ms)


def test_rr8_a_load_weighed_with_the_hand_on_it_is_named_again_when_the_hand_comes_off():
    # a bottle held down with 6.1 g weighs what a chest does: loaded as a chest; the hand
    # comes off (the detector's `stay` names the zone), and 3.3 g rests: a bottle
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    out = held_down(t, 8, "bottle", W["chest"] - W["bottle"], 100)
    assert actions(out) == [{"type": "load", "player": "bob", "zone": 8, "item": "chest"}]
    out = t.on_ship_event({"type": "stay", "grams": W["chest"] - W["bottle"], "zone": 8}, 600)
    assert kinds(out, fx.UNDO)[0]["action"]["item"] == "chest"
    assert actions(out) == [{"type": "load", "player": "bob", "zone": 8, "item": "bottle"}]
    assert t.match.log[-1] == {"type": "load", "player": "bob", "zone": 8, "item": "bottle"}
    supply = t.view["players"]["bob"]["items"]
    assert (supply["chest"], supply["bottle"]) == (1, 0)  # RR2: one piece of each kind
    assert any("hand came off" in f["text"] for f in kinds(out, fx.FEED))
    # one LED command, the turn's window going on (not the corrected log's plain prompt too)
    assert [led["show"] for led in kinds(out, fx.LED)] == ["countdown"]
    assert actions(t.on_timer(3100)) == [{"type": "end_turn", "player": "bob"}]


@pytest.mark.parametrize(
    "stay",
    [
        {"type": "stay", "grams": 6.1},  # no zone: the weight came back, nothing more
        {"type": "stay", "grams": 6.1, "zone": 5},  # another zone than the load's
        {"type": "stay", "grams": 0.3, "zone": 8},  # what rests is still a chest
        {"type": "stay", "grams": 9.0, "zone": 8},  # what rests is no piece at all
    ],
)
def test_a_stay_that_is_no_hand_off_the_fresh_load_changes_no_load(stay):
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    held_down(t, 8, "bottle", W["chest"] - W["bottle"], 100)
    before = list(t.match.log)
    out = t.on_ship_event(stay, 600)
    assert t.match.log == before
    assert kinds(out, fx.UNDO) == [] and actions(out) == []


def test_a_hand_off_a_load_that_was_undone_since_changes_nothing():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    held_down(t, 8, "bottle", W["chest"] - W["bottle"], 100)
    t.on_input("bob", {"type": "undo", "reason": "wrong piece"}, 300)
    before = list(t.match.log)
    out = t.on_ship_event({"type": "stay", "grams": 6.1, "zone": 8}, 600)
    assert t.match.log == before and actions(out) == []
