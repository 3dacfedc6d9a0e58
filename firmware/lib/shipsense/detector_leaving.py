"""State LEAVING: weight dropped; wait as long as the piece needs to land on a lower zone.

`notice` sends the `leaving` and starts the landing clock of the zones that lost the weight
(`det.landing_n`, from the ship's geometry). `step` follows the drop sample by sample: a
second piece after a pause is split off and judged on its own clock; weight back in time is
RETURNED (detector_shift); weight gone when the clock runs out is a `fall`
(detector_fall), and so it is sooner once the table felt it land (`table_felt_landing`);
weight back too late, or onto the deck, is a hand after a fall.
"""

from shipsense import detector_fall as fall
from shipsense import detector_measure as measure
from shipsense import detector_records as records
from shipsense import detector_shift as shift
from shipsense import detector_stretch as stretch
from shipsense import detector_tuning as tuning
from shipsense import detector_vanished as vanished


def notice(det, events, k, d, leave_level, onset=None, since=None):
    """Send a `leaving` of `-d` grams and start waiting for the piece to land (or not);
    the drop is looked for from `since` on (default: its onset)."""
    if onset is None:
        onset = measure.find_onset(det, k, leave_level * 0.3)
    # cargo is leaving: what the table feels next may be it, not the piece a rise that
    # vanished before might have toppled; what the mat already holds is that piece's
    vanished.cargo_leaving(det, k, onset, events)
    change = measure.zone_change(det, k, det.fast_n)
    zones = measure.losing_zones(det, change, -d)
    wait = 0
    for z in zones:
        if det.landing_n[z] > wait:
            wait = det.landing_n[z]
    # noticed late (a drop first taken for the hand letting go): the landing clock runs from
    # when the drop got this deep, not from now
    deepest_k = measure.reached(det, k, onset if since is None else since, 0.7 * d)
    vanished.note_vanished(det, k, onset, zones)
    det.leave = records.Leave(onset, k, zones, wait, d, deepest_k)
    det.state = records.LEAVING
    events.append(
        {
            "type": "leaving",
            "t_ms": measure.time_of(det, onset),
            "decided_ms": det.t_ring[det.k % det.history_n],
            "grams": measure.rounded_g(-d),
            "zones": [z + 1 for z in zones],
        }
    )


def held_at_rest(det, k, sigma_fast):
    """An episode begins at sample `k`: how many samples just before it the ship already
    stood below the leaving level (they count toward the drop's hold, so a piece leaving a
    ship at rest is announced as soon as its drop has held, not that long after the episode
    began; the hold itself is unchanged)."""
    level = tuning.LEAVE_SIGMAS * sigma_fast
    if level < tuning.LEAVE_MIN_G:
        level = tuning.LEAVE_MIN_G
    h = det.history_n
    run = 0
    for j in range(1, det.trigger_run):
        if det.fast_ring[(k - j) % h] - det.base >= -level:
            break
        run += 1
    return run


def _push_deadline(leave, k):
    """The piece is still going at `k`: its landing clock starts from here."""
    leave.deepest_k = k
    deadline = k + leave.wait_n
    if deadline > leave.deadline_k:
        leave.deadline_k = deadline


def tipped_then_left(det, k, first, split):
    """True if the first part of a split drop (`first` grams, before the pause) is none of
    the cargo the zones that lost it hold, and the rest left the same zones: one piece that
    unloaded its zone part way as it tipped over, then left; not two pieces. So too if
    what left after the pause is lighter than any piece: one piece sliding off slowly, its
    progress lost in the noise a moment."""
    rest = det.base - det.fast_ring[k % det.history_n] - first
    if rest < tuning.LIGHT_DOUBT * det.lightest_g:
        return True
    zones = det.leave.zones
    if fall.cargo_could_weigh(det, first, zones):
        return False
    rest = measure.zone_change(det, k, det.fast_n)
    then = measure.zone_change(det, split.end_k, split.w)
    for i in range(det.n_zones):
        rest[i] -= then[i]
    return measure.worst_zone(measure.losses_raw(det, rest)) in zones


def rose_above(det, k):
    """True if weight arrived within the drop now seen at `k` or just before it (the total
    above the level before anything left, or, where a rise that brief shows, a strike the
    glitch filter took out of a zone): a moved piece striking its new zone rings (or a hand)."""
    top = det.base + det.leave_level
    back = det.progress_n + det.pause_n
    if det.rise_weighs and k - det.spike_k <= back:  # (10 SPS averages a strike away)
        return True
    return any(det.fast_ring[(k - j) % det.history_n] > top for j in range(back + 1))


