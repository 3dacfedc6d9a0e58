"""A rise that vanished as cargo began to leave: a piece that toppled off as it was let go
and landed with the cargo, or a hand that took its piece back as cargo went.

The ship alone cannot tell them; the table can, once the cargo's falls are decided. A
pending touch during which cargo began to leave (`cargo_leaving`), or a load that vanished
in an episode where cargo began to leave (`note_vanished`), is kept in `det.vanished` until
the cargo's fall is decided (`cargo_fell`), then waits as `det.pending` for the mat to
settle (`cargo_step`): what the mat took beyond the cargo is that piece (`vanished_share`).
A rise that vanished with no cargo leaving waits in detector_topple.
"""

from shipsense import detector_measure as measure
from shipsense import detector_records as records
from shipsense import detector_topple as topple
from shipsense import detector_tuning as tuning
from shipsense.items import weighing_error_g


def cargo_leaving(det, k, onset, events):
    """Cargo began to leave at sample `onset` while a rise that vanished waits for the table.
    A mat that began to change since the rise, and before the cargo, felt the toppled piece:
    if it already held a steady weight for a brief rest, that decides now (the cargo may land
    on it next); if it still rings, has not rested that long (at 80 SPS the landing's blow
    lasts a few samples) or holds more than the rise could weigh (the blow), what it takes
    beyond the cargo once the cargo fell and the mat settled is that piece (kept in
    `det.vanished` as note_vanished keeps one; the touch is sent if it was none). So it is
    where the mat felt nothing yet but the piece may still be falling (the rise's wait,
    `until_k`, not over): vanished_share then asks more of what the mat holds. Without a
    mat, a strike before the cargo could land may yet tell it (piezo_may_tell). Else the
    touch stands."""
    pending = det.pending
    if pending is None or pending.cargo_g is not None:
        return  # a load that vanished as cargo left before counts this cargo too
    table = det.table_sense
    last = k - 1  # the table takes sample k after the ship
    mat = mat_first(det, pending.onset_k, cargo_soonest(det, onset))
    if mat:
        n = last - table.onset_k + 1
        if n > det.mat_steady_n:
            n = det.mat_steady_n
        if n >= det.brief_rest_n:
            grams = table.resting_mean(last, n, det.floor_g)
            most = pending.peak_g * det.rise_seen_factor + det.leave_level
            if grams is not None and grams <= most:  # (heavier: the landing's blow)
                topple.resolve_topple(det, grams, events)
                return
    if mat or (table.uses_mat and k <= pending.until_k):
        pending.fall_by_k = pending.until_k
        pending.owed = True
        pending.mat = mat
        pending.leave_k = onset
        det.vanished = pending
        records.set_pending(det, None)
        return
    if not table.uses_mat and piezo_may_tell(det, pending, onset):
        return
    records.touch_after_all(det, events)


def piezo_may_tell(det, pending, onset):
    """Without a mat, cargo began to leave at sample `onset` before the piezo was struck for
    the rise that vanished (a chest let go on yard 8 tipped off and knocked the barrel on
    quarter 4 over the side; the piezo heard the chest land as the barrel went): if the rise
    weighs a piece (topple_weight), a strike before the cargo could reach the table will be
    that piece landing (cargo_step asks, once the cargo's fall is decided). Kept in
    `det.vanished`, the touch owed if not; True if so."""
    grams = topple.topple_weight(det, pending)
    if not grams:
        return False
    pending.stood_g = grams
    pending.heard_by = cargo_soonest(det, onset)
    pending.owed = True
    pending.leave_k = onset
    det.vanished = pending
    records.set_pending(det, None)
    return True


def heard_in_time(det, pending):
    """True if one of the piezo's last two strikes came when the piece that vanished would
    land, and before the cargo could (`pending.heard_by`)."""
    table = det.table_sense
    released = pending.released_k
    heard_by = pending.heard_by
    return topple.in_topple_time(det, table.struck_k, released, heard_by) or (
        topple.in_topple_time(det, table.struck_before_k, released, heard_by)
    )


def mat_first(det, since, until):
    """True if the mat is changing since a sample from `since` to `until`: it felt something
    land then."""
    return topple.mat_began_since(det, since) and det.table_sense.onset_k <= until


def cargo_soonest(det, onset):
    """The last sample before cargo that began to leave at `onset` could reach the table: no
    sooner than from the lowest zone. What the mat felt a sample or two after the drop's
    onset at 80 SPS is not it (at 10 SPS the load cells show the drop late, and the mat
    felt the piece before it)."""
    soonest = min(det.table_soonest_n)
    if soonest < 0:
        soonest = 0
    return onset + soonest - 1


