"""Where the zones stand after an episode that decided nothing: a load cell's zero step.

A cell knocked by a hand can settle a little off its old zero (the zoo's `wear`: up to 1 g).
The episode then ends on a still level lighter than any piece: the ship rests there now
(`rest_where_standing`), and a load rising from such a level begins from it (`begin_from`),
not from the old level the step left behind.
"""

from shipsense import detector_commit as commit
from shipsense import detector_measure as measure
from shipsense import detector_rest as resting
from shipsense import detector_silent as silent
from shipsense import detector_tuning as tuning


def rest_where_standing(det, k, plateau):
    """An episode ends on a still stretch lighter than any piece (`plateau`, up to `k`): if it
    stands off the old level by more than its noise explains, the ship rests there now (a
    cell's zero stepped as it was knocked). Left at the old level, episodes start again and
    again (no rest long enough to re-measure) and the next place is weighed from it. After a
    touch, only a stretch a weighing window long: at 10 SPS the first "still" samples may be
    the HX711 still showing a change (a piece the hand knocked, beginning to go)."""
    touched = det.peak - det.trough >= tuning.TOUCH_MIN_G
    if touched and plateau.n < det.place_min_n:
        return
    w = plateau.n if plateau.n < det.place_max_n else det.place_max_n
    size = plateau.level_g if plateau.level_g > 0 else -plateau.level_g
    if size >= tuning.NEW_ZERO_SE * measure.weighing_se(det, w):
        resting.rezero(det, k, w)


def begin_from(det, k, plateau):
    """The ship's level is now the still stretch it stood on (`plateau`): the loading rising
    from it (at `k`) begins afresh there, as from a rest."""
    end = plateau.end_k()
    resting.rezero(det, end, plateau.n)
    silent.remember_rest(det, end + 1)
    commit.reset_episode(det, end + 1)
    d = det.fast_ring[k % det.history_n] - det.base
    if d > det.peak:
        det.peak = d
