"""State LOADING: a hand loads, touches or brushes the ship; a still load becomes a `place`.

Each sample (after detector_episode's bookkeeping) `check_leaving` looks for weight going
(-> LEAVING), deciding a still load first when the level leaves it; then `step` places a
still stretch once it is weighed, or ends the episode when the ship is back where it was.
"""

from shipsense import detector_fall as fall
from shipsense import detector_gone as gone
from shipsense import detector_leaving as leaving
from shipsense import detector_measure as measure
from shipsense import detector_place as place
from shipsense import detector_records as records
from shipsense import detector_rest as resting
from shipsense import detector_slide as slide
from shipsense import detector_stretch as stretch
from shipsense import detector_topple as topple
from shipsense import detector_tuning as tuning


def check_leaving(det, events, k, d, leave_level):
    """Start a pending leaving when the total drops; True if it did.

    A still stretch at a raised level (a piece, not yet decided) is weighed and decided first
    when the level leaves it: upwards (a second piece, a touch) or downwards (cargo leaving)
    -- except when the drop is the loading hand letting go, seen as the load falling on the
    zone it was loaded on while staying above the old level.
    """
    if det.undecided is not None and rested_then_less(det, events, k):
        return det.state == records.LEAVING  # a cascade seen in what rested
    plateau = det.plateau
    if plateau is not None and det.stable_run == 0 and rose_from_new_zero(det, d, plateau):
        resting.begin_from(det, k, plateau)
        return False
    level_ref = 0.0
    if (
        det.short_rest_n
        and (plateau is None or not plateau.after_release)
        and det.released_k is not None
        and det.stable_run == 0
        and d < det.floor_g
    ):
        # back at the old level with no still stretch seen since the release: at 10 SPS a
        # piece that tipped off within half a second rested for two samples only
        rest = stretch.short_rest(det, k, d + leave_level, 1)
        if rest is not None:
            det.plateau = plateau = rest
    elif (
        det.short_rest_n
        and det.released_k is not None
        and (plateau is None or plateau.start_k + plateau.n <= det.released_k)
        and det.stable_run == 0
        and det.dropping_k is None
    ):
        # rising again with no still stretch seen since the release: a second piece loaded
        # after the first rested for two samples (once the HX711 had settled), or a hand
        # brushing the ship. Keep the two samples in hand and weigh what comes.
        rest = stretch.short_rest(det, k - 1, tuning.PLACE_MIN_G, 2)
        if rest is not None and d > rest.level_g + leave_level:
            stretch.hold_short_rest(det, rest, d)
            return False
    if plateau is not None and plateau.level_g >= det.floor_g and det.stable_run == 0:
        ready = plateau.n >= (det.commit_min_n if plateau.after_release else det.plain_drop_n)
        if not ready and d > plateau.level_g + leave_level and rested_as_a_piece(det, plateau):
            # at 10 SPS an unpressed piece that stood still a moment, fitting a piece well,
            # and a second piece coming onto the ship: keep the first in hand, weigh what comes
            stretch.hold_short_rest(det, plateau, d)
            return False
        if ready and stretch.rose_since_release(det, plateau):
            stretch.new_load_phase(det, plateau)
            return False
        # a hand still pressing trembles by some percent of its force: more than that
        rise = leave_level
        if not plateau.after_release and tuning.TREMOR_FRACTION * plateau.level_g > rise:
            rise = tuning.TREMOR_FRACTION * plateau.level_g
        if ready and d > plateau.level_g + rise and det.dropping_k is None:
            # more is coming onto the ship: a second piece comes after the first has rung
            # out, so a short stretch right after the release is not weighed (a hand
            # brushing the fresh piece, or its ringing seen at 10 SPS)
            if det.short_rest_n and not plateau.after_release and plateau.n < det.plain_n:
                # at 10 SPS a short stretch with no release seen may be the HX711's ramp of
                # an unpressed piece with a hand already coming: weigh what comes
                stretch.hold_short_rest(det, plateau, d)
            elif (
                det.short_rest_n
                and det.items
                and measure.fit_errors(plateau.level_g, det.items) > tuning.FRESH_FIT_ERRORS
            ):
                # what rested after the release is no piece: at 10 SPS a hand that came
                # back within the HX711's settling is blended with it; weigh what rests once
                # it has gone
                stretch.hold_short_rest(det, plateau, d)
            elif not plateau.after_release or plateau.n >= det.rise_commit_n:
                return place.decide_place(det, events, k)
            return False
        if not ready and d < plateau.level_g - leave_level and det.dropping_k is None:
            # a cascade: the fresh piece rests, too briefly to be weighed for its own sake,
            # while weight leaves other zones; the stretch it rested for is the piece
            end = plateau.start_k + plateau.n - 1
            if (
                plateau.n >= det.cascade_min_n
                and place.load_on_one_zone(det, end, plateau.level_g, plateau.n)
                and (not stretch.hand_let_go(det, k, plateau) or knocked_off(det, plateau, d))
            ):
                level_ref = plateau.level_g - pressed_with(det, k, d, plateau)
        elif ready and d < plateau.level_g - leave_level:
            det.low_run = det.low_run + 1 if d < det.floor_g or det.wait_k >= 0 else 0
            if det.low_run >= det.low_n:
                if gone.pressed_then_gone(det, plateau):
                    gone.nothing_rested(det, k)  # the mat will tell (end_episode)
                    return False
                if det.dropping_k is not None and stretch.rested_after_drop(det, k):
                    plateau = det.plateau  # the hand had let go: the piece rested, then left
                elif gone.table_will_tell(det, k, plateau, d):
                    return False
                # back to the old level: the piece itself left (or cargo, as the hand let go)
                level_ref = plateau.level_g - pressed_with(det, k, d, plateau)
            elif det.dropping_k is None:
                end = plateau.start_k + plateau.n - 1
                one_zone = place.load_on_one_zone(det, end, plateau.level_g, plateau.n)
                if not one_zone or (
                    stretch.hand_let_go(det, k, plateau) and not knocked_off(det, plateau, d)
                ):
                    # on the zone being loaded: the hand letting go (what stays is the
                    # piece) or the piece tipping off: the level it settles at will tell
                    det.dropping_k = k
                    det.wait_k = -1
                else:
                    level_ref = plateau.level_g  # something else is leaving the ship
            elif plateau.after_release and d < -leave_level:
                # it went below the old level: the piece that rested left, and more
                level_ref = plateau.level_g
    if level_ref and place.beyond_pieces(det, level_ref):
        # what stood was no piece but a hand resting: it lifts, and the table tells what the
        # rise was (end_episode), as for a load that fits no piece and went
        gone.nothing_rested(det, k)
        return False
    if d < level_ref - leave_level:
        det.leave_run += 1
    else:
        det.leave_run = 0
        return False
    ringing = det.released_k is not None and k - det.released_k < det.ringing_n
    needed = det.leave_ringing_n if ringing else det.leave_n
    if det.leave_run < needed:
        return False
    if level_ref and plateau is not None:  # (level_ref is only ever a still stretch's)
        plateau.level_g = level_ref  # less a press let go of as cargo left (pressed_with)
        if place.decide_place(det, events, k):
            return True  # the still stretch showed cargo leaving too: noticed with it
        d -= level_ref
    leaving.notice(det, events, k, d, leave_level)
    return True


