"""Ending state LEAVING with the weight gone: a `fall` (or a `stay` when it fits no piece).

Also the one case where what went was no cargo at all: a hand weighed with the piece placed
just before (`hand_on_fresh_piece`), taken back off that piece.
"""

from shipsense import detector_commit as commit
from shipsense import detector_measure as measure
from shipsense import detector_tuning as tuning
from shipsense import detector_vanished as vanished
from shipsense.items import name_fall, name_place, weighing_error_g


def hand_on_fresh_piece(det, drop, k=None, w=0):
    """True if what went was a hand weighed with the piece placed just before, not cargo: it
    went from that piece's zone, what stays there is a piece, and the zone held nothing else
    that fits (the belief about its cargo, or nothing at all). With `k` and `w`: the zone
    that lost most is judged over those samples (the drop complete), not at the notice."""
    last = det.last_place
    leave = det.leave
    if last is None or leave.onset_k - last.k > det.fresh_n:
        return False
    zone = last.zone
    first = leave.zones[0]
    if k is not None:
        first = measure.losing_zones(det, measure.zone_change(det, k, w), drop)[0]
    if first != zone:
        return False
    rest = last.grams - drop
    if rest < det.floor_g or measure.fit_errors(rest, det.items) > tuning.FRESH_FIT_ERRORS:
        return False
    for z in leave.zones:
        aboard = list(det.cargo.zones[z + 1])
        if z == zone:
            if last.before < det.floor_g:
                continue  # the zone held nothing before this piece: nothing else to go
            if last.item in aboard:
                aboard.remove(last.item)
        if measure.subset_fit(drop, aboard, det.items) <= tuning.FRESH_CARGO_ERRORS:
            return False
    return True


def unweigh_hand(det, events, k, drop):
    """Take the hand's grams back off the piece placed just before: nothing left. The `stay`
    names that piece's zone: the place weighed hand and piece, and what rests there is the
    place's grams less these (the referee names its load again)."""
    last = det.last_place
    zone = last.zone
    det.last_place = None
    det.ref[zone] -= drop
    det.base = measure.sum_ref(det)
    if det.cargo.remove(zone + 1, last.item):
        rest = last.grams - drop
        item, ambiguous, _ = name_place(rest, det.items)
        det.cargo.add(zone + 1, item, 0.0 if ambiguous else rest)
    now = det.t_ring[det.k % det.history_n]
    events.append(
        {
            "type": "stay",
            "t_ms": measure.time_of(det, det.leave.onset_k),
            "decided_ms": now,
            "grams": measure.rounded_g(drop),
            "zone": zone + 1,
        }
    )
    det.leave = None
    commit.after_commit(det, k)
    if det.table_sense is not None:
        det.table_sense.settle_hit(False, now)


def loaded_after_fall(det, leave, k, d):
    """True if what is back `d` grams from the base at `k` is no piece landing but a hand
    loading the ship after the piece that left as `leave` fell: more than went is back and a
    piece leaving the deck has nowhere aboard to land (a slide only moves what went); or, at
    10 SPS, where the HX711 averages a landing's knock away, half as much again as went; or
    what went was lighter than any piece (no piece left: a load cell's zero that stepped,
    which stays, decide_fall, with a piece placed right after it)."""
    if k - leave.deepest_k <= det.fall_weigh_n or d <= det.leave_level:
        return False
    if -leave.deepest < det.floor_g:
        return True
    return det.deck[leave.zones[0]] or (det.short_rest_n and d > -0.5 * leave.deepest)


def fall_before_hand(det, events, k):
    """Decide the fall of `det.leave`, weighed over what was missing before the weight came
    back (the hand's rise left out); False, deciding nothing, if that was too short to weigh
    or is no longer in the rings."""
    leave = det.leave
    h = det.history_n
    fast = det.fast_ring
    if k - leave.deepest_k >= h:
        return False
    end_k = k - 1
    while end_k > leave.deepest_k and fast[end_k % h] - det.base > 0.8 * leave.deepest:
        end_k -= 1
    w = end_k - leave.deepest_k + 1
    if w < det.fall_weigh_n:
        return False
    if w > det.place_max_n:
        w = det.place_max_n
    decide_fall(det, events, k, det.base - measure.mean_total(det, end_k, w), w, end_k)
    return True


