"""A rise that vanished, waiting for the table's word: a piece that toppled off as it was
let go (a `place` and a `fall`), or the `touch` it looked like.

`detector_rest.end_episode` sets `det.pending` (a `PendingTouch`) when a rise vanished and
the table may yet feel a piece land; `pending_step` runs on every sample while it waits.
One that vanished as cargo began to leave waits for the cargo's falls too: detector_vanished.
"""

from shipsense import detector_measure as measure
from shipsense import detector_records as records
from shipsense import detector_tuning as tuning
from shipsense import table as mat
from shipsense.items import name_place


def mat_began_since(det, k):
    """True if the table mat is in an episode that began at sample `k` or later."""
    table = det.table_sense
    return table is not None and table.uses_mat and table.active and table.onset_k >= k


def mat_still_weighing(det, k):
    """True while the mat, with items, still weighs a piece's worth that began landing after
    this loading began (for at most a landing's settle; a knock rings about its base) and the
    zone being loaded holds cargo: cargo pushed off it is told by what the mat weighed
    (detector_fall.cargo_the_mat_took), which the place waits for (zoo-jostles-2-31014, 80
    SPS: a rat slid off yard 8 as a chest was pressed there; the mat weighed it 50 ms after
    the chest was placed at 7.0 g). Not once the mat weighs what landed, steady or by its
    ring, and that is none of the zone's cargo or what another zone lost (the second ship's
    seed 1200: a barrel fell off yard 6 as a chest was let go on quarter 4, which held a
    barrel too; the chest's place, and the fall with it, waited 0.8 s for the ringing mat)."""
    table = det.table_sense
    if not (
        det.items
        and mat_began_since(det, det.onset_k)
        and k - table.onset_k < table.settle_fall_n
        and det.area_n
    ):
        return False
    loaded = measure.loaded_zone(det)
    aboard = det.cargo.zones[loaded + 1]
    if not aboard or table.weighted_mean(k, table.settle_n) < det.floor_g:
        return False
    landed = None
    if k - table.onset_k >= det.mat_steady_n:
        landed = table.steady_mean(k, det.mat_steady_n, det.floor_g)
    if landed is None and det.mat_ring_n and k - table.onset_k >= det.mat_ring_n:
        landed = ringing_level(table, k, det.mat_ring_n)
    if landed is None or landed < det.floor_g:
        return True
    if measure.subset_fit(landed, aboard, det.items) > tuning.FRESH_CARGO_ERRORS:
        return False
    lost = measure.losses(det, measure.zone_change(det, k, det.stable_w))
    for i in range(det.n_zones):
        if i != loaded and abs(lost[i] - landed) <= tuning.MAT_TOOK_FRACTION * landed:
            return False
    return True


