"""What every state of the detector measures: means over the rings, zone changes, losses, fits.

Functions of the detector (`det`, a `shipsense.detector.Detector`) that read its sample
rings and levels and change nothing, plus pure helpers on grams and items.
"""

from math import sqrt

from shipsense import detector_tuning as tuning
from shipsense.items import weighing_error_g, zone_error_g


def fit_errors(grams, items):
    """How many weighing errors `grams` is from the nearest item's weight."""
    best = 1.0e30
    for name in items:
        error = abs(grams - items[name]) / weighing_error_g(items[name])
        if error < best:
            best = error
    return best


def subset_fit(grams, pieces, items):
    """How many weighing errors `grams` is from the best sum of some of `pieces` (names)."""
    best = 1.0e30
    n = len(pieces)
    if n > 6:
        n = 6  # the most recent few: enough to tell, bounded work
    first = len(pieces) - n
    for mask in range(1, 1 << n):
        total = 0.0
        for j in range(n):
            if mask >> j & 1:
                total += items[pieces[first + j]]
        error = abs(grams - total) / weighing_error_g(total)
        if error < best:
            best = error
    return best


def top(values):
    """The largest magnitude among `values` (at least a tiny positive number)."""
    best = 1.0e-9
    for v in values:
        if v > best:
            best = v
        elif -v > best:
            best = -v
    return best


def rounded_g(value):
    """Grams rounded to 0.01 g, the same way on every Python."""
    if value < 0:
        return -int(-value * 100.0 + 0.5) / 100.0
    return int(value * 100.0 + 0.5) / 100.0


def sum_ref(det):
    """The committed total: the sum of the zones' committed levels."""
    s = 0.0
    for v in det.ref:
        s += v
    return s


def mean_total(det, k, w):
    """The mean filtered total over the `w` samples up to `k`."""
    h = det.history_n
    ring = det.total_ring
    s = 0.0
    for j in range(w):
        s += ring[(k - j) % h]
    return s / w


def weighing_se(det, n):
    """The standard error (g) of a level weighed over `n` samples against the base."""
    return sqrt(det.var_total * (1.0 / n + 1.0 / det.base_n))


def now(det):
    """The time of the current sample, as given."""
    return det.t_ring[det.k % det.history_n]


def time_of(det, j):
    """The time of sample `j` (the oldest kept if `j` is older)."""
    k = det.k
    if k - j >= det.history_n:
        j = k - det.history_n + 1
    return det.t_ring[j % det.history_n]


def zone_means(det, k, w, out):
    """`out` (a list of n_zones, returned) filled with each zone's mean grams over the last
    `w` samples up to `k` (at most the zone history)."""
    zn = det.zone_history_n
    if w > zn:
        w = zn
    for i in range(det.n_zones):
        ring = det.zone_rings[i]
        s = 0.0
        for j in range(w):
            s += ring[(k - j) % zn]
        out[i] = s / w
    return out


def zone_change(det, k, w):
    """Mean zone grams over the last `w` samples up to `k` minus the committed levels."""
    out = zone_means(det, k, w, [0.0] * det.n_zones)
    for i in range(det.n_zones):
        out[i] -= det.ref[i]
    return out


def find_onset(det, k, level, span_n=0):
    """The first recent sample whose total strayed past `level` from the base, looking back
    over three fast means, or over `span_n` samples if more."""
    h = det.history_n
    ring = det.total_ring
    onset = k
    back_n = det.fast_n * 3 + 2
    if span_n + 2 > back_n:
        back_n = span_n + 2
    for back in range(1, min(back_n, k)):
        j = k - back
        v = ring[j % h] - det.base
        if -level < v < level:
            break
        onset = j
    return onset


def loss_onset(det, k, zones, grams):
    """The first sample, looking back from `k` over the zone history, since which `zones`
    (0-based) have stood together below their committed levels by CASCADE_ONSET_FRACTION of
    `grams` (when cargo began to leave them)."""
    zn = det.zone_history_n
    level = -tuning.CASCADE_ONSET_FRACTION * grams
    back_n = zn - 1 if zn - 1 < k else k
    for back in range(back_n):
        j = (k - back) % zn
        s = 0.0
        for z in zones:
            s += det.zone_rings[z][j] - det.ref[z]
        if s > level:
            return k - back + 1
    return k - back_n


