"""State AT_REST: learn the empty ship, its noise, drift and sway; start an episode on a change.

Also the way back: `end_episode` returns to rest (with a `touch` if something moved the
ship and nothing was decided); and where the zones stand after an episode that decided
nothing. A load cell knocked by a hand can settle a little off its old zero (the zoo's `wear`:
up to 1 g): the episode ends on a still level lighter than any piece, the ship rests there
now (`rest_where_standing`), and a load rising from such a level begins from it
(`begin_from`), not from the old level the step left behind.
"""

from math import sqrt

from shipsense import detector_commit as commit
from shipsense import detector_leaving as leaving
from shipsense import detector_measure as measure
from shipsense import detector_records as records
from shipsense import detector_silent as silent
from shipsense import detector_topple as topple
from shipsense import detector_tuning as tuning

# det.power_up: where the session's start stands (see power_up)
POWER_UP_FIRST = 0  # the first sample comes next
POWER_UP_JUDGE = 1  # the second: did the readings jump?
POWER_UP_SETTLING = 2  # they did: samples are skipped until they calm
POWER_UP_DONE = 3


def power_up(det, zones_g, table_g):
    """The HX711s settling after power-up (tuning.POWER_UP_STEP_G); True if this sample is
    to be skipped. A session whose second sample jumped on several channels skips samples
    until no channel has jumped for a while, and the detector starts afresh there."""
    last = det.last_in
    n = det.n_zones
    state = det.power_up
    jumped = 0
    for i in range(n + 1):
        v = zones_g[i] if i < n else table_g
        if v is None:
            continue
        if state != POWER_UP_FIRST and (
            v - last[i] > tuning.POWER_UP_STEP_G or last[i] - v > tuning.POWER_UP_STEP_G
        ):
            jumped += 1
        last[i] = v
    if state == POWER_UP_FIRST:
        det.power_up = POWER_UP_JUDGE
        return False
    if state == POWER_UP_JUDGE:
        if jumped < tuning.POWER_UP_CHANNELS:
            det.power_up = POWER_UP_DONE
            return False
        det.power_up = POWER_UP_SETTLING
        det.power_up_n = 0  # samples skipped ...
        det.power_up_calm = 0  # ... and how many of the latest had no channel jump
        return True
    det.power_up_n += 1
    det.power_up_calm = 0 if jumped else det.power_up_calm + 1
    if det.power_up_calm < det.power_up_calm_n and det.power_up_n < det.power_up_max_n:
        return True
    det.restart()
    det.power_up = POWER_UP_DONE
    return False


def warm_up(det, k, total):
    """One warm-up sample. The glitch filter cannot judge the very first sample (it has no
    neighbours yet): the empty ship is each zone's median over the warm-up, and the noise is
    learned from the third sample's second difference on."""
    if k == det.warmup_n - 1 or k == 0:
        n = k + 1
        zn = det.zone_history_n
        if n > zn:
            n = zn
        for i in range(det.n_zones):
            ring = det.zone_rings[i]
            values = sorted(ring[(k - j) % zn] for j in range(n))
            det.ref[i] = values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])
        det.base = measure.sum_ref(det)
    if k >= 3:
        learn_noise(det, total, 1.0 / (k + 1) if k < 50 else det.noise_alpha)


def learn_noise(det, total, alpha):
    """Second differences: blind to drift and slow sway, 6 sigma^2 for white noise."""
    d2 = total - 2.0 * det.prev_total1 + det.prev_total2
    det.var_total += (d2 * d2 / 6.0 - det.var_total) * alpha


def step(det, k, total, d, sigma_fast):
    """One sample at rest, `d` grams from the base; True if an episode starts with it."""
    trigger = tuning.TRIGGER_SIGMAS * sigma_fast
    if trigger < tuning.TRIGGER_MIN_G:
        trigger = tuning.TRIGGER_MIN_G
    span_n = 0  # the fast trigger's onset is among its last few samples
    if d > trigger or d < -trigger:
        det.trigger_run += 1
    else:
        det.trigger_run = 0
        # (the slow trigger needs this sample past half the floor: most samples are not)
        half = 0.5 * det.floor_g
        slow = strayed(det, k, sigma_fast) if d > half or d < -half else 0.0
        if slow == 0.0:
            track(det, k, total)
            return False
        trigger = slow
        span_n = det.slow_span_n
    if 0 < det.trigger_run < min(2, det.fast_n):
        return False
    det.state = records.LOADING
    onset = measure.find_onset(det, k, trigger * tuning.ONSET_FRACTION, span_n)
    silent.remember_rest(det, onset)
    rebase(det, onset)
    commit.reset_episode(det, onset)
    det.leave_run = leaving.held_at_rest(det, k, sigma_fast)
    return True


