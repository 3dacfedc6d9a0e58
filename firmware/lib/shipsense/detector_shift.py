"""State RETURNED: weight that left came back in time for a landing; once it settles, a
`shift` from the zone that lost it to the zone that gained it, or a `stay`. Unless more than
went comes back before it settles: then the piece fell and a hand is loading the ship."""

from math import sqrt

from shipsense import detector_commit as commit
from shipsense import detector_fall as fall
from shipsense import detector_measure as measure
from shipsense import detector_records as records
from shipsense import detector_tuning as tuning
from shipsense import detector_vanished as vanished


def weight_returned(det, events, k):
    """LEAVING -> RETURNED: the weight is back; wait for it to settle."""
    leave = det.leave
    in_air = 0.0  # unknown unless the dip was long enough to weigh (not at 10 SPS)
    if leave.air_n >= 3:
        in_air = -leave.air_sum / leave.air_n
    det.returned = records.Returned(leave.onset_k, leave.zones, in_air, leave)
    det.leave = None
    det.plateau = None
    det.stable_run = 0
    commit.settle_state(det)
    if det.table_sense is not None:
        det.table_sense.settle_hit(False, det.t_ring[det.k % det.history_n])


def step(det, events, k, d):
    """One sample in RETURNED, `d` grams from the base: decide once the load has held still
    long enough; but weight that goes on coming back past what went was no landing."""
    if loaded_after_fall(det, events, k, d):
        return
    if det.stable_run >= 1 and det.plateau.n >= det.shift_settle_n:
        if det.plateau.level_g > det.leave_level and shift_before_hand(det, events, k):
            return  # a moved piece leaves the total as it was: this is a hand's load on it
        decide_shift(det, events, k)


def loaded_after_fall(det, events, k, d):
    """RETURNED -> (fall) LOADING: the landing clock ran out while the weight was coming
    back, so the return was taken half-way up; it went on rising past what went, as no
    piece landing does (detector_fall.loaded_after_fall, the rule LEAVING applies too): the
    piece fell, weighed before the hand came, and the hand's load is watched as a new one."""
    returned = det.returned
    leave = returned.leave
    if det.leave is not None or not fall.loaded_after_fall(det, leave, k, d):
        return False
    det.returned = None
    det.leave = leave
    if fall.fall_before_hand(det, events, k):
        return True
    det.leave = None  # too short to weigh: the return stands ...
    det.returned = returned
    # ... and, once it had stood a moment, the move is weighed as it stood before the hand
    # came (a piece loaded onto the zone it reached was weighed with it: a 12 g boat's move
    # read 23.6 g at 10 SPS, zoo-mixed-held-back-6 95505)
    return shift_before_hand(det, events, k)


def shift_before_hand(det, events, k):
    """Decide the returned weight's move over the samples it stood back at its level before
    the load now rising began (stood_back); False, deciding nothing, if it never did."""
    end_k, w = stood_back(det, det.returned.leave.deepest_k, k)
    if not w:
        return False
    decide_shift(det, events, k, end_k, w)
    return True


def stood_back(det, deepest_k, k):
    """(end_k, w): the `w` samples up to `end_k`, after the dip at `deepest_k` and before
    sample `k`'s rising load began, when the total stood back at its level (a moved piece
    leaves it as it was); w is 0 if there were too few, or they are out of the zones' rings."""
    h = det.history_n
    fast = det.fast_ring
    base = det.base
    near = det.leave_level
    end_k = k - 1
    while end_k > deepest_k and fast[end_k % h] - base > near:
        end_k -= 1
    if not -near <= fast[end_k % h] - base <= near:
        return end_k, 0  # it never stood back at its level before the hand came
    start = end_k
    while start - 1 > deepest_k and -near <= fast[(start - 1) % h] - base <= near:
        start -= 1
    w = end_k - start + 1
    if w < det.before_hand_n or k - start >= det.zone_history_n:
        return end_k, 0
    return end_k, w


