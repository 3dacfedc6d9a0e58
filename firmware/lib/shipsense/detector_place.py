"""Deciding a place: is a still stretch a piece, weighed well enough, on one zone, let go of?

Read by state LOADING (detector_loading): these functions judge the latest still stretch
and, once it is a piece, emit the `place` (detector_commit books it).
"""

from shipsense import detector_commit as commit
from shipsense import detector_fall as fall
from shipsense import detector_leaving as leaving
from shipsense import detector_measure as measure
from shipsense import detector_records as records
from shipsense import detector_shift as shift
from shipsense import detector_silent as silent
from shipsense import detector_slide as slide
from shipsense import detector_stretch as stretch
from shipsense import detector_tuning as tuning
from shipsense.items import place_margin


def load_on_one_zone(det, k, level, n):
    """The new load sits on one zone (a piece), not spread by a hand on others."""
    w = n if n < det.place_max_n else det.place_max_n
    change = measure.zone_change(det, k, w)
    # the zone the hand loaded, if it was seen loading; else where the load is now
    zone = measure.place_zone(det, change)
    lost = measure.losses(det, change)
    if -lost[zone] >= tuning.ONE_ZONE_FRACTION * level:
        return True
    if not det.items or n < det.place_max_n:
        return False
    # not where the hand pressed: a pressed piece that slid off onto a zone it can reach
    # rests there alone, still as long as a place is weighed at most (a piece landing from
    # a slide takes a moment to rest its whole weight there): decide_place places it where
    # it was pressed, and moves it
    rest = measure.worst_zone(det.sway.zone_scores(change))
    if -lost[rest] < tuning.ONE_ZONE_FRACTION * level:
        return False
    return slide.hopped_from(det, level, change, rest) >= 0


def weighed_enough(det, level, n):
    """True once `n` still samples weigh `level` well enough to name it (with items) or to
    the standard error wanted (without)."""
    if n < det.place_min_n:
        return False
    if n >= det.place_max_n:
        return True
    # the error of the level it rose from counts too
    se = measure.weighing_se(det, n)
    if det.items:
        return place_margin(level, det.items) >= tuning.PLACE_MARGIN_SE * se
    return se <= tuning.PLACE_SE_G


def weighed_by_its_gain(det, k, level, plateau):
    """Cargo left other zones as the fresh piece came to rest (a cascade, cascade_loss): the
    piece weighs what its zone gained, the total's change `level` and the loss, and True if
    that weighs it well enough. At 10 SPS a boat let go of as a barrel fell nets a barrel's
    worth, a level between two pieces that took a second to weigh, and the fall waited (at
    80 SPS asked once the level has stood tuning._GAIN_WEIGH_MS: detector_loading)."""
    if not measure.reads_light_now(det):
        return False  # no zone reads light: nothing to weigh it by
    w = plateau.n if plateau.n < det.place_max_n else det.place_max_n
    change = measure.zone_change(det, k, w)
    cascade = cascade_loss(det, k, level, change)
    return cascade is not None and weighed_enough(det, level + cascade.grams, plateau.n)


def fits_no_piece(det, level, n):
    """True if a still stretch of `n` samples at `level` (grams from the base, either way) is
    clearly lighter than any piece: below the floor by its weighing error, or still below it
    when weighed over the longest window."""
    if n < det.place_min_n:
        return False
    if n >= det.place_max_n:
        return True
    se = measure.weighing_se(det, n)
    size = level if level > 0 else -level
    return det.floor_g - size >= tuning.PLACE_MARGIN_SE * se


def fits_no_item(det, level):
    """True if, with items, what `level` grams adds to a held short rest (or to the base)
    fits none of them: a piece with a hand still pressing on it, not a piece at rest."""
    if not det.items:
        return False
    return _added_fit(det, level) > tuning.FRESH_FIT_ERRORS


def beyond_pieces(det, level):
    """True if, with items of more than one kind, a still load of `level` grams is far
    heavier than any piece (NO_PIECE_FACTOR times the heaviest): a hand resting on the
    ship, not a piece (the ship's pieces are placed one at a time, RR8). With one kind
    (Montego Bay's barrels), a load of several times its weight is that many set down
    together (MB)."""
    return det.heaviest_g > det.lightest_g and level > tuning.NO_PIECE_FACTOR * det.heaviest_g


