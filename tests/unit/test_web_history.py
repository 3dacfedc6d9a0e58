"""Games from the log: turns, rounds, falls by zone, hidden cards, sensor windows, stats."""

from __future__ import annotations

from bosun.games.riffraff.statistics import compute_stats
from bosun.store import Entry
from bosun.web.history import public_timeline, replay_game, sensor_moments

SETUP = {"type": "setup", "game": "riffraff", "players": ["ann", "bob", "cy"], "captain": "ann"}


def timed(*actions: dict, start_ms: int = 1000, step_ms: int = 1000) -> list[tuple[int, dict]]:
    return [(start_ms + i * step_ms, a) for i, a in enumerate(actions)]


def card(player: str, value: int) -> dict:
    return {"type": "card", "player": player, "value": value}


def load(player: str, zone: int, item: str) -> dict:
    return {"type": "load", "player": player, "zone": zone, "item": item}


def end(player: str) -> dict:
    return {"type": "end_turn", "player": player}


ROUND_ONE = [
    SETUP,
    card("ann", 9),
    card("bob", 5),
    card("cy", 3),
    load("ann", 9, "barrel"),
    end("ann"),
    load("bob", 5, "rat"),
    end("bob"),
    load("cy", 3, "boat"),
    end("cy"),
]


def test_turns_follow_the_card_order_with_their_times_and_loads():
    replayed = replay_game(timed(*ROUND_ONE), running=True)
    turns = [(t.player, t.zone, t.card, [x["item"] for x in t.loads]) for t in replayed.turns]
    # RR5/RR6: highest card first, then descending; RR8: each loads on their card's zone
    assert turns == [("ann", 9, 9, ["barrel"]), ("bob", 5, 5, ["rat"]), ("cy", 3, 3, ["boat"])]
    ann = replayed.turns[0]
    assert (ann.start_ms, ann.end_ms) == (4000, 6000)  # from the reveal to end_turn
    assert replayed.rounds[0]["cards"][0] == {"at_ms": 2000, "player": "ann", "value": 9}
    assert replayed.rounds[0]["revealed_ms"] == 4000


def test_a_card_chosen_before_the_reveal_stays_hidden_in_a_running_game():
    actions = [*ROUND_ONE, card("bob", 7)]  # round 2: only bob has chosen (RR4)
    running = public_timeline(replay_game(timed(*actions)), running=True)
    hidden = running["rounds"][1]["cards"]
    assert hidden == [{"at_ms": hidden[0]["at_ms"], "player": "bob", "value": None, "hidden": True}]
    revealed = running["rounds"][0]["cards"]
    assert [c["value"] for c in revealed] == [9, 5, 3]  # RR7: the last round's lie face up
    assert (
        public_timeline(replay_game(timed(*actions)), True, viewer="bob")["rounds"][1]["cards"][0][
            "value"
        ]
        == 7
    )  # his own
    finished = public_timeline(replay_game(timed(*actions)), running=False)
    assert finished["rounds"][1]["cards"][0]["value"] == 7  # a finished game hides nothing


ROUND_TWO = [card("ann", 4), card("bob", 8), card("cy", 2)]


def test_rr7_a_running_games_timeline_shows_only_the_last_revealed_rounds_cards():
    actions = [*ROUND_ONE, *ROUND_TWO, load("bob", 8, "crate")]
    replayed = replay_game(timed(*actions))
    timeline = public_timeline(replayed, running=True)
    first, second = timeline["rounds"]
    assert [c["value"] for c in first["cards"]] == [None, None, None]  # face down (RR7)
    assert [c["value"] for c in second["cards"]] == [4, 8, 2]
    earlier = [t for t in timeline["turns"] if t["round"] == 1]
    # RR8: a turn's zone is its card, so neither is shown for an earlier round
    assert {(t["card"], t["zone"]) for t in earlier} == {(None, None)}
    assert {load["zone"] for t in earlier for load in t["loads"]} == {None}
    (bob,) = [t for t in timeline["turns"] if t["round"] == 2]
    assert (bob["card"], bob["zone"], bob["loads"][0]["zone"]) == (8, 8, 8)
    # each player still sees their own cards of the cycle
    ann = public_timeline(replayed, running=True, viewer="ann")
    assert [c["value"] for c in ann["rounds"][0]["cards"]] == [9, None, None]
    assert [t["zone"] for t in ann["turns"] if t["round"] == 1] == [9, None, None]
    # once the game is over everything is public again
    over = public_timeline(replayed, running=False)
    assert [c["value"] for c in over["rounds"][0]["cards"]] == [9, 5, 3]
    # the replay itself kept every card: only the filter hides them
    assert [c["value"] for c in replayed.rounds[0]["cards"]] == [9, 5, 3]


