"""Booking a decision: a place's event and levels, and the episode's state after a decision.

Every state that decides something (a place, a fall, a shift, a stay) books it here and
goes back to LOADING with a fresh view of the episode; `reset_episode` starts one.
"""

from shipsense import detector_measure as measure
from shipsense import detector_records as records
from shipsense.items import name_place


def clear_area(det):
    """Forget where hands pressed: the next loading is watched afresh."""
    det.area_n = 0
    det.area_open = True
    area = det.area
    for i in range(det.n_zones):
        area[i] = 0.0


def reset_episode(det, k):
    """A new episode begins at sample `k`: nothing pressed, released, still or leaving yet."""
    det.onset_k = k
    det.peak = 0.0  # highest fast level (above base) since the last commit
    det.trough = 0.0
    forget_let_go(det)
    det.vanished = None  # a load gone, nothing placed, and then cargo left (note_vanished)
    det.stable_run = 0
    det.plateau = None  # the last still stretch (a Plateau)
    det.undecided = None  # a piece's still stretch a lower one replaced, not yet judged
    det.leave = None  # a pending leaving (a Leave), in state LEAVING
    det.leave_run = 0
    det.returned = None  # a leaving whose weight came back (a Returned), in state RETURNED
    det.committed = False  # something was decided in this episode
    det.dropping_k = None  # a drop on the loaded zone: the hand letting go or a tip
    det.low_run = 0
    det.held = None  # a short rest before a rise (a Held), see detector_stretch
    det.emptied = False  # back at the old level since the release, nothing resting
    clear_area(det)
    remember_levels(det, k)


def forget_let_go(det):
    """Forget the hand's let-go and what became of the load it let go of: a new episode, or
    a decision that booked that load."""
    det.released_k = None  # when the hand was seen letting go
    det.gone_k = None  # when a pressed load was seen gone, nothing placed (a topple?)
    det.gone_g = 0.0  # ... the level it stood at, if that may have been a piece alone
    det.wait_k = -1  # a still load gone with no let-go seen waits from here (detector_gone)
    det.hop_zone = -1  # a pressed piece let go of there may have hopped (detector_slide) ...
    det.hop_k = 0  # ... let go of at this sample


def settle_state(det):
    """The state the episode's records say: LEAVING while a leaving is pending, RETURNED while
    weight that came back settles (it may outlast a second piece's leaving), else LOADING."""
    if det.leave is not None:
        det.state = records.LEAVING
    elif det.returned is not None:
        det.state = records.RETURNED
    else:
        det.state = records.LOADING


def after_commit(det, k):
    """A decision was made: the episode goes on, watching for the next loading."""
    if det.plateau is not None:
        # the zones as decided on the still stretch: a piece that moves as soon as the
        # episode ends is seen against them (detector_silent.at_rest)
        measure.zone_means(det, k, det.plateau.n, det.silent_before)
        det.silent_from_k = k
    else:
        det.silent_from_k = det.onset_k  # nothing still to compare with
    det.committed = True
    det.held = None
    det.dropping_k = None
    det.low_run = 0
    det.peak = 0.0
    det.trough = 0.0
    forget_let_go(det)
    det.plateau = None
    det.undecided = None
    det.stable_run = 0
    det.leave_run = 0
    clear_area(det)
    remember_levels(det, k)
    settle_state(det)


def remember_levels(det, k):
    """Where each zone stands against its committed level as a loading begins (at sample
    `k`): a zone that reads light later lost cargo only if it did not already then (a
    standing deficit is an earlier misjudgement, not a piece leaving now)."""
    change = measure.zone_means(det, k, det.fast_n, det.loading_change)
    ref = det.ref
    for i in range(det.n_zones):
        change[i] -= ref[i]


def place_event(det, events, k, grams, change, t_ms, zone=-1):
    """Emit a place of `grams` resting as `change` shows, on `zone` (0-based; -1: where
    `change` and the hand say), and book it (not if it is lighter than any piece: then what
    rests is left to be judged as the level it is)."""
    if grams < det.floor_g:
        return
    if zone < 0:
        zone = measure.place_zone(det, change)
    event = {
        "type": "place",
        "t_ms": t_ms,
        "decided_ms": det.t_ring[det.k % det.history_n],
        "zone": zone + 1,
        "grams": measure.rounded_g(grams),
    }
    if det.items:
        item, ambiguous, alternatives = name_place(grams, det.items)
        event["item"] = item
        if ambiguous:
            event["ambiguous"] = True
            event["alternatives"] = alternatives
        # what it weighed names it when it falls; a close call may be another kind of piece
        # (weighed with a hand, in sway): then its kind's weight, the fall judging which
        det.cargo.add(zone + 1, item, 0.0 if ambiguous else grams)
        det.last_place = records.LastPlace(k, zone, grams, item, det.ref[zone])
    events.append(event)
    det.ref[zone] += grams
    book_crosstalk(det, zone, grams, change)
    det.base = measure.sum_ref(det)


def book_crosstalk(det, zone, grams, change):
    """The share of a place's `grams` that its zone's neighbours read (crosstalk), as the
    place's zone `change` shows it: booked on them and off the zone, so that a second piece
    in the same episode is judged against what the zones read."""
    rest = list(change)
    rest[zone] -= grams
    ref = det.ref
    for other, share in measure.crosstalk_shares(det, zone, grams, rest, None):
        ref[other] += share
        ref[zone] -= share