def step(det, events, k, d, sigma_fast):
    """One sample in LEAVING, `d` grams from the base."""
    leave = det.leave
    if d < leave.deepest:
        leave.deepest = d
    if d < 0.8 * leave.deepest:  # the piece is off its zone: weigh what is missing
        leave.air_sum += d
        leave.air_n += 1
    if d < 0.5 * leave.deepest:
        leave.gone_k = k
    h = det.history_n
    fast = det.fast_ring
    falling = fast[(k - det.progress_n) % h] - fast[k % h]
    step_g = 3.0 * sigma_fast
    if step_g < tuning.PROGRESS_FRACTION * -d:
        step_g = tuning.PROGRESS_FRACTION * -d
    split = leave.split
    if falling > step_g:
        pause = k - det.progress_n - leave.deepest_k
        if pause >= det.pause_n and split is None and not rose_above(det, k):
            # the drop had stopped and starts again: perhaps a second piece follows the
            # first; if so, the first is judged on its own clock by what was missing
            w = pause if pause < det.place_max_n else det.place_max_n
            end_k = leave.deepest_k + pause
            level = measure.mean_total(det, end_k, w) - det.base
            split = leave.split = records.Split(end_k, w, leave.deadline_k, k, level)
        if split is None or split.confirmed:
            # still going: the piece has not left yet, the clock starts when it has
            _push_deadline(leave, k)
    if split is not None and not split.confirmed:
        if d < split.level_g - det.leave_level:
            split.confirmed = True  # another piece's weight is going: it is a second piece
            _push_deadline(leave, k)
        elif k - split.next_k > det.pause_n + det.progress_n:
            split = leave.split = None  # a wobble (a landing ringing), not a piece
    if split is not None and split.confirmed and k >= split.deadline_k:
        if d > split.level_g - det.leave_level:
            # nothing more is missing than before the second drop: that was the ringing of
            # weight arriving (a piece that moved striking its new zone), not a second piece
            leave.split = None
            return
        first = det.base - measure.mean_total(det, split.end_k, split.w)
        if tipped_then_left(det, k, first, split):
            leave.split = None  # one piece: the first part was it tipping over
            return
        fall.decide_fall(det, events, k, first, split.w, split.end_k)
        notice(det, events, k, fast[k % h] - det.base, 0.0, split.next_k)
        return
    # not the piece returning but a hand loading the ship after it had gone (more than went
    # came back, see loaded_after_fall; or the weight came back after it had stayed away
    # longer than any landing on a lower zone takes): what was missing before the hand came
    # is what fell
    late = (
        k - leave.deepest_k > det.fall_weigh_n
        and d > 0.5 * leave.deepest
        and returned_late(det, leave)
    )
    if (late or fall.loaded_after_fall(det, leave, k, d)) and fall.fall_before_hand(det, events, k):
        return
    if k - leave.deepest_k < det.fall_weigh_n:
        return
    # a slow slide can hide in the noise: the clock starts when the drop was (nearly) as
    # deep as it is now, whatever the noise said on the way
    deep_k = measure.reached(det, k, leave.onset_k, 0.7 * leave.deepest)
    # fusion: the table felt what the ship lost land on it: it fell, no need to wait for the
    # clock (a deck piece: the mat holds it)
    landed = table_felt_landing(det, leave, k, deep_k) or (
        det.deck[leave.zones[0]] and mat_holds(det, leave)
    )
    if k < leave.deadline_k and not landed:
        return
    if not landed and stretch.still_going(det, k, step_g):
        _push_deadline(leave, k)
        return
    if (
        not landed
        and k < deep_k + leave.wait_n
        and k < leave.notice_k + leave.wait_n + det.extra_wait_n
    ):
        return
    w = k - stretch.gone_since(det, k, leave, sigma_fast)
    if w > det.place_max_n:
        w = det.place_max_n
    drop = det.base - measure.mean_total(det, k, w)
    back = came_back(det, leave, d)
    if not back and k < leave.deadline_k + det.extra_wait_n:
        coming = fast[k % h] - fast[(k - det.progress_n) % h]
        if coming > step_g and coming > tuning.ARRIVING_FRACTION * -leave.deepest:
            return  # weight arriving as the clock ran out: a piece landing aboard, late
    # the fast mean, not the last samples: a landing piece rings at 20-30 Hz
    if back:
        if d > det.leave_level and d > -0.5 * leave.deepest:
            # half as much again as went is back: a landing's ring, or a hand loading the
            # ship after the total stood back at its level a moment: the move is weighed as
            # it stood then
            end_k, w = shift.stood_back(det, leave.deepest_k, k)
            if w:
                shift.weight_returned(det, events, k)
                shift.decide_shift(det, events, k, end_k, w)
                return
        coming = fast[k % h] - fast[(k - det.progress_n) % h]
        if coming > step_g and coming > tuning.PROGRESS_FRACTION * -leave.deepest:
            # still coming back: wait until it has, for how much came back tells a piece
            # landing from a hand loading after it fell (fall.loaded_after_fall)
            return
        shift.weight_returned(det, events, k)
        return
    if fall.hand_on_fresh_piece(det, drop, k, w) and not landed_since(det, leave):
        fall.unweigh_hand(det, events, k, drop)
        return
    unheard = unheard_light_loss(det, leave, k, drop, deep_k)
    if unheard is None:
        return  # the table may yet hear it land
    stayed = stayed_as_cargo_fell(det, leave, k, drop)
    if stayed is None:
        return  # the mat may yet weigh what fell
    fall.decide_fall(det, events, k, drop, w, k, unheard, stayed)


