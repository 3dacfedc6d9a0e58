"""One sample of an episode, in every state but AT_REST: watch the hand, the stillness, then
hand the sample to the state it is in (LEAVING, RETURNED, LOADING).

What every episode sample keeps up to date: where hands pressed while loading (`area`), the
peak and trough, when the hand let go (`released_k`), whether the total holds still
(`stable_run`) and the still stretch (`plateau`), and, at 10 SPS, a piece tipping off
right after it was let go.
"""

from shipsense import detector_commit as commit
from shipsense import detector_gone as gone
from shipsense import detector_leaving as leaving
from shipsense import detector_loading as loading
from shipsense import detector_measure as measure
from shipsense import detector_place as place
from shipsense import detector_records as records
from shipsense import detector_shift as shift
from shipsense import detector_slide as slide
from shipsense import detector_stretch as stretch
from shipsense import detector_tuning as tuning


def step(det, events, k, d, sigma_fast):
    """One episode sample, `d` grams (fast mean) from the base."""
    n = det.n_zones
    state = det.state
    if det.area_open and state != records.LEAVING and state != records.RETURNED:
        y = det.y
        ref = det.ref
        area = det.area
        for i in range(n):
            area[i] += y[i] - ref[i]
        det.area_n += 1
    if (
        det.short_rest_n
        and det.released_k is not None
        and det.plateau is None
        and det.held is None
        and state != records.LEAVING
        and state != records.RETURNED
    ):
        # let go of, and back at the old level with nothing seen resting: it was a hand (a
        # touch); if the load rises again from there, that is a new loading
        if d < det.floor_g:
            det.emptied = True
        elif det.emptied and d > det.floor_g + det.leave_level:
            det.emptied = False
            slide.note_hop(det, k)
            det.released_k = None
            det.peak = d
            commit.clear_area(det)
    if d > det.peak:
        released = det.released_k
        if released is not None and k - released <= det.leave_ringing_n and det.plateau is None:
            # back above where it fell from at once: the zone rang as the piece landed under
            # the hand, which never let go (a springy yard, seed 14)
            det.released_k = None
        det.peak = d
    if d < det.trough:
        det.trough = d
    # a hand let go only of what clearly came on (not of sway after the last decision)
    if det.released_k is None and det.peak >= tuning.PLACE_MIN_G and det.peak >= det.leave_level:
        let_go = tuning.RELEASE_MIN_G
        if let_go < tuning.RELEASE_SIGMAS * sigma_fast:
            let_go = tuning.RELEASE_SIGMAS * sigma_fast
        if let_go < tuning.RELEASE_FRACTION * det.peak:
            let_go = tuning.RELEASE_FRACTION * det.peak
        if det.peak - d > let_go:
            det.released_k = k
            det.area_open = False
            det.emptied = False

    # holding still? the fast mean stays in a noise band over STABLE_MS
    h = det.history_n
    w = det.stable_w
    fast = det.fast_ring
    hi = -1.0e30
    lo = 1.0e30
    newer = 0.0
    older = 0.0
    half = w // 2
    for j in range(w):
        v = fast[(k - j) % h]
        if v > hi:
            hi = v
        if v < lo:
            lo = v
        if j < half:
            newer += v
        elif j >= w - half:
            older += v
    band = tuning.SETTLE_SIGMAS * sigma_fast
    if band < tuning.SETTLE_BAND_MIN_G:
        band = tuning.SETTLE_BAND_MIN_G
    # ... and does not drift one way (a hand pressing slowly, a touch beginning)
    trend = (newer - older) / half if half else 0.0
    if trend > tuning.TREND_FRACTION * band or -trend > tuning.TREND_FRACTION * band:
        hi = lo + band + 1.0
    leave_level = tuning.LEAVE_SIGMAS * sigma_fast
    if leave_level < tuning.LEAVE_MIN_G:
        leave_level = tuning.LEAVE_MIN_G
    det.leave_level = leave_level
    if hi - lo > band and det.stable_run == 0 and rocking_steady(det, k, band):
        # a load rocking about a steady level (the hull set swinging by the piece): as still
        # as it gets, a still stretch of the whole window (update_plateau takes stable_run +
        # w - 1 samples, once the run is counted below), weighed over it
        det.stable_run = det.place_max_n - w + 1
        det.plateau = None
        hi = lo
    if hi - lo <= band:
        det.stable_run += 1
        if det.peak >= tuning.PLACE_MIN_G:
            det.area_open = False  # the load has arrived: later hands are not loading
        if det.dropping_k is not None:
            plateau = det.plateau
            # back at the old level (or, waiting for a gone load's landing clock, anywhere
            # short of the level it stood at: a piece landing aboard brings that back)
            down = d < det.floor_g or (
                det.wait_k >= 0 and plateau is not None and d < plateau.level_g - leave_level
            )
            if plateau is not None and down and plateau.level_g >= det.floor_g:
                # it settled back at the old level: the piece itself tipped off
                if gone.pressed_then_gone(det, plateau):
                    gone.nothing_rested(det, k)  # the mat will tell (end_episode)
                    return
                if gone.table_will_tell(det, k, plateau, d):
                    if det.dropping_k is not None:  # waiting: still down, and what stood
                        det.low_run += 1  # before the drop is judged as it was
                    return
                level = plateau.level_g
                onset = det.dropping_k
                if not place.decide_place(det, events, k):
                    leaving.notice(det, events, k, d - level, leave_level, onset)
                return
            if slide.rested_then_moved(det, events, k):
                return  # it settled on another zone: the piece rested, then moved
            place.released(det)  # it settled above the old level: a release
        stretch.update_plateau(det, k, band)
    else:
        det.stable_run = 0

    if det.state == records.LEAVING:
        leaving.step(det, events, k, d, sigma_fast)
        return
    if loading.check_leaving(det, events, k, d, leave_level):
        return
    if det.state == records.RETURNED:
        shift.step(det, events, k, d)
        return
    loading.step(det, events, k, d, sigma_fast)