def decide_shift(det, events, k, end_k=-1, w=0):
    """The returned weight has settled (over the still stretch, or the `w` samples up to
    `end_k`): a `shift` if it settled on another zone than it left (the piece the hand let
    go of placed first, where it was never still: let_go_moved), else a `stay`; the episode
    goes on (commit.after_commit)."""
    returned = det.returned
    if end_k < 0:
        end_k = k
        w = det.plateau.n
    source, target, settled = moved_between(det, returned.zones, end_k, w)
    if settled < tuning.SHIFT_MIN_G:
        events.append(
            {
                "type": "stay",
                "t_ms": measure.time_of(det, returned.onset_k),
                "decided_ms": measure.now(det),
                "grams": measure.rounded_g(returned.grams),
            }
        )
    elif not let_go_moved(det, events, k, source, target, end_k, w):
        # what went missing from the total while the piece was in the air: sway-proof
        grams = in_air = returned.grams
        if (det.deck[source] and det.deck[target]) or grams > tuning.SHIFT_AIR_HIGH * settled:
            # what went missing on the way bounds nothing: a piece sliding or tumbling between
            # quarters leans on the deck all the way; a springy yard springs back past its
            # rest as its piece leaves, and reads light a moment
            grams = settled
            in_air = 0.0
        elif grams < tuning.SHIFT_MIN_G or grams < tuning.SHIFT_AIR_FRACTION * settled:
            # a piece that tipped or slid rather than flew was never all off the ship: what
            # went missing in the air understates it, the zones it left and reached do not
            grams = settled
        least = 0.0
        if det.items and returned.grams <= 0.0:
            least = dip_bound(det, -returned.leave.deepest)
        grams = emit(det, events, returned.onset_k, source, target, grams, in_air, least)
        det.ref[source] -= grams
        det.ref[target] += grams
        det.base = measure.sum_ref(det)
    det.returned = None
    commit.after_commit(det, k)
    if det.vanished is not None:
        # nothing fell (the weight moved, or the ship rang): what the mat took is the load
        # that vanished as this began, as beside a fall
        vanished.cargo_fell(det, k, returned.onset_k)


def let_go_moved(det, events, k, source, target, end_k, w):
    """What left `source` and settled on `target` (0-based; over the `w` samples up to
    `end_k`) was the piece the hand let go of there, never placed: it rang and was never
    still before it slid or hopped off, so its going read as cargo leaving. With items, if
    all the episode added stands on `target` as a piece, a piece from `source` can come to
    rest there, and the hand loaded `source`: placed on `source` as it weighs now, and moved
    (a `shift`); True if so."""
    if not det.items or det.committed or det.released_k is None or not det.area_n:
        return False
    if measure.loaded_zone(det) != source or not can_move(det, source, target):
        return False
    grams = measure.mean_total(det, end_k, w) - det.base
    if grams < det.floor_g or measure.fit_errors(grams, det.items) > tuning.FRESH_FIT_ERRORS:
        return False
    change = measure.zone_change(det, end_k, w)
    gained = -measure.losses(det, change)[target]
    if gained < tuning.ONE_ZONE_FRACTION * grams:
        return False  # not all of it rests there
    let_go_k = det.released_k
    commit.place_event(det, events, k, grams, change, measure.time_of(det, let_go_k), source)
    moved = measure.what_moved(det, grams, gained, source, change[source])
    report_shift(det, events, k, det.returned.onset_k, source, target, moved)
    return True


def report_shift(det, events, k, onset, source, target, grams):
    """Emit and book the shift of `grams` from `source` to `target` (0-based), begun at
    sample `onset`: the piece just placed on `source`, or cargo under it that moved as it
    was let go of (measure.what_moved)."""
    grams = emit(det, events, onset, source, target, grams)
    det.ref[source] -= grams
    det.ref[target] += grams
    det.base = measure.sum_ref(det)
    # a move seen at rest later is judged against where the piece stands now
    measure.zone_means(det, k, det.stable_w, det.silent_before)
    det.silent_from_k = k
    commit.remember_levels(det, k)


def moved_between(det, left, end_k, w):
    """(source, target, grams): the move from one of the zones weight `left` (0-based) to
    another zone that best explains how the zones settled (over the `w` samples up to
    `end_k`), sway taken out, and its grams."""
    change = measure.zone_change(det, end_k, w)
    projected = det.sway.project_out(change)
    source, target, grams, best = left[0], -1, 0.0, -1.0
    for s in left:
        for t in range(det.n_zones):
            if t == s:
                continue
            moved, fit = det.sway.transfer(projected, s, t)
            if moved > 0.0 and fit > best:
                source, target, grams, best = s, t, moved, fit
    if target < 0 or not can_move(det, source, target):
        # nothing moved anywhere, or the best move is one no piece can make (up a yard, across
        # the deck's diagonal, from the deck to a yard): the weight came back where it was,
        # spread by the ship's ringing or crosstalk
        return source, 0 if source else 1, 0.0
    # each zone on its own: reads short of a move along a sway mode (fore-aft on the deck),
    # the pair reads short when the rest of the ship still rings, and on cells whose gains
    # disagree the sway taken out takes part of the move along: all err low, take the largest
    lost = measure.losses(det, change)
    each = 0.5 * (lost[source] - lost[target])
    if each > grams:
        grams = each
    raw = 0.5 * (change[target] - change[source])  # as read, sway left in
    return source, target, raw if raw > grams else grams