def unheard_light_loss(det, leave, k, drop, went_k):
    """For a loss of `drop` grams well under the lightest piece (LIGHT_DOUBT of it), gone at
    `went_k`: True if the table, fitted and given the time a piece needs to reach it and
    show, heard nothing since the loss began (no mat change, no strike), None while it may
    yet hear a landing. False for a heavier loss, or one the table heard, or with no table
    or no items to say what is light (a piece caught by a hand is heard by no table, but
    weighs as a piece), or right after a fall (the rest of what fell: the table heard it
    land with the first part)."""
    table = det.table_sense
    if table is None or not det.items or drop >= tuning.LIGHT_DOUBT * det.lightest_g:
        return False
    if drop < det.floor_g:
        return False  # a stay whatever the table heard
    if leave.onset_k - det.last_fall_k <= det.table_fall_n:
        return False
    if table.uses_mat and (table.active or table.onset_k >= leave.onset_k):
        return False
    if table.uses_piezo and table.struck_k >= leave.onset_k:
        return False
    if k < went_k + det.table_fall_n + det.mat_seen_n:
        return None
    return True


def stayed_as_cargo_fell(det, leave, k, drop):
    """A hand let go of a piece on a zone that cargo now leaves, and nothing was placed: the
    ship's loss `drop` is net of that piece if it stayed, and the ship alone cannot tell (a
    bottle let go on a boat's zone as the boat fell reads as a chest's fall). The mat weighs
    what fell: what it took beyond the loss, a piece's worth no heavier than the hand's rise,
    is the piece let go of, resting (its grams; the fall is booked at the mat's weight, and
    the piece placed), if the cargo those zones hold could weigh what the mat took (else the
    piece went over with the cargo). The mat is asked even where the loss alone could be
    cargo there: a bottle let go on a boat's zone that holds a crate too reads as the
    crate's fall. With no mat, the cargo as it weighed tells (stayed_by_cargo), where the
    loss is no cargo there (else nothing says which: a boat set down gently on a rat's zone
    that went over just before the rat leaves the same sums). 0.0 if nothing says so; None
    while the mat may yet weigh it (from when the drop was noticed, the time a piece needs
    to land and show there)."""
    table = det.table_sense
    if det.released_k is None or not det.area_n:
        return 0.0
    if measure.loaded_zone(det) not in leave.zones:
        return 0.0
    if table is None or not table.uses_mat:
        if fall.cargo_could_weigh(det, drop, leave.zones):
            return 0.0  # the loss is cargo as it is: nothing says the piece let go of stayed
        return stayed_by_cargo(det, drop, leave.zones)
    if table.onset_k < leave.onset_k and table.active:
        return 0.0  # the mat is busy with what landed before: it cannot tell
    late = k - leave.notice_k > det.table_fall_n + det.mat_steady_n + det.mat_seen_n
    if table.onset_k < leave.onset_k or k - table.onset_k < det.mat_steady_n:
        return 0.0 if late else None
    mat = table.steady_mean(k - 1, det.mat_steady_n, det.floor_g)  # it takes k after the ship
    if mat is None:
        return 0.0 if late else None
    fresh = mat - drop
    if fresh < det.floor_g or fresh > det.peak:
        return 0.0
    if det.items and measure.fit_errors(fresh, det.items) > tuning.FRESH_FIT_ERRORS:
        return 0.0
    if not fall.cargo_could_weigh(det, drop + fresh, leave.zones):
        return 0.0  # what the mat took is no cargo of those zones either
    return fresh