def strayed(det, k, sigma_fast):
    """The slow trigger (tuning._SLOW_MS) if the total stood off the base past it over the
    slow span, else 0.0."""
    parts = det.slow_parts
    if k < det.slow_span_n:
        return 0.0
    trigger = tuning.TRIGGER_SIGMAS * sigma_fast / sqrt(parts)
    if trigger < det.floor_g:
        trigger = det.floor_g
    ring = det.fast_ring
    h = det.history_n
    base = det.base
    half = 0.5 * trigger
    s = 0.0
    for j in range(parts):
        v = ring[(k - j * det.fast_n) % h] - base
        if -half < v < half or v * s < 0.0:
            return 0.0
        s += v
    return trigger if s > trigger * parts or s < -trigger * parts else 0.0


def track(det, k, total):
    """Zero-tracking (drift, creep), noise and sway, learned only at rest."""
    a = det.track_alpha
    ref = det.ref
    y = det.y
    for i in range(det.n_zones):
        ref[i] += (y[i] - ref[i]) * a
    det.base = measure.sum_ref(det)
    learn_noise(det, total, det.noise_alpha)
    if k % det.sway_every_n == 0:
        learn_sway(det, k)
    if det.sway_dirty and k % det.sway_refresh_n == 0:
        det.sway.refresh()
        det.sway_dirty = False


def learn_sway(det, k):
    zn = det.zone_history_n
    now = k % zn
    then = (k - det.sway_lag_n) % zn
    change = det.sway_change
    s = 0.0
    s_abs = 0.0
    energy = 0.0
    for i in range(det.n_zones):
        ring = det.zone_rings[i]
        d = ring[now] - ring[then]
        change[i] = d
        s += d
        s_abs += d if d > 0 else -d
        energy += d * d
    # learn only from clear sway: well above the noise, and nearly nothing added or lost
    if energy < tuning.SWAY_LEARN_ENERGY * det.var_total or (
        s > tuning.SWAY_LEARN_NET * s_abs or -s > tuning.SWAY_LEARN_NET * s_abs
    ):
        return
    det.sway.learn(change)
    det.sway_dirty = True


def check_faults(det, events):
    """A `fault` when a zone first reads beyond what the ship can hold."""
    y = det.y
    faulty = det.faulty
    for i in range(det.n_zones):
        bad = not -tuning.FAULT_LIMIT_G <= y[i] <= tuning.FAULT_LIMIT_G
        if bad and not faulty[i]:
            faulty[i] = True
            now = det.t_ring[det.k % det.history_n]
            events.append(
                {
                    "type": "fault",
                    "t_ms": now,
                    "decided_ms": now,
                    "zone": i + 1,
                    "reason": f"reads {int(y[i])} g, beyond what the ship can hold",
                }
            )
        elif not bad and faulty[i]:
            faulty[i] = False


def rebase(det, onset):
    """Re-measure the resting total just before an episode: the mean since the ship came to
    rest, not the slow zero-tracking, which still carries the last decision's error. Not a
    rest that sank a piece's worth below it: a piece was going as the last decision was
    made (a rat placed as it began to tip), and the episode judges what went."""
    last = onset - det.fast_n
    n = last - det.rest_k + 1
    if n > det.rebase_n:
        n = det.rebase_n
    if n < det.rebase_min_n:
        det.base_n = det.rebase_min_n  # the tracked level, of doubtful age: assume little
        return
    mean = measure.mean_total(det, last, n)
    if det.base - mean > det.floor_g:
        det.base_n = det.rebase_min_n  # sunk a piece's worth: the episode judges what went
        return
    det.base_n = n
    settle_zones(det, last, n)
    delta = (mean - det.base) / det.n_zones
    for i in range(det.n_zones):
        det.ref[i] += delta
    det.base = measure.sum_ref(det)


def rezero(det, k, n):
    """The ship rests at the level of the last `n` still samples up to `k`: take it as each
    zone's level (what is aboard is unchanged)."""
    w = n if n < det.place_max_n else det.place_max_n
    change = measure.zone_change(det, k, w)
    for i in range(det.n_zones):
        det.ref[i] += change[i]
    det.base = measure.sum_ref(det)
    det.base_n = w