def decide_fall(det, events, k, drop, w, end_k, unheard=False, stayed=0.0):
    """`drop` grams left the ship (weighed over `w` samples up to `end_k`): a `fall`, or a
    `stay` when lighter than any piece, or well under the lightest and `unheard` by the
    table (leaving.unheard_light_loss: nothing fell, the level moved); the zones and the
    cargo list lose it. `stayed`: grams of a piece let go of on a zone the cargo left, that
    stayed there (stayed_as_cargo_fell): it fell as well as the net loss, and is placed."""
    leave = det.leave
    drop += stayed
    det.base_n = w  # the new level is the mean after the drop
    change = measure.zone_change(det, end_k, w)
    loaded = loaded_meanwhile(det, change, leave.zones)
    gain = gain_by_pieces(det, change, loaded, drop) if loaded >= 0 else 0.0
    if gain:
        # a cascade: what fell is what the other zones lost, not the ship's net loss; the
        # piece let go of on `loaded` is placed with the fall (with items)
        drop += gain
        change[loaded] = 0.0
    lost_by_zone = measure.losses(det, change)
    zones = measure.losing_zones(det, change, drop)
    for z in leave.zones:
        if z not in zones:
            zones.append(z)
    zones.sort()
    now = det.t_ring[det.k % det.history_n]
    light = drop < det.floor_g or (unheard and drop < tuning.LIGHT_DOUBT * det.lightest_g)
    if light:
        # lighter than any piece: no fall, and nothing aboard went (a hand that rested on
        # the ship, drift): the weight stays off the zones that lost it
        event = {
            "type": "stay",
            "t_ms": measure.time_of(det, leave.onset_k),
            "decided_ms": now,
            "grams": measure.rounded_g(drop) if drop > 0 else 0.0,
        }
    else:
        event = {
            "type": "fall",
            "t_ms": measure.time_of(det, leave.onset_k),
            "decided_ms": now,
            "grams": measure.rounded_g(drop),
            "zones": [z + 1 for z in zones],
        }
    if det.items and not light:
        zone_losses = {}
        amplitudes = det.sway.zone_amplitudes([-v for v in change], zones)
        for j in range(len(zones)):
            zone_losses[zones[j] + 1] = amplitudes[j]
        pieces = name_fallen(det, event, drop, zone_losses, zones)
        if stayed and det.table_sense is not None and det.table_sense.uses_mat:
            # the mat's first steady mean told it (with no mat, the cargo as it weighed did)
            stayed = stayed_by_name(det, pieces, drop - stayed, stayed)
    events.append(event)
    lost = 0.0
    for z in zones:
        if lost_by_zone[z] > 0:
            lost += lost_by_zone[z]
    for z in zones:
        if lost > 0:
            if lost_by_zone[z] > 0:
                det.ref[z] -= drop * lost_by_zone[z] / lost
        else:
            det.ref[z] -= drop / len(zones)
    if gain and det.items:
        # (it fits a piece; without items nothing says a piece stayed, not a hand's residue:
        # it is left to be placed once it rests)
        place_loaded(det, events, k, loaded, gain)
    if stayed:
        place_loaded(det, events, k, measure.loaded_zone(det), stayed)
    det.base = measure.sum_ref(det)
    det.leave = None
    commit.after_commit(det, k)
    if light:
        if det.vanished is not None:
            # no cargo fell (the ship rang, or settled): what the mat took is the load that
            # vanished, as beside a fall
            vanished.cargo_fell(det, k, leave.onset_k)
        if det.table_sense is not None:
            det.table_sense.settle_hit(False, now)
        return
    det.last_fall_k = k
    det.last_place = None
    if det.vanished is not None:
        vanished.cargo_fell(det, k, leave.onset_k)
    if det.table_sense is not None:
        more = det.table_sense.settle_hit(True, now)
        if more:
            events.extend(more)


