"""The Riff Raff referee and where pieces really lie: falls and catches carry the zones the
ship reported (RR13a), shifts move pieces (RR13), late falls go to the previous player
(RR14), and a flagged fall is corrected piece by piece, with zones."""

from __future__ import annotations

import pytest
from test_referee_riffraff import P, actions, choose, kinds, place, table

from bosun.games import Rejected
from bosun.referee import effects as fx
from bosun.referee import leds
from bosun.referee.riffraff import FALL_EPISODE_MS
from bosun.sim.params import ITEM_GRAMS as W


def two_rats(settle_s: int = 3):
    """cy's rat rests on zone 5 (round 1); in round 2 bob loads a rat on zone 9, window open."""
    t = table(settle_s=settle_s)
    choose(t, ann=3, bob=8, cy=5)
    now = 0
    for zone, item in ((8, "boat"), (5, "rat"), (3, "crate")):
        now += 100
        place(t, zone, item, now)
        now += 3000
        t.on_timer(now)
    assert t.view["phase"] == "choose"
    choose(t, now, ann=2, bob=9, cy=1)
    place(t, 9, "rat", now + 100)
    assert t.view["ship"]["5"] == ["rat"] and t.view["ship"]["9"] == ["rat"]
    return t, now + 200


def fall(t, now_ms, **event):
    return t.on_ship_event({"type": "fall", **event}, now_ms)


def settle(t, now_ms):
    return t.on_timer(now_ms + FALL_EPISODE_MS)


# -- RR13a: the zone a piece left names it --------------------------------------------------


def test_rr13a_a_caught_piece_reported_on_its_zone_is_that_piece():
    t, now = two_rats()
    fall(t, now, grams=W["rat"], zones=[5], pieces=[{"zone": 5, "grams": W["rat"]}])
    out = settle(t, now)  # nothing landed on the mat: caught
    assert actions(out) == [
        {"type": "fall", "player": "bob", "fallen": [], "caught": [P("rat", 5)]}
    ]
    view = t.view
    assert view["ship"]["9"] == ["rat"] and view["ship"]["5"] == []  # bob's fresh rat stays
    assert view["boxed"] == 1 and view["players"]["bob"]["items"]["rat"] == 0


def test_rr13a_without_pieces_the_zones_that_lost_weight_name_the_piece():
    t, now = two_rats()
    fall(t, now, grams=W["rat"], zones=[5])
    t.on_ship_event({"type": "land", "grams": W["rat"]}, now + 100)
    out = settle(t, now)
    assert actions(out) == [
        {"type": "fall", "player": "bob", "fallen": [P("rat", 5)], "caught": []}
    ]
    assert t.view["ship"]["9"] == ["rat"]


def test_rr13a_the_item_the_ship_names_is_taken_when_it_lies_on_that_zone():
    t, now = two_rats()
    t.on_ship_event({"type": "place", "zone": 5, "grams": W["boat"]}, now)  # flagged: not 9
    reported = [{"zone": 9, "grams": W["rat"], "item": "rat"}, {"zone": 5, "grams": 3.5}]
    fall(t, now + 100, grams=W["rat"] + 3.5, zones=[5, 9], pieces=reported)
    t.on_ship_event({"type": "land", "grams": W["rat"] * 2}, now + 200)
    (action,) = actions(settle(t, now + 100))
    assert action["fallen"] == [P("rat", 5), P("rat", 9)] and action["caught"] == []


def test_rr13a_a_reported_piece_on_a_zone_the_game_has_empty_is_named_and_flagged():
    t, now = two_rats()
    fall(t, now, grams=W["rat"], zones=[6], pieces=[{"zone": 6, "grams": W["rat"]}])
    t.on_ship_event({"type": "land", "grams": W["rat"]}, now + 100)
    out = settle(t, now)
    (action,) = actions(out)
    assert action["fallen"] == [P("rat", 5)]  # the nearest rat the game has aboard
    assert [f["kind"] for f in kinds(out, fx.FLAG)] == ["which_fell"]


def test_rr13a_malformed_pieces_fall_back_to_the_zones():
    t, now = two_rats()
    fall(t, now, grams=W["rat"], zones=[5], pieces=[{"zone": 99, "grams": "x"}])
    t.on_ship_event({"type": "land", "grams": W["rat"]}, now + 100)
    (action,) = actions(settle(t, now))
    assert action["fallen"] == [P("rat", 5)]


# -- RR13: shifts ---------------------------------------------------------------------------


