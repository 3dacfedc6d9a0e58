"""The virtual ship's streaming API: decide as you go or schedule ahead, exact time, bad calls."""

from __future__ import annotations

import pytest

from bosun.sim import ShipParams, VirtualShip, random_session, scripted_session


def hard_ship(seed: int = 5, rate: int = 80, table: str = "both") -> VirtualShip:
    return VirtualShip(ShipParams.draw("hard", seed, rate_sps=rate, table=table), seed)


def test_the_same_seed_gives_the_same_trace_and_truth():
    first, second, other = hard_ship(5), hard_ship(5), hard_ship(6)
    runs = [list(random_session(ship, "hard", 30, 5)) for ship in (first, second)]
    assert runs[0] == runs[1]
    assert first.truth_json() == second.truth_json()
    assert list(random_session(other, "hard", 30, 6)) != runs[0]


def test_scheduling_ahead_and_deciding_as_we_go_give_the_same_trace():
    ahead, live = hard_ship(), hard_ship()
    ahead.place(7, "boat", at_ms=1000.0)
    ahead_samples = [ahead.next_sample() for _ in range(400)]
    live_samples = []
    while len(live_samples) < 400:
        if live.now_ms == 987.5:  # the last sample before 1000 ms: the bot decides now
            live.place(7, "boat", at_ms=1000.0)
        live_samples.append(live.next_sample())
    assert ahead_samples == live_samples
    assert ahead.truth_json() == live.truth_json()


def test_a_bot_learns_when_its_action_is_over():
    ship = hard_ship()
    placed = ship.place(9, "rat")
    assert not ship.settled and ship.busy_until_ms == placed.done_ms > placed.t_ms
    while not ship.settled:
        ship.next_sample()
    assert ship.now_ms >= placed.done_ms
    fall = ship.fall(ship.find(9, "rat"), "landed")
    landed_ms = fall.pieces[0].land_ms
    assert fall.done_ms > landed_ms > fall.t_ms  # done once it has landed and rung out
    while ship.now_ms < fall.done_ms:
        ship.next_sample()
    assert ship.settled and [p.id for p in ship.on_mat()] == [placed.piece]


def test_a_virtual_board_reads_at_its_own_pace_and_gets_the_latest_conversion():
    ship, regular = hard_ship(rate=80), hard_ship(rate=80)
    for each in (ship, regular):
        each.place(3, "chest", press_g=0.0)
    conversions = [regular.next_sample() for _ in range(200)]
    readings = [ship.sample_at(t_ms) for t_ms in (5.0, 19.7, 24.9, 1500.0, 1512.3)]
    assert [r.t_ms for r in readings] == [0.0, 12.5, 12.5, 1500.0, 1500.0]
    assert readings[3] == conversions[120]  # skipped conversions happened all the same
    with pytest.raises(ValueError, match="before the last reading"):
        ship.sample_at(1000.0)
    assert ship.next_sample() == conversions[121]


def test_forces_at_peeks_without_changing_what_comes_next():
    ship, untouched = hard_ship(), hard_ship()
    for each in (ship, untouched):
        each.place(9, "boat", press_g=5.0)
        for _ in range(40):
            each.next_sample()
    peeked = [ship.forces_at(t_ms) for t_ms in (2000.0, 600.0, 3000.0)]
    assert peeked[0] != peeked[2] and len(peeked[0]) == 11
    assert [ship.next_sample() for _ in range(300)] == [untouched.next_sample() for _ in range(300)]
    with pytest.raises(ValueError, match="before the ship's clock"):
        ship.forces_at(100.0)


def test_time_stays_exact_over_a_six_hour_session():
    ship = hard_ship(rate=80)
    ship._next_index = 6 * 3600 * 80  # as after six hours of samples (1.7 million)
    assert [ship.next_sample().t_ms for _ in range(3)] == [21_600_000.0, 21_600_012.5, 21_600_025.0]
    placed = ship.place(1, "plank", at_ms=21_600_040.0)
    assert placed.start_ms == 21_600_040.0
    while ship.now_ms < placed.done_ms + 100:
        sample = ship.next_sample()
    assert sample.zones_g[0] == pytest.approx(placed.grams, abs=3.0)


