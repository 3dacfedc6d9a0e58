"""Where the ten zones sit on the ship (RR1): heights, levers for sway, neighbours, what is below.

The one description of the ship's shape: the simulator, the detector and the referee read it
here (the ESP32 runs this file too, so it keeps to MicroPython's subset).

Zones (RR1): 1-4 are the hull deck's quarters, 5-10 sit on the mast's three yards, two zones
a yard (5-6 lowest, 7-8 middle, 9-10 top). bosun's layout choice, binding for the simulator:
1 = fore-port, 2 = fore-starboard, 3 = aft-port, 4 = aft-starboard; on every yard the odd
zone is port, the even zone starboard. A piece knocked off a yard drops onto a lower zone on
the same side (a `shift`), or off the ship onto the table (a `fall`).
"""

import math

from shipsense.ship_messages import MAX_EVENT_ZONES

ZONES = tuple(range(1, MAX_EVENT_ZONES + 1))
HULL_ZONES = (1, 2, 3, 4)
YARD_ZONES = (5, 6, 7, 8, 9, 10)
HARBOUR_DOCKS = HULL_ZONES  # Montego Bay's harbour: dock n is zone n, the hull's four cells
MAT_CHANNEL = 10  # channels 0..9 are zones 1..10, channel 10 is the table mat

GRAVITY_M_S2 = 9.81

# Height of each zone's surface above the table. Chosen so that a piece from the top yard
# needs ~250 ms to reach the deck (239 ms) or the table (263 ms), as on the real ship.
ZONE_HEIGHT_M = {1: 0.06, 2: 0.06, 3: 0.06, 4: 0.06, 5: 0.20, 6: 0.20}
ZONE_HEIGHT_M.update({7: 0.27, 8: 0.27, 9: 0.34, 10: 0.34})

# Lever of each zone's load cell about the ball joint: (port -1 .. starboard +1, aft -1 ..
# fore +1). Higher yards swing further. Each column sums to zero, so sway moves load between
# zones and leaves the total unchanged.
ZONE_LEVER = {
    1: (-1.0, 1.0),
    2: (1.0, 1.0),
    3: (-1.0, -1.0),
    4: (1.0, -1.0),
    5: (-1.0, 0.0),
    6: (1.0, 0.0),
    7: (-1.3, 0.0),
    8: (1.3, 0.0),
    9: (-1.6, 0.0),
    10: (1.6, 0.0),
}

# Zones a piece from this yard zone can drop onto while staying aboard (same side, lower).
BELOW = {
    5: (1, 3),
    6: (2, 4),
    7: (5, 1, 3),
    8: (6, 2, 4),
    9: (7, 5, 1, 3),
    10: (8, 6, 2, 4),
}

# Zones that share structure, so a load on one shows a few percent on the other (crosstalk):
# neighbouring hull quarters, the two ends of a yard, and the same side of adjacent yards.
NEIGHBOURS = (
    (1, 2),
    (1, 3),
    (2, 4),
    (3, 4),
    (5, 6),
    (7, 8),
    (9, 10),
    (5, 7),
    (7, 9),
    (6, 8),
    (8, 10),
)


def drop_ms(height_m: float) -> float:
    """Free-fall time over `height_m`."""
    return 1000.0 * math.sqrt(2.0 * max(height_m, 0.0) / GRAVITY_M_S2)


def landing_clocks_ms(tumble_factor: float) -> "tuple[int, ...]":
    """Per zone, the longest a piece leaving it needs to land on a zone below it: its free fall
    to the lowest of them, `tumble_factor` longer for tumbling (whole ms; 0: nothing below).
    The detector keeps a copy (detector_tuning.LANDING_MS), held equal by a test."""
    out = []
    for zone in ZONES:
        below = BELOW.get(zone)
        if not below:
            out.append(0)
            continue
        lowest = min(ZONE_HEIGHT_M[z] for z in below)
        out.append(int(tumble_factor * drop_ms(ZONE_HEIGHT_M[zone] - lowest) + 0.5))
    return tuple(out)


def table_clocks_ms() -> "tuple[int, ...]":
    """Per zone, the soonest a piece leaving it reaches the table: its free fall from there
    (whole ms). The detector keeps a copy (detector_tuning.TABLE_SOONEST_MS)."""
    return tuple(int(drop_ms(ZONE_HEIGHT_M[zone]) + 0.5) for zone in ZONES)


def check_zone(zone: object) -> int:
    """`zone` as an int 1..10, or ValueError naming what was wrong."""
    if isinstance(zone, bool) or not isinstance(zone, int) or zone not in ZONES:
        raise ValueError(f"zone must be a whole number 1-10, not {zone!r}")
    return zone
