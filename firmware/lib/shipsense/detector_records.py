"""The detector's states and the small records they keep (named fields, MicroPython-friendly).

The detector is in one of four states (`Detector.state`):

- AT_REST: nothing is happening; levels, noise and sway are learned (detector_rest); a
  rise that vanished may wait there for the table's word (detector_topple; with cargo
  leaving, detector_vanished);
- LOADING: the total strayed from the rest: a hand loading, a touch, a piece settling;
  still stretches are weighed into places (detector_loading, detector_place);
- LEAVING: weight dropped: a `leaving` was sent and the detector waits for the piece to
  land on a lower zone or not (detector_leaving, detector_fall);
- RETURNED: the weight came back: a `shift` or a `stay` once it has settled
  (detector_shift).

An episode runs from leaving AT_REST to coming back to it; LOADING is where it starts and
where it goes on after each decision. The records are plain classes: MicroPython ignores
`__slots__`, and its tuple of names would cost heap on the ESP32 even when frozen.
"""

try:
    from micropython import const
except ImportError:  # CPython: the host runs this very module

    def const(__expr):  # positional-only, as MicroPython's (the leading __ tells pyright)
        return __expr


AT_REST = const(0)
LOADING = const(1)
LEAVING = const(2)
RETURNED = const(3)


class Plateau:
    """A still stretch of the total: its mean level over the base (g), first sample, length,
    and whether it began after the hand was seen letting go."""

    def __init__(self, level_g, start_k, n, after_release):
        self.level_g = level_g
        self.start_k = start_k
        self.n = n
        self.after_release = after_release

    def end_k(self):
        """Its last sample."""
        return self.start_k + self.n - 1


class Held:
    """A short rest kept in hand while what rises after it is weighed (a second piece or a
    hand): its level (g), zone change, the loading area and its length, when it was let go
    (t_ms) and how many samples it stood."""

    def __init__(self, level_g, change, area, area_n, t_ms, n):
        self.level_g = level_g
        self.change = change
        self.area = area
        self.area_n = area_n
        self.t_ms = t_ms
        self.n = n


class Cascade:
    """Cargo that left other zones while a fresh piece came to rest: the zones (0-based) that
    lost it, the grams they lost together (the fresh piece weighs that much more than the
    ship's net change) and the sample they began to lose it."""

    def __init__(self, zones, grams, onset_k):
        self.zones = zones
        self.grams = grams
        self.onset_k = onset_k


class Split:
    """A drop that paused and went on: perhaps a second piece after the first. The first is
    weighed over `w` samples up to `end_k`, on its own clock (`deadline_k`); `next_k` is when
    the drop resumed, `level_g` what stood in the pause, `confirmed` once more went."""

    def __init__(self, end_k, w, deadline_k, next_k, level_g):
        self.end_k = end_k
        self.w = w
        self.deadline_k = deadline_k
        self.next_k = next_k
        self.level_g = level_g
        self.confirmed = False


class Leave:
    """A pending leaving: when the drop began and was noticed, the zones that lost it, the
    landing clock (`wait_n`), the deepest drop and when, the verdict's deadline, the drop
    summed while the piece was off its zone, the latest sample it was (mostly) missing, and a
    possible split into two pieces."""

    def __init__(self, onset_k, notice_k, zones, wait_n, deepest, deepest_k):
        self.onset_k = onset_k
        self.notice_k = notice_k
        self.zones = zones
        self.wait_n = wait_n
        self.deepest = deepest
        self.deepest_k = deepest_k
        self.deadline_k = deepest_k + wait_n
        self.air_sum = 0.0
        self.air_n = 0
        self.gone_k = notice_k
        self.split = None


class Returned:
    """A leaving whose weight came back: when it began, the zones it left, the grams
    missing while it was in the air (0 when the dip was too short to weigh), and the Leave
    itself (what came back may yet prove a hand loading after the piece fell)."""

    def __init__(self, onset_k, zones, grams, leave):
        self.onset_k = onset_k
        self.zones = zones
        self.grams = grams
        self.leave = leave


class PendingTouch:
    """A rise that vanished, with a table sensor fitted: the `touch` it is unless the table
    says a piece toppled off as it was let go. When the hand let go (t_ms), the episode's
    first sample, the sample the let-go showed, the last sample a toppled piece could still
    reach the table, the rise's peak (g), what stood still before it vanished (`stood_g`,
    when no let-go was seen: perhaps a piece alone; else 0), and whether the mat has begun
    to change since.
    One that vanished as cargo began to leave (at `leave_k`, detector_vanished.note_vanished)
    also counts what fell (`cargo_g`, None for a plain touch) and what landed on the mat
    (`landed_g`); it is sent as no touch (the episode decided the cargo), unless it was a
    touch first (`owed`: detector_vanished.cargo_leaving); `mat` is then whether the mat felt
    something land before the cargo could reach it (detector_vanished.mat_first)."""

    def __init__(self, touch, release_t, onset_k, released_k, until_k, peak_g):
        self.touch = touch
        self.release_t = release_t
        self.onset_k = onset_k
        self.released_k = released_k
        self.until_k = until_k
        self.peak_g = peak_g
        self.stood_g = 0.0
        self.mat = False
        self.cargo_g = None
        # the items the cargo's falls named, once counted (a list); None again if cargo left
        # the zone where the load vanished alone (detector_vanished.vanished_share)
        self.cargo_items = None
        self.landed_g = 0.0
        self.leave_k = 0  # the sample the cargo began to leave at
        self.owed = False
        self.heard_by = -1  # without a mat: the piezo must have been struck by this sample
        # a piece that toppled off as the rise vanished is seen landing by this sample (once
        # cargo began to leave) ...
        self.fall_by_k = -1
        self.first_land_k = -1  # ... and the mat's first landing since began at this one


def touch_after_all(det, events):
    """The rise waiting for the table (`det.pending`), if any, was a touch: send it."""
    if det.pending is not None:
        if det.pending.cargo_g is None or det.pending.owed:
            send_waited(det, events, det.pending.touch)
        set_pending(det, None)


def set_pending(det, pending):
    """The rise that waits for the table's word is now `pending` (None: none): while one
    waits, a piece that toppled off may be landing, and the mat is given as long to settle
    as in a fall (table.TableSense.expect_landing)."""
    det.pending = pending
    det.table_sense.expect_landing = pending is not None


def send_waited(det, events, touch):
    """Send a touch that waited for the table: decided now, once the table had its say
    (events go out in the order they were decided)."""
    touch["decided_ms"] = det.t_ring[det.k % det.history_n]
    events.append(touch)


class LastPlace:
    """The latest place (with items): its sample, zone (0-based), grams and item, and what
    the zone held before it (its committed level then)."""

    def __init__(self, k, zone, grams, item, before):
        self.k = k
        self.zone = zone
        self.grams = grams
        self.item = item
        self.before = before