def pressed_with(det, k, d, plateau):
    """Grams of a hand's press that a still stretch held, with no let-go seen, let go of as
    cargo leaves another zone (the total `d` grams from the old level): the zone being loaded
    lost a share of what it held at once, past its neighbours' crosstalk share of the rest of
    the drop, and still holds a piece's worth, so the stretch weighed the hand with the
    piece. 0.0 if the zone kept what it held, or what it lost may be cargo it held before."""
    end = plateau.end_k()
    w = plateau.n if plateau.n < det.stable_w else det.stable_w
    if plateau.after_release or not det.area_n or k - end > det.zone_history_n - w:
        return 0.0
    loaded = measure.loaded_zone(det)
    held = measure.zone_change(det, end, w)[loaded]
    now = measure.zone_change(det, k, det.fast_n)[loaded]
    lost = held - now
    others = plateau.level_g - d - lost
    if (
        now < det.floor_g
        or lost < det.leave_level
        or lost < tuning.PRESS_LET_GO_FRACTION * held + tuning.CROSSTALK_MAX * others
    ):
        return 0.0
    pressed = plateau.level_g * lost / held
    if (det.ref[loaded] >= det.floor_g and fall.cargo_could_weigh(det, pressed, [loaded])) or (
        det.items
        and measure.fit_errors(plateau.level_g - pressed, det.items) > tuning.FRESH_FIT_ERRORS
    ):
        return 0.0
    return pressed


def knocked_off(det, plateau, d):
    """True if the zone a fresh piece rests on, after the hand let go of it, now loses more
    than that piece (the total `d` grams below the old level): the piece knocked cargo off
    its own zone, or went over the side with it (a hand letting go leaves the piece aboard).
    The piece rested, if what rested fits a piece (with items): it is placed, and what went
    is weighed from it."""
    if not plateau.after_release or d > -det.leave_level:
        return False
    if not det.items:
        return True
    return measure.fit_errors(plateau.level_g, det.items) <= tuning.FRESH_FIT_ERRORS


def rested_as_a_piece(det, plateau):
    """True if, at 10 SPS with items, a still stretch with no release seen, too short to be
    placed, held a piece's weight closely (as a piece let go of gently rests)."""
    return (
        det.short_rest_n
        and det.items
        and det.held is None
        and not plateau.after_release
        and plateau.n >= det.stable_w
        and measure.fit_errors(plateau.level_g, det.items) <= tuning.PRESSED_FIT_ERRORS
    )