def settle_zones(det, last, n):
    """Each zone's own level over the same rest, with the sway left out (and the total kept).
    A decision books a piece's grams on its zone alone, but the zone's neighbours feel a share
    of it (crosstalk, 5-15 % each): left in, that share reads as a change on the next loading
    and puts a light piece on the wrong zone."""
    w = det.zone_history_n - (det.k - last) - 1
    if w > n:
        w = n
    if w < det.rebase_min_n:
        return
    change = det.sway.project_out(measure.zone_change(det, last, w))
    n_zones = det.n_zones
    mean = 0.0
    for v in change:
        mean += v
    mean /= n_zones
    ref = det.ref
    for i in range(n_zones):
        ref[i] += change[i] - mean


def end_episode(det, events, k):
    """Back to rest; a `touch` if the ship moved and nothing was decided (or, after a
    decision, a hand loaded again and let go, and that load vanished)."""
    loaded_again = det.committed and det.area_n and det.released_k is not None
    if (not det.committed or loaded_again) and det.peak - det.trough >= tuning.TOUCH_MIN_G:
        zones = []
        if det.area_n:
            zones.append(measure.loaded_zone(det) + 1)
        swing = det.peak if det.peak > -det.trough else det.trough
        touch = {
            "type": "touch",
            "t_ms": measure.time_of(det, det.onset_k),
            "decided_ms": det.t_ring[det.k % det.history_n],
            "grams": measure.rounded_g(swing),
            "zones": zones,
        }
        records.touch_after_all(det, events)  # the table said nothing in time: a touch
        table = det.table_sense
        if (
            zones
            and det.peak >= det.floor_g
            and table is not None
            and k - det.last_fall_k > det.recent_fall_n  # else the table is still taking a fall
        ):
            # a rise that vanished: perhaps a piece that toppled off as it was let go. The
            # table will tell: wait until the piece could have reached it (detector_topple), or
            # it already has, while the ship's episode was still ringing out
            released = det.released_k if det.released_k is not None else det.onset_k
            # a piece toppling off reaches the table within its fall once it has left its
            # zone; one that slid off slowly under a pressing hand had left by `gone_k`, one
            # that stood a moment after the hand let go when the load was back down
            gone = det.gone_k if det.gone_k is not None and det.gone_k > released else released
            if gone == released:
                gone = topple.left_zone(det, k, released)
            until = gone + det.table_fall_n
            if table.uses_mat or det.rise_weighs or det.gone_g:
                let_go_ms = measure.time_of(det, released)
                pending = records.PendingTouch(
                    touch, let_go_ms, det.onset_k, released, until, det.peak
                )
                pending.stood_g = det.gone_g
                records.set_pending(det, pending)
                if table.uses_mat and table.landed_k >= det.onset_k:
                    topple.resolve_topple(det, table.landed_g, events)
                elif not table.uses_mat and topple.struck_meanwhile(det, table.struck_k):
                    topple.topple_as_risen(det, events)
            else:
                # a piezo alone at 10 SPS names no piece that did not stand still: the touch
                # stands, marked when the table was struck just as a toppling piece would
                if topple.in_topple_time(det, table.struck_k, released, until):
                    touch["toppled"] = True
                events.append(touch)
        else:
            events.append(touch)
    det.state = records.AT_REST
    det.rest_k = k
    # a piece may have moved as the episode went and decided nothing, or as it ended just after
    # a decision (detector_silent.at_rest)
    det.silent_after_touch = not det.committed or det.silent_from_k > det.onset_k
    det.trigger_run = 0
    det.leave = None
    det.returned = None


def rest_where_standing(det, k, plateau):
    """An episode ends on a still stretch lighter than any piece (`plateau`, up to `k`): if it
    stands off the old level by more than its noise explains, the ship rests there now (a
    cell's zero stepped as it was knocked). Left at the old level, episodes start again and
    again (no rest long enough to re-measure) and the next place is weighed from it. After a
    touch, only a stretch a weighing window long: at 10 SPS the first "still" samples may be
    the HX711 still showing a change (a piece the hand knocked, beginning to go)."""
    touched = det.peak - det.trough >= tuning.TOUCH_MIN_G
    if touched and plateau.n < det.place_min_n:
        return
    w = plateau.n if plateau.n < det.place_max_n else det.place_max_n
    size = plateau.level_g if plateau.level_g > 0 else -plateau.level_g
    if size >= tuning.NEW_ZERO_SE * measure.weighing_se(det, w):
        rezero(det, k, w)


def begin_from(det, k, plateau):
    """The ship's level is now the still stretch it stood on (`plateau`): the loading rising
    from it (at `k`) begins afresh there, as from a rest."""
    end = plateau.end_k()
    rezero(det, end, plateau.n)
    silent.remember_rest(det, end + 1)
    commit.reset_episode(det, end + 1)
    d = det.fast_ring[k % det.history_n] - det.base
    if d > det.peak:
        det.peak = d