def test_rr14_a_late_fall_belongs_to_the_turn_of_the_player_it_fell_to():
    late = {"type": "fall", "player": "ann", "fallen": [{"item": "barrel", "zone": 9}]}
    actions = [*ROUND_ONE[:6], late, *ROUND_ONE[6:]]  # after ann's turn, in bob's
    replayed = replay_game(timed(*actions))
    (fall,) = replayed.falls
    assert fall["late"] and fall["fallen"] == ["barrel"] and fall["zones"] == {"9": ["barrel"]}
    ann, bob, _ = replayed.turns
    assert ann.falls == [fall] and bob.falls == []
    assert bob.loads[0]["item"] == "rat" and bob.end_ms is not None  # his turn went on


def test_a_shift_is_a_line_of_the_timeline():
    shift = {"type": "shift", "item": "barrel", "from": 9, "to": 7}
    replayed = replay_game(timed(*ROUND_ONE, shift))
    assert replayed.events[-1]["text"] == "a barrel moved from zone 9 to zone 7"
    assert replayed.view["ship"]["7"] == ["barrel"]


def test_a_fall_is_counted_on_the_zones_it_left_and_belongs_to_the_turn():
    actions = [
        *ROUND_ONE,
        card("ann", 5),
        card("bob", 9),
        card("cy", 2),
        {"type": "announce", "player": "bob", "pieces": 2},  # RR9: zone 9 holds ann's barrel
        load("bob", 9, "crate"),
        # the barrel (aboard zone 9) and the crate fall; the crate is caught (RR12, RR13)
        {"type": "fall", "player": "bob", "fallen": ["barrel"], "caught": ["crate"]},
    ]
    replayed = replay_game(timed(*actions), running=True)
    assert len(replayed.falls) == 1
    fall = replayed.falls[0]
    assert fall["zones"] == {"9": ["barrel", "crate"]}
    bob = [t for t in replayed.turns if t.player == "bob" and t.round == 2][0]
    assert bob.announced == 2
    assert bob.falls == [fall]
    assert bob.end_ms == fall["at_ms"]  # RR11: the fall ends the turn at once


def test_a_load_window_is_centred_on_the_place_event_it_was_decided_from():
    # the log: action entries have even ids; ann's load (id 10) was decided from entry 9
    actions = [(1000 + i * 1000, a, 2 * (i + 1)) for i, a in enumerate(ROUND_ONE)]
    replayed = replay_game(actions, running=True)
    place = Entry(
        id=9,
        table_id="t1",
        game_id="g",
        kind="ship_event",
        payload={"type": "place", "t_ms": 12_345.0, "zone": 9, "grams": 6.1},
        boot="b1",
        seq=1,
        at_ms=5000,
    )
    typed = Entry(  # bob's load came from a person's answer, not from the ship
        id=11, table_id="t1", game_id="g", kind="input", payload={}, boot=None, seq=None, at_ms=7000
    )
    turns = public_timeline(replayed, running=False)["turns"]
    moments = sensor_moments(turns, replayed.falls, [place, typed])
    assert len(moments) == 1
    ann = moments[0]
    assert (ann["player"], ann["boot"], ann["t_ms"], ann["zones"]) == ("ann", "b1", 12_345.0, [9])
    assert ann["from_t_ms"] < 12_345.0 < ann["to_t_ms"]


