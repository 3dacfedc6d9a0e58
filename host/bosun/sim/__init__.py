"""The virtual ship: a physical model of the Riff Raff ship, its sensors and the table.

It stands in for the real ship wherever there is none: traces for the detector and its
benchmark (`bosun simulate-trace`), the virtual firmware board, and `bosun run --demo`.
Deterministic for a seed; every effect has its own parameter (`bosun.sim.params`).

Streaming (decide as you go, or schedule ahead with `at_ms`)::

    from bosun.sim import ShipParams, VirtualShip
    ship = VirtualShip(ShipParams.draw("normal", seed=7, rate_sps=80, table="both"), seed=7)
    placed = ship.place(7, "barrel")        # -> Placement; .t_ms: the hand leaves the piece
    while not ship.settled:                 # or: until ship.now_ms >= placed.done_ms
        sample = ship.next_sample()         # Sample(t_ms, zones_g[10], table_g, impact)
    fall = ship.fall([ship.find(7, "barrel")], outcomes="caught")
    ship.shift(ship.find(9), to_zone=3); ship.touch(); ship.knock(); ship.collect()
    ship.sample_at(t_ms)                    # a reading at any later time (own pace)
    ship.forces_at(t_ms)                    # noiseless grams on the cells (no HX711 effects)
    ship.truth_json()                       # ground truth so far, see bosun.sim.truth

Actions start at the ship's clock (`now_ms`, the last reading) or at a later `at_ms`; each
returns its truth record, whose `done_ms` says when its motion is over (piece released and
rung out, landed, caught); `ship.busy_until_ms` / `ship.settled` cover all of them. Pieces
are physical (`ship.pieces`: id like "barrel#2", own weight, `where`); `place` takes one
from the supply, `fall`/`shift` take pieces aboard (`ship.find(zone, item)`, `ship.aboard()`).
Readings must go forward in time. Time is integer microseconds inside, so six-hour sessions
stay exact.

Batch: `random_session(ship, "hard", seconds, seed)` and `scripted_session(ship, script,
seconds)` yield samples; `bosun.sim.trace_io` writes the CSV, truth and item files.
"""

from bosun.sim.params import ITEM_GRAMS, ITEMS, LEVELS, ShipParams
from bosun.sim.session import random_session, scripted_session
from bosun.sim.ship import Sample, VirtualShip

__all__ = [
    "ITEMS",
    "ITEM_GRAMS",
    "LEVELS",
    "Sample",
    "ShipParams",
    "VirtualShip",
    "random_session",
    "scripted_session",
]
