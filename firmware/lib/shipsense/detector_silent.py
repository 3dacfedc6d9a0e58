"""Shifts seen at rest: a piece that slid, tipped or dropped onto another zone without an
episode of its own (the total never dipped far enough to start one, or the episode decided
nothing), or moved as another piece was placed, shows as a step between two zones, one down
and the other up by a piece's worth (step_between). The shift is emitted and named as one
seen in the air is (detector_shift.emit)."""

from shipsense import detector_measure as measure
from shipsense import detector_shift as shift
from shipsense import detector_tuning as tuning


def at_rest(det, events, k):
    """At rest, now and then: a piece that slid, tipped or dropped onto another zone without
    the total ever dipping far enough to start an episode (it never left the ship, or at 10
    SPS the HX711 never showed it in the air) moved weight between two zones only. Seen as a
    step: the zones' means now against their means a lag ago (both windows at rest), one
    zone down and another up by as much, what is not sway (projected out) explained by that
    move, twice in a row (the step done, not still showing through the HX711). Sway is
    mean-free and is taken out; a place weighed onto the wrong zone shows no step after it.
    Soon after an episode that decided nothing (the move dipped the total a little: a
    `touch`), the step is taken from the zones' rest before that episode; soon after one
    whose last decision was made on a still stretch (a place: the piece slid off as it was
    decided), from the zones on that stretch."""
    w = det.stable_w
    zn = det.zone_history_n
    lag = det.silent_lag_n
    before = None  # the zones' means to compare with: a lag ago, both windows at rest ...
    if k - lag - w + 1 < det.rest_k:
        if not det.silent_after_touch or k - det.silent_from_k > 2 * lag:
            det.silent = None
            return
        # ... or, soon after an episode that decided nothing (a `touch`: the piece's move
        # dipped or shook the total a little), the rest before it (remember_rest)
        before = det.silent_before
    if k - w + 1 < det.rest_k or k < det.silent_quiet_k or det.pending is not None:
        det.silent = None
        return
    behind_touch = before is not None
    if not behind_touch:
        before = measure.zone_means(det, k - lag, w, det.silent_then)
    delta = measure.zone_means(det, k, w, det.silent_delta)
    for i in range(det.n_zones):
        delta[i] -= before[i]
    step = step_between(det, delta)
    if step is None:
        det.silent = None  # nothing moved, or mostly sway, or several zones changing
        return
    source, target, moved, amount, best = step
    last = det.silent
    det.silent = (source, target, moved)
    if last is None or last[0] != source or last[1] != target:
        return
    if abs(moved - last[2]) > tuning.SILENT_STILL_FRACTION * moved:
        return  # still showing (the HX711 settles over three to four conversions)
    det.silent = None
    det.silent_quiet_k = k + lag + w
    # when it went: the first sample after the lag's window where the source was half down
    onset = det.onset_k
    if not behind_touch or det.committed:
        ring = det.zone_rings[source]
        level = ring[(k - lag) % zn]
        since = k - lag + 1
        if behind_touch:  # after a decision: from its still stretch on
            level = before[source]
            since = det.silent_from_k + 1
        onset = k
        for j in range(since, k + 1):
            if level - ring[j % zn] >= 0.5 * moved:
                onset = j
                break
    # each reading errs its own way (the zones' own with sway, the weaker side with the
    # ship's crosstalk, the pair through the sway low along a sway mode): the middle one
    grams = shift.emit(det, events, onset, source, target, middle(moved, amount, best))
    # zero-tracking has followed the step since it came (a share of it, each sample at
    # rest): book only what it has not taken up yet
    taken = det.track_alpha * (k - (onset if onset > det.rest_k else det.rest_k))
    if taken > 1.0:
        taken = 1.0
    det.ref[source] -= grams + taken * delta[source]
    det.ref[target] += grams - taken * delta[target]