def gain_by_pieces(det, change, loaded, drop):
    """What the piece let go of on `loaded` (0-based) weighs while `drop` grams net left the
    ship: with items, the ship's total (exact) plus what the other zones lost, each as the
    cargo it held weighed when placed, when that fits a piece (left_beyond: its zone may
    still settle light, a rat let go of after a hard press as a barrel left another zone,
    zoo-jostles-21001); else what its zone gained, which crosstalk and sway leave light, if
    that fits a piece (without items, always); else 0.0: no piece stayed."""
    pieces = left_beyond(det, change, loaded, drop)
    if pieces:
        return pieces
    gain = change[loaded]
    if det.items and measure.fit_errors(gain, det.items) > tuning.FRESH_FIT_ERRORS:
        return 0.0
    return gain


def left_beyond(det, change, loaded, drop):
    """With items, what the zones other than `loaded` (0-based) lost, each as the cargo it
    held weighed when placed, beyond the ship's net loss `drop`, if that fits a piece (the
    piece that stayed on `loaded`); else 0.0."""
    if not det.items:
        return 0.0
    others = list(change)
    others[loaded] = 0.0
    fitted = [loaded]
    for z in measure.losing_zones(det, others, drop + change[loaded]):
        if z != loaded:
            fitted.append(z)
    amplitudes = det.sway.zone_amplitudes(change, fitted)
    lost = 0.0
    for j in range(1, len(fitted)):
        lost += measure.cargo_near(det, fitted[j], -amplitudes[j])
    pieces = lost - drop
    if pieces < det.floor_g or measure.fit_errors(pieces, det.items) > tuning.FRESH_FIT_ERRORS:
        return 0.0
    return pieces


def place_loaded(det, events, k, zone, grams):
    """The piece let go of on `zone` (0-based) while cargo left other zones rests there: it is
    placed with the fall, weighing `grams` (gain_by_pieces; the fall's weight was told)."""
    change = [0.0] * det.n_zones
    change[zone] = grams
    commit.place_event(det, events, k, grams, change, measure.time_of(det, det.released_k))


def stayed_by_name(det, pieces, net, stayed):
    """The piece that stayed as the named `pieces` fell weighs what they weigh beyond the
    ship's `net` loss (the load cells weigh that well, the mat's first steady mean less
    so), if that is a piece's worth; else `stayed`, as the mat told it."""
    named = 0.0
    for name in pieces:
        named += det.items[name]
    if (
        named - net < det.floor_g
        or measure.fit_errors(named - net, det.items) > tuning.FRESH_FIT_ERRORS
    ):
        return stayed
    return named - net


def loaded_meanwhile(det, change, zones):
    """The zone (0-based) a hand loaded and was seen letting go of in this episode, up by a
    piece's worth while weight left `zones` (0-based), or -1 (with items, gain_by_pieces
    tells whether a piece stayed there)."""
    if not det.area_n or det.released_k is None:
        return -1
    zone = measure.worst_zone(det.area)
    if zone in zones or det.area[zone] <= 0.0 or change[zone] < det.floor_g:
        return -1
    return zone


def name_fallen(det, event, grams, zone_losses, zones):
    """Name the pieces of the fall `event` of `grams` (with items), each zone (0-based, in
    `zones`) having lost as `zone_losses` shows (by 1-based zone), and take them off the
    cargo list; returns their names."""
    pieces, ambiguous, alternatives = name_fall(
        grams, det.items, det.cargo.counts_by_item(), zone_losses, det.cargo
    )
    event["items"] = pieces
    if ambiguous:
        event["ambiguous"] = True
        event["alternatives"] = alternatives
    unload(det, pieces, zones)
    return pieces