def note_vanished(det, k, onset, zones):
    """Cargo begins to leave `zones` (0-based; at sample `onset`, seen at `k`) in an episode
    whose hand let go of a load on another zone that is gone again, nothing placed (or on the
    same zone, where that load stood still with no let-go seen before it went: `gone_g`):
    perhaps a piece that toppled off as it was let go, landing on the mat with the cargo. The
    ship alone cannot tell it from a hand taking its piece back. Kept in `det.vanished` (a
    PendingTouch) until the cargo's fall is decided. Without a mat, only a load that weighs a
    piece (topple_weight) and struck the table before the cargo could (so the strike was not
    the cargo's: by now, or later as cargo_step asks) is kept, as that piece."""
    table = det.table_sense
    if (
        table is None
        or det.released_k is None
        or det.committed
        or det.area_n == 0
        or det.peak < det.floor_g
        or det.pending is not None
        or det.vanished is not None
    ):
        return
    zone = measure.loaded_zone(det)
    if zone in zones and not det.gone_g and det.ref[zone] >= det.floor_g and not table.uses_mat:
        # cargo left that zone too: nothing says the piece went (a pressed one). An empty
        # zone had none: what "left" it is the let-go piece ringing as it toppled off. A mat
        # tells: what it takes beyond the cargo (a plank let go on quarter 6 toppled onto the
        # mat, its going read as 1.1 g of cargo leaving there)
        return
    if measure.zone_change(det, k, det.fast_n)[zone] >= det.floor_g:
        return  # what the hand let go of still stands there
    released = det.released_k
    touch = {"type": "touch", "zones": [zone + 1]}  # never sent: the episode decides cargo
    pending = records.PendingTouch(
        touch, measure.time_of(det, released), det.onset_k, released, k, det.peak
    )
    pending.stood_g = det.gone_g
    if not table.uses_mat:
        pending.stood_g = topple.topple_weight(det, pending)
        if not pending.stood_g:
            return
        if not (
            table.struck_k < onset and topple.in_topple_time(det, table.struck_k, released, onset)
        ):
            pending.heard_by = cargo_soonest(det, onset)  # not struck yet: it may be soon
    if table.landed_k >= det.onset_k:
        pending.landed_g = table.landed_g  # it may have landed before the cargo was seen
        pending.first_land_k = table.landed_k
    pending.leave_k = onset
    # the mat felt it land if it began to change when a piece toppling off would reach it,
    # before the cargo could
    until = topple.left_zone(det, k, released) + det.table_fall_n
    pending.fall_by_k = until
    soonest = cargo_soonest(det, onset)
    if soonest < until:
        until = soonest
    pending.mat = mat_first(det, released + det.topple_soonest_n, until)
    det.vanished = pending


def landed_meanwhile(det, pending, table_events):
    """Add what the mat's episodes that ended now weighed to `pending.landed_g` (and note
    when the first began)."""
    for event in table_events:
        if event["type"] == "land" and event["grams"] and not event["bounced"]:
            pending.landed_g += event["grams"]
            if pending.first_land_k < 0:
                pending.first_land_k = det.table_sense.landed_k


def cargo_fell(det, k, onset):
    """A fall that began leaving at sample `onset` was decided at sample `k`: if a load
    vanished as that cargo began to leave, wait for the mat (detector_topple.cargo_step)."""
    pending = det.vanished
    det.vanished = None
    if det.pending is not None or pending.leave_k != onset:
        return
    pending.cargo_g = 0.0  # the falls are counted as they are sent, this one too
    pending.cargo_items = []
    pending.until_k = k + det.table_fall_n + det.table_sense.settle_fall_n
    records.set_pending(det, pending)