def moved_as_placed(det, events, end_k, w, zone, onset):
    """A piece was just placed on `zone` (0-based, booked) as cargo on two other zones moved
    between them (a plank let go on quarter 3 knocked the rat on quarter 1 onto quarter 2):
    the zones against their committed levels over the still stretch (`w` samples up to
    `end_k`) show one down and another up by a piece's worth (step_between): a shift, begun
    at sample `onset` (named from the cargo the first held, or a `stay`: name_moved). Looked
    for whether the hand was seen letting go or not: the move can hide the let-go."""
    delta = measure.zone_change(det, end_k, w)
    delta[zone] = 0.0  # what the piece's own weighing left there is no move
    step = step_between(det, delta, False)  # its crosstalk on its neighbours is none either
    if step is None or det.ref[step[0]] < det.floor_g:
        return  # nothing moved, or from a zone that held nothing
    source, target, moved, amount, best = step
    if det.loading_change[source] < -tuning.CASCADE_ONSET_FRACTION * moved:
        return  # it stood that low as the loading began: an earlier misjudgement, no move now
    grams = shift.emit(det, events, onset, source, target, middle(moved, amount, best))
    det.ref[source] -= grams
    det.ref[target] += grams
    det.base = measure.sum_ref(det)


def landed_beside(det, change, source, zone, grams):
    """True if a zone other than `zone` (0-based, just loaded) that a piece leaving `source`
    can come to rest on gained most of the `grams` `source` lost, and the two zones' `change`
    together stayed level (a move aboard, as step_between sees one)."""
    least = tuning.SILENT_SIDE_FRACTION * grams
    for t in range(det.n_zones):
        if t == zone or change[t] < least or not shift.can_move(det, source, t):
            continue
        net = change[t] + change[source]
        if abs(net) <= tuning.SILENT_NET_FRACTION * 0.5 * (change[t] - change[source]):
            return True
    return False


def step_between(det, delta, whole=True):
    """One piece moved between two zones, as the zones' changes `delta` show it: the pair a
    piece can move between (one deck quarter to the next, a yard down onto a lower zone on
    its side) whose weaker side moved most, one down and the other up by a piece's worth,
    the total (`whole`; else the pair's) unchanged within a share of the move, and what is
    not sway explained by it.
    (source, target, moved, amount, weaker): the mean of the two sides, the move fitted with
    the sway taken out, the weaker side; None if not so."""
    floor = det.floor_g if det.floor_g > tuning.SHIFT_MIN_G else tuning.SHIFT_MIN_G
    side = tuning.SILENT_SIDE_FRACTION * floor
    can_move = shift.can_move
    net = 0.0
    low = high = 0.0
    for v in delta:
        net += v
        if v < low:
            low = v
        elif v > high:
            high = v
    if -low < side or high < side:  # nothing went down and up by a piece's worth (the usual)
        return None
    # the pair a piece can move between (one deck quarter to the next, a yard down onto a
    # lower zone on its side) whose weaker side moved most
    source = target = -1
    best = 0.0
    for s in range(det.n_zones):
        if delta[s] >= 0.0:
            continue
        for t in range(det.n_zones):
            if delta[t] <= 0.0 or not can_move(det, s, t):
                continue
            weaker = delta[t] if delta[t] < -delta[s] else -delta[s]
            if weaker > best:
                source, target, best = s, t, weaker
    if source < 0:
        return None
    moved = 0.5 * (delta[target] - delta[source])
    if not whole:
        net = delta[target] + delta[source]
    if (
        -delta[source] < side
        or delta[target] < side
        or moved < floor
        or abs(net) > tuning.SILENT_NET_FRACTION * moved
    ):
        return None
    projected = det.sway.project_out(delta)
    energy = 0.0
    for v in projected:
        energy += v * v
    amount, fit = det.sway.transfer(projected, source, target)
    if amount < tuning.SILENT_SWAY_FRACTION * moved or fit < tuning.SILENT_FIT_FRACTION * energy:
        return None  # mostly sway (or several zones changing): not one piece moving
    return source, target, moved, amount, best


def remember_rest(det, onset):
    """An episode begins at sample `onset`: keep the zones' means just before it, for a
    piece that moves as it begins and leaves nothing decided (at_rest)."""
    measure.zone_means(det, onset - 1, det.stable_w, det.silent_before)
    det.silent_from_k = onset


def middle(a, b, c):
    """The median of three numbers."""
    if a > b:
        a, b = b, a
    if b > c:
        b = c
    return a if a > b else b
