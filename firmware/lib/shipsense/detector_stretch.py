"""Still stretches during an episode: the plateau now, short rests at 10 SPS, rests held in hand.

A still stretch (a `Plateau`) is where the total holds within the noise band; after the
hand let go it is the piece's rest, to be weighed. At 10 SPS the HX711 may show a piece
resting for two samples only (a `short rest`); one followed by a rise is kept in hand (a
`Held`) until what rose is weighed: a second piece, or a hand that goes again. When the total
drops from a still stretch, `hand_let_go` tells a release on the loaded zone from cargo leaving
another. Once a drop is over (LEAVING), `gone_since` finds where its level came to stand, to
weigh it there, and `still_going` tells a slow slide still under way from that.
"""

from math import sqrt

from shipsense import detector_measure as measure
from shipsense import detector_records as records
from shipsense import detector_tuning as tuning


def update_plateau(det, k, band):
    """The still stretch now: its mean level over the latest samples and its length.

    A stretch that resumes at the same level after a brief wobble (a gust of sway, a
    twitch of noise) continues the one before.
    """
    n = det.stable_run + det.stable_w - 1
    start = k - n + 1
    plateau = det.plateau
    if plateau is None or det.stable_run == 1:
        after_release = det.released_k is not None and det.released_k <= start
        level = measure.mean_total(det, k, n) - det.base
        tolerance = band if band > tuning.PLATEAU_MERGE_G else tuning.PLATEAU_MERGE_G
        if (
            plateau is None
            or plateau.after_release != after_release
            or start - (plateau.start_k + plateau.n - 1) > det.merge_gap_n
            or abs(level - plateau.level_g) > tolerance
            or strayed(det, plateau, start)
        ):
            if (
                after_release
                and plateau is not None
                and plateau.after_release
                and plateau.n >= det.place_min_n
                and level < plateau.level_g - det.floor_g
            ):
                det.undecided = plateau  # a piece rested there, then less: judged by loading
            det.plateau = plateau = records.Plateau(0.0, start, n, after_release)
    n = k - plateau.start_k + 1
    plateau.n = n
    w = n if n < det.place_max_n else det.place_max_n
    plateau.level_g = measure.mean_total(det, k, w) - det.base


def strayed(det, plateau, start):
    """True if the level left the last still stretch by more than a wobble before this one
    began (a hand brushing the piece between them): then they are not one stretch."""
    h = det.history_n
    level = plateau.level_g + det.base
    j = plateau.start_k + plateau.n
    while j < start:
        v = det.fast_ring[j % h] - level
        if v > det.leave_level or -v > det.leave_level:
            return True
        j += 1
    return False


def rose_since_release(det, plateau):
    """True if a still stretch after the release stands clearly above the level the load
    first settled at once the hand had let go: not the piece, but a hand brushing it (its
    going would look like a fall) or more load coming on."""
    if not plateau.after_release or det.released_k is None:
        return False
    first = det.released_k + det.rise_gap_n
    last = plateau.start_k - 1
    n = last - first + 1
    if n < det.rise_min_n:
        return False
    if n > det.place_max_n:
        n = det.place_max_n
    settled = measure.mean_total(det, last, n) - det.base
    return plateau.level_g - settled > det.leave_level


def new_load_phase(det, plateau):
    """What holds still now rose after the release: wait for it to go (or be let go of)."""
    det.peak = plateau.level_g
    det.released_k = None
    det.plateau = None
    det.dropping_k = None
    det.low_run = 0


def short_rest(det, k, floor, settle):
    """The flattest run of `short_rest_n` samples from `settle` samples after the release up
    to `k` that stood above `floor` (grams over the base), as a still stretch after the
    release, or None."""
    h = det.history_n
    n = det.short_rest_n
    ring = det.total_ring
    first = det.released_k + settle
    if k - first > h - 1:
        first = k - h + 1
    band = tuning.SETTLE_SIGMAS * sqrt(det.var_total)
    if band < tuning.SETTLE_BAND_MIN_G:
        band = tuning.SETTLE_BAND_MIN_G
    if floor < det.floor_g:
        floor = det.floor_g  # lighter is no piece
    best = None
    best_spread = band
    for j in range(first, k - n + 1):
        hi = -1.0e30
        lo = 1.0e30
        for i in range(j, j + n):
            v = ring[i % h] - det.base
            if v > hi:
                hi = v
            if v < lo:
                lo = v
        if lo >= floor and hi - lo <= best_spread:
            best_spread = hi - lo
            best = j
    if best is None:
        return None
    return records.Plateau(measure.mean_total(det, best + n - 1, n) - det.base, best, n, True)


def hold_short_rest(det, rest, d):
    """A short rest followed by a rise: keep it (level, zone change, loading area, release
    time) and follow the new load as a loading of its own; `decide_place` settles it."""
    n = rest.n
    area = det.area
    det.held = records.Held(
        rest.level_g,
        measure.zone_change(det, rest.start_k + n - 1, n),
        list(area),
        det.area_n,
        measure.time_of(det, det.released_k if det.released_k is not None else rest.start_k),
        n,
    )
    det.peak = d
    det.released_k = None
    det.plateau = None
    det.dropping_k = None
    det.low_run = 0
    det.area_n = 0
    det.area_open = True
    for i in range(det.n_zones):
        area[i] = 0.0