def unload(det, pieces, zones):
    """Take the fallen pieces off the cargo list, from the zones that lost weight first."""
    for item in pieces:
        taken = False
        for z in zones:
            if det.cargo.remove(z + 1, item):
                taken = True
                break
        if not taken:
            z = short_of(det, item)
            if z > 0:
                det.cargo.remove(z, item)


def short_of(det, item):
    """The zone (1-based) whose cargo list holds `item` yet whose level stands short of that
    list by at least half the item's weight (the piece left it unseen, or was never there):
    where a fallen piece no losing zone held came from; 0 if none. A zone that still weighs
    its pieces keeps them (a false fall must not empty a zone that holds its piece)."""
    cargo = det.cargo
    best = 0
    most = 0.5 * det.items[item]
    for z in range(1, det.n_zones + 1):
        pieces = cargo.zones[z]
        if item not in pieces:
            continue
        listed = 0.0
        for k in range(len(pieces)):
            listed += cargo.weighed_g(z, k, det.items)
        short = listed - det.ref[z - 1]
        if short >= most:
            best, most = z, short
    return best


def cargo_the_mat_took(det, grams, zone):
    """Cargo the mat weighed landing while a piece let go of was settling, no fall decided
    since the hand came: a piece on the zone it was let go of (`zone`, 0-based), pushed
    off by it as the ship rocked (a chest let go on quarter 8 rocked it a second; the bottle
    there slid off, and the chest was weighed as what stood, less the bottle). With items,
    if what the mat took is cargo on that zone and the piece weighs a piece with it: that
    cargo's grams, as weighed when placed (the mat's are rougher); else 0.0."""
    table = det.table_sense
    if (
        not det.items
        or table is None
        or not table.uses_mat
        or table.landed_k < det.onset_k
        or (table.uses_piezo and not table.landed_hits)  # nothing struck: a hand on the mat
        or det.last_fall_k >= det.onset_k - det.recent_fall_n
        or det.vanished is not None
    ):
        return 0.0
    landed = table.landed_g
    aboard = det.cargo.zones[zone + 1]
    if landed < det.floor_g or measure.subset_fit(landed, aboard, det.items) > (
        tuning.FRESH_CARGO_ERRORS
    ):
        return 0.0
    cargo = measure.cargo_near(det, zone, landed)
    if measure.fit_errors(grams + cargo, det.items) > tuning.FRESH_FIT_ERRORS:
        return 0.0
    return cargo


def fell_as_placed(det, events, k, zone, grams):
    """Cargo of `grams` fell off `zone` (0-based) as the piece just placed there settled
    (cargo_the_mat_took): a `fall`, named from the zone's cargo and booked off it."""
    event = {
        "type": "fall",
        # it left the ship the fall's time before the mat felt it land
        "t_ms": measure.time_of(det, det.table_sense.landed_k) - tuning.table_soonest_ms(zone + 1),
        "decided_ms": det.t_ring[k % det.history_n],
        "grams": measure.rounded_g(grams),
        "zones": [zone + 1],
    }
    name_fallen(det, event, grams, {zone + 1: grams}, [zone])
    events.append(event)
    det.ref[zone] -= grams
    det.base = measure.sum_ref(det)
    det.last_fall_k = k
    det.last_place = None


def cargo_could_weigh(det, grams, zones):
    """True if `grams` could be some of the cargo the `zones` (0-based) hold, as the cargo
    list names it or as one piece of it weighed when placed; True too where nothing is known
    (no items, or nothing listed there)."""
    if not det.items:
        return True
    aboard = []
    for z in zones:
        aboard.extend(det.cargo.zones[z + 1])
        for weighed in det.cargo.weighed[z + 1]:
            # a piece as it weighed when placed (its name may be the nearer of two)
            off = abs(grams - weighed)
            if weighed and off <= tuning.FRESH_CARGO_ERRORS * weighing_error_g(weighed):
                return True
    if not aboard:
        return True
    return measure.subset_fit(grams, aboard, det.items) <= tuning.FRESH_CARGO_ERRORS