def fast_range(det, first, last):
    """(lowest, highest): the fast mean's range (grams from the base) over samples `first`
    to `last` (at most the history kept)."""
    h = det.history_n
    if last - first >= h:
        first = last - h + 1
    ring = det.fast_ring
    low = 1.0e30
    high = -1.0e30
    for j in range(first, last + 1):
        v = ring[j % h]
        if v < low:
            low = v
        if v > high:
            high = v
    return low - det.base, high - det.base


def reached(det, k, since, level):
    """The first sample from `since` on whose fast mean was at or below `level` (grams from
    the base), or k."""
    h = det.history_n
    ring = det.fast_ring
    j = since
    while j < k:
        if ring[j % h] - det.base <= level:
            return j
        j += 1
    return k


def zones_reached(det, k, since, zones, level):
    """The first sample from `since` on (within the zone history) at which `zones` (0-based)
    together stood at or below `level` grams from their committed levels, in the fast mean
    (as `reached` judges the total), or k."""
    zn = det.zone_history_n
    n = det.fast_n
    j = since if since > k - zn + n else k - zn + n
    while j < k:
        s = 0.0
        for back in range(n):
            for z in zones:
                s += det.zone_rings[z][(j - back) % zn] - det.ref[z]
        if s <= level * n:
            return j
        j += 1
    return k


def losses(det, change):
    """Per zone: grams lost (positive) once sway is taken out, least-squares amplitudes."""
    projected = det.sway.project_out(change)
    keep = det.sway.keep_diag
    return [-projected[i] / keep[i] for i in range(det.n_zones)]


def losses_raw(det, change):
    """Per zone: a matched-filter score for a loss on that zone alone, sway removed."""
    scores = det.sway.zone_scores(change)
    return [-v for v in scores]


def worst_zone(values):
    """The index of the largest value (the first of equals)."""
    worst = 0
    for i in range(1, len(values)):
        if values[i] > values[worst]:
            worst = i
    return worst


def losing_zones(det, change, total_loss):
    """The zones (0-based) that lost the weight, sway taken out; at least one."""
    floor = tuning.ZONE_FLOOR_FRACTION * total_loss
    if det.items:
        lightest = min(det.items[name] for name in det.items)
        if floor > tuning.ZONE_FLOOR_ITEM * lightest:
            floor = tuning.ZONE_FLOOR_ITEM * lightest  # the lightest piece must not go unseen
    if floor < tuning.ZONE_FLOOR_G:
        floor = tuning.ZONE_FLOOR_G
    zones = det.sway.changed_zones([-v for v in change], floor, 4)
    if not zones:
        zones = [worst_zone(losses(det, change))]
    return zones


def crosstalk_shares(det, zone, grams, change, skip):
    """[(zone, grams)]: what each neighbour of `zone` (0-based) reads of `grams` on it
    (crosstalk), as a zone `change` shows it with the sway projected out; only the
    neighbours, not those in `skip`, and only a plausible share (a hand elsewhere is none)."""
    rest = det.sway.project_out(change)
    most = tuning.CROSSTALK_MAX * grams
    out = []
    for a, b in tuning.CROSSTALK_PAIRS:
        if a - 1 == zone:
            other = b - 1
        elif b - 1 == zone:
            other = a - 1
        else:
            continue
        if other >= det.n_zones or (skip is not None and other in skip):
            continue
        share = rest[other]
        if share > most:
            share = most
        if share > 0.0:
            out.append((other, share))
    return out


def loaded_zone(det):
    """The zone (0-based) the hand loaded in this episode, as where it pressed shows it
    through the sway (det.area; at least one sample of it)."""
    return worst_zone(det.sway.zone_scores(det.area))


def place_zone(det, change):
    """The zone that took the load: where the hand pressed and where the load rests, each
    seen through the sway."""
    scores = det.sway.zone_scores(change)
    if det.area_n:
        # each on its own scale: a hand pressing hard (or brushing another zone while the
        # piece comes to rest) must not outweigh where the load rests
        pressed = det.sway.zone_scores(det.area)
        rest_top = top(scores)
        press_top = top(pressed)
        for i in range(det.n_zones):
            scores[i] = scores[i] / rest_top + pressed[i] / press_top
    return worst_zone(scores)


def cargo_near(det, zone, grams):
    """What zone `zone` (0-based), seen losing `grams` through sway and crosstalk, lost: the
    pieces on its cargo list that weigh closest to it, as they weighed when placed, if within
    CASCADE_CARGO_ERRORS of a zone's weighing error; else `grams` as seen."""
    items = det.items
    if not items:
        return grams
    cargo = det.cargo
    count = len(cargo.zones[zone + 1])
    first = count - tuning.CASCADE_CARGO_PIECES if count > tuning.CASCADE_CARGO_PIECES else 0
    best = grams
    best_error = tuning.CASCADE_CARGO_ERRORS * zone_error_g(grams)
    for mask in range(1, 1 << (count - first)):
        total = 0.0
        for j in range(count - first):
            if mask >> j & 1:
                total += cargo.weighed_g(zone + 1, first + j, items)
        error = total - grams if total > grams else grams - total
        if error < best_error:
            best_error = error
            best = total
    return best