def test_a_fall_people_reported_has_no_sensor_moment_a_felt_one_has():
    # round 2: bob's crate falls; the ship felt the fall (entry 29) in one game, and in the
    # other nobody's sensor did and ann reported it from her page (entry 29, an input)
    actions = [*ROUND_ONE, card("ann", 5), card("bob", 9), card("cy", 2), load("bob", 9, "crate")]
    fall = {"type": "fall", "player": "bob", "fallen": [{"item": "crate", "zone": 9}], "caught": []}
    timed_log = [(1000 + i * 1000, a, 2 * (i + 1)) for i, a in enumerate([*actions, fall])]
    replayed = replay_game(timed_log, running=False)
    turns = public_timeline(replayed, running=False)["turns"]
    at_ms = timed_log[-1][0]

    def entry(id_, kind, payload, boot=None):
        return Entry(
            id=id_,
            table_id="t1",
            game_id="g",
            kind=kind,
            payload=payload,
            boot=boot,
            seq=None,
            at_ms=at_ms - 200,
        )

    felt = entry(
        29, "ship_event", {"type": "fall", "t_ms": 50_000.0, "grams": 7.6, "zones": [9]}, "b1"
    )
    (moment,) = [m for m in sensor_moments(turns, replayed.falls, [felt]) if m["kind"] == "fall"]
    assert (moment["boot"], moment["t_ms"], moment["zones"]) == ("b1", 50_000.0, [9])
    report = {"type": "report_fall", "fallen": [{"item": "crate", "zone": 9}]}
    told = entry(29, "input", {"seat": "ann", "request": report})
    earlier = entry(
        27, "ship_event", {"type": "fall", "t_ms": 48_000.0, "grams": 2.6, "zones": [5]}, "b1"
    )
    moments = sensor_moments(turns, replayed.falls, [earlier, told])
    assert [m for m in moments if m["kind"] == "fall"] == []  # not the unrelated earlier fall


def test_stats_count_falls_by_zone_and_item_and_win_rates_of_finished_games():
    fall_game = [
        *ROUND_ONE,
        card("ann", 5),
        card("bob", 9),
        card("cy", 2),
        load("bob", 9, "crate"),
        {"type": "fall", "player": "bob", "fallen": ["barrel"], "caught": ["crate"]},
    ]
    won = replay_game(timed(*ROUND_ONE), running=False)
    fell = replay_game(timed(*fall_game), running=False)
    stats = compute_stats(
        [
            (["ann", "bob", "cy"], ["ann"], won),
            (["ann", "bob", "cy"], ["bob", "cy"], fell),  # RR16: tied players all win
            (["cy", "ann", "bob"], [], won),  # abandoned: no winner, not in the win rates
        ]
    )
    zone9 = stats["falls_by_zone"][8]
    assert zone9 == {"zone": 9, "falls": 1, "pieces": 2}
    by_item = {row["item"]: row for row in stats["falls_by_item"]}
    assert (by_item["barrel"]["fallen"], by_item["crate"]["caught"]) == (1, 1)
    assert stats["finished"] == 2
    seats = {row["seat"]: row for row in stats["wins_by_seat"]}
    assert (seats[1]["wins"], seats[1]["games"], seats[1]["rate"]) == (1, 2, 0.5)
    players = {row["player"]: row for row in stats["wins_by_player"]}
    assert players["cy"] == {"player": "cy", "games": 2, "wins": 1, "rate": 0.5}
    # every ended turn counts: 3 per game in round 1, and bob's turn ended by his fall
    assert stats["turn_time"]["turns"] == 3 + 4 + 3
    assert stats["turn_time"]["mean_ms"] > 0


def test_mb6_a_montego_bay_timeline_hides_cards_not_yet_revealed_while_it_runs():
    from bosun.games.match import Match

    match = Match()
    match.submit({"type": "setup", "game": "montego-bay", "players": ["ann", "bob"], "seed": 3})
    for player in ("ann", "bob"):
        match.submit({"type": "hire", "player": player, "worker": None})
    match.submit({"type": "cards", "player": "ann", "big": 3, "little": 4})
    lines = [{"player": "ann", "value": {"big": 3, "little": 4}}]
    timeline = {"rounds": [{"round": 1, "cards": lines}], "turns": []}
    running = match.game.timeline_view(match.state, timeline, running=True)
    assert running["rounds"][0]["cards"] == [{"player": "ann", "value": None, "hidden": True}]
    own = match.game.timeline_view(match.state, timeline, running=True, viewer="ann")
    assert own["rounds"][0]["cards"][0]["value"] == {"big": 3, "little": 4}
    over = match.game.timeline_view(match.state, timeline, running=False)
    assert over["rounds"][0]["cards"][0]["value"] == {"big": 3, "little": 4}
    assert timeline["rounds"][0]["cards"] == lines  # the filter copies, never edits
