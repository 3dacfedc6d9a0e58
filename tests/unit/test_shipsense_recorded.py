"""The shipsense detector on traces a ship recorded, kept in tests/unit/data/: each one a
moment the detector once got wrong, run through `bosun detect`'s own path (offline.py)."""

from __future__ import annotations

import json
from pathlib import Path

from bosun.sim.params import HARBOUR_ITEM_GRAMS
from shipsense.offline import detect_trace

DATA = Path(__file__).with_name("data")


def detect_recorded(name: str, items: dict[str, float]) -> list[dict]:
    lines: list[str] = []
    with (DATA / name).open() as trace:
        detect_trace(trace, items, lines.append)
    return [json.loads(line) for line in lines]


def test_leaving_a_deck_barrel_lifted_off_then_another_loaded_elsewhere_is_a_fall_not_a_stay():
    """DESIGN.md's `leaving` contract: it is followed by a `fall` when the piece left the
    ship. A Montego Bay harbour (boot 77da189f, 203.0-208.5 s): two barrels taken off dock
    3, then a barrel lifted off dock 4 (a deck zone: nothing below to land on) and, 0.2 s
    later, a barrel pressed down on dock 2 by a hand. The landing clock ran out half-way up
    that hand's rise, which was taken for the barrel coming back; it went on past what had
    left (more than went came back, as no landing does), so the barrel fell and what the
    hand set down is a place of its own, never a `stay` that keeps the barrel on dock 4."""
    events = detect_recorded(
        "harbour_barrel_lifted_off_dock4_then_one_loaded_onto_dock2.csv", HARBOUR_ITEM_GRAMS
    )
    after_lift = [e for e in events if e["t_ms"] >= 207000]
    assert [e["type"] for e in after_lift] == ["leaving", "fall", "place"], events
    leaving, fall, place = after_lift
    assert leaving["zones"] == [4]
    assert fall["zones"] == [4] and fall["items"] == ["barrel"]
    assert abs(fall["grams"] - HARBOUR_ITEM_GRAMS["barrel"]) < 0.3
    assert (place["zone"], place["item"]) == (2, "barrel")
    assert not [e for e in events if e["type"] in ("stay", "shift")], events
    # the two barrels taken off dock 3 just before stay one fall, as they were
    (dock3,) = [e for e in events if e["type"] == "fall" and e["zones"] == [3]]
    assert dock3["items"] == ["barrel", "barrel"]


def test_the_trace_rate_is_its_mean_interval_not_its_first_one():
    """`bosun detect` reads the sample rate off the trace. A ship's clock ticks in whole ms,
    so 80 SPS alternates 12 and 13 ms intervals: the same trace started one sample later
    (first interval 13 ms, 76.9 SPS if read off two samples) must be detected at 80 SPS, as
    the ship did, and tell the barrel's fall from dock 4 as on the ship."""
    from shipsense.detector import Detector
    from shipsense.events import event_json
    from shipsense.trace import read_trace, table_mode

    name = "harbour_barrel_lifted_off_dock4_then_one_loaded_onto_dock2.csv"
    header, _, *rest = (DATA / name).read_text().splitlines(True)
    lines = [header, *rest]
    rows = list(read_trace(lines))
    assert rows[1][1] - rows[0][1] == 13

    def at_rate(rate_hz: float) -> list[str]:
        detector = Detector(rate_hz=rate_hz, table=table_mode(rows[0][3], rows[0][4]), items=items)
        return [event_json(e) for row in rows for e in detector.feed(*row[1:5])]

    items = dict(HARBOUR_ITEM_GRAMS)
    printed: list[str] = []
    detect_trace(lines, items, printed.append)
    assert printed == at_rate(80) != at_rate(1000 / 13)
    falls = [json.loads(e) for e in printed if json.loads(e)["type"] == "fall"]
    assert [(f["zones"], f["items"]) for f in falls] == [([3], ["barrel"] * 2), ([4], ["barrel"])]
