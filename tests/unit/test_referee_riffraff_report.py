"""RR8, RR10-RR14: what the ship did not feel, reported by people.

Some falls no sensor can tell: a piece caught as it toppled off at the let-go reads as a hand
taking its piece back, and one gone within a sample at 10 SPS never shows; a light piece set
down on a rough ship can go unplaced. Any seat reports what fell, piece by piece, or the piece
loaded; the referee decides it as if the ship had felt it (bosun.referee.riffraff_report).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from riffraff_helpers import cards, do, load
from test_referee_riffraff import BARREL8, P, actions, barrel_then_rat, choose, kinds, place, table
from test_riffraff_rules import seven_rounds_ann_first

from bosun.games import Rejected
from bosun.referee import effects as fx


def report(t, seat="ann", now_ms=5000, **parts):
    return t.on_input(seat, {"type": "report_fall", **parts}, now_ms)


def tell(t, parts, seat="ann", now_ms=5000):
    """Any report: `parts` carries its own type."""
    return t.on_input(seat, parts, now_ms)


def test_rr11_rr13_a_reported_fall_in_the_window_is_the_active_players_and_ends_the_turn():
    t = table(settle_s=3)
    barrel_then_rat(t)  # bob's barrel is on 8; cy's rat rests on 5 and her window runs
    assert t.settle_deadline_ms is not None
    out = report(t, fallen=[BARREL8])
    assert actions(out)[0] == {"type": "fall", "player": "cy", "fallen": [BARREL8], "caught": []}
    view = t.view
    assert view["ship"]["8"] == [] and view["turn"] == "ann"  # RR11: cy's turn is over
    assert view["players"]["cy"]["items"]["barrel"] == 2  # RR13: to the active player
    assert t.settle_deadline_ms is None
    (line,) = [f for f in kinds(out, fx.FEED) if "reports" in f["text"]]
    assert line["text"].startswith("ann reports what the ship did not feel: barrel (zone 8)")
    assert line["rule"] == "RR11"


def test_rr14_a_reported_fall_before_the_new_player_loaded_is_the_previous_players():
    t = table(settle_s=0)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)  # "immediately": bob's turn is over, cy's is open
    assert (t.view["turn"], t.view["pieces_loaded"]) == ("cy", 0)
    out = report(t, seat="cy", caught=[BARREL8])
    assert actions(out)[0]["player"] == "bob"
    view = t.view
    assert view["turn"] == "cy" and view["ship"]["8"] == []  # her turn goes on
    assert view["boxed"] == 1  # RR14: what is caught in a late fall is boxed
    (line,) = [f for f in kinds(out, fx.FEED) if "reports" in f["text"]]
    assert "late fall" in line["text"] and "cy's turn goes on" in line["text"]
    assert line["rule"] == "RR14"


@pytest.mark.parametrize(
    "fate, field, boxed",
    [("caught", "caught", 0), ("fallen", "fallen", 0)],
)
def test_rr12_rr13_the_piece_being_loaded_toppled_off_back_to_the_supply(fate, field, boxed):
    t = table()
    choose(t, ann=3, bob=8, cy=5)
    supply = dict(t.view["players"]["bob"]["items"])
    out = report(t, seat="cy", toppled={"item": "crate", "fate": fate})
    load, fall = actions(out)[:2]
    assert load == {"type": "load", "player": "bob", "zone": 8, "item": "crate"}
    assert fall["player"] == "bob" and fall[field] == [P("crate", 8)]
    view = t.view
    assert view["turn"] == "cy" and view["ship"]["8"] == []  # RR11
    assert view["players"]["bob"]["items"] == supply and view["boxed"] == boxed  # RR12, RR13
    (line,) = [f for f in kinds(out, fx.FEED) if "reports" in f["text"]]
    assert "bob's crate toppled off as it was let go" in line["text"]


def test_rr12_with_the_box_variant_the_caught_piece_being_loaded_is_boxed():
    t = table()
    t.replay([{**t.match.log[0], "own_catch": "box"}])
    choose(t, ann=3, bob=8, cy=5)
    report(t, toppled={"item": "crate", "fate": "caught"})
    assert t.view["boxed"] == 1 and t.view["players"]["bob"]["items"]["crate"] == 0


@pytest.mark.parametrize(
    "request_parts, why",
    [
        ({}, "name what fell"),
        ({"fallen": [P("rat", 5)]}, "does not fit the game"),  # no rat on zone 5
        ({"fallen": [{"item": "rat"}]}, "needs the zone it left"),
        ({"fallen": "barrel"}, "must be a list"),
        ({"caught": [P("anchor", 8)]}, "anchor"),
        ({"toppled": "crate"}, "toppled must be"),
        ({"toppled": {"item": "anchor"}}, "toppled.item"),
        ({"toppled": {"item": "crate", "fate": "kept"}}, "toppled.fate"),
        ({"toppled": {"item": "crate", "fate": "caught", "zone": 3}}, "toppled must be"),
    ],
)
def test_a_report_that_does_not_fit_is_refused_and_changes_nothing(request_parts, why):
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)  # bob's window runs: his one piece is loaded
    log, deadline = list(t.match.log), t.settle_deadline_ms
    with pytest.raises(Rejected, match=why):
        report(t, **request_parts)
    assert t.match.log == log and t.settle_deadline_ms == deadline


def test_no_piece_is_being_loaded_between_turns_or_once_the_turns_pieces_are_down():
    t = table(settle_s=3)
    with pytest.raises(Rejected, match="nothing has been loaded"):
        report(t, fallen=[BARREL8])  # cards are being chosen, the ship is empty
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    with pytest.raises(Rejected, match="no piece is being loaded"):
        report(t, toppled={"item": "rat", "fate": "fallen"})
    assert t.view["ship"]["8"] == ["barrel"]


def test_a_report_waits_while_the_ship_feels_a_fall_and_while_it_is_offline():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)
    t.on_ship_event({"type": "leaving", "grams": 3.0, "zones": [8]}, 200)
    with pytest.raises(Rejected, match="feeling a fall"):
        report(t, fallen=[BARREL8])
    t2 = table()
    choose(t2, ann=3, bob=8, cy=5)
    place(t2, 8, "barrel", 100)
    t2.on_status(False, 200)
    with pytest.raises(Rejected, match="offline"):
        report(t2, fallen=[BARREL8])
    assert t.view["ship"]["8"] == t2.view["ship"]["8"] == ["barrel"]


def test_the_charged_player_undoes_a_report_the_reporter_cannot_and_a_replay_agrees():
    t = table(settle_s=3)
    barrel_then_rat(t)
    report(t, seat="bob", fallen=[BARREL8])
    with pytest.raises(Rejected, match="only cy"):
        t.on_input("bob", {"type": "undo", "reason": "I was wrong"}, 6000)
    again = table(settle_s=3)
    barrel_then_rat(again)
    report(again, seat="bob", fallen=[BARREL8])
    assert again.match.log == t.match.log  # the same inputs, the same game
    t.on_input("cy", {"type": "undo", "reason": "it is still there"}, 6000)
    assert t.view["ship"]["8"] == ["barrel"] and t.view["turn"] == "cy"


def test_after_the_game_is_over_a_report_is_refused():
    game = seven_rounds_ann_first()  # the engine's own game, played to its end (RR15)
    cards(game, ann=10, bob=9, cy=8)
    load(game, "ann", "rat")
    do(game, "end_turn", player="ann")
    t = table()
    t.replay(game.log)
    view = t.view
    assert view["phase"] == "over"
    zone, items = next((z, items) for z, items in view["ship"].items() if items)
    with pytest.raises(Rejected, match="game is over"):
        report(t, fallen=[P(items[0], int(zone))])
    assert t.match.log == game.log


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from(["rat", "crate", "x", ""]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
# pieces aboard (barrel on 8, rat on 5), one that is not, and one on no zone
PIECES = st.lists(
    st.sampled_from([BARREL8, P("rat", 5), P("rat", 8), P("crate", 11), {"item": "rat"}]),
    max_size=3,
)
FALL_REPORTS = st.fixed_dictionaries(
    {"type": st.just("report_fall")},
    optional={
        "fallen": PIECES | JSON,
        "caught": PIECES | JSON,
        "toppled": st.fixed_dictionaries(
            {"item": st.sampled_from(["crate", "boat", "anchor"])},
            optional={"fate": st.sampled_from(["fallen", "caught", "kept"])},
        )
        | JSON,
    },
)
LOAD_REPORTS = st.fixed_dictionaries(
    {"type": st.just("report_load")},
    optional={"item": st.sampled_from(["crate", "rat", "anchor"]) | JSON},
)


@settings(max_examples=200, deadline=None)
@given(FALL_REPORTS | LOAD_REPORTS, st.booleans())
def test_any_report_applies_whole_or_is_refused_and_changes_nothing(parts, loading):
    """Bad input gets a clear refusal and changes nothing; a report that applies leaves a
    game the engine accepts from its log alone."""
    t = table(settle_s=3)
    if loading:  # bob's barrel is on 8, cy is to load onto 5
        choose(t, ann=3, bob=8, cy=5)
        place(t, 8, "barrel", 100)
        t.on_timer(3100)
    else:  # pieces aboard on 8 and 5, cy's window open
        barrel_then_rat(t)
    log = list(t.match.log)
    try:
        tell(t, parts)
    except Rejected as why:
        assert str(why) and t.match.log == log
        return
    assert t.match.log[: len(log)] == log and t.match.log[len(log)]["type"] in ("load", "fall")
    again = table(settle_s=3)
    again.replay(t.match.log)
    assert again.view == t.view


def test_rr8_rr14_a_reported_load_is_the_turns_and_its_window_runs():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    out = t.on_input("cy", {"type": "report_load", "item": "crate"}, 700)
    assert actions(out) == [{"type": "load", "player": "bob", "zone": 8, "item": "crate"}]
    assert t.view["ship"]["8"] == ["crate"] and t.view["turn"] == "bob"
    assert t.settle_deadline_ms == 3700  # RR14: the three seconds from the report
    (line,) = [f for f in kinds(out, fx.FEED) if "reports" in f["text"]]
    assert (
        line["text"] == ("cy reports what the ship did not feel: bob loaded a crate on zone 8")
        and line["rule"] == "RR8"
    )
    (led,) = kinds(out, fx.LED)
    assert led["show"] == "countdown" and led["zone"] == 8
    assert actions(t.on_timer(3700)) == [{"type": "end_turn", "player": "bob"}]


def test_rr9_a_reported_first_of_two_pieces_leaves_the_turn_open():
    t = table(settle_s=0)
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "barrel", 100)  # bob's barrel: cy's turn on 5, then ann's on 3
    place(t, 5, "rat", 200)
    t.on_input("ann", {"type": "announce", "pieces": 1}, 250)
    place(t, 3, "boat", 300)
    choose(t, now_ms=400, ann=4, bob=5, cy=6)  # cy on 6, bob on 5 (holds cy's rat: RR9)
    place(t, 6, "rat", 500)
    assert (t.view["turn"], t.view["target_zone"]) == ("bob", 5)
    t.on_input("bob", {"type": "announce", "pieces": 2}, 600)
    out = t.on_input("bob", {"type": "report_load", "item": "chest"}, 700)
    view = t.view
    assert view["turn"] == "bob" and view["pieces_loaded"] == 1 and t.settle_deadline_ms is None
    assert actions(place(t, 5, "sailor", 900))[0]["item"] == "sailor"
    assert kinds(out, fx.LED)  # the ship still prompts for the second piece


@pytest.mark.parametrize(
    "request_parts, why",
    [
        ({"item": "anchor"}, "item must be one of"),
        ({"item": ["crate"]}, "item must be one of"),
        ({"item": "crate", "zone": 3}, "a load is reported as"),
        ({}, "item must be one of"),
    ],
)
def test_a_load_report_that_does_not_fit_is_refused_and_changes_nothing(request_parts, why):
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)
    log = list(t.match.log)
    with pytest.raises(Rejected, match=why):
        t.on_input("ann", {"type": "report_load", **request_parts}, 500)
    assert t.match.log == log and t.settle_deadline_ms is None


def test_a_load_is_reported_only_while_a_piece_is_to_be_loaded_and_from_the_supply():
    t = table(settle_s=3)
    with pytest.raises(Rejected, match="no piece is being loaded"):
        t.on_input("ann", {"type": "report_load", "item": "rat"}, 100)  # cards being chosen
    choose(t, ann=3, bob=8, cy=5)
    place(t, 8, "boat", 200)  # bob's one piece is down: his window runs
    with pytest.raises(Rejected, match="no piece is being loaded"):
        t.on_input("ann", {"type": "report_load", "item": "rat"}, 300)
    t.on_timer(3200)
    place(t, 5, "rat", 3300)
    t.on_timer(6300)
    place(t, 3, "rat", 6400)
    t.on_timer(9400)
    choose(t, now_ms=9500, ann=4, bob=9, cy=6)
    assert t.view["turn"] == "bob"
    with pytest.raises(Rejected, match="does not fit the game"):
        t.on_input("ann", {"type": "report_load", "item": "boat"}, 9600)  # his boat is aboard
    assert t.view["ship"]["9"] == [] and t.view["pieces_loaded"] == 0


def test_rr10_a_touch_on_the_turns_zone_with_no_piece_placed_points_to_the_report():
    t = table(settle_s=3)
    choose(t, ann=3, bob=8, cy=5)

    def said(zone):
        out = t.on_ship_event({"type": "touch", "grams": 9.0, "zones": [zone]}, 500)
        (line,) = kinds(out, fx.FEED)
        return line["text"]

    hint = said(8)  # bob's zone, his piece still to load: perhaps set down unfelt
    assert hint.startswith("a hand touched the ship on zone 8, and no piece came to rest")
    assert "if bob's piece rests there, the ship missed it; report it" in hint
    assert "report" not in said(7)  # another zone: a plain touch (RR10)
    place(t, 8, "barrel", 600)
    assert "report" not in said(8)  # his piece is down: a hand on it, not a missed piece