def pending_step(det, k, table_events, events):
    """One sample with a touch pending: the touch stands if the table felt nothing by the
    time a toppled piece would have reached it; once the mat felt something, its verdict
    decides: its own when it comes, or sooner a still weight it already holds (a knock's
    ripple never holds still off its base) or one it rings about steadily however hard (over
    a shorter ring where the piece's brief rest weighed the same), or, struck in time and
    still again with nothing on it (or ringing about its base, over the shorter ring too),
    the rise's weight. Without a mat, a piezo hit in time decides (the rise's weight); so it
    does at the end where the mat was busy before the rise vanished (it cannot be said to
    begin then)."""
    pending = det.pending
    table = det.table_sense
    if not pending.mat and (
        mat_began_since(det, pending.onset_k)
        or (table_events and table.uses_mat and table.onset_k >= pending.onset_k)
    ):
        pending.mat = True  # the mat is in an episode since the rise, or one just ended
    if pending.mat and k <= pending.until_k + det.max_episode_n:
        if table_events:
            grams = 0.0
            for event in table_events:
                if event["type"] == "land" and event["grams"] and not event["bounced"]:
                    grams = event["grams"]
            if grams:
                resolve_topple(det, grams, events)
            elif struck_meanwhile(det, table.struck_k) or struck_meanwhile(det, table.onset_k):
                if topple_as_risen(det, events):  # it struck the mat and bounced off
                    for event in table_events:
                        if event["type"] == "knock":
                            event["type"] = "land"
                            event["grams"] = 0.0
                            event["bounced"] = True
            else:
                resolve_topple(det, 0.0, events)
            return
        if k - table.onset_k >= det.mat_steady_n:
            # a piece ringing the mat about its weight is weighed before the mat holds still
            steady = table.steady_mean(k, det.mat_steady_n, det.floor_g)
            if steady is not None:
                resolve_topple(det, steady, events)
                return
        early = det.mat_ring_early_n
        if early and early <= k - table.onset_k < det.mat_ring_n:
            # a shorter ring is rough alone: it decides where the brief rest weighed the same,
            # or where it rings about no piece's weight (ringing_level: a level near the base
            # crossed four times), the piece bounced off, as the longer ring does
            steady = ringing_level(table, k, early)
            if steady is not None and steady >= det.floor_g:
                if not pending.stood_g:
                    pending.stood_g = measure.brief_rest(det, pending.released_k, pending.peak_g)
                if abs(pending.stood_g - steady) <= mat.STEADY_HALVES * steady:
                    resolve_topple(det, steady, events)
                    return
            elif steady is not None and struck_meanwhile(det, table.onset_k):
                topple_as_risen(det, events)
                return
        if det.mat_ring_n and k - table.onset_k >= det.mat_ring_n:
            steady = ringing_level(table, k, det.mat_ring_n)
            if steady is not None and steady >= det.floor_g:
                resolve_topple(det, steady, events)
                return
            if steady is not None and struck_meanwhile(det, table.onset_k):
                topple_as_risen(det, events)  # it rings about its base: the piece bounced off
                return
        if k - table.onset_k >= det.mat_still_n:
            mean = table.still_mean(k, det.mat_still_n)
            if mean is None:
                return
            if mean - table.base >= det.floor_g:
                resolve_topple(det, mean - table.base, events)
            elif struck_meanwhile(det, table.onset_k):
                topple_as_risen(det, events)  # struck in time, and still again with nothing on
        return
    if not table.uses_mat and struck_meanwhile(det, table.struck_k):
        topple_as_risen(det, events)
        return
    if k > pending.until_k:
        busy = table.uses_piezo and table.active and table.onset_k < pending.onset_k
        if busy and struck_meanwhile(det, table.struck_k):
            topple_as_risen(det, events)  # the mat was busy already; the piezo heard it land
        else:
            records.touch_after_all(det, events)