def released(det):
    """The drop on the loaded zone was the hand letting go: it did so when the drop began."""
    det.released_k = det.dropping_k
    det.dropping_k = None
    det.low_run = 0


def plain_wait_n(det, k, level):
    """How many still samples a load with no release seen must hold before it is placed: the
    plain wait if it fits a piece well (or there are no items); longer if it fits only
    loosely, and longest if it fits none (a hand may still be pressing a piece down)."""
    if not det.items:
        return det.plain_n
    errors = _added_fit(det, level)
    if errors > tuning.FRESH_FIT_ERRORS:
        return det.plain_pressed_n
    if errors > tuning.PRESSED_FIT_ERRORS and k - det.onset_k < det.press_longest_n:
        return det.plain_doubt_n
    return det.plain_n


def _added_fit(det, level):
    """How many weighing errors what `level` grams adds to a held short rest (or to the
    base) is from the nearest item."""
    if det.held is not None:
        level -= det.held.level_g  # a second piece on the first
    return measure.fit_errors(level, det.items)


def quiet_loss(det, grams, n):
    """True if `grams` missing over `n` still samples is clearly a piece's worth: above the
    smallest place by its weighing error, and (with items) fitting a piece. Fitting none
    (the ship reads a light piece light in sway, or part of it went with a fall before), it
    is a piece all the same past the floor once it has stood missing over the longest
    weighing window, as a rise is placed then; sooner if the mat took about as much."""
    se = measure.weighing_se(det, n)
    if det.items and measure.fit_errors(grams, det.items) > tuning.FRESH_FIT_ERRORS:
        return (
            grams >= det.floor_g
            and grams >= tuning.PLACE_MARGIN_SE * se
            and (n >= det.place_max_n or mat_took(det, grams))
        )
    return grams - tuning.PLACE_MIN_G >= tuning.PLACE_MARGIN_SE * se


def mat_took(det, grams):
    """True if the mat took about `grams` (within tuning.MAT_TOOK_G or MAT_TOOK_FRACTION)
    since the loss may have begun (the slow trigger's span before the episode) and since
    the last fall: the mat's word for the weight, the ship's that it left."""
    table = det.table_sense
    if table is None or not table.uses_mat:
        return False
    if table.landed_k < det.onset_k - det.slow_span_n:
        return False
    if table.landed_k <= det.last_fall_k:
        return False
    off = table.landed_g - grams
    if off < 0.0:
        off = -off
    return off <= tuning.MAT_TOOK_G or off <= tuning.MAT_TOOK_FRACTION * table.landed_g


def decide_place(det, events, k):
    """Place what rests in the latest still stretch (and a held rest before it); True if
    cargo that left other zones meanwhile was noticed leaving too (a cascade: LEAVING).
    What cargo on other zones that is leaving now had lost already as the piece rested was
    theirs, not the piece's (tipping_loss)."""
    plateau = det.plateau
    grams = plateau.level_g
    w = plateau.n if plateau.n < det.place_max_n else det.place_max_n
    det.base_n = w  # the new level is the plateau's mean
    # where the load rested: over the still stretch itself, not the samples since (a piece
    # leaving another zone may be what ended it)
    end = plateau.start_k + plateau.n - 1
    seen = w  # its samples still in the zones' rings
    if end > k:
        end = k
    elif k - end > det.zone_history_n - w:
        seen = det.zone_history_n - (k - end)
        if seen < tuning.STRETCH_SEEN_MIN:
            end, seen = k, w  # gone from the rings: where the load stands now
    change = measure.zone_change(det, end, seen)
    t_ms = measure.time_of(det, det.released_k if det.released_k is not None else plateau.start_k)
    held = det.held
    if held is not None:
        if commit_held(det, events, grams):
            grams -= held.level_g
            for i in range(det.n_zones):
                change[i] -= held.change[i]
        else:
            # it was a hand brushing the ship: the piece is what rests now, and where it was
            # pressed is where the first hand loaded it
            more = stretch.held_same(det, grams)
            if more:
                grams = (grams * w + held.level_g * more) / (w + more)
            det.held = None
            det.area[:] = held.area
            det.area_n = held.area_n
            t_ms = held.t_ms
    cascade = cascade_loss(det, k, grams, change)
    if cascade is not None:
        grams += cascade.grams  # the piece weighs what its zone gained, not the net change
    else:
        grams += tipping_loss(det, k, grams, change)
    # where it rests: the stretch's last samples (a piece let go of can slide on to the next
    # zone while the total stays still)
    last = change
    if seen > det.stable_w:
        last = measure.zone_change(det, end, det.stable_w)
    target = measure.worst_zone(det.sway.zone_scores(last))
    source = slide.hop_source(det, grams, last, target) if cascade is None else -1
    if source >= 0:
        # the pressed piece let go of on `source` hopped onto this zone: placed where it was
        # let go of, and moved (a shift)
        let_go_k = det.hop_k
        commit.place_event(det, events, k, grams, change, measure.time_of(det, let_go_k), source)
        commit.after_commit(det, k)  # forgets the let-go
        shift.report_shift(det, events, k, let_go_k, source, target, grams)
        return False
    zone = measure.place_zone(det, change)
    fell = fall.cargo_the_mat_took(det, grams, zone) if cascade is None else 0.0
    commit.place_event(det, events, k, grams + fell, change, t_ms, zone)
    if fell:
        fall.fell_as_placed(det, events, k, zone, fell)
    elif cascade is None:  # from the let-go, if it showed (the move may have hidden it)
        let_go = det.released_k if det.released_k is not None else plateau.start_k
        silent.moved_as_placed(det, events, end, seen, zone, let_go)
    commit.after_commit(det, k)
    if cascade is None:
        return False
    d = det.fast_ring[k % det.history_n] - det.base
    # cargo that left as the hand still pressed (two hands at once): its drop is measured on
    # the still stretch, against the level the piece left, not across the hand's rise
    since = cascade.onset_k if cascade.onset_k > plateau.start_k else plateau.start_k
    leaving.notice(det, events, k, d, det.leave_level, cascade.onset_k, since)
    return True


