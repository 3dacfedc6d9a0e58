"""Scoring detector events against the virtual ship's ground truth.

Places: a truth placement is found when a `place` decided within its time window names the
right zone with grams within max(1 g, 12%). Falls are scored by episode (the truth's fall
records: pieces falling together or one after another): the detector's `fall` events
decided during an episode are summed, and the episode is found when their grams are within
the same tolerance. Any place or fall event not matched is a false positive; those during
a touch or a knock are counted apart (the target there is zero).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from bench.detection.topples import (
    UNWEIGHED_WHY,
    toppled_touches,
    unweighed_topples,
)
from bosun.sim.params import ShipParams
from bosun.sim.zoo import level_named
from shipsense.geometry import ZONE_HEIGHT_M
from shipsense.items import name_fall

PLACE_EARLY_MS = 1000.0  # a place decided this long before the hand left still counts (wrong)
PLACE_LATE_MS = 3000.0
FALL_EARLY_MS = 300.0  # before the first piece started to leave
FALL_LATE_MS = 1500.0  # after the last piece left
DISTURBANCE_AFTER_MS = 2000.0  # a false event this soon after a touch/knock is blamed on it
TABLE_LATE_MS = 1500.0  # table events this long after the last piece landed count for its fall
MAT_FELT_G = 0.5  # the referee's threshold: less than this on the mat is nothing


def tolerance_g(grams: float) -> float:
    return max(1.0, 0.12 * abs(grams))


def grams_ok(measured: float, truth: float) -> bool:
    return abs(measured - truth) <= tolerance_g(truth)


@dataclass
class Score:
    """Counts and latencies for one or more traces; `add` merges."""

    places: int = 0
    place_events: int = 0
    place_tp: int = 0
    place_zone_wrong: int = 0
    place_grams_wrong: int = 0
    place_items: int = 0
    place_items_right: int = 0
    place_ambiguous: int = 0
    falls: int = 0
    fall_events: int = 0  # detected episodes: groups matched to a truth episode + strays
    fall_tp: int = 0
    fall_found: int = 0  # episodes with any fall event
    fall_grams_right: int = 0
    fall_items: int = 0
    fall_items_right: int = 0
    fall_pieces: int = 0  # truth pieces of scored fall episodes
    fall_pieces_right: int = 0  # of those, named (as a multiset) by the detector
    fall_ambiguous: int = 0
    shifts: int = 0
    shift_events: int = 0
    shift_tp: int = 0
    spurious_place: int = 0
    spurious_fall: int = 0
    spurious_from_disturbance: int = 0
    touches: int = 0
    knocks: int = 0
    touch_events: int = 0
    knock_events: int = 0
    samples: int = 0
    latency_place: list[float] = field(default_factory=list)
    latency_fall: list[float] = field(default_factory=list)
    # every fall found and weighed right: (its latency, what it was), for `--late`
    falls_timed: list[tuple[float, str]] = field(default_factory=list)
    latency_leaving_start: list[float] = field(default_factory=list)
    latency_leaving: list[float] = field(default_factory=list)
    leaving_missed: int = 0
    # the table, per fall episode: what stayed on the mat (grams, and the set of pieces the
    # referee names from them), and how many pieces struck the table (the piezo)
    mat_episodes: int = 0
    mat_grams_right: int = 0
    mat_set_right: int = 0
    strike_episodes: int = 0
    strikes_right: int = 0
    strikes_over: int = 0
    strikes_under: int = 0
    caught_topples: int = 0  # placements that toppled as let go and were caught by a hand
    caught_topple_places_missed: int = 0
    caught_topple_falls_missed: int = 0
    # placements that toppled as let go and that no sensor weighed (UNWEIGHED_WHY; caught
    # ones included): truth records, and the detector's events spent on them
    unweighed: int = 0
    unweighed_place_tp: int = 0
    unweighed_place_events: int = 0
    unweighed_falls: int = 0
    unweighed_fall_tp: int = 0
    unweighed_fall_events: int = 0
    # of the unweighed topples that reached the table (bounced, or no mat) with no place on
    # their zone in their window, how many the detector's `touch` marked `toppled` (the
    # referee asks people); and toppled touches with no such topple near (asked for nothing)
    heard_topples: int = 0
    heard_topples_marked: int = 0
    toppled_touches: int = 0
    toppled_touches_false: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name, value in vars(other).items():
            mine = getattr(self, name)
            if isinstance(value, list):
                mine.extend(value)
            else:
                setattr(self, name, mine + value)

    @staticmethod
    def f1(tp: int, detected: int, truth: int) -> tuple[float, float, float]:
        precision = tp / detected if detected else 1.0
        recall = tp / truth if truth else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return precision, recall, f1

    def place_prf(self) -> tuple[float, float, float]:
        return self.f1(self.place_tp, self.place_events, self.places)

    def fall_prf(self) -> tuple[float, float, float]:
        return self.f1(self.fall_tp, self.fall_events, self.falls)

    def place_prf_weighed(self) -> tuple[float, float, float]:
        """Places as if the unweighed topples had not happened (their events set aside)."""
        return self.f1(
            self.place_tp - self.unweighed_place_tp,
            self.place_events - self.unweighed_place_events,
            self.places - self.unweighed,
        )

    def fall_prf_weighed(self) -> tuple[float, float, float]:
        return self.f1(
            self.fall_tp - self.unweighed_fall_tp,
            self.fall_events - self.unweighed_fall_events,
            self.falls - self.unweighed_falls,
        )

    def shift_prf(self) -> tuple[float, float, float]:
        return self.f1(self.shift_tp, self.shift_events, self.shifts)


def _fall_window(record: dict) -> tuple[float, float]:
    starts = [p["start_ms"] for p in record["pieces"]]
    leaves = [p["leave_ms"] for p in record["pieces"]]
    return min(starts) - FALL_EARLY_MS, max(leaves) + FALL_LATE_MS


def _window(det_places: list[dict], t: float, used: set[int]) -> list[tuple[int, dict]]:
    """The unused places decided in the window that may match a place truth at `t`."""
    return [
        (i, e)
        for i, e in enumerate(det_places)
        if i not in used and t - PLACE_EARLY_MS <= e["decided_ms"] <= t + PLACE_LATE_MS
    ]


def score_trace(truth: list[dict], events: list[dict], label: str = "") -> Score:
    """Score one trace's events against its truth records (session header included or not)."""
    s = Score()
    records = [r for r in truth if r.get("type") != "session"]
    places = [r for r in records if r["type"] == "place"]
    falls = [r for r in records if r["type"] == "fall"]
    shifts = [r for r in records if r["type"] == "shift"]
    disturbances = [
        (r["t_ms"] - 200.0, r.get("end_ms", r["t_ms"]) + DISTURBANCE_AFTER_MS)
        for r in records
        if r["type"] in ("touch", "knock")
    ]
    s.touches = sum(1 for r in records if r["type"] == "touch")
    s.knocks = sum(1 for r in records if r["type"] == "knock")
    s.touch_events = sum(1 for e in events if e["type"] == "touch")
    s.knock_events = sum(1 for e in events if e["type"] == "knock")
    session = next((r for r in truth if r.get("type") == "session"), {})
    unweighed = unweighed_topples(places, falls, session.get("table"))
    s.caught_topples = sum(1 for why in unweighed.values() if why == "caught")
    s.unweighed = len(unweighed)
    # the same, by the fall they began: (piece, when it left its zone)
    unweighed_falls = {
        (r["piece"], r["left_ms"]): unweighed[r["piece"], r["t_ms"]]
        for r in places
        if (r["piece"], r["t_ms"]) in unweighed
    }

    # --- places ---------------------------------------------------------------------------
    det_places = [e for e in events if e["type"] == "place"]
    used: set[int] = set()
    s.places = len(places)
    s.place_events = len(det_places)
    # Right matches first: a place decided rightly is not spent on an earlier record it does
    # not fit (a missed light piece and the next piece placed on its zone within 3 s would
    # otherwise read as one wrong place and one missed).
    matched: dict[int, tuple[int, dict]] = {}
    for n, record in enumerate(places):
        right = [
            (i, e)
            for i, e in _window(det_places, record["t_ms"], used)
            if e["zone"] == record["zone"] and grams_ok(e["grams"], record["grams"])
        ]
        if right:  # decided after the hand left before decided before it, then the nearest
            best = min(
                right,
                key=lambda c: (
                    c[1]["decided_ms"] < record["t_ms"],
                    abs(c[1]["decided_ms"] - record["t_ms"]),
                ),
            )
            matched[n] = best
            used.add(best[0])
    for n, record in enumerate(places):
        t = record["t_ms"]
        why = unweighed.get((record["piece"], t))
        note = f" ({UNWEIGHED_WHY[why]})" if why else ""
        if n in matched:
            i, e = matched[n]
            s.place_tp += 1
            s.unweighed_place_tp += bool(why)
            s.unweighed_place_events += bool(why)
            s.latency_place.append(e["decided_ms"] - t)
            if "item" in e:
                s.place_items += 1
                s.place_items_right += e["item"] == record["item"]
                s.place_ambiguous += bool(e.get("ambiguous"))
                if e["item"] != record["item"]:
                    s.misses.append(
                        f"{label} place item {e['item']} != {record['item']} at {t:.0f} "
                        f"({e['grams']} vs {record['grams']})"
                    )
            continue
        candidates = _window(det_places, t, used)
        if not candidates:
            s.caught_topple_places_missed += why == "caught"
            s.misses.append(
                f"{label} place missed at {t:.0f} z{record['zone']} {record['grams']}{note}"
            )
            continue
        same_zone = [(i, e) for i, e in candidates if e["zone"] == record["zone"]]
        i, e = (same_zone or candidates)[0]
        used.add(i)
        s.unweighed_place_events += bool(why)
        if e["zone"] != record["zone"]:
            s.place_zone_wrong += 1
        else:
            s.place_grams_wrong += 1
        s.misses.append(
            f"{label} place wrong at {t:.0f}: z{e['zone']} {e['grams']} g, "
            f"truth z{record['zone']} {record['grams']} g{note}"
        )
    (
        s.heard_topples,
        s.heard_topples_marked,
        s.toppled_touches,
        s.toppled_touches_false,
    ) = toppled_touches(places, unweighed, events, (PLACE_EARLY_MS, PLACE_LATE_MS))
    for i, e in enumerate(det_places):
        if i not in used:
            s.spurious_place += 1
            near = any(a <= e["decided_ms"] <= b for a, b in disturbances)
            s.spurious_from_disturbance += near
            where = " (touch/knock)" if near else ""
            s.misses.append(f"{label} spurious place{where} at {e['decided_ms']:.0f}: {e}")

    # --- falls (episodes) -----------------------------------------------------------------
    det_falls = [e for e in events if e["type"] == "fall"]
    leavings = [e for e in events if e["type"] == "leaving"]
    s.falls = len(falls)
    assigned: dict[int, list[dict]] = {}
    strays = []
    windows = [_fall_window(r) for r in falls]
    for e in det_falls:
        best = None
        for index, (a, b) in enumerate(windows):
            if a <= e["decided_ms"] <= b:
                distance = abs(e["t_ms"] - falls[index]["t_ms"])
                if best is None or distance < best[0]:
                    best = (distance, index)
        if best is None:
            strays.append(e)
        else:
            assigned.setdefault(best[1], []).append(e)
    s.fall_events = len(assigned) + len(strays)
    for index, record in enumerate(falls):
        group = assigned.get(index, [])
        t = record["t_ms"]
        first_start = min(p["start_ms"] for p in record["pieces"])
        a, b = windows[index]
        notices = [e for e in leavings if a <= e["decided_ms"] <= b]
        if notices:
            s.latency_leaving_start.append(notices[0]["decided_ms"] - first_start)
            s.latency_leaving.append(notices[0]["decided_ms"] - t)
        else:
            s.leaving_missed += 1
        # a topple alone, or a cascade it set off: no sensor weighed all the episode's grams
        why = None
        for piece in record["pieces"]:
            why = unweighed_falls.get((piece["piece"], piece["start_ms"])) or unweighed_falls.get(
                (piece["piece"], piece.get("leave_ms"))  # the other ship's left_ms (topples.py)
            )
            if why:
                break
        note = f" ({UNWEIGHED_WHY[why]})" if why else ""
        s.unweighed_falls += bool(why)
        s.unweighed_fall_events += bool(why and group)
        if not group:
            s.caught_topple_falls_missed += why == "caught"
            s.misses.append(
                f"{label} fall missed at {t:.0f} {record['grams']} g {record['zones']}{note}"
            )
            continue
        s.fall_found += 1
        total = sum(e["grams"] for e in group)
        if grams_ok(total, record["grams"]):
            s.fall_tp += 1
            s.unweighed_fall_tp += bool(why)
            s.fall_grams_right += 1
            latency = min(e["decided_ms"] for e in group) - t
            s.latency_fall.append(latency)
            outcomes = "+".join(sorted({p.get("outcome") or "?" for p in record["pieces"]}))
            s.falls_timed.append(
                (
                    latency,
                    f"{label} fall at {t:.0f} decided {latency:.0f} ms after it left: "
                    f"{record['grams']} g off {record['zones']}, {outcomes}",
                )
            )
            if all("items" in e for e in group):
                s.fall_items += 1
                found = Counter(item for e in group for item in e["items"])
                truth_items = Counter(record["items"])
                ok = found == truth_items
                s.fall_pieces += sum(truth_items.values())
                s.fall_pieces_right += sum((found & truth_items).values())
                s.fall_items_right += ok
                s.fall_ambiguous += any(e.get("ambiguous") for e in group)
                if not ok:
                    s.misses.append(
                        f"{label} fall items {sorted(found.elements())} != "
                        f"{sorted(record['items'])} at {t:.0f} ({total:.2f} g)"
                    )
        else:
            s.misses.append(
                f"{label} fall grams {total:.2f} != {record['grams']} at {t:.0f} "
                f"({len(group)} events){note}"
            )
    for e in strays:
        s.spurious_fall += 1
        near = any(a <= e["decided_ms"] <= b for a, b in disturbances)
        s.spurious_from_disturbance += near
        where = " (touch/knock)" if near else ""
        s.misses.append(f"{label} spurious fall{where} at {e['decided_ms']:.0f}: {e}")

    _score_table(s, truth, falls, assigned, events, label)

    # --- shifts ---------------------------------------------------------------------------
    det_shifts = [e for e in events if e["type"] == "shift"]
    s.shifts = len(shifts)
    s.shift_events = len(det_shifts)
    taken: set[int] = set()
    for record in shifts:
        for i, e in enumerate(det_shifts):
            if i in taken or not record["t_ms"] - 300 <= e["decided_ms"] <= record["t_ms"] + 3000:
                continue
            if (
                e["from"] == record["from"]
                and e["to"] == record["to"]
                and grams_ok(e["grams"], record["grams"])
            ):
                taken.add(i)
                s.shift_tp += 1
                break
        else:
            s.misses.append(
                f"{label} shift missed at {record['t_ms']:.0f} "
                f"{record['from']}->{record['to']} {record['grams']}"
            )
    for i, e in enumerate(det_shifts):
        if i not in taken:
            s.misses.append(
                f"{label} false shift at {e['decided_ms']:.0f} (from {e['t_ms']:.0f}) "
                f"{e['from']}->{e['to']} {e['grams']}"
            )
    return s