def test_rr13_a_shift_moves_the_piece_the_ship_names_and_the_table_sees_it():
    t, now = two_rats()
    t.on_ship_event({"type": "leaving", "grams": 2.6, "zones": [9]}, now)
    out = t.on_ship_event(
        {"type": "shift", "from": 9, "to": 7, "grams": 2.5, "item": "rat"}, now + 300
    )
    assert actions(out) == [{"type": "shift", "item": "rat", "from": 9, "to": 7}]
    assert "moved from zone 9 to zone 7" in kinds(out, fx.FEED)[0]["text"]
    assert kinds(out, fx.LED)[-1]["show"] == "countdown"  # the flash stops: bob's window runs
    assert t.view["ship"]["7"] == ["rat"] and t.view["turn"] == "bob"
    # the rat now on 7 is still the one just loaded: caught alone, back to bob's supply
    fall(t, now + 500, grams=W["rat"], zones=[7], pieces=[{"zone": 7, "grams": W["rat"]}])
    settle(t, now + 500)
    assert t.view["boxed"] == 0 and t.view["players"]["bob"]["items"]["rat"] == 1


def test_rr13_a_shift_is_named_by_weight_among_the_pieces_on_its_zone():
    t, now = two_rats()
    out = t.on_ship_event({"type": "shift", "from": 8, "to": 4, "grams": W["boat"] - 0.4}, now)
    assert actions(out) == [{"type": "shift", "item": "boat", "from": 8, "to": 4}]
    assert kinds(out, fx.FLAG) == [] and t.view["ship"]["4"] == ["boat"]


def test_rr13_a_shift_the_game_cannot_place_is_flagged():
    t, now = two_rats()
    out = t.on_ship_event({"type": "shift", "from": 2, "to": 1, "grams": 5.0}, now)
    assert actions(out) == []
    assert [f["kind"] for f in kinds(out, fx.FLAG)] == ["unknown_shift"]


def test_rr13_an_ambiguous_shift_is_flagged_and_can_be_corrected():
    t = table(settle_s=0)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "plank", 100)
    place(t, 5, "barrel", 200)
    place(t, 3, "rat", 300)
    choose(t, 400, ann=8, bob=2, cy=1)
    place(t, 8, "barrel", 500)  # zone 8: a plank and a barrel
    between = (W["plank"] + W["barrel"]) / 2
    out = t.on_ship_event({"type": "shift", "from": 8, "to": 6, "grams": between}, 600)
    (shift,) = actions(out)
    (flag,) = kinds(out, fx.FLAG)
    other = "plank" if shift["item"] == "barrel" else "barrel"
    assert flag["kind"] == "which_item" and other in flag["options"]
    out = t.on_input("cy", {"type": "confirm", "flag": flag["id"], "option": other}, 700)
    assert actions(out)[0] == {"type": "shift", "item": other, "from": 8, "to": 6}
    assert t.view["ship"]["6"] == [other]


# -- RR14: late falls -------------------------------------------------------------------------


def test_rr14_a_place_during_a_late_fall_waits_and_is_the_new_players_load():
    t = table(settle_s=0)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)  # cy's turn opens at once
    fall(t, 600, grams=W["barrel"], zones=[8])
    t.on_ship_event({"type": "land", "grams": W["barrel"]}, 700)
    assert actions(place(t, 5, "rat", 900)) == []  # held until the tumble is settled
    out = settle(t, 600)
    assert [a["type"] for a in actions(out)] == ["fall", "load", "end_turn"]
    assert actions(out)[0]["player"] == "bob"
    assert t.view["turn"] == "ann" and t.view["players"]["bob"]["supply"] == 8


def test_rr14_pieces_caught_in_a_late_fall_are_boxed():
    t = table(settle_s=0)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    fall(t, 600, grams=W["barrel"], zones=[8])
    out = settle(t, 600)  # the mat felt nothing: caught
    assert actions(out) == [
        {"type": "fall", "player": "bob", "fallen": [], "caught": [P("barrel", 8)]}
    ]
    assert t.view["boxed"] == 1 and t.view["turn"] == "cy"
    assert "(boxed)" in kinds(out, fx.FEED)[0]["text"]