def test_scripted_session_applies_actions_at_their_times():
    ship = VirtualShip(ShipParams.quiet(), seed=1)
    script = [
        {"at_ms": 3000, "action": "fall", "pieces": [[7, "barrel"]], "outcomes": ["caught"]},
        {"at_ms": 200, "action": "place", "zone": 7, "item": "barrel", "press_g": 0},
        {"at_ms": 5000, "action": "knock"},
    ]
    samples = list(scripted_session(ship, script, 6))
    assert len(samples) == 480
    kinds = [(r["type"], r.get("start_ms", r["t_ms"])) for r in ship.truth_json()]
    assert kinds == [("place", 200.0), ("fall", pytest.approx(3000.0, abs=50)), ("knock", 5000.0)]
    with pytest.raises(ValueError, match="script action 1: action must be one of"):
        list(scripted_session(VirtualShip(ShipParams.quiet()), [{"at_ms": 0, "action": "fly"}], 1))
    bad_fall = [{"at_ms": 10, "action": "fall", "pieces": [[4, None]]}]
    with pytest.raises(ValueError, match="script action 1: nothing aboard zone 4"):
        list(scripted_session(VirtualShip(ShipParams.quiet()), bad_fall, 1))


@pytest.mark.parametrize(
    "call, complaint",
    [
        (lambda s: s.place(11, "rat"), "zone must be a whole number 1-10, not 11"),
        (lambda s: s.place(True, "rat"), "zone must be a whole number 1-10"),
        (lambda s: s.place(3, "anchor"), "unknown item 'anchor'"),
        (lambda s: s.place(3, "rat", press_g=-1.0), "press_g must be 0-500 g"),
        (lambda s: s.fall("rat#1"), "rat#1 is not aboard"),
        (lambda s: s.fall("rat#99"), "no such piece"),
        (lambda s: s.fall(s.find(5), "vanished"), "outcome must be one of landed, caught, bounced"),
        (lambda s: s.fall([s.find(5), s.find(5)]), "named twice"),
        (lambda s: s.fall([s.find(5), s.find(9)], gaps_ms=[]), "gaps_ms needs 1 gap"),
        (lambda s: s.fall(s.find(5), ["landed", "landed"]), "1 pieces fall but 2 outcomes"),
        (lambda s: s.collect(), "nothing on the mat"),
        (lambda s: s.touch(zones=[]), "at least one zone"),
        (lambda s: s.knock(at_ms=float("nan")), "at_ms must be a finite number"),
        (lambda s: s.preload(1, "rat"), "only possible before the first sample"),
    ],
)
def test_bad_calls_are_refused_with_a_clear_reason_and_change_nothing(call, complaint):
    ship = VirtualShip(ShipParams.quiet(), seed=2)
    ship.preload(5, "sailor")
    ship.preload(9, "crate")
    ship.next_sample()
    before = ([(p.id, p.where, p.zone) for p in ship.pieces], ship.truth_json())
    with pytest.raises(ValueError, match=complaint):
        call(ship)
    assert ([(p.id, p.where, p.zone) for p in ship.pieces], ship.truth_json()) == before


def test_actions_cannot_start_in_the_past_or_on_a_piece_still_moving():
    ship = VirtualShip(ShipParams.quiet(), seed=2)
    for _ in range(100):
        ship.next_sample()
    with pytest.raises(ValueError, match="in the past"):
        ship.knock(at_ms=10.0)
    placed = ship.place(6, "boat")
    with pytest.raises(ValueError, match="boat#1 is still moving"):
        ship.fall(placed.piece, at_ms=ship.now_ms)
    ship.fall(placed.piece, at_ms=placed.t_ms)  # from the moment the hand has left it


def test_the_supply_runs_out_like_a_real_set():
    ship = VirtualShip(ShipParams.quiet(), seed=3)
    for zone in (1, 2, 3, 4):
        ship.place(zone, "rat")
    with pytest.raises(ValueError, match="no rat left in the supply"):
        ship.place(5, "rat")
    weights = sorted(p.grams for p in ship.pieces if p.item == "rat")
    assert weights == [2.6] * 4  # quiet: no scatter
    scattered = VirtualShip(ShipParams.draw("hard", 3), seed=3)
    rats = [p.grams for p in scattered.pieces if p.item == "rat"]
    assert len(set(rats)) == 4 and all(abs(w - 2.6) <= 2.6 * 0.09 for w in rats)