def step(det, events, k, d, sigma_fast):
    """One sample in LOADING after `check_leaving`: place, or end the episode."""
    plateau = det.plateau
    held = det.held
    if (
        held is not None
        and det.stable_run >= 1
        and plateau is not None
        and plateau.after_release
        and place.commit_held(det, events, plateau.level_g)
    ):
        # the second piece rests above the first: the first is placed, the second is
        # weighed from it
        plateau.level_g -= held.level_g
        det.peak -= held.level_g
    if det.stable_run >= 1 and plateau is not None:
        level = plateau.level_g
        floor = det.floor_g
        if level >= floor:
            if plateau.after_release:
                n = plateau.n
                if n >= det.place_min_n:
                    n += stretch.held_same(det, level)  # what rested before the hand came
                ready = place.weighed_enough(det, level, n)
                if not ready and n >= det.gain_weigh_n:
                    # a level between two pieces takes a second or more to weigh
                    ready = place.weighed_by_its_gain(det, k, level, plateau)
            else:
                # no release seen: a piece let go of gently, or a hand still pressing one
                ready = plateau.n >= det.plain_n and plateau.n >= place.plain_wait_n(det, k, level)
            if ready and stretch.rose_since_release(det, plateau):
                # more load came on, or the pressed piece let go of landed on another zone
                slide.note_hop(det, plateau.start_k)
                stretch.new_load_phase(det, plateau)
                return
            if ready and place.load_on_one_zone(det, k, level, plateau.n):
                if topple.mat_still_weighing(det, k):
                    return  # what landed as the piece came may be cargo it pushed off
                place.decide_place(det, events, k)
                return
        elif -tuning.PLACE_MIN_G < level < tuning.PLACE_MIN_G:
            if plateau.n >= det.quiet_n:
                if not place.rested_while_cargo_left(det, events, k, plateau):
                    resting.rest_where_standing(det, k, plateau)
                    resting.end_episode(det, events, k)
                return
        elif -floor < level < floor:
            if place.fits_no_piece(det, level, plateau.n):
                # lighter than any piece, either way: no place, no fall, nothing aboard
                # changed (a hand resting on the ship, drift, noise, a cell's zero that
                # stepped). Where the ship cannot come to rest at the old level (it would
                # start an episode again at once), it rests at this one once it has stood
                # still a while (tuning._SUB_FLOOR_REST_MS)
                size = level if level > 0 else -level
                if size < tuning.TRIGGER_SIGMAS * sigma_fast or size < tuning.TRIGGER_MIN_G:
                    resting.rest_where_standing(det, k, plateau)
                    resting.end_episode(det, events, k)
                    return
                if plateau.n >= det.sub_floor_rest_n:
                    resting.rezero(det, k, plateau.n)
                    resting.end_episode(det, events, k)
                    return
        elif plateau.n >= det.place_min_n and place.quiet_loss(det, -level, plateau.n):
            # a piece's worth is missing and has stood still, though it went too gently to
            # be noticed leaving in this noise (a light piece at 10 SPS)
            leaving.notice(det, events, k, level, det.leave_level, plateau.start_k)
            return
    if k - det.onset_k > det.max_episode_n:
        resting.end_episode(det, events, k)


def rose_from_new_zero(det, d, plateau):
    """True if the load rises (to `d` grams) from a still stretch lighter than any
    piece that stood a while and was all the episode had seen: a load cell's zero that
    stepped (the ship's new level), and then a hand loading. Weighed from the old level, the
    piece carried the step (zoo-wear-20709 at 10 SPS: a 1 g step on z1 half a second before
    a bottle on z6, booked as a sailor on z1 at a touch)."""
    level = plateau.level_g
    if (
        det.committed
        or det.released_k is not None
        or det.held is not None
        or det.dropping_k is not None
        or plateau.n < det.sub_floor_rest_n
        or not -det.floor_g < level < det.floor_g
        or d < level + det.leave_level
    ):
        return False
    # nothing else moved the ship before it stood there (no hand came and went)
    low, high = measure.fast_range(det, det.onset_k, plateau.start_k)
    return high - low < tuning.TOUCH_MIN_G


def rested_then_less(det, events, k):
    """A fresh piece rested still, undecided (its weight between two pieces'), and the level
    then settled lower by a piece's worth: cargo left another zone too gently to be noticed
    leaving. The piece is what rested (placed now); what went is judged from the level it
    left (a quiet loss). Not when the drop was on the zone loaded (the hand or the piece
    itself going: the level it settles at tells). True if placed."""
    rested = det.undecided
    det.undecided = None
    if det.items and measure.fit_errors(rested.level_g, det.items) > tuning.FRESH_FIT_ERRORS:
        return False
    end = rested.start_k + rested.n - 1
    if not place.load_on_one_zone(det, end, rested.level_g, rested.n):
        return False
    if stretch.hand_let_go(det, k, rested):
        return False
    det.plateau = rested
    place.decide_place(det, events, k)
    return True