def test_rr14_the_player_who_closes_a_round_and_opens_the_next_keeps_their_turn():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    now = 0
    for zone, item in ((8, "boat"), (5, "rat"), (3, "crate")):
        now += 100
        place(t, zone, item, now)
        now += 3000
        t.on_timer(now)
    choose(t, now, ann=10, bob=2, cy=1)
    assert t.view["turn"] == "ann" and t.view["last_turn"] == "ann"
    out = fall(t, now + 100, grams=W["crate"], zones=[3])
    ann = leds.rgb(t.config.colour_of("ann"))
    assert kinds(out, fx.LED)[-1] == {"cmd": "led", "show": "fall", "color": ann}
    t.on_ship_event({"type": "land", "grams": W["crate"]}, now + 200)
    out = settle(t, now + 100)
    assert actions(out) == [
        {"type": "fall", "player": "ann", "fallen": [P("crate", 3)], "caught": []}
    ]
    assert t.view["turn"] == "ann" and t.view["target_zone"] == 10
    assert kinds(out, fx.LED)[-1] == leds.prompt(10, t.config.colour_of("ann"))


# -- a flagged fall corrected piece by piece, with zones --------------------------------------


def flagged_fall():
    """cy's turn: barrel on 8 (bob's), rat on 5 (hers) fall; the piezo heard one: a guess."""
    t = table(settle_s=3, sensor="piezo")
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    t.on_timer(3100)
    place(t, 5, "rat", 3200)
    fall(t, 4000, grams=W["barrel"] + W["rat"], zones=[5, 8])
    t.on_ship_event({"type": "land", "grams": None}, 4100)
    out = settle(t, 4000)
    (flag,) = kinds(out, fx.FLAG)
    assert flag["kind"] == "which_fell" and flag["options"] == ["confirm", "correct"]
    assert flag["detail"]["fallen"] == [P("barrel", 8)]
    assert flag["detail"]["caught"] == [P("rat", 5)]
    assert flag["detail"]["aboard"]["5"] == [] and flag["detail"]["aboard"]["8"] == []
    return t, flag


def answer(t, flag, **request):
    return t.on_input("ann", {"type": "confirm", "flag": flag["id"], **request}, 6000)


def test_a_flagged_fall_is_corrected_piece_by_piece_with_zones():
    t, flag = flagged_fall()
    assert t.view["boxed"] == 0  # the rat alone, just loaded: back to cy (RR12)
    out = answer(t, flag, option="correct", fallen=[P("rat", 5)], caught=[P("barrel", 8)])
    assert actions(out)[0] == {
        "type": "fall",
        "player": "cy",
        "fallen": [P("rat", 5)],
        "caught": [P("barrel", 8)],
    }
    assert [u["action"]["type"] for u in kinds(out, fx.UNDO)] == ["fall"]
    view = t.view
    assert view["boxed"] == 1 and view["players"]["cy"]["items"]["rat"] == 1
    assert view["turn"] == "ann" and t.referee_state()["flags"] == []


def test_a_flagged_fall_corrected_to_nothing_takes_it_back_and_the_turn_goes_on():
    t, flag = flagged_fall()
    out = answer(t, flag, option="correct", fallen=[], caught=[])
    assert actions(out) == [] and [u["action"]["type"] for u in kinds(out, fx.UNDO)] == ["fall"]
    assert t.view["turn"] == "cy" and t.view["ship"]["5"] == ["rat"]


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        ({"fallen": [P("rat", 7)]}, "no rat lies on zone 7"),
        ({"fallen": ["rat"]}, "name the zone it left"),
        ({"fallen": [{"item": "rat"}]}, "needs the zone it left"),
        ({"caught": "rat"}, "caught must be a list"),
        ({"fallen": [P("kraken", 5)]}, "not a Riff Raff piece"),
        ({"fallen": [P("rat", 5)] * 17}, "at most 16"),
    ],
)
def test_a_wrong_correction_is_refused_and_the_question_stays_open(request_, reason):
    t, flag = flagged_fall()
    before = t.view
    with pytest.raises(Rejected, match=reason):
        answer(t, flag, option="correct", **request_)
    assert t.view == before and [f["id"] for f in t.referee_state()["flags"]] == [flag["id"]]


def test_only_a_fall_takes_a_correction():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    (flag,) = kinds(place(t, 7, "barrel", 100), fx.FLAG)
    with pytest.raises(Rejected, match="answer one of"):
        answer(t, flag, option="correct", fallen=[])


