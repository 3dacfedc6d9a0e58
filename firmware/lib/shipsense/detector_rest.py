"""State AT_REST: learn the empty ship, its noise, drift and sway; start an episode on a change.

Also the way back: `end_episode` returns to rest (with a `touch` if something moved the
ship and nothing was decided).
"""

from shipsense import detector_commit as commit
from shipsense import detector_measure as measure
from shipsense import detector_records as records
from shipsense import detector_tuning as tuning


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
    if d > trigger or d < -trigger:
        det.trigger_run += 1
    else:
        det.trigger_run = 0
        track(det, k, total)
    if det.trigger_run < min(2, det.fast_n):
        return False
    det.state = records.LOADING
    onset = measure.find_onset(det, k, trigger * tuning.ONSET_FRACTION)
    rebase(det, onset)
    commit.reset_episode(det, onset)
    return True


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
    rest, not the slow zero-tracking, which still carries the last decision's error."""
    last = onset - det.fast_n
    n = last - det.rest_k + 1
    if n > det.rebase_n:
        n = det.rebase_n
    if n < det.rebase_min_n:
        det.base_n = det.rebase_min_n  # the tracked level, of doubtful age: assume little
        return
    det.base_n = n
    delta = (measure.mean_total(det, last, n) - det.base) / det.n_zones
    for i in range(det.n_zones):
        det.ref[i] += delta
    det.base = measure.sum_ref(det)


def end_episode(det, events, k):
    """Back to rest; a `touch` if the ship moved and nothing was decided."""
    if not det.committed and det.peak - det.trough >= tuning.TOUCH_MIN_G:
        zones = []
        if det.area_n:
            zones.append(measure.worst_zone(det.sway.zone_scores(det.area)) + 1)
        swing = det.peak if det.peak > -det.trough else det.trough
        events.append(
            {
                "type": "touch",
                "t_ms": measure.time_of(det, det.onset_k),
                "decided_ms": det.t_ring[det.k % det.history_n],
                "grams": measure.rounded_g(swing),
                "zones": zones,
            }
        )
    det.state = records.AT_REST
    det.rest_k = k
    det.trigger_run = 0
    det.leave = None
    det.returned = None