def cargo_step(det, k, table_events, events):
    """One sample of a load that vanished as cargo fell: once the ship decided the falls and
    the mat settled, what the mat took beyond them is that load, toppled off as it was let go
    (a `place` and a `fall`, if a piece's worth no heavier than the rise; vanished_share,
    from the falls' grams and items counted as they are sent); else nothing. Where no cargo
    fell after all (what left stayed aboard) and the mat began to take weight when a piece
    toppling off would land, nothing else is coming: what it holds is that load, weighed as
    soon as a plain topple's would be (steady, by its ring, or still), not once the mat's
    own episode ends (the second ship's seed 1322: a crate let go on yard 6 toppled onto the
    mat as the yard rang, a leaving that stayed; 500 ms sooner). Without a mat, the load
    that stood, at once (note_vanished kept only one the piezo heard)."""
    pending = det.pending
    table = det.table_sense
    if not table.uses_mat:
        if pending.heard_by >= 0 and not heard_in_time(det, pending):
            records.touch_after_all(det, events)  # the piezo heard only the cargo
            return
        topple.resolve_topple(det, pending.stood_g, events)  # the piezo heard it (note_vanished)
        return
    for event in events:
        if event["type"] == "fall":
            pending.cargo_g += event["grams"]
            if event["zones"] == pending.touch["zones"]:
                pending.cargo_items = None
            elif pending.cargo_items is not None and "items" in event:
                pending.cargo_items.extend(event["items"])
    if (
        pending.cargo_g == 0.0
        and pending.landed_g == 0.0
        and table.active
        and det.state != records.LEAVING
        and topple.in_topple_time(det, table.onset_k, pending.released_k, pending.fall_by_k)
    ):
        n = k - table.onset_k
        grams = None
        if n >= det.mat_steady_n:
            grams = table.steady_mean(k, det.mat_steady_n, det.floor_g)
        if grams is None and det.mat_ring_n and n >= det.mat_ring_n:
            grams = topple.ringing_level(table, k, det.mat_ring_n)
        if grams is None and n >= det.mat_still_n:
            grams = table.still_mean(k, det.mat_still_n)
            if grams is not None:
                grams -= table.base
        if grams is not None and grams >= det.floor_g:
            topple.resolve_topple(det, grams, events)
            return
    if table_events:
        landed_meanwhile(det, pending, table_events)
        pending.until_k = k + det.table_fall_n  # the mat's word may have been a first piece's
    if det.state == records.LEAVING or table.active:
        if k > pending.until_k + det.cargo_wait_n:
            records.touch_after_all(det, events)  # the ship or the mat never came to rest
        return
    if k > pending.until_k or pending.landed_g > 0.0:
        topple.resolve_topple(det, vanished_share(det, pending), events)


def vanished_share(det, pending):
    """What the mat took that was the load that vanished: what it took beyond the cargo that
    fell; or, where it holds too little to hold the cargo too, all it holds, if that is a
    piece's worth that the cargo does not weigh (the cargo bounced off or was caught: a
    barrel let go on quarter 4 toppled onto the mat, a chest from yard 10 struck it 0.2 s
    later and went over the edge). Where the mat began to change only when the cargo could
    have reached it (not `mat`), all it holds only if no cargo left that load's zone alone (a
    hand pressing on a zone sends its own cargo over; a fall that left it and others read it
    as the toppled piece rang it); if the mat's first landing began by the time a piece
    toppling off could be seen landing (`fall_by_k`, and the fast mean's lag that read the
    load gone: later, the mat took the cargo); and if it weighs none of the cargo's pieces
    (one of them landed, the rest did not), nor what they weigh together (the ship weighed
    the cargo off: zone by zone calibration).
    With items, what it took beyond the cargo is that load only if it weighs a piece (the
    ship may have weighed the cargo light)."""
    grams = pending.landed_g - pending.cargo_g
    landed = pending.landed_g
    if (
        grams >= det.floor_g
        and det.items
        and measure.fit_errors(grams, det.items) > tuning.FRESH_FIT_ERRORS
    ):
        return 0.0
    if grams >= det.floor_g or landed < det.floor_g or not det.items:
        return grams
    if measure.fit_errors(landed, det.items) > tuning.FRESH_FIT_ERRORS:
        return grams
    error = tuning.FRESH_CARGO_ERRORS * weighing_error_g(landed)
    if abs(landed - pending.cargo_g) <= error:
        return grams  # the mat holds the cargo: the load that vanished went elsewhere
    if not pending.mat:
        if pending.cargo_items is None:
            return grams  # cargo left the zone where the load vanished
        if 0 <= pending.fall_by_k < pending.first_land_k - det.fast_n:
            return grams  # the mat took nothing as long as a toppled piece could land
        named = 0.0
        for name in pending.cargo_items:
            if abs(landed - det.items[name]) <= error:
                return grams
            named += det.items[name]
        if abs(landed - named) <= error:
            return grams  # the cargo landed, weighed off by the ship: its pieces weigh it
    return landed