def ringing_level(table, k, n):
    """The level above the base that the mat's ring, however hard, dies away toward over
    its last `n` samples (8 to the ring's, all in this episode): one damped mode steps
    as x[j] = c0 + c1 x[j-1] + c2 x[j-2] and settles at c0 / (1 - c1 - c2) whatever its
    phase, frequency or amplitude. Fitted by least squares over the span's first and
    its last three quarters: both a ring dying away (complex roots, decay < 1) that explains
    nine tenths of its window's variance (a bounced piece's blow and ring together do not:
    zoo-rings-21100), their levels within a tenth of it (mat.MAT_BAND_MIN_G at least), and
    a level near the base (a knock's first swings, a piece that bounced off) crossed four
    times or more; else None. The second ship's seed 1302: a crate ringing the mat 90 g
    each way at 8 Hz, weighed by a mean of 200 ms 730 ms after it landed (8.41 g for
    7.79), this way 200 ms after (7.47 g)."""
    if not table.active or k - n + 1 < table.onset_k:
        return None
    ring = table.ring
    rn = table.ring_n
    ref = ring[k % rn]  # (sums of squares from near zero: floats are single on the ESP32)
    first = level = 0.0
    for i in range(2):
        end = k - i * (n // 4)
        start = end - n + n // 4 + 3  # (j - 2 is in the span)
        su = sv = sy = suu = svv = suv = suy = svy = syy = 0.0
        for j in range(start, end + 1):
            y = ring[j % rn] - ref
            u = ring[(j - 1) % rn] - ref
            v = ring[(j - 2) % rn] - ref
            su += u
            sv += v
            sy += y
            syy += y * y
            suu += u * u
            svv += v * v
            suv += u * v
            suy += u * y
            svy += v * y
        m = end + 1 - start
        su /= m
        sv /= m
        sy /= m
        cuu = suu / m - su * su  # the normal equations, centred
        cvv = svv / m - sv * sv
        cuv = suv / m - su * sv
        d = cuu * cvv - cuv * cuv
        if d <= 0.0:
            return None  # the mat holds still (still_mean weighs it)
        cuy = suy / m - su * sy
        cvy = svy / m - sv * sy
        c1 = (cuy * cvv - cvy * cuv) / d
        c2 = (cvy * cuu - cuy * cuv) / d
        if not -1.0 < c2 < 0.0 or c1 * c1 + 4.0 * c2 >= 0.0:
            return None  # no ring dying away
        cyy = syy / m - sy * sy
        if cyy - c1 * cuy - c2 * cvy > 0.1 * cyy:
            return None  # one damped mode leaves over a tenth of the span's motion unexplained
        level = (sy - c1 * su - c2 * sv) / (1.0 - c1 - c2)
        if i == 0:
            first = level
    mean = 0.5 * (first + level) + ref - table.base
    if abs(first - level) > max(mat.STEADY_HALVES * mean, mat.MAT_BAND_MIN_G):
        return None
    if mean < mat.LAND_MIN_G:
        level = mean + table.base
        above = ring[k % rn] > level
        crossings = 0
        for j in range(1, n):
            if (ring[(k - j) % rn] > level) != above:
                crossings += 1
                above = not above
        if crossings < 4:
            return None
    return mean


def left_zone(det, k, released):
    """The sample the load let go of at `released` was back down at the old level by, for
    good (the piece gone, if it went: a light one that stood a moment dips to the old level
    in the noise before it leaves), or `released` if it never was before `k`."""
    since = released
    if since < k - det.history_n + 1:
        since = k - det.history_n + 1
    h = det.history_n
    ring = det.fast_ring
    level = det.base + det.floor_g
    j = k - 1
    while j >= since and ring[j % h] <= level:
        j -= 1
    gone = j + 1
    return released if gone >= k else gone


def struck_meanwhile(det, k):
    """True if the table was struck at sample `k` as a piece toppling off as the rise vanished
    would strike it: no sooner than it could fall from the deck, no later than from the top
    yard once it had left its zone (the load cells show the let-go late by the HX711's filter;
    the piezo at once)."""
    return in_topple_time(det, k, det.pending.released_k, det.pending.until_k)


def in_topple_time(det, k, released, until):
    """True if a piece let go of at `released` could strike the table at `k` (up to `until`)."""
    return released + det.topple_soonest_n <= k <= until


def topple_as_risen(det, events):
    """A rise that vanished and a strike on the table just when a piece toppling off would
    land, but no weight on the mat (a piezo alone, or it bounced off): the piece was what
    stood before it vanished (where no let-go was seen, or a moment after it: measure.brief_rest)
    or what rose, if that is a piece's worth (with items: fits one); else the touch stands,
    marked `toppled` (a piece may have gone over the side that no sensor weighed: a pressed
    one; the referee asks). True if it was a topple."""
    pending = det.pending
    grams = topple_weight(det, pending)
    pending.touch["toppled"] = True  # sent only if the touch stands
    return resolve_topple(det, grams, events)


def topple_weight(det, pending):
    """What the rise that vanished (`pending`) weighs as a piece that toppled off: what stood
    before it vanished (measure.brief_rest), else what rose; 0.0 if neither weighs a piece."""
    if not pending.stood_g:
        pending.stood_g = measure.brief_rest(det, pending.released_k, pending.peak_g)
    grams = pending.stood_g if pending.stood_g else pending.peak_g
    # a still level weighs a piece even at 10 SPS, where a rise does not; with a mat fitted,
    # a piece that bounced off it is weighed so only where a rise weighs too (80 SPS: the
    # level may have held a hand)
    stood_weighs = pending.stood_g and not det.table_sense.uses_mat
    if not (stood_weighs or det.rise_weighs) or (
        det.items and measure.fit_errors(grams, det.items) > tuning.FRESH_FIT_ERRORS
    ):
        return 0.0
    return grams


def resolve_topple(det, grams, events):
    """The mat holds `grams` after a rise that vanished (a pending touch): a piece's worth,
    no heavier than the rise could have been, toppled off its zone as it was let go: a
    `place` and a `fall` (fusion: the ship alone saw only a touch), and True. Anything else:
    the touch stands."""
    pending = det.pending
    touch = pending.touch
    records.set_pending(det, None)
    if grams < det.floor_g or grams > pending.peak_g * det.rise_seen_factor + det.leave_level:
        if pending.cargo_g is None or pending.owed:
            records.send_waited(det, events, touch)
        return False
    now = det.t_ring[det.k % det.history_n]
    t_ms = pending.release_t
    zone = touch["zones"][0]
    grams = measure.rounded_g(grams)
    place = {"type": "place", "t_ms": t_ms, "decided_ms": now, "zone": zone, "grams": grams}
    fall = {"type": "fall", "t_ms": t_ms, "decided_ms": now, "grams": grams, "zones": [zone]}
    if det.items:
        item, ambiguous, alternatives = name_place(grams, det.items)
        place["item"] = item
        fall["items"] = [item]
        if ambiguous:
            place["ambiguous"] = fall["ambiguous"] = True
            place["alternatives"] = alternatives
            fall["alternatives"] = [[name] for name in alternatives]
    events.append(place)
    events.append(fall)
    det.last_fall_k = det.k
    return True
