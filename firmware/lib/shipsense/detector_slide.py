"""A piece that rested undecided, then slid or dropped onto another zone: a place and a shift.

At 10 SPS a piece can rest still on its zone for over half a second before it is decided (its
level between two items' weights, or a put-down with no release seen still waiting its time)
and then slide or drop onto another zone. When the drop from its still stretch settles above
the old level (detector_episode), as much as rested stands again, soon, on another zone: it
was placed where it rested, with its stretch's weight, and moved from there (a shift).
"""

from shipsense import detector_commit as commit
from shipsense import detector_measure as measure
from shipsense import detector_place as place
from shipsense import detector_shift as shift
from shipsense import detector_tuning as tuning


def rested_then_moved(det, events, k):
    """The drop from the still stretch that ended settles now (at sample `k`): if the piece
    rested there long enough and its load stands again on another zone, place it where it
    rested and report the shift; True if so."""
    plateau = det.plateau
    if plateau is None or plateau.n < det.slide_rest_n or k - det.dropping_k > det.slide_n:
        return False
    level = plateau.level_g
    if level < det.floor_g or not a_piece(det, plateau):
        return False
    now = measure.mean_total(det, k, det.stable_w) - det.base
    if not same_load(det, level, now):
        return False  # the hand letting go of more, or part of it: a release
    end = plateau.end_k()
    w = plateau.n if plateau.n < det.place_max_n else det.place_max_n
    if not place.load_on_one_zone(det, end, level, plateau.n):
        return False
    rested = measure.zone_change(det, end, w)
    source = measure.place_zone(det, rested)
    target = moved_to(det, rested, measure.zone_change(det, k, det.stable_w), source, level)
    if target < 0:
        return False
    onset = det.dropping_k
    count = len(events)
    place.decide_place(det, events, k)
    grams = placed_grams(events, count, source)
    if grams <= 0.0:
        return True  # decided otherwise (lighter than any piece): nothing to move
    report_shift(det, events, k, onset, source, target, grams)
    return True


def a_piece(det, plateau):
    """True if what rested is a piece, not a hand pressing one down (the hand then lifting and
    brushing another zone also looks like load that went and stood again): with items, its
    level fits one; without, the hand was seen letting go before it."""
    if det.items:
        return measure.fit_errors(plateau.level_g, det.items) <= tuning.FRESH_FIT_ERRORS
    return plateau.after_release


def same_load(det, level, now):
    """True if `now` grams over the base is the load that rested at `level`, within the
    leaving threshold or SLIDE_LEVEL_FRACTION of it (a piece that slid onto a zone whose
    crosstalk or sway reads it a little differently)."""
    tolerance = tuning.SLIDE_LEVEL_FRACTION * level
    if tolerance < det.leave_level:
        tolerance = det.leave_level
    return -tolerance <= now - level <= tolerance


def moved_to(det, rested, standing, source, level):
    """The zone (0-based) the load that rested on `source` stands on now, as the zones'
    `rested` and `standing` changes show it, else -1: a zone a piece can reach from the
    source without leaving the ship (detector_shift.can_move; a hand brushing any zone as it
    goes need not), up by SLIDE_ZONE_FRACTION of the load at least, and the move from the
    source to it, sway taken out, as large (the zones of a small ship sway by some grams at
    10 SPS: the source alone may read well short of what left it)."""
    least = tuning.SLIDE_ZONE_FRACTION * level
    delta = [0.0] * det.n_zones
    for i in range(det.n_zones):
        delta[i] = standing[i] - rested[i]
    projected = det.sway.project_out(delta)
    target = -1
    best = least
    for i in range(det.n_zones):
        if i == source or delta[i] < least or not shift.can_move(det, source, i):
            continue
        moved = det.sway.transfer(projected, source, i)[0]
        if moved >= best:
            target = i
            best = moved
    return target


def placed_grams(events, count, zone):
    """The grams of the place on `zone` (0-based) among the events from `count` on, else 0."""
    for j in range(count, len(events)):
        event = events[j]
        if event["type"] == "place" and event["zone"] == zone + 1:
            return event["grams"]
    return 0.0


def report_shift(det, events, k, onset, source, target, grams):
    """Emit and book the shift of the piece just placed on `source` to `target` (0-based),
    begun at sample `onset`."""
    event = {
        "type": "shift",
        "t_ms": measure.time_of(det, onset),
        "decided_ms": measure.now(det),
        "from": source + 1,
        "to": target + 1,
        "grams": measure.rounded_g(grams),
    }
    if det.items:
        grams = shift.name_moved(det, event, source, target, grams, 0.0)
    events.append(event)
    det.ref[source] -= grams
    det.ref[target] += grams
    det.base = measure.sum_ref(det)
    # a move seen at rest later is judged against where the piece stands now
    measure.zone_means(det, k, det.stable_w, det.silent_before)
    det.silent_from_k = k
    commit.remember_levels(det, k)
