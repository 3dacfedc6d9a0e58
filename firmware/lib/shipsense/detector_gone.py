"""A still load gone with nothing placed: the table tells.

A load that stood still and then went all at once, with nothing seen resting on its own, is a
piece that went over the side or a hand taking its weight back; the ship alone cannot tell.
`table_will_tell` waits the load's landing clock (a piece dropping onto a zone below is a
shift, detector_slide) and books it gone; detector_rest.end_episode then waits for the table's
word (detector_topple): a landing is a `place` and a `fall`, silence a `touch`.
"""

from shipsense import detector_measure as measure
from shipsense import detector_place as place


def pressed_then_gone(det, plateau):
    """A still load that fits no piece (a hand still pressing on one) and then nothing: the
    piece toppled off as the hand let go, or the hand took it back. Not a place of hand and
    piece with a fall of both: the rise that vanished waits for the table
    (detector_rest.end_episode): a mat weighs the piece; a piezo alone does not, and the
    rise, fitting no piece, stays a touch."""
    return place.fits_no_item(det, plateau.level_g)


def never_let_go(det, plateau, d):
    """True if a still load with no release seen (a piece set down gently, or a hand resting
    on the ship at a piece's weight) went on the zone loaded, all of it and no more (the
    level `d` is back at the old one), with no stand between: nothing shows a piece stood
    on its own. The table tells (detector_rest.end_episode), a mat or a piezo alike (the
    still level weighed what went, even at 10 SPS): a piece that went over the side lands
    on it, a hand that lifted leaves it still. (A piece caught as it went is lost to it: at
    the table's silence a hand taking its weight back is far likelier.)"""
    return (
        not plateau.after_release
        and det.dropping_k is not None
        and (d > -det.floor_g or det.wait_k >= 0)  # more going once it was gone: cargo
        and det.table_sense is not None
    )


def may_yet_land(det, k, plateau, d):
    """True while a load that never_let_go says went from `plateau` may still be dropping
    onto a zone below (or sliding into the next quarter): its zone's landing clock since the
    drop began has not run out, the table has felt nothing since the load stood (a landing
    there says it went over the side), and no more is going (cargo leaving: the load was
    gone before it). A piece set down gently that drops onto a lower zone before it was
    placed is placed where it rested and shifted (detector_slide), not taken for a hand
    that lifted. The wait's first sample is kept (`wait_k`)."""
    table = det.table_sense
    stood_k = plateau.start_k + plateau.n - 1
    if table.struck_k >= stood_k or (table.uses_mat and table.active and table.onset_k >= stood_k):
        return False
    if d < -det.floor_g:
        return False
    zone = measure.loaded_zone(det) if det.area_n else 0
    if k - det.dropping_k >= det.landing_n[zone] + det.late_n:
        return False
    if det.wait_k < 0:
        det.wait_k = k
    return True


def table_will_tell(det, k, plateau, d):
    """A load gone with no let-go seen (never_let_go): True, and it waits its landing clock
    (may_yet_land) or is booked gone, for the table to tell (nothing_rested); else False."""
    if not never_let_go(det, plateau, d):
        return False
    if not may_yet_land(det, k, plateau, d):
        nothing_rested(det, k, plateau)
    return True


def nothing_rested(det, k, stood=None):
    """The load is gone at sample `k` (pressed_then_gone, never_let_go): nothing to place;
    the hand let go when the drop began, and the piece had left by now (it may have slid off
    slowly). `stood`: the still stretch it stood at, if that may have been the piece alone
    (it weighs a piece the table then hears but does not weigh; and the piece left when it
    ended: at 10 SPS the drop shows a few samples after the table heard a deck piece land)."""
    det.gone_g = 0.0 if stood is None else stood.level_g
    det.plateau = None
    drop_k = det.dropping_k
    place.released(det)
    det.gone_k = k
    if stood is not None:
        if stood.start_k + stood.n - 1 < drop_k:
            det.released_k = stood.start_k + stood.n - 1
        # it was gone when the level first stood back down (may_yet_land waited since)
        det.gone_k = measure.reached(det, k, drop_k, det.floor_g)