def tipping_loss(det, k, grams, change):
    """What the zones that are losing cargo now had lost already while the fresh piece
    rested at `grams` (the total's change), as the still stretch's zone `change` shows it
    against where each stood as the loading began (a standing deficit is an earlier
    misjudgement), sway fitted out: cargo that began to tip as the piece was let go weighs
    on the total the piece is weighed by, whether its leaving shows yet or not (a crate
    sliding off as a bottle is placed: the bottle read half itself, the crate's fall as much
    too little). Booked with the piece, it counts in the cargo's fall. No more than the
    piece's zone, with what its neighbours read of it (crosstalk), gained beyond the total
    (a loss it does not show was sway, or a hand); 0 if none."""
    zone = measure.place_zone(det, change)
    room = change[zone] - grams
    for _other, share in measure.crosstalk_shares(det, zone, change[zone], change, None):
        room += share
    if room <= 0.0:
        return 0.0
    since = [change[i] - det.loading_change[i] for i in range(det.n_zones)]
    now = measure.zone_change(det, k, det.fast_n)
    fitted = [zone]
    for i in measure.losing_zones(det, now, -sum(now)):
        if i != zone and det.ref[i] >= det.floor_g and since[i] < 0.0:
            fitted.append(i)
    if len(fitted) == 1:
        return 0.0
    amplitudes = det.sway.zone_amplitudes(since, fitted)
    lost = 0.0
    for j in range(1, len(fitted)):
        if amplitudes[j] < 0.0:
            lost -= amplitudes[j]
    return lost if lost < room else room


