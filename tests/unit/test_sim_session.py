"""Random sessions: every effect shows up, and the truth adds up to what the sensors weigh."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from bosun.sim import ShipParams, VirtualShip, random_session
from bosun.sim.params import SensorParams, SwayParams


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_two_minute_session_shows_every_effect(level):
    ship = VirtualShip(ShipParams.draw(level, 21, rate_sps=10), 21)
    samples = list(random_session(ship, level, 120, 21))
    truth = ship.truth_json()
    kinds = Counter(r["type"] for r in truth)
    assert {"place", "fall", "shift", "touch", "knock", "collect"} <= set(kinds)
    assert kinds["place"] >= 10
    pieces = [p for r in truth if r["type"] == "fall" for p in r["pieces"]]
    assert {p["outcome"] for p in pieces} == {"landed", "caught", "bounced"}
    several = [r["pieces"] for r in truth if r["type"] == "fall" and len(r["pieces"]) > 1]
    gaps = [b["leave_ms"] - a["leave_ms"] for f in several for a, b in zip(f, f[1:], strict=False)]
    assert min(gaps) < 100 <= max(gaps)  # together, and one after another
    assert any(s.impact for s in samples) and any(
        r["press_g"] > 0 for r in truth[1:] if "press_g" in r
    )
    idle = [b["t_ms"] - a["t_ms"] for a, b in zip(truth, truth[1:], strict=False)]
    assert max(idle) > 5000  # an idle period


@pytest.mark.parametrize("level, seed", [("normal", 1), ("hard", 2), ("hard", 3)])
def test_rr13_the_truth_adds_up_to_what_the_cells_weigh(level, seed):
    """Replay the truth: what it says is aboard and on the mat is what the sensors show."""
    drawn = ShipParams.draw(level, seed, rate_sps=80)
    exact = SensorParams(crosstalk=drawn.sensors.crosstalk)  # no noise, drift, creep, glitches
    ship = VirtualShip(replace(drawn, sensors=exact, sway=SwayParams()), seed)
    *_, last = random_session(ship, level, 90, seed)
    where: dict[str, tuple[str, int | None]] = {}
    grams: dict[str, float] = {}
    for record in ship.truth_json():
        if record["type"] == "place":
            where[record["piece"]] = ("zone", record["zone"])
            grams[record["piece"]] = record["grams"]
        elif record["type"] == "shift":
            assert where[record["piece"]] == ("zone", record["from"])
            where[record["piece"]] = ("zone", record["to"])
        elif record["type"] == "fall":
            for piece in record["pieces"]:
                assert where[piece["piece"]] == ("zone", piece["zone"])
                where[piece["piece"]] = (
                    ("mat", None) if piece["outcome"] == "landed" else ("off", None)
                )
        elif record["type"] == "collect":
            for piece in record["pieces"]:
                assert where.pop(piece) == ("mat", None)
    aboard = {piece: spot[1] for piece, spot in where.items() if spot[0] == "zone"}
    assert aboard == {p.id: p.zone for p in ship.aboard()}
    mat_g = sum(grams[piece] for piece, spot in where.items() if spot[0] == "mat")
    assert last.table_g == pytest.approx(mat_g, abs=1e-6)
    assert sum(last.zones_g) == pytest.approx(sum(grams[p] for p in aboard), abs=1e-6)
    own = [sum(grams[p] for p, z in aboard.items() if z == zone) for zone in range(1, 11)]
    expected = list(own)
    for zone_a, zone_b, fraction in drawn.sensors.crosstalk:  # a few percent to neighbours
        a, b = zone_a - 1, zone_b - 1
        expected[a] += fraction * (own[b] - own[a])
        expected[b] += fraction * (own[a] - own[b])
    assert list(last.zones_g) == pytest.approx(expected, abs=1e-6)