def _audible(piece: dict, min_mj: float) -> bool:
    """Whether the piezo could hear this piece strike the table (energy m g h, in mJ)."""
    return piece["grams"] * 9.81 * ZONE_HEIGHT_M[piece["zone"]] >= min_mj


def _piezo_threshold_mj(session: dict) -> float:
    """The strike energy this trace's piezo needed: its level's or zoo family's threshold over
    the drawn ship's sensitivity squared (0 for a level this bench does not know)."""
    try:
        level = level_named(session.get("level", ""))
    except ValueError:
        return 0.0
    ship = ShipParams.draw(level, session["seed"], session["rate_sps"], session["table"])
    return ship.sensors.piezo_threshold_mj


def _score_table(
    s: Score,
    truth: list[dict],
    falls: list[dict],
    assigned: dict[int, list[dict]],
    events: list[dict],
    label: str,
) -> None:
    """Per fall episode, what the referee reads from the table's `land` events: which pieces
    stayed on the mat (by grams, among those the detector said fell) and how many pieces
    struck the table (stayed + bounced: the mat's bounces, the piezo's `impacts`), as
    `bosun.referee.riffraff` combines them; the rest were caught."""
    session = next((r for r in truth if r.get("type") == "session"), None)
    if session is None or session.get("table") not in ("mat", "piezo", "both"):
        return
    table = session["table"]
    items = session.get("items") or {}
    min_mj = _piezo_threshold_mj(session)
    lands = [e for e in events if e["type"] == "land"]
    for index, record in enumerate(falls):
        pieces = record["pieces"]
        start = min(p["start_ms"] for p in pieces)
        end = max(p["land_ms"] or p["leave_ms"] for p in pieces) + TABLE_LATE_MS
        mine = [e for e in lands if start <= e["t_ms"] <= end]  # when it hit, not decided
        t = record["t_ms"]
        landed = [p for p in pieces if p["outcome"] == "landed"]
        reached = [p for p in pieces if p["outcome"] != "caught"]
        stayed: list[str] = []
        if table in ("mat", "both"):
            s.mat_episodes += 1
            stayed_g = sum(e["grams"] or 0.0 for e in mine if not e.get("bounced"))
            truth_g = sum(p["grams"] for p in landed)
            # nothing stayed: the mat must say so too
            grams_right = grams_ok(stayed_g, truth_g) if truth_g else stayed_g <= MAT_FELT_G
            s.mat_grams_right += grams_right
            # the referee names what stayed among the pieces the detector said fell
            fell = Counter(item for e in assigned.get(index, []) for item in e.get("items", []))
            if stayed_g > MAT_FELT_G and fell and items:
                stayed = name_fall(stayed_g, items, aboard_counts=dict(fell))[0]
            set_right = bool(fell) and sorted(stayed) == sorted(p["item"] for p in landed)
            s.mat_set_right += set_right
            if not (grams_right and set_right):
                s.misses.append(
                    f"{label} mat at {t:.0f}: stayed {stayed_g:.2f} g {sorted(stayed)}, truth "
                    f"{truth_g:.2f} g {sorted(p['item'] for p in landed)}"
                )
        bounces = sum(1 for e in mine if e.get("bounced"))
        impacts = sum(e["impacts"] for e in mine if isinstance(e.get("impacts"), int))
        if table == "mat":
            struck = len(stayed) + bounces
            truth_struck = len(reached)
        elif table == "both":
            struck = len(stayed) + max(bounces, impacts - len(stayed))
            truth_struck = len(reached)
        else:  # the piezo alone hears only strikes hard enough to trip it
            struck = len(mine)
            truth_struck = sum(1 for p in reached if _audible(p, min_mj))
        s.strike_episodes += 1
        s.strikes_right += struck == truth_struck
        s.strikes_over += struck > truth_struck
        s.strikes_under += struck < truth_struck
        if struck != truth_struck:
            s.misses.append(f"{label} struck at {t:.0f}: {struck}, truth {truth_struck}")


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = q / 100.0 * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