def test_rr14_weight_leaving_after_the_turn_flashes_in_the_previous_players_colour():
    t = table(settle_s=0)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)  # bob's turn ends, cy's opens
    out = t.on_ship_event({"type": "leaving", "grams": 3.0, "zones": [8]}, 600)
    bob = leds.rgb(t.config.colour_of("bob"))
    assert kinds(out, fx.LED)[-1] == {"cmd": "led", "show": "fall", "color": bob}
    t.on_ship_event({"type": "stay", "grams": 3.0}, 700)  # it stayed: nothing fell
    t2 = table(settle_s=3)
    choose(t2, ann=3, bob=8, cy=5)
    place(t2, 8, "barrel", 100)  # in bob's own window: his turn's fall, plain red (RR11)
    out = t2.on_ship_event({"type": "leaving", "grams": 3.0, "zones": [8]}, 600)
    assert kinds(out, fx.LED)[-1] == leds.fall()


@pytest.mark.parametrize("reported", [True, False])
def test_rr11_a_piece_that_falls_as_it_is_let_go_is_the_active_players_load_and_fall(reported):
    # with "immediately" cy's turn opens as bob's piece rests; her rat topples from zone 5 as
    # she lets go, before it ever came to rest: no place, but zone 5 is empty in the game
    t = table(settle_s=0)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    pieces = [{"zone": 5, "grams": W["rat"]}] if reported else None
    event = {"grams": W["rat"], "zones": [5], **({"pieces": pieces} if pieces else {})}
    fall(t, 900, **event)
    t.on_ship_event({"type": "land", "grams": W["rat"]}, 1000)
    out = settle(t, 900)
    assert actions(out) == [
        {"type": "load", "player": "cy", "zone": 5, "item": "rat"},
        {"type": "fall", "player": "cy", "fallen": [P("rat", 5)], "caught": []},
    ]
    view = t.view
    assert view["turn"] == "ann" and view["players"]["cy"]["supply"] == 8  # RR11, RR13
    assert view["players"]["bob"]["supply"] == 7 and view["ship"]["8"] == ["barrel"]


def test_rr14_a_fall_from_the_open_turns_zone_holding_a_piece_is_still_a_late_fall():
    t = table(settle_s=0)
    choose(t, ann=9, bob=5, cy=5)  # bob and cy tied on 5: the captain, ann, picks (RR6)
    place(t, 9, "boat", 50)
    t.on_input("ann", {"type": "next", "player": "bob"}, 60)
    place(t, 5, "barrel", 100)  # bob's; then cy's turn on the same zone
    assert t.view["turn"] == "cy" and t.view["target_zone"] == 5
    fall(t, 900, grams=W["barrel"], zones=[5])
    t.on_ship_event({"type": "land", "grams": W["barrel"]}, 1000)
    (action,) = actions(settle(t, 900))
    assert action == {"type": "fall", "player": "bob", "fallen": [P("barrel", 5)], "caught": []}
    assert t.view["turn"] == "cy"


GOOD_FALL = {"type": "fall", "t_ms": 1.0, "boot": "b1", "seq": 1, "grams": 2.6, "zones": [5]}


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"pieces": [{"zone": 11, "grams": 2.6}]}, r"pieces\[0\]\.zone"),
        ({"pieces": [{"grams": 2.6}]}, r"pieces\[0\]\.zone: missing"),
        ({"pieces": [{"zone": 5, "grams": "heavy"}]}, r"pieces\[0\]\.grams"),
        ({"pieces": [{"zone": 5, "grams": 2.6, "item": 7}]}, r"pieces\[0\]\.item"),
        ({"pieces": [{"zone": 5, "grams": 2.6}] * 9}, "pieces"),
        ({"pieces": "rat"}, "pieces"),
    ],
)
def test_rr13a_a_fall_events_pieces_are_checked_before_the_referee_reads_them(fields, reason):
    from bosun.referee.ship_events import BadMessage, validate_event

    good = {**GOOD_FALL, "pieces": [{"zone": 5, "grams": 2.6, "item": "rat"}]}
    assert validate_event(good) == good
    with pytest.raises(BadMessage, match=reason):
        validate_event({**GOOD_FALL, **fields})


def test_rr13_a_shift_events_item_is_checked():
    from bosun.referee.ship_events import BadMessage, validate_event

    shift = {"type": "shift", "t_ms": 1.0, "boot": "b1", "seq": 1, "from": 9, "to": 7}
    assert validate_event({**shift, "grams": 2.6, "item": "rat"})["item"] == "rat"
    with pytest.raises(BadMessage, match="item"):
        validate_event({**shift, "grams": 2.6, "item": ""})
