"""Calibration takes in crosstalk: a weight on one zone shows a share on its neighbours' cells,
and `calibration.solve_scales` sets the zones' scales so that the weight reads right in total.

Calibrated one cell at a time, the neighbours' share came on top of the piece and its total
read heavy (up to a third with 15 % shares); the detector weighs a piece by its total.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bosun.web.calibration import shares_of
from shipcore import calibration

ZONES = 10
PAIRS = ((0, 1), (2, 3), (0, 2), (1, 3), (4, 5), (6, 7), (8, 9), (4, 6), (6, 8), (5, 7), (7, 9))


def response_matrix(seed: int, most: float, adds: bool) -> list[list[float]]:
    """R[j][z]: counts a gram on cell j with weight on zone z, for cells of random gain and
    shares up to `most` between neighbours; `adds`: the share comes on top (a cell bent by its
    neighbour's load) rather than out of the loaded cell's (a platform resting on two)."""
    rng = random.Random(seed)
    gain = [rng.choice((1, -1)) * rng.uniform(300.0, 500.0) for _ in range(ZONES)]
    share = [[0.0] * ZONES for _ in range(ZONES)]
    for a, b in PAIRS:
        share[a][b] = rng.uniform(0.0, most)
        share[b][a] = rng.uniform(0.0, most)
    grams = [[0.0] * ZONES for _ in range(ZONES)]  # true grams on cell j of a gram on zone z
    for z in range(ZONES):
        grams[z][z] = 1.0 if adds else 1.0 - sum(share[j][z] for j in range(ZONES))
        for j in range(ZONES):
            grams[j][z] += share[j][z]
    return [[gain[j] * grams[j][z] for z in range(ZONES)] for j in range(ZONES)]


def calibrated(matrix: list[list[float]], zones: range) -> calibration.Calibration:
    cal = calibration.Calibration(ZONES, 420.0)
    for z in zones:
        cal.response[z] = [matrix[j][z] for j in range(ZONES)]
    return cal


def total_g(cal: calibration.Calibration, matrix: list[list[float]], zone: int) -> float:
    """What a gram on `zone` reads over all zones."""
    return sum(matrix[j][zone] / cal.counts_per_g[j] for j in range(ZONES))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), most=st.floats(0.0, 0.15), adds=st.booleans())
def test_every_calibrated_zone_reads_a_weight_right_in_total(seed, most, adds):
    matrix = response_matrix(seed, most, adds)
    cal = calibrated(matrix, range(ZONES))
    assert calibration.solve_scales(cal) is None
    for zone in range(ZONES):
        assert total_g(cal, matrix, zone) == pytest.approx(1.0, abs=1e-6)


def test_one_cell_at_a_time_read_a_piece_heavy_where_the_share_adds():
    """What the scales solve: the old way, each zone's own cell alone."""
    matrix = response_matrix(3, 0.15, adds=True)
    own = calibration.Calibration(ZONES, 420.0)
    own.counts_per_g = [matrix[z][z] for z in range(ZONES)]
    heavy = max(total_g(own, matrix, z) for z in range(ZONES))
    assert heavy > 1.15
    solved = calibrated(matrix, range(ZONES))
    assert calibration.solve_scales(solved) is None
    assert max(total_g(solved, matrix, z) for z in range(ZONES)) == pytest.approx(1.0)


def test_zones_not_yet_calibrated_keep_their_scale_and_count_at_it():
    matrix = response_matrix(5, 0.1, adds=False)
    cal = calibrated(matrix, range(4))  # the deck calibrated, the yards not yet
    cal.counts_per_g[4:] = [matrix[j][j] for j in range(4, ZONES)]
    before = list(cal.counts_per_g)
    assert calibration.solve_scales(cal) is None
    assert cal.counts_per_g[4:] == before[4:]
    for zone in range(4):  # zone 1 shares with zone 5 (a yard): that share counts at its scale
        assert total_g(cal, matrix, zone) == pytest.approx(1.0, abs=1e-6)


def test_responses_that_cannot_be_told_apart_or_move_a_scale_far_are_refused_unchanged():
    twins = calibration.Calibration(ZONES, 420.0)
    twins.response[0] = [400.0, 400.0] + [0.0] * 8
    twins.response[1] = [400.0, 400.0] + [0.0] * 8
    assert "do not tell the zones apart" in calibration.solve_scales(twins)
    assert twins.counts_per_g == [420.0] * (ZONES + 1)
    lopsided = calibration.Calibration(ZONES, 420.0)
    lopsided.response[0] = [400.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    lopsided.response[0][1] = 420.0 * 0.5  # half the weight read on zone 2 at its scale
    assert "zone 1's own cell would read 0.50 of a weight on it" in calibration.solve_scales(
        lopsided
    )
    assert lopsided.counts_per_g == [420.0] * (ZONES + 1)


def test_nothing_measured_changes_nothing():
    cal = calibration.Calibration(ZONES, 420.0)
    assert calibration.solve_scales(cal) is None
    assert cal.counts_per_g == [420.0] * (ZONES + 1)


@pytest.mark.parametrize(
    "value, kept",
    [
        ({"2": 0.08, "5": -0.012}, {"2": 0.08, "5": -0.012}),
        ({"2": 0.0812345}, {"2": 0.081}),
        (None, {}),
        ([0.08], {}),
        ({"z2": 0.08, "3": "8 %", "4": True, "6": 1.5, "7": float("nan")}, {}),
    ],
)
def test_the_wizard_keeps_only_zone_shares_the_ship_could_have_measured(value, kept):
    """A calibrate result's `shares` come from the ship over MQTT: junk is dropped."""
    assert shares_of(value) == kept