def held_same(det, level):
    """The samples of a held still stretch that weigh the same piece as `level` does now (a
    hand came and went, and the load is back where it stood), else 0: a stretch of at least
    a weighing window's length, at `level` within the leaving threshold."""
    held = det.held
    if held is None or held.n < det.place_min_n:
        return 0
    if level - held.level_g > det.leave_level or held.level_g - level > det.leave_level:
        return 0
    return held.n


def rested_after_drop(det, k):
    """The load dropped on the loaded zone (`dropping_k`: the hand letting go, or the piece
    tipping off) and went on below the old level at sample `k`, before it settled still
    enough to tell which. If what stood between, at least `place_min_n` samples, weighed a
    piece, the hand had let go and that piece rested (a bottle pressed to a chest's weight;
    the bottle alone, ringing, for a fifth of a second before cargo left another zone): that
    stretch becomes the plateau, after the release; True if so."""
    start = det.dropping_k + det.fast_n
    end = k - det.low_run - det.fast_n
    n = end - start + 1
    if n < det.place_min_n or k - start >= det.history_n:
        return False
    level = measure.mean_total(det, end, n) - det.base
    if level < det.floor_g or level >= det.plateau.level_g - det.leave_level:
        return False
    if det.items and measure.fit_errors(level, det.items) > tuning.FRESH_FIT_ERRORS:
        return False
    # the let-go (detector_place.released, which this module cannot import), the low run
    # kept: the drop below the old level goes on being counted
    det.released_k = det.dropping_k
    det.dropping_k = None
    det.plateau = records.Plateau(level, start, n, True)
    return True


def hand_let_go(det, k, plateau):
    """True if the drop from a still stretch was on the zone being loaded (a release)."""
    if not det.area_n:
        return True
    n_zones = det.n_zones
    loaded = measure.place_zone(det, [0.0] * n_zones)
    w = det.fast_n
    zn = det.zone_history_n
    then = plateau.start_k + plateau.n - 1  # the last still sample
    span = k - then
    if span > zn - w:
        return True
    change = []
    for i in range(n_zones):
        ring = det.zone_rings[i]
        now_s = 0.0
        then_s = 0.0
        for j in range(w):
            now_s += ring[(k - j) % zn]
            then_s += ring[(then - j) % zn]
        change.append((now_s - then_s) / w)
    if measure.worst_zone(measure.losses_raw(det, change)) == loaded:
        return True
    # another zone lost it: a piece leaving only if a zone that held cargo lost most of it;
    # else it was a hand brushing an empty zone while the piece came to rest
    grams = measure.losses(det, change)
    drop = 0.0
    for v in change:
        drop -= v
    empty = det.floor_g
    below = None
    for i in range(n_zones):
        could = det.ref[i] >= empty and det.ref[i] >= 0.5 * grams[i]
        if i != loaded and grams[i] >= 0.5 * drop and could:
            if below is None:
                # where each zone stands now against what it held (the loaded zone left
                # out): cargo that left takes its zone below that, a hand that went
                # (pressed with the still stretch) leaves it where it was
                below = measure.zone_change(det, k, w)
                below[loaded] = 0.0
                below = measure.losses(det, below)
            if below[i] >= 0.5 * grams[i]:
                return False
    return True


def still_going(det, k, step_g):
    """True if the total went on down over the weighing span (fall_weigh_n) to `k`, by twice
    the drop's progress margin `step_g`: a piece sliding off slowly, its progress from one
    moment to the next lost in the noise. Its landing clock starts again."""
    fast = det.fast_ring
    h = det.history_n
    return fast[(k - det.fall_weigh_n) % h] - fast[k % h] > 2.0 * step_g


def gone_since(det, k, leave, sigma_fast):
    """Where the weighing of the drop `leave`, over at `k`, starts: the first sample from its
    progress last seen (deepest_k) on at which the zones it left stood near where they stand
    now (within a tenth of it, or twice the noise), no later than stable_w before `k`. A
    piece's worth of slow slide goes on after its progress is lost in the noise; a smaller
    loss is the ship settling, weighed from when it stopped showing; a loss elsewhere since
    is another piece going, not this one."""
    change = measure.zone_change(det, k, det.fast_n)
    now_g = 0.0
    for z in leave.zones:
        now_g += change[z]
    if now_g > -det.lightest_g:
        return leave.deepest_k
    near_g = -0.1 * now_g
    if near_g < 2.0 * sigma_fast:
        near_g = 2.0 * sigma_fast
    start_k = measure.zones_reached(det, k, leave.deepest_k, leave.zones, now_g + near_g)
    if start_k > k - det.stable_w:
        start_k = k - det.stable_w
    if start_k <= leave.deepest_k:
        return leave.deepest_k
    # the longer mean is kept unless it weighs the drop clearly short
    w = k - leave.deepest_k
    if w > det.place_max_n:
        w = det.place_max_n
    short_g = measure.mean_total(det, k, w) - measure.mean_total(det, k, k - start_k)
    return start_k if short_g > tuning.PROGRESS_FRACTION * -now_g else leave.deepest_k