def cascade_loss(det, k, grams, change):
    """Cargo that left other zones while the piece weighed at `grams` (the total's change)
    came to rest, as the still stretch's zone `change` shows it: each zone that held cargo
    and lost a piece's worth once the fresh piece's own gain and the sway are fitted out
    (its crosstalk is a gain on its neighbours, never a loss), as a records.Cascade whose
    grams still stand missing now; else None. Cargo that left the ship is what the fresh
    piece's zone gained beyond the total's change: a loss it did not make up moved aboard."""
    if not measure.reads_light(det, change):
        return None
    zone = measure.place_zone(det, change)
    ref = det.ref
    single = measure.losses(det, change)
    light = measure.light_g(det)
    fitted = [zone]
    for i in range(det.n_zones):
        if i == zone or ref[i] < det.floor_g:
            continue
        # a loss once sway is taken out, or, for a zone that reads light, beside the fresh
        # piece's gain: sway fitted to that gain swallows a loss on a zone it tilts against
        # (pitch moves load fore and aft). A zone that does not read light lost nothing there
        # (pitch, seen on the hull alone, can make up a loss in that fit)
        if single[i] >= det.floor_g or (
            change[i] < light and -det.sway.zone_amplitudes(change, [zone, i])[1] >= det.floor_g
        ):
            fitted.append(i)
    if len(fitted) == 1:
        return None
    amplitudes = det.sway.zone_amplitudes(change, fitted)
    zones = []
    lost = 0.0
    for j in range(1, len(fitted)):
        i = fitted[j]
        grams_i = -amplitudes[j]
        if grams_i >= det.floor_g and ref[i] >= tuning.CASCADE_HELD_FRACTION * grams_i:
            if silent.landed_beside(det, change, i, zone, grams_i):
                continue  # it moved aboard (silent.moved_as_placed)
            zones.append(i)
            lost += measure.cargo_near(det, i, grams_i)
    if not zones or lost < det.leave_level:
        return None
    gained = amplitudes[0]  # with what its neighbours read of it (crosstalk)
    for _other, share in measure.crosstalk_shares(det, zone, amplitudes[0], change, fitted):
        gained += share
    if gained - grams < tuning.CASCADE_GAIN_FRACTION * lost:
        return None  # the fresh piece's zone did not make it up: it went elsewhere aboard
    before = 0.0
    for i in zones:
        before += det.loading_change[i]
    if before < -tuning.CASCADE_ONSET_FRACTION * lost:
        return None  # they stood that low as this loading began: no cargo left them now
    # what stands missing now against the level the fresh piece alone would leave
    missing = det.base + grams + lost - det.fast_ring[k % det.history_n]
    if missing < tuning.CASCADE_STANDS_FRACTION * lost:
        return None
    return records.Cascade(zones, lost, measure.loss_onset(det, k, zones, lost))


def rested_while_cargo_left(det, events, k, plateau):
    """Back at the old level after the hand let go, yet zone by zone a piece rests where it
    was loaded and as much left other zones after the hand had let go, or after the load
    began (the total never showed either): the piece is placed and what left is noticed
    leaving; True if so. A piece dropping from those zones onto the loaded one (a shift)
    leaves before it lands, and one sliding from the next quarter may show there first: not
    this (zoo-jostles-2-31010, 10 SPS: a barrel set down on quarter 4 as a barrel left yard
    9 for the table, taken for a touch)."""
    released = det.released_k
    if released is None or not plateau.after_release:
        return False
    w = plateau.n if plateau.n < det.place_max_n else det.place_max_n
    change = measure.zone_change(det, plateau.end_k(), w)
    cascade = cascade_loss(det, k, plateau.level_g, change)
    if cascade is None or cascade.onset_k <= k - det.zone_history_n + 1:
        return False
    if cascade.onset_k <= released:
        # before the let-go: only after the load began, and not from a zone the piece can
        # have moved from (a slide shows on the next quarter first)
        if cascade.onset_k <= det.onset_k:
            return False
        zone = measure.place_zone(det, change)
        for z in cascade.zones:
            if shift.can_move(det, z, zone):
                return False
    decide_place(det, events, k)
    return True


def commit_held(det, events, level):
    """If `level` (grams over the base) stands clearly above a held short rest, a second
    piece came on after it: place the first as it rested; True if so. With items, not if
    what came on fits no piece and the whole does: the piece let go of was still settling
    (the second ship's zones crept up 15 % over half a second after a 55 g press)."""
    held = det.held
    # the second piece must be clearly there, and heavy enough to be a piece
    limit = det.leave_level if det.leave_level > det.floor_g else det.floor_g
    if held is None or level - held.level_g <= limit:
        return False
    if det.items and measure.fit_errors(held.level_g, det.items) > tuning.FRESH_FIT_ERRORS:
        return False  # what rested before was no piece (the HX711 still rising)
    if (
        det.items
        and measure.fit_errors(level - held.level_g, det.items) > tuning.FRESH_FIT_ERRORS
        and measure.fit_errors(level, det.items) <= tuning.FRESH_FIT_ERRORS
    ):
        return False  # the piece still settling: what came on fits no piece, the whole does
    det.held = None
    loading_area = list(det.area)
    loading_n = det.area_n
    det.area[:] = held.area
    det.area_n = held.area_n
    commit.place_event(det, events, det.k, held.level_g, held.change, held.t_ms)
    det.area[:] = loading_area
    det.area_n = loading_n
    return True
