"""The detector's tuning follows the ship's one description (issue 11)."""

from __future__ import annotations

from shipsense.detector_tuning import LANDING_MS, derive_landing_ms, landing_ms
from shipsense.geometry import BELOW, ZONE_HEIGHT_M, ZONES, drop_ms


def test_the_landing_clocks_are_the_geometry_s_free_falls_plus_tumbling():
    assert derive_landing_ms() == LANDING_MS
    for zone in ZONES:
        if zone in BELOW:
            drop_m = ZONE_HEIGHT_M[zone] - min(ZONE_HEIGHT_M[z] for z in BELOW[zone])
            assert abs(landing_ms(zone) - 1.08 * drop_ms(drop_m)) <= 0.5
        else:
            assert landing_ms(zone) == 0  # the deck: nothing below to land on
    assert landing_ms(11) == landing_ms(10)  # extra channels take the top yard's clock


def test_deriving_the_clocks_changed_no_window_at_the_hx711_s_two_rates():
    # the hand-written table said 183 ms for zones 5-6 (the free fall gives 182.46 ms): the
    # landing windows in samples are the same at 10 and 80 SPS, so no event changes
    from shipsense.detector import Detector

    by_hand = (0, 0, 0, 0, 183, 183, 223, 223, 258, 258)
    for rate_hz, slow_n in ((80, 0), (10, 2)):
        detector = Detector(rate_hz=rate_hz)
        for zone in range(10):
            n = int((by_hand[zone] + 20) * rate_hz / 1000.0 + 0.5)
            assert detector.landing_n[zone] == max(1, n) + slow_n