def dip_bound(det, deepest_g):
    """What a piece whose move dipped the total `deepest_g` at most weighs at least: too short
    to weigh in the air (at 10 SPS a piece that lands within two samples), the HX711 still
    showed that much of it gone, while the zones' reading is blurred by sway. Less the
    noise the deepest of a few samples has (a light piece in hard noise), or a share."""
    noisy = deepest_g - tuning.SHIFT_DIP_SIGMAS * sqrt(det.var_total / det.fast_n)
    share = tuning.SHIFT_DIP_FRACTION * deepest_g
    return noisy if noisy < share else share


def name_moved(det, event, source, target, grams, in_air_g, least_g=0.0):
    """With items: name the piece that moved from `source` to `target` (0-based) in `event`,
    move it in the cargo, and return the grams to book: the piece's own (as weighed when it
    was placed, else its item's) when the zones' reading is plausibly it, else the reading.
    A reading well under the lightest piece (LIGHT_DOUBT of it) that is plausibly none of
    the pieces on `source` is no piece moving: the event becomes a `stay`, nothing named."""
    k = moved_piece(det, source + 1, grams, in_air_g, least_g)
    weight = det.cargo.weighed_g(source + 1, k, det.items) if k >= 0 else 0.0
    if k >= 0 and tuning.SHIFT_ITEM_LOW * weight <= grams <= tuning.SHIFT_ITEM_HIGH * weight:
        # the piece is known (weighed when placed): its weight, not the zones' change right
        # after a landing that set the ship swaying (which reads low while part of a
        # tipping piece still rolls)
        grams = weight
        event["grams"] = measure.rounded_g(grams)
    elif grams < tuning.LIGHT_DOUBT * det.lightest_g:
        # the zones' levels moved (a hand, the ship settling), no piece did; the levels are
        # booked all the same
        del event["from"], event["to"]
        event["type"] = "stay"
        return grams
    if k < 0:
        return grams
    item = det.cargo.zones[source + 1][k]
    event["item"] = item
    det.cargo.move(source + 1, target + 1, item)
    return grams


def moved_piece(det, zone, grams, in_air_g, least_g=0.0):
    """The index of the piece on `zone` (1-based) whose weight (as weighed when placed) is
    nearest `grams`, or -1; never one lighter than what was seen missing while it moved
    (`in_air_g`, a lower bound), nor than `least_g` (the total's dip's bound, dip_bound)."""
    best = -1
    best_error = 1.0e30
    cargo = det.cargo
    for k in range(len(cargo.zones[zone])):
        weight = cargo.weighed_g(zone, k, det.items)
        if weight < tuning.SHIFT_AIR_FRACTION * in_air_g or weight < least_g:
            continue
        error = abs(weight - grams)
        if in_air_g >= tuning.SHIFT_MIN_G and abs(weight - in_air_g) < error:
            error = abs(weight - in_air_g)  # what was missing in the air: sway-proof
        if error < best_error:
            best_error = error
            best = k
    return best


def emit(det, events, onset, source, target, grams, in_air_g=0.0, least_g=0.0):
    """Emit the shift of `grams` from `source` to `target` (0-based) begun at sample `onset`;
    with items, name the piece and move it in the cargo (name_moved: `in_air_g` went missing
    while it was in the air, 0.0 when nothing was weighed there, as for a piece seen moving at
    rest; it weighs at least `least_g`; or a `stay`, see name_moved). Returns the grams to
    book."""
    event = {
        "type": "shift",
        "t_ms": measure.time_of(det, onset),
        "decided_ms": measure.now(det),
        "from": source + 1,
        "to": target + 1,
        "grams": measure.rounded_g(grams),
    }
    if det.items:
        grams = name_moved(det, event, source, target, grams, in_air_g, least_g)
    events.append(event)
    return grams


def can_move(det, source, target):
    """Whether a piece can come to rest on zone `target` from `source` (0-based) without
    leaving the ship: a deck quarter to a deck quarter beside it (not across the diagonal),
    or a yard zone down onto a lower zone on its side (odd zones port, even starboard);
    geometry.NEIGHBOURS and BELOW, held equal by tests/unit/test_shipsense_shifts.py."""
    if det.deck[source]:
        return det.deck[target] and (source ^ target == 1 or source ^ target == 2)
    return target < source and (source - target) % 2 == 0
