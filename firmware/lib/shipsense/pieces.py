"""The games' pieces and what they nominally weigh: one definition for ship, referee and sim.

Riff Raff's eight cargo items (RR2) and Montego Bay's barrel. The grams are defaults until a
table's calibration weighs its own set (the wizard's `weigh` step); a real set differs by a
few percent piece to piece.
"""

ITEMS = ("boat", "barrel", "bottle", "crate", "chest", "plank", "sailor", "rat")  # RR2

# Small pieces of beech (~0.7 g/cm3), from a 2.6 g rat (~4 cm3) to an 11.8 g boat (~17 cm3).
# Deliberately close calls: rat/bottle 0.7 g apart, sailor/plank 0.8 g, plank/barrel 0.9 g;
# and for falls of several pieces bottle + sailor (7.7 g) against one crate (7.6 g).
ITEM_GRAMS = {
    "boat": 11.8,
    "chest": 9.4,
    "crate": 7.6,
    "barrel": 6.1,
    "plank": 5.2,
    "sailor": 4.4,
    "bottle": 3.3,
    "rat": 2.6,
}

# Montego Bay: every barrel weighs the same; the referee counts them by weight (MB15).
HARBOUR_ITEMS = ("barrel",)
BARREL_G = 2.2
