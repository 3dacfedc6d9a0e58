"""Placements that toppled off as they were let go, which no sensor weighed (issue 11).

`score.py` counts them apart and gives the figures without them beside the main ones, and
judges the detector's touches marked `toppled` (the referee asks people about those).
"""

from __future__ import annotations

# A piece that leaves its zone this soon after the hand let go toppled as it was let go, so the
# ship never felt it alone: it weighed hand and piece, then nothing. Unless the mat then held
# it, no sensor weighed that piece: one a hand caught never reached the table (to every sensor
# a hand that set a piece down and took it back: a touch); one that bounced off the mat or
# struck a table without a mat was only heard. Such topples are counted apart (with the fall
# they began, and any cargo they knocked off in it: score.score_trace), and the figures are
# also given without them, so that what no sensor can tell is seen beside the detector's own
# misses. They stay in the main figures.
TOPPLE_AT_RELEASE_MS = 50.0
UNWEIGHED_WHY = {
    "caught": "caught as it toppled",
    "bounced": "toppled as let go, bounced off the mat",
    "no mat": "toppled as let go onto a table with no mat",
}


def unweighed_topples(
    places: list[dict], falls: list[dict], table: str | None
) -> dict[tuple[str, float], str]:
    """(piece, release ms) of each truth placement that toppled off as it was let go and that
    no sensor weighed, with why (a key of UNWEIGHED_WHY). `table` is the session's table kind
    (None: unknown, so only the caught ones are sure).

    A placement's `left_ms` names its piece in a fall record: the moment it began to leave
    (`start_ms`, bosun.sim) or lost contact (`leave_ms`, bench.othership). Either way it
    toppled if it began to leave within TOPPLE_AT_RELEASE_MS of the let-go."""
    outcomes: dict[tuple[str, float], tuple[float, str]] = {}
    for record in falls:
        for piece in record["pieces"]:
            began = (piece["start_ms"], piece["outcome"])
            outcomes[piece["piece"], piece["start_ms"]] = began
            if piece.get("leave_ms") is not None:
                outcomes[piece["piece"], piece["leave_ms"]] = began
    found: dict[tuple[str, float], str] = {}
    for r in places:
        if r.get("left_ms") is None:
            continue
        began, outcome = outcomes.get((r["piece"], r["left_ms"]), (r["left_ms"], None))
        if began - r["t_ms"] >= TOPPLE_AT_RELEASE_MS:
            continue
        if outcome in ("caught", "bounced"):
            found[r["piece"], r["t_ms"]] = outcome
        elif outcome == "landed" and table in ("piezo", "none"):
            found[r["piece"], r["t_ms"]] = "no mat"
    return found


def toppled_touches(
    places: list[dict],
    unweighed: dict[tuple[str, float], str],
    events: list[dict],
    window: tuple[float, float],
) -> tuple[int, int, int, int]:
    """Touches marked `toppled` against the unweighed topples that reached the table: how
    many such topples had no place on their zone (heard), how many of those a marked touch
    on their zone answered, how many marked touches there were, and how many had no topple
    near (asked for nothing). `window`: ms before and after a placement an event counts."""
    marked = [e for e in events if e["type"] == "touch" and e.get("toppled")]
    early, late = window

    def near(e: dict, t: float) -> bool:
        return t - early <= e["decided_ms"] <= t + late

    placed = [e for e in events if e["type"] == "place"]
    heard = [
        r
        for r in places
        if unweighed.get((r["piece"], r["t_ms"])) in ("bounced", "no mat")
        and not any(near(e, r["t_ms"]) and e["zone"] == r["zone"] for e in placed)
    ]
    answered = sum(
        any(near(e, r["t_ms"]) and e["zones"] == [r["zone"]] for e in marked) for r in heard
    )
    toppled = [r["t_ms"] for r in places if (r["piece"], r["t_ms"]) in unweighed]
    false = sum(not any(near(e, t) for t in toppled) for e in marked)
    return len(heard), answered, len(marked), false