def light_g(det):
    """How far below its committed level a zone reads when it clearly lost cargo (g, < 0)."""
    return -tuning.CASCADE_LIGHT_FRACTION * det.floor_g


def reads_light(det, change):
    """A first look, before any fit: does a zone that holds cargo read clearly below its
    committed level in `change` (sway moves a gram or so at most, crosstalk adds)?"""
    light = light_g(det)
    ref = det.ref
    return any(change[i] < light and ref[i] >= det.floor_g for i in range(det.n_zones))


def reads_light_now(det):
    """reads_light on this sample's zone readings: cheap, nothing averaged or allocated."""
    light = light_g(det)
    ref = det.ref
    y = det.y
    for i in range(det.n_zones):  # noqa: SIM110 (any() would build a generator each sample)
        if y[i] - ref[i] < light and ref[i] >= det.floor_g:
            return True
    return False


def what_moved(det, grams, gained, source, source_change):
    """What moved from zone `source` (0-based) onto another as a fresh piece of `grams` was
    placed on it, the other having `gained` (sway taken out) and the source standing
    `source_change` off its level before the piece came: the piece, unless the other gained
    clearly more and the source lost what the piece did not bring (the second ship's seed
    1302: a barrel slid off quarter 4 as a bottle was let go there), or clearly less
    (MOVED_SHORT_FRACTION), the source kept the difference, and a piece of its cargo weighs
    what the other gained (seed 1313: a rat slid off yard 10 as a sailor was let go there).
    Then the piece stayed and the cargo under it moved, and that weighs what the other
    gained."""
    excess = gained - grams
    if excess >= det.floor_g and -source_change >= 0.5 * excess:
        return gained
    short = -excess
    if short < tuning.MOVED_SHORT_FRACTION * grams or source_change < 0.5 * short:
        return grams
    cargo = det.cargo
    for k in range(len(cargo.zones[source + 1]) - 1):  # (the last is the fresh piece)
        weight = cargo.weighed_g(source + 1, k, det.items)
        if -0.5 * short <= weight - gained <= 0.5 * short:
            return gained
    return grams


def brief_rest(det, released, peak_g):
    """The level the total held a moment after the hand let go at sample `released`, before
    the load first went back down (a chest let go on yard 8 stood 0.18 s at 8.8 g, then
    fell): the highest level a few samples held still (BRIEF_REST_MS; two at 10 SPS), else
    held as a piece that rang or stood an instant holds it (UNSTEADY_REST_FRACTION; not a
    ramp down: the let-go running into the tipping off), at a piece's worth no heavier than
    the rise; or 0.0 (a piece tipping off unloads as it goes, and may seem to stand lower a
    moment). The table heard it land; no mat weighed it (a piezo, or it bounced off the mat)."""
    h = det.history_n
    ring = det.total_ring
    m = det.brief_rest_n
    half = m // 2
    k = det.k
    released = max(released, k - h + 1)
    tol = tuning.BRIEF_REST_SIGMAS * det.sigma_total()
    still = unsteady = 0.0  # the highest level held still, and held as an unsteady piece holds
    gone = reached(det, k, released, det.floor_g)  # where the load first went
    for j in range(released + 1, gone - m + 1):
        low = high = ring[j % h]
        total = first = 0.0
        for i in range(j, j + m):
            v = ring[i % h]
            total += v
            if i < j + half:
                first = total
            if v < low:
                low = v
            elif v > high:
                high = v
        level = total / m - det.base
        if level > peak_g or level < det.floor_g:
            continue
        if det.items and fit_errors(level, det.items) > tuning.FRESH_FIT_ERRORS:
            continue
        steady = tol + tuning.BRIEF_REST_FRACTION * level
        if high - low <= steady:  # (its halves then agree too)
            if level > still:
                still = level
        elif high - low <= tol + tuning.UNSTEADY_REST_FRACTION * level:
            drift = abs(first / half - (total - first) / (m - half))  # a ramp's, not a ring's
            if drift <= steady and level > unsteady:
                unsteady = level
    return still if still else unsteady
