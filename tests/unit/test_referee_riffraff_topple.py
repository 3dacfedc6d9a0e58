"""RR10, RR11, RR13: a pressed piece that toppled off as it was let go, weighed by no sensor.

The detector sends a `touch` marked `toppled` (the rise vanished as the hand let go, just as
the table was struck); on the open turn's zone the referee asks people which piece it was.
"""

from __future__ import annotations

import pytest
from test_referee_riffraff import actions, choose, kinds, place, table

from bosun.games import Rejected
from bosun.referee import effects as fx


def toppled(t, zone, now_ms, grams=14.2, mark=True):
    event = {"type": "touch", "grams": grams, "zones": [zone]}
    if mark:
        event["toppled"] = True
    return t.on_ship_event(event, now_ms)


def answer(t, flag, option, now_ms=500, seat="ann"):
    return t.on_input(seat, {"type": "confirm", "flag": flag["id"], "option": option}, now_ms)


def test_rr11_rr13_a_toppled_touch_on_the_turns_zone_asks_and_the_answer_ends_the_turn():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    out = toppled(t, 8, 100)
    assert actions(out) == []
    (flag,) = kinds(out, fx.FLAG)
    assert flag["kind"] == "toppled" and "zone 8" in flag["text"] and "14.2 g" in flag["text"]
    assert flag["options"][0] == "nothing fell" and "barrel" in flag["options"]
    out = answer(t, flag, "barrel")
    assert actions(out)[:2] == [
        {"type": "load", "player": "bob", "zone": 8, "item": "barrel"},
        {"type": "fall", "player": "bob", "fallen": [{"item": "barrel", "zone": 8}], "caught": []},
    ]
    view = t.view
    assert view["turn"] == "cy" and view["ship"]["8"] == []  # RR11: bob's turn is over
    assert view["players"]["bob"]["supply"] == 8 and view["players"]["bob"]["items"]["barrel"] == 1
    assert t.referee_state()["flags"] == []


def test_rr10_nothing_fell_changes_nothing_and_the_turn_goes_on():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    (flag,) = kinds(toppled(t, 8, 100), fx.FLAG)
    assert actions(answer(t, flag, "nothing fell")) == []
    assert t.view["turn"] == "bob" and t.referee_state()["flags"] == []
    assert actions(place(t, 8, "barrel", 900))[0]["type"] == "load"


@pytest.mark.parametrize(
    "zone, mark, why",
    [(7, True, "another zone"), (8, False, "a plain touch")],
)
def test_rr10_a_touch_elsewhere_or_unmarked_stays_a_touch(zone, mark, why):
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    out = toppled(t, zone, 100, mark=mark)
    assert kinds(out, fx.FLAG) == [], why
    assert "a hand touched the ship" in kinds(out, fx.FEED)[0]["text"]


def test_no_question_once_the_turns_pieces_are_loaded_or_between_turns():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)  # bob's one piece rests; his window runs
    assert kinds(toppled(t, 8, 400), fx.FLAG) == []
    t2 = table()
    assert kinds(toppled(t2, 8, 100), fx.FLAG) == []  # cards are being chosen


def test_an_answer_after_the_game_moved_on_is_refused_and_the_question_stays_open():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    (flag,) = kinds(toppled(t, 8, 100), fx.FLAG)
    place(t, 8, "barrel", 300)  # bob set a piece down again: his turn is over
    with pytest.raises(Rejected, match="moved on"):
        answer(t, flag, "barrel")
    assert [f["id"] for f in t.referee_state()["flags"]] == [flag["id"]]
    assert t.view["ship"]["8"] == ["barrel"]


def test_only_kinds_the_player_still_has_are_offered():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "boat", 100)  # bob's only boat is aboard
    place(t, 5, "rat", 200)
    place(t, 3, "rat", 300)
    choose(t, now_ms=400, ann=4, bob=9, cy=6)
    assert (t.view["turn"], t.view["target_zone"]) == ("bob", 9)
    (flag,) = kinds(toppled(t, 9, 500), fx.FLAG)
    assert "boat" not in flag["options"] and "rat" in flag["options"]
    with pytest.raises(Rejected, match="answer one of"):
        answer(t, flag, "boat", now_ms=600)


def test_an_answer_while_a_fall_is_being_settled_waits_and_the_question_stays_open():
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    (flag,) = kinds(toppled(t, 8, 100), fx.FLAG)
    t.on_ship_event({"type": "fall", "grams": 5.0, "zones": [2], "t_ms": 150.0}, 200)
    with pytest.raises(Rejected, match="being settled"):
        answer(t, flag, "barrel", now_ms=300)
    assert [f["id"] for f in t.referee_state()["flags"]] == [flag["id"]]
    assert t.view["ship"]["8"] == []