def stayed_by_cargo(det, drop, zones):
    """No mat to weigh what fell: the piece let go of that stayed is what the loss `drop`
    lacks to be a piece of cargo the `zones` (0-based) hold as it weighed when placed, if
    that is a piece's worth no heavier than the hand's rise (the best fit of those): a
    bottle let go on yard 7 as the boat there fell, 7.7 g left, which no cargo there
    weighs; with the bottle, the boat. 0.0 if none fits."""
    best = 0.0
    best_error = tuning.FRESH_FIT_ERRORS
    for z in zones:
        for weighed in det.cargo.weighed[z + 1]:
            fresh = weighed - drop
            if fresh < det.floor_g or fresh > det.peak:
                continue
            error = measure.fit_errors(fresh, det.items)
            if error <= best_error:
                best, best_error = fresh, error
    return best


def came_back(det, leave, d):
    """True if the weight that left as `leave` is back, `d` grams from the base: half of it at
    least, or all but less than the smallest place. Not a loss lighter than any piece that
    stands at most half back: that is where the ship rests now (a load cell's zero stepped as
    it was knocked), a `stay` that moves the zones' levels (detector_fall.decide_fall); taken
    for weight back, it left them where they were, and a place soon after was weighed from
    there (zoo-wear at 10 SPS: a step of 0.8 g noticed leaving again and again)."""
    if -d < 0.5 * -leave.deepest:
        return True
    return -d < tuning.PLACE_MIN_G and -leave.deepest >= det.floor_g


def returned_late(det, leave):
    """True if the weight stayed away, from when the drop was (nearly) complete, at least as
    long as the piece needed to land on a lower zone and show there: what comes back now is
    not the piece landing (a yard piece lands within ~0.2 s of leaving)."""
    deep_k = measure.reached(det, leave.gone_k, leave.onset_k, 0.7 * leave.deepest)
    return leave.gone_k - deep_k >= leave.wait_n + det.late_n


def mat_holds(det, leave):
    """True if the mat began to change after the drop began and now holds at least half the
    grams the ship lost (a piece that landed on it, not a hand knocking the table)."""
    table = det.table_sense
    if table is None or not table.uses_mat or not table.active or table.onset_k < leave.onset_k:
        return False
    return table.level - table.base >= tuning.MAT_HOLDS_FRACTION * -leave.deepest


def landed_since(det, leave):
    """True if the table felt something land since the drop began: the mat holds its share
    of what the ship lost (mat_holds), or (a piezo alone) it was struck no sooner than a
    piece leaving those zones could reach it. A hand lifting off a fresh piece lands
    nothing."""
    table = det.table_sense
    if table is None:
        return False
    if table.uses_mat:
        return mat_holds(det, leave)
    return table.struck_k >= leave.onset_k + table_soonest(det, leave.zones)


def table_felt_landing(det, leave, k, went_k):
    """True if the table felt the landing of what the ship lost, the piece gone at `went_k`
    (as the load cells showed it): the mat holds its share of the lost grams, or (a piezo
    alone) the table was struck, no sooner than a piece leaving those zones could reach the
    table (from when the first piece went, where another followed it off other zones too
    close to split: first_gone), and the load cells, given the time to show a piece landing
    on a lower zone then, still miss the weight. Not while a second piece may be following
    (the split's own clock)."""
    table = det.table_sense
    if table is None or leave.split is not None or k - leave.deepest_k < det.stable_w:
        return False
    if table.uses_mat:
        if not mat_holds(det, leave):
            return False
        felt_k = table.onset_k
        seen_n = det.mat_seen_n
    else:
        felt_k = table.struck_k
        seen_n = det.table_seen_n
    if k < felt_k + seen_n:
        return False
    # too soon for what went last; where another piece followed the first, the first may
    # have landed (it went no sooner than the drop began: first_gone is only worked out
    # for a table change that could pass)
    soonest = table_soonest(det, leave.zones)
    if felt_k < went_k + soonest and (
        felt_k < leave.onset_k + soonest or felt_k < first_gone(det, leave, k) + soonest
    ):
        return False
    return det.total_ring[k % det.history_n] - det.base < 0.5 * leave.deepest


def first_gone(det, leave, k):
    """When the load cells showed the first piece gone (its zones 70 % down): where another
    piece followed it off other zones, the total's drop shows the last one gone."""
    change = measure.zone_change(det, k, det.fast_n)
    loss = 0.0
    for z in leave.zones:
        loss -= change[z]
    return measure.zones_reached(det, k, leave.onset_k, leave.zones, -0.7 * loss)


def table_soonest(det, zones):
    """Samples from when the load cells showed a piece gone from `zones` (0-based) to the
    soonest it can strike the table (the highest zone's fall: the piece may be from any)."""
    soonest = det.table_soonest_n[zones[0]]
    for z in zones:
        if det.table_soonest_n[z] > soonest:
            soonest = det.table_soonest_n[z]
    return soonest