def rocking_steady(det, k, band):
    """True if the total, a piece's worth or more above the base since a hand loaded the
    ship, has rocked about a steady level over the longest weighing window: both halves'
    means within the still band, the swing within ROCK_SWING of the level, in an episode that
    decided nothing 2.4 s after the hand came. The hull's own swing, set off by the piece, can
    outlast any still band of the noise at rest (the second ship's heavy pieces: +-0.5 g for
    seconds). Once the hand let go a window ago, a swing up to ROCK_LET_GO_SWING of the level
    is the hull's too (a light piece on a heavy ship) if the level fits a piece well and the
    swing is dying away (the newer half's no wider than the older's, by the still band): a
    hand coming back swings it wider."""
    n = det.place_max_n
    let_go = det.released_k is not None and k - det.released_k >= n
    if not det.area_n or k % det.stable_w:
        return False  # (looked at once a still window)
    if not let_go and (det.committed or k - det.onset_k < 2 * n):
        return False
    h = det.history_n
    fast = det.fast_ring
    half = n // 2
    newer = 0.0
    older = 0.0
    new_hi = old_hi = -1.0e30
    new_lo = old_lo = 1.0e30
    for j in range(2 * half):
        v = fast[(k - j) % h]
        if j < half:
            newer += v
            if v > new_hi:
                new_hi = v
            if v < new_lo:
                new_lo = v
        else:
            older += v
            if v > old_hi:
                old_hi = v
            if v < old_lo:
                old_lo = v
    level = (newer + older) / (2 * half) - det.base
    lo = new_lo if new_lo < old_lo else old_lo
    if level < det.floor_g or lo - det.base < det.floor_g:
        return False
    if abs(newer - older) / half > band:
        return False
    swing = (new_hi if new_hi > old_hi else old_hi) - lo
    if swing <= tuning.ROCK_SWING * level:
        return True
    return (
        let_go
        and det.items is not None
        and swing <= tuning.ROCK_LET_GO_SWING * level
        and new_hi - new_lo <= old_hi - old_lo + band
        and measure.fit_errors(level, det.items) <= tuning.PRESSED_FIT_ERRORS
    )
