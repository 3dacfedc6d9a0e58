"""A piece that rested undecided, then slid or dropped onto another zone: a place and a shift.

At 10 SPS a piece can rest still on its zone for over half a second before it is decided (its
level between two items' weights, or a put-down with no release seen still waiting its time),
or for two conversions once the hand was seen letting go, and then slide or drop onto another
zone. When the drop from its still stretch settles above the old level (detector_episode), as
much as rested stands again, soon, on another zone: it was placed where it rested, with its
stretch's weight, and moved from there (a shift).

A pressed piece can also leave its zone as the hand lets go, before it ever stands there:
sliding on (its load never gone) or hopping off (the load back at the old level a moment,
note_hop). Where it comes to rest on a zone it can reach from the one pressed, it is placed
where it was pressed and moved (hop_source, judged as detector_place decides the place). So
is one that stood there undecided and slid off later with no drop to show it, once it has
rested on the other zone as long as a place is weighed at most (hopped_from, asked by
detector_place.load_on_one_zone).
"""

from shipsense import detector_commit as commit
from shipsense import detector_measure as measure
from shipsense import detector_shift as shift
from shipsense import detector_tuning as tuning


def rested_then_moved(det, events, k):
    """The drop from the still stretch that ended settles now (at sample `k`): if the piece
    rested there long enough and its load stands again on another zone, place it where it
    rested and report the shift; True if so."""
    plateau = det.plateau
    if plateau is None or k - det.dropping_k > det.slide_n:
        return False
    if plateau.n < (det.slide_released_rest_n if plateau.after_release else det.slide_rest_n):
        return False
    level = plateau.level_g
    if level < det.floor_g or det.held is not None or not a_piece(det, plateau):
        return False
    now = measure.mean_total(det, k, det.stable_w) - det.base
    if not same_load(det, level, now):
        return False  # the hand letting go of more, or part of it: a release
    rested = rested_zones(det, k, plateau)
    if rested is None:
        return False
    source = measure.place_zone(det, rested)
    if -measure.losses(det, rested)[source] < tuning.ONE_ZONE_FRACTION * level:
        return False  # spread by a hand on other zones: not a piece at rest
    now = measure.zone_change(det, k, det.stable_w)
    target = moved_to(det, rested, now, source, level)
    if target < 0:
        return False
    # placed as it rested: from when the hand let go of it, else from when it came to rest
    start = det.released_k if plateau.after_release else plateau.start_k
    onset = det.dropping_k
    w = plateau.n if plateau.n < det.place_max_n else det.place_max_n
    det.base_n = w  # the level it rested at is the stretch's mean
    commit.place_event(det, events, k, level, rested, measure.time_of(det, start))
    commit.after_commit(det, k)
    moved = measure.what_moved(det, level, -measure.losses(det, now)[target], source, now[source])
    shift.report_shift(det, events, k, onset, source, target, moved)
    return True


def rested_zones(det, k, plateau):
    """The zones' change over the end of the still stretch that ended, as far as the zones'
    ring still holds it at sample `k` (at 10 SPS it reaches 1.3 s back, and the drop may
    have taken most of a second to settle); None if under SLIDE_ZONE_MIN_N samples of it."""
    end = plateau.end_k()
    w = plateau.n if plateau.n < det.place_max_n else det.place_max_n
    held = det.zone_history_n - (k - end)
    if held < w:
        w = held
    if w < tuning.SLIDE_ZONE_MIN_N:
        return None
    return measure.zone_change(det, end, w)


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


def note_hop(det, k):
    """A load let go of rises again at sample `k`: at 10 SPS back from the old level with
    nothing seen resting, or, at either rate, to a still level above the one it first showed
    after the let-go. If what was let go of was pressed (fits no piece) and the rise comes
    within a hop's time of the let-go, the pressed piece may have hopped or slid off its zone
    onto another; remember where it was let go of (hop_source judges at the place)."""
    if k - det.released_k > det.hop_n:
        return
    source = pressed_zone(det)
    if source < 0:
        return
    for i in range(det.n_zones):
        if i != source and det.area[i] >= tuning.HOP_AREA_FRACTION * det.area[source]:
            return  # pressed on two zones: a hand on one, perhaps the piece on the other
    det.hop_zone = source
    det.hop_k = det.released_k


def pressed_zone(det):
    """The zone (0-based) the hand pressed a piece onto (with items: the rise fits no piece),
    or -1."""
    if not det.items or not det.area_n:
        return -1
    if measure.fit_errors(det.peak, det.items) <= tuning.FRESH_FIT_ERRORS:
        return -1
    return measure.loaded_zone(det)


def hop_source(det, grams, change, target):
    """The zone (0-based) a pressed piece was let go of on that slid or hopped off it at once
    onto zone `target`, where `grams` now rest (as `change` shows), or -1 (hopped_from); the
    hop noted is used up."""
    source = hopped_from(det, grams, change, target)
    if det.hop_zone < 0:  # it slid as the hand let go (if that showed), else as it came to rest
        det.hop_k = det.released_k if det.released_k is not None else det.plateau.start_k
    det.hop_zone = -1
    return source


def hopped_from(det, grams, change, target):
    """The zone (0-based) a pressed piece was let go of on that slid or hopped off onto zone
    `target`, where `grams` now rest (as `change` shows), or -1: where a piece from there can
    come to rest aboard (detector_shift.can_move), the zone it was pressed on holding none of
    it. The zone note_hop remembered (the load gone, or settled above where it first stood),
    else the zone the hand loaded, its let-go seen or not (a piece sliding off as the hand
    comes away can hide it)."""
    source = det.hop_zone  # it left at once, or came to rest higher elsewhere (note_hop)
    slid = False  # it slid as the hand let go (too fast, perhaps, to show), its load never gone
    if source < 0:
        # where the hand loaded, whether or not its press fitted a piece (a crate pressed
        # with 5 g weighs a boat)
        source = measure.loaded_zone(det) if det.items and det.area_n else -1
        slid = True
    if source < 0 or measure.fit_errors(grams, det.items) > tuning.FRESH_FIT_ERRORS:
        return -1
    if target == source or not shift.can_move(det, source, target):
        return -1
    if change[source] >= tuning.HOP_AREA_FRACTION * grams:
        return -1  # it stands there in part: not gone from where it was pressed
    if slid and det.area[target] >= tuning.HOP_AREA_FRACTION * det.area[source]:
        return -1  # it was loaded there too: a hand on one zone, the piece on the other
    return source
