"""Two hands at once on a Montego Bay harbour: how often the docks' counts come out wrong.

One hand lifts barrels off a dock; `gap` ms later another sets barrels down on another dock.
Each try is a fresh virtual harbour (the firmware's ship core and detector on
`ShipParams.harbour`, no broker) with barrels already on both docks; the detector's events are
counted dock by dock as the Montego Bay referee counts them (grams / barrel weight).

.venv/bin/python -m bench.harbour_overlap [--gaps 0,100,150,200,300] [--tries 120]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from bosun.demo.virtual_ship import VirtualShipNode
from bosun.sim.params import ShipParams
from shipsense.geometry import HARBOUR_DOCKS

NOWHERE = ("127.0.0.1", 9)  # nothing connects: the ship runs in this process
SETTLE_MS = 2500.0  # after barrels came to rest, before the next move


def felt_by_dock(events: list[dict], barrel_g: float) -> Counter:
    """Barrels each dock gained (+) or lost (-), read from the detector's events; a fall
    from several docks at once counts under None (the referee cannot tell it apart). Counters
    compare with a missing dock as zero."""
    felt: Counter = Counter()
    for event in events:
        barrels = round(event.get("grams", 0.0) / barrel_g)
        if event["type"] == "place":
            felt[event["zone"]] += barrels
        elif event["type"] == "fall":
            zones = event["zones"]
            felt[zones[0] if len(zones) == 1 else None] -= barrels
        elif event["type"] == "shift":
            felt[event["from"]] -= barrels
            felt[event["to"]] += barrels
    return felt


def one_try(seed: int, gap_ms: float) -> bool:
    """Whether the detector read a lift and a put `gap_ms` apart right, dock by dock."""
    draw = random.Random(seed)
    lift_dock, put_dock = draw.sample(list(HARBOUR_DOCKS), 2)
    lifted, put = draw.choice((1, 1, 2)), draw.choice((1, 1, 2, 3))
    node = VirtualShipNode("h1", NOWHERE, seed=f"{seed}/0", params=ShipParams.harbour(seed))
    ship, events = node.ship, []
    emit = node.core.emit
    node.core.emit = lambda event: (events.append(dict(event)), emit(event))

    def run_until_still(extra_ms: float) -> None:
        node.advance_to(ship.now_ms + 100.0)
        while not ship.settled:
            node.advance_to(ship.now_ms + 12.5)
        node.advance_to(ship.now_ms + extra_ms)

    node.advance_to(3000.0)  # the detector learns the empty harbour
    for dock, count in ((lift_dock, 2), (put_dock, 3)):
        for _ in range(count):
            ship.place(dock, "barrel", at_ms=max(ship.now_ms, ship.busy_until_ms))
        run_until_still(SETTLE_MS)
    events.clear()
    at_ms = max(ship.now_ms, ship.busy_until_ms)
    pieces = sorted(ship.aboard(lift_dock), key=lambda p: p.ready_us)[-lifted:]
    ship.fall([p.id for p in pieces], "caught", at_ms=at_ms)
    for _ in range(put):
        ship.place(put_dock, "barrel", at_ms=at_ms + gap_ms)
    node.advance_to(at_ms + gap_ms + 100.0)
    run_until_still(4000.0)
    return felt_by_dock(events, node.items["barrel"]) == Counter(
        {lift_dock: -lifted, put_dock: put}
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gaps", default="0,100,150,200,300", help="ms between lift and put")
    parser.add_argument("--tries", type=int, default=120, help="tries a gap (120)")
    args = parser.parse_args()
    try:
        gaps = [float(g) for g in args.gaps.split(",")]
    except ValueError:
        parser.error(f"--gaps must be numbers separated by commas, not {args.gaps!r}")
    if args.tries < 1 or any(g < 0 for g in gaps):
        parser.error("--tries must be at least 1 and every gap 0 ms or more")
    print(f"a lift, then a put on another dock; {args.tries} fresh harbours a gap")
    for gap in gaps:
        wrong = sum(not one_try(seed, gap) for seed in range(args.tries))
        share = wrong / args.tries
        print(f"  {gap:5.0f} ms apart: {wrong:3} of {args.tries} counted wrong ({share:4.0%})")


if __name__ == "__main__":
    main()
