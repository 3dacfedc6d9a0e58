"""The ship's online detector: load-cell samples in, place/leaving/fall/shift/land events out.

    from shipsense.detector import Detector
    det = Detector(rate_hz=80, n_zones=10, table="mat", items={"rat": 2.6, ...})
    for event in det.feed(t_ms, zones_g, table_g, impact):
        ...

`feed` takes one sample: `t_ms` (int or float, increasing; kept as given, never summed),
`zones_g` (n_zones calibrated grams), `table_g` (mat grams or None), `impact` (piezo 0/1 or
None). It returns a list, usually empty, of event dicts per DESIGN.md. Every event has
`type`, `t_ms` (best estimate of when it physically happened: the time of one of the
samples fed) and `decided_ms` (the `t_ms` of the sample that made the decision). Types:

- `place` {zone, grams[, item, ambiguous, alternatives]}: cargo came to rest in a zone;
  `t_ms` is when the loading hand let go.
- `leaving` {grams, zones}: first notice that weight is leaving the ship; a `fall` or a
  `shift` follows, or a `stay` if the weight turns out never to have left.
- `fall` {grams, zones[, items, ambiguous, alternatives]}: cargo left the ship.
- `shift` {from, to, grams[, item]}: cargo dropped from one zone onto another, still aboard.
- `land` {grams, bounced}: cargo hit the table (`grams` null without a mat; 0.0 with
  `bounced` true when it bounced off the mat).
- `knock` {grams}: the table was hit and nothing came from the ship (`grams`: the mat's
  swing, null without a mat).
- `collect` {grams}: weight was taken off the mat (a hand collecting fallen pieces).
- `touch` {grams, zones}: the ship was pressed or brushed and nothing changed.
- `stay` {grams}: a `leaving` that came to nothing: the weight never left, or what went was
  a hand that had been weighed with the piece placed just before (the place's grams are
  then taken back off internally; the event already sent stands).
- `fault` {zone, reason}: a load cell reads something no piece can cause.

With items, a place or fall whose weight fits two answers about equally well (or none) gets
`"ambiguous": true` and `alternatives` (other item names for a place, other lists for a
fall) beside the best answer.

Other methods and attributes: `set_items(items)` (None to forget them), `zone_grams()`
(settled grams per zone), `cargo` (what is believed aboard, a `shipsense.items.Cargo`),
`sigma_total()` (measured noise of the summed zones).

How it works, in brief. Every channel passes a three-sample Hampel filter (a single-sample
HX711 glitch is replaced, real steps pass untouched). The sum over all zones is the main
signal: sway only moves load between zones. Noise is measured at rest and sets the
thresholds; zero-tracking (drift, creep) runs only at rest. A drop in the sum starts a
`leaving`; it becomes a `fall` once the piece could have landed on a lower zone from the
height of its zone, or a `shift` if the weight came back in time for that (weight coming
back later is a hand loading the ship after the piece fell). A drop on another zone while a
fresh piece settles is cargo leaving only if that zone ends below what it held (a hand that
brushed it leaves it where it was). A rise that holds still after the hand lets go is a
`place`, weighed over a window long enough for the noise measured (and, with items, until
the weight clearly names one), from the level the ship rested at just before (the mean of
that rest, not the slow zero-tracking). A still stretch that rose again after the release
is a hand brushing the fresh piece, not the piece: it is waited out. At
10 SPS the HX711 needs three to four conversions to show a step, so a piece may be seen at
rest for two samples only: such a short rest is the piece when the load then falls back to
the old level (it tipped off), and is held when more rises until what rises is weighed (a
second piece, or a hand that goes again). A still load or a loss lighter than half the
lightest piece (without items, than the smallest place, 0.9 g) is never a `place` or a
`fall`: it fits no piece (a hand resting on the ship, drift, noise). Such a loss after a
`leaving` is a `stay`; such a level left standing is where the ship rests. Zones are told
apart after removing the ship's sway, whose two modes (roll and pitch) are learned at rest
(`shipsense.sway`).

Memory is bounded (fixed rings of a few seconds); time is kept as sample counts, so a
six-hour session is as exact as a minute, also with single-precision floats on the ESP32.
"""

from array import array
from math import sqrt

from shipsense.items import (
    Cargo,
    check_items,
    name_fall,
    name_place,
    place_margin,
    weighing_error_g,
)
from shipsense.sway import SwayModel
from shipsense.table import TableSense

TABLE_MODES = ("none", "mat", "piezo", "both")

# --- tuning (grams and milliseconds; windows become sample counts at the chosen rate) ------
HISTORY_MS = 3000  # how far back the rings reach
ZONE_HISTORY_MS = 1300
FAST_MS = 50  # the moving mean that feeds the triggers
STABLE_MS = 100  # the span over which "holding still" is judged
WARMUP_MS = 600  # samples used to learn the empty ship before deciding anything
TRACK_MS = 4000  # zero-tracking time constant at rest (drift, creep)
REBASE_MS = 2000  # an episode's starting level: the mean of the rest before it, this long ...
REBASE_MIN_MS = 200  # ... at least this long (else the zero-tracking level stands)
NOISE_MS = 3000  # noise estimate time constant at rest
SIGMA_START_G = 0.1  # noise assumed per zone before it is measured
GLITCH_MIN_G = 3.0  # the Hampel filter replaces a sample this far off its neighbours' median
TRIGGER_MIN_G = 0.6  # smallest change of the total that starts an episode
TRIGGER_SIGMAS = 5.0
LEAVE_MIN_G = 0.9  # smallest drop announced as `leaving`
LEAVE_SIGMAS = 5.5
LEAVE_MS = 20  # the drop must hold this long ...
LEAVE_RINGING_MS = 90  # ... or this long while a released piece may still ring
RINGING_MS = 600
PLACE_MIN_G = 0.9  # smallest rise that is a `place`
RELEASE_MIN_G = 0.6  # the hand let go: the level fell this far below its peak, and ...
RELEASE_SIGMAS = 6.0  # ... this many noise sigmas, and ...
RELEASE_FRACTION = 0.2  # ... this fraction of the peak (a pressing hand trembles ~4%)
TREMOR_FRACTION = 0.1  # a rise from a still stretch with no release seen must beat this
SETTLE_BAND_MIN_G = 0.3
SETTLE_SIGMAS = 4.0
TREND_FRACTION = 0.6  # the older and newer half of the span may differ by this much of the band
PLACE_MIN_WINDOW_MS = 100  # a placed piece is weighed over at least this (and 5 samples) ...
PLACE_MAX_WINDOW_MS = 1200  # ... and at most this
PLACE_SE_G = 0.15  # without items, weigh until the standard error is this small
PLACE_MARGIN_SE = 2.5  # with items, until the weight is this many errors from a boundary
PLAIN_MS = 850  # a rise without a seen release is a place once it has held this long
PLAIN_DROP_MS = 350  # ... or when it held this long (4 samples) and then went away again
PLATEAU_MERGE_MS = 150  # a still stretch may pause this long and go on at the same level
PLATEAU_MERGE_G = 0.4
COMMIT_MIN_MS = 100  # a plateau this long after the release can be weighed if a fall follows
# A still stretch after the release that stands above where the load first settled is not
# the piece: a hand brushed it (or more came on). Judged from this long after the release ...
RISE_GAP_MS = 100
RISE_MIN_MS = 50  # ... over at least this long before the stretch began
RISE_COMMIT_MS = 300  # a stretch after the release this long is a piece when more comes on
QUIET_MS = 150  # the episode is over after this long back at the old level
# A drop soon after a place that leaves a piece's weight behind and fits no cargo of the
# zones that lost it was a hand weighed with the fresh piece (with items only).
FRESH_MS = 1500
FRESH_FIT_ERRORS = 2.5  # what stays fits a piece this well ...
FRESH_CARGO_ERRORS = 3.0  # ... and what went fits no cargo better than this
ONE_ZONE_FRACTION = 0.5  # a placed piece shows at least this share of its weight on its zone
TOUCH_MIN_G = 1.5  # smaller transients are not worth a `touch`
SHIFT_MIN_G = 0.9
ZONE_FLOOR_ITEM = 0.6  # with items, a zone losing this share of the lightest piece counts
SHIFT_SETTLE_MS = 200
SWAY_LAG_MS = 150  # zone changes over this lag teach the sway model
SWAY_EVERY_MS = 40
SWAY_REFRESH_MS = 1000
SWAY_MEMORY_S = 30
# How long a piece leaving each zone needs to land on a lower zone, at most: zones 1-4 are
# the deck (nothing below), the yards' surfaces sit 14, 21 and 28 cm above it (free fall
# plus 8% for tumbling). Then the time the landing needs to show through the filters.
LANDING_MS = (0, 0, 0, 0, 183, 183, 223, 223, 258, 258)
LANDING_SEEN_MS = 20
FALL_WEIGH_MS = 100  # fallen grams are weighed over at least this long after the drop
EXTRA_WAIT_MS = 150  # the most a slow slide may push the verdict back
# Weight back after it stayed away this much longer than the landing clock is not the piece
# landing on a lower zone. At 10 SPS the clock already allows the HX711's 200 ms, and a
# piece landing shows back within two samples less than it: there, one sample less will do
LATE_MS = 100
PAUSE_MS = 60  # a drop that stood still this long and goes on is the next piece leaving
PROGRESS_MS = 25  # a drop still deepening over this span (by a noise margin, and by ...
PROGRESS_FRACTION = 0.05  # ... this fraction of it) means the piece is still going
FAULT_LIMIT_G = 5000.0  # a zone beyond this is a broken channel
INPUT_LIMIT_G = 1.0e6
MAX_EPISODE_MS = 30000  # a disturbance this long is given up: the levels are re-learned


def _fit_errors(grams, items):
    """How many weighing errors `grams` is from the nearest item's weight."""
    best = 1.0e30
    for name in items:
        error = abs(grams - items[name]) / weighing_error_g(items[name])
        if error < best:
            best = error
    return best


def _subset_fit(grams, pieces, items):
    """How many weighing errors `grams` is from the best sum of some of `pieces` (names)."""
    best = 1.0e30
    n = len(pieces)
    if n > 6:
        n = 6  # the most recent few: enough to tell, bounded work
    first = len(pieces) - n
    for mask in range(1, 1 << n):
        total = 0.0
        for j in range(n):
            if mask >> j & 1:
                total += items[pieces[first + j]]
        error = abs(grams - total) / weighing_error_g(total)
        if error < best:
            best = error
    return best


def _top(values):
    """The largest magnitude among `values` (at least a tiny positive number)."""
    top = 1.0e-9
    for v in values:
        if v > top:
            top = v
        elif -v > top:
            top = -v
    return top


def _grams(value):
    """Grams rounded to 0.01 g, the same way on every Python."""
    if value < 0:
        return -int(-value * 100.0 + 0.5) / 100.0
    return int(value * 100.0 + 0.5) / 100.0


class Detector:
    """The online detector for one ship (see the module docstring for the API)."""

    def __init__(self, rate_hz=80, n_zones=10, table="none", items=None):
        if isinstance(rate_hz, bool) or not isinstance(rate_hz, (int, float)):
            raise ValueError("rate_hz must be a number")
        if not 1 <= rate_hz <= 2000:
            raise ValueError(f"rate_hz must be between 1 and 2000, not {rate_hz!r}")
        if isinstance(n_zones, bool) or not isinstance(n_zones, int) or not 1 <= n_zones <= 64:
            raise ValueError("n_zones must be a whole number from 1 to 64")
        if table not in TABLE_MODES:
            raise ValueError(f"table must be one of {', '.join(TABLE_MODES)}, not {table!r}")
        self.rate_hz = rate_hz
        self.n_zones = n_zones
        self.table = table
        self.items = None
        self.cargo = Cargo(n_zones)
        # Below this (grams from the old level) no piece is where the load was: half the
        # lightest piece with items (noise, sway and drift stay below it), else the smallest
        # place. A still load or a loss lighter than this is never a `place` or a `fall`: it
        # fits no piece (a hand resting on the ship, drift, noise). See set_items.
        self._floor_g = PLACE_MIN_G
        if items is not None:
            self.set_items(items)

        ns = self._samples
        self.history_n = ns(HISTORY_MS)
        self.zone_history_n = ns(ZONE_HISTORY_MS)
        self.fast_n = ns(FAST_MS)
        self.stable_w = max(3, ns(STABLE_MS))
        self.warmup_n = ns(WARMUP_MS)
        self.track_alpha = 1.0 / ns(TRACK_MS)
        self.noise_alpha = 1.0 / ns(NOISE_MS)
        self.leave_n = ns(LEAVE_MS)
        self.leave_ringing_n = ns(LEAVE_RINGING_MS)
        self.low_n = max(2, self.leave_ringing_n)
        self.ringing_n = ns(RINGING_MS)
        self.place_min_n = max(5, ns(PLACE_MIN_WINDOW_MS))
        self.place_max_n = max(self.place_min_n, ns(PLACE_MAX_WINDOW_MS))
        self.plain_n = ns(PLAIN_MS)
        self.plain_drop_n = max(4, ns(PLAIN_DROP_MS))
        self.commit_min_n = max(2, ns(COMMIT_MIN_MS))
        # at 10 SPS a piece seen for two samples between the release and its tipping off
        self.short_rest_n = 2 if self.stable_w <= 3 else 0
        self.rise_gap_n = ns(RISE_GAP_MS)
        self.rebase_n = ns(REBASE_MS)
        self.rebase_min_n = ns(REBASE_MIN_MS)
        self.rise_min_n = ns(RISE_MIN_MS)
        self.rise_commit_n = ns(RISE_COMMIT_MS)
        self.fresh_n = ns(FRESH_MS)
        self.merge_gap_n = ns(PLATEAU_MERGE_MS)
        self.quiet_n = ns(QUIET_MS)
        self.shift_settle_n = max(3, ns(SHIFT_SETTLE_MS))
        self.sway_lag_n = ns(SWAY_LAG_MS)
        self.sway_every_n = ns(SWAY_EVERY_MS)
        self.sway_refresh_n = ns(SWAY_REFRESH_MS)
        self.progress_n = ns(PROGRESS_MS)
        self.fall_weigh_n = max(2, ns(FALL_WEIGH_MS))
        self.pause_n = max(2, ns(PAUSE_MS))
        self.extra_wait_n = ns(EXTRA_WAIT_MS)
        self.late_n = ns(LATE_MS) if rate_hz >= 40 else -1
        self.max_episode_n = ns(MAX_EPISODE_MS)
        self.landing_n = []
        self.deck = []  # zones with nothing below them: a piece leaving them cannot shift
        # at 10 SPS the HX711 needs 400 ms to show a step in full: give a landing 2 more
        slow_n = 2 if rate_hz < 40 else 0
        for zone in range(n_zones):
            height_ms = LANDING_MS[zone] if zone < len(LANDING_MS) else LANDING_MS[-1]
            self.landing_n.append(ns(height_ms + LANDING_SEEN_MS) + slow_n)
            self.deck.append(height_ms == 0)

        h = self.history_n
        self._t = [0] * h  # sample times as given (ints on the ESP32)
        self._total = array("f", [0.0] * h)  # filtered total grams
        self._fast = array("f", [0.0] * h)  # its FAST_MS moving mean
        zn = self.zone_history_n
        self._zones = [array("f", [0.0] * zn) for _ in range(n_zones)]
        self._raw = [[0.0, 0.0, 0.0] for _ in range(n_zones)]
        self.y = [0.0] * n_zones  # glitch-filtered zones, this sample
        self.ref = [0.0] * n_zones  # committed grams per zone
        self.base = 0.0  # committed total (the sum of ref)
        self._area = [0.0] * n_zones  # zone deviations summed over the loading
        self._area_n = 0
        self._change = [0.0] * n_zones
        self.k = -1  # index of the current sample
        self._last_t = None
        self._var_total = n_zones * SIGMA_START_G * SIGMA_START_G
        self._prev_total1 = 0.0
        self._prev_total2 = 0.0
        self._faulty = [False] * n_zones
        self.sway = SwayModel(n_zones, 1.0 / max(1, SWAY_MEMORY_S * 1000 // SWAY_EVERY_MS))
        self._sway_dirty = False
        self.active = False
        self._rest_k = self.warmup_n
        self._base_n = self.warmup_n  # samples behind the level places are weighed from
        self._trigger_run = 0
        self._last_fall_k = -(10**9)
        self._last_place = None  # (k, zone, grams, item) of the latest place, with items
        self.leave_level = LEAVE_MIN_G
        self._reset_episode(0)
        self.table_sense = None
        if table != "none":
            self.table_sense = TableSense(ns, table in ("mat", "both"), table in ("piezo", "both"))

    # --- public helpers ----------------------------------------------------------------
    def set_items(self, items):
        """Use calibrated item weights ({name: grams}) from now on; None forgets them."""
        if items is None:
            self.items = None
            self.cargo.clear()
            self._floor_g = PLACE_MIN_G
            return
        self.items = check_items(items)
        lightest = min(self.items[name] for name in self.items)
        self._floor_g = 0.5 * lightest if 0.5 * lightest > PLACE_MIN_G else PLACE_MIN_G

    def zone_grams(self):
        """The settled grams per zone (what rests on each zone, as far as is known)."""
        return list(self.ref)

    def sigma_total(self):
        """The measured noise (g, one sigma) of one sample of the summed zones."""
        return sqrt(self._var_total)

    def _samples(self, ms):
        n = int(ms * self.rate_hz / 1000.0 + 0.5)
        return n if n > 0 else 1

    # --- the sample loop -----------------------------------------------------------------
    def feed(self, t_ms, zones_g, table_g=None, impact=None):
        """Take one sample; return the list of events it decided (usually empty)."""
        n = self.n_zones
        if len(zones_g) != n:
            raise ValueError(f"zones_g has {len(zones_g)} values, expected {n}")
        for i in range(n):
            v = zones_g[i]
            if not -INPUT_LIMIT_G <= v <= INPUT_LIMIT_G:  # NaN fails this too
                raise ValueError(f"zone {i + 1}: {v!r} g is not a plausible reading")
        if table_g is not None and not -INPUT_LIMIT_G <= table_g <= INPUT_LIMIT_G:
            raise ValueError(f"table_g: {table_g!r} g is not a plausible reading")
        if impact not in (None, 0, 1):
            raise ValueError(f"impact must be 0, 1 or None, not {impact!r}")
        if self._last_t is not None and not t_ms > self._last_t:
            raise ValueError(f"t_ms {t_ms!r} is not after the previous sample's {self._last_t!r}")
        self._last_t = t_ms
        events = []
        self.k += 1
        k = self.k
        h = self.history_n
        slot = k % h
        self._t[slot] = t_ms

        # Hampel filter over three samples per zone (it outputs the middle one)
        limit = 6.0 * sqrt(self._var_total / n)
        if limit < GLITCH_MIN_G:
            limit = GLITCH_MIN_G
        total = 0.0
        y = self.y
        zn = self.zone_history_n
        zslot = k % zn
        r0 = (k - 2) % 3
        r1 = (k - 1) % 3
        r2 = k % 3
        for i in range(n):
            raw = self._raw[i]
            if k == 0:
                raw[0] = raw[1] = zones_g[i]
            raw[r2] = zones_g[i]
            a = raw[r0]
            b = raw[r1]
            c = raw[r2]
            if (a - b) * (c - a) >= 0:
                med = a
            elif (b - a) * (c - b) >= 0:
                med = b
            else:
                med = c
            if b - med > limit or med - b > limit:
                b = med
            y[i] = b
            total += b
            self._zones[i][zslot] = b
        self._total[slot] = total
        fn = self.fast_n if k + 1 >= self.fast_n else k + 1
        s = 0.0
        for j in range(fn):
            s += self._total[(k - j) % h]
        fast = s / fn
        self._fast[slot] = fast

        if k < self.warmup_n:
            self._warm_up(k, total)
        else:
            self._check_faults(events)
            self._ship_step(events, k, total, fast)
        self._prev_total2 = self._prev_total1
        self._prev_total1 = total
        if self.table_sense is not None:
            more = self.table_sense.step(k, t_ms, table_g, impact, self._fall_context())
            if more:
                events.extend(more)
        return events

    def _fall_context(self):
        """2 while a piece may be in the air, 1 soon after a fall, else 0 (for the table)."""
        if self.leave is not None:
            return 2
        if self.k - self._last_fall_k <= self._samples(1500):
            return 1
        return 0

    # --- warm-up and rest ----------------------------------------------------------------
    def _warm_up(self, k, total):
        # the glitch filter cannot judge the very first sample (it has no neighbours yet):
        # the empty ship is each zone's median over the warm-up, and the noise is learned
        # from the third sample's second difference on
        if k == self.warmup_n - 1 or k == 0:
            n = k + 1
            zn = self.zone_history_n
            if n > zn:
                n = zn
            for i in range(self.n_zones):
                ring = self._zones[i]
                values = sorted(ring[(k - j) % zn] for j in range(n))
                self.ref[i] = (
                    values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])
                )
            self.base = self._sum_ref()
        if k >= 3:
            self._learn_noise(total, 1.0 / (k + 1) if k < 50 else self.noise_alpha)

    def _sum_ref(self):
        s = 0.0
        for v in self.ref:
            s += v
        return s

    def _learn_noise(self, total, alpha):
        # second differences: blind to drift and slow sway, 6 sigma^2 for white noise
        d2 = total - 2.0 * self._prev_total1 + self._prev_total2
        self._var_total += (d2 * d2 / 6.0 - self._var_total) * alpha

    def _rest_step(self, k, total):
        a = self.track_alpha
        for i in range(self.n_zones):
            self.ref[i] += (self.y[i] - self.ref[i]) * a
        self.base = self._sum_ref()
        self._learn_noise(total, self.noise_alpha)
        if k % self.sway_every_n == 0:
            self._learn_sway(k)
        if self._sway_dirty and k % self.sway_refresh_n == 0:
            self.sway.refresh()
            self._sway_dirty = False

    def _learn_sway(self, k):
        zn = self.zone_history_n
        now = k % zn
        then = (k - self.sway_lag_n) % zn
        change = self._change
        s = 0.0
        s_abs = 0.0
        energy = 0.0
        for i in range(self.n_zones):
            ring = self._zones[i]
            d = ring[now] - ring[then]
            change[i] = d
            s += d
            s_abs += d if d > 0 else -d
            energy += d * d
        # learn only from clear sway: well above the noise, and nearly nothing added or lost
        if energy < 12.0 * self._var_total or (s > 0.3 * s_abs or -s > 0.3 * s_abs):
            return
        self.sway.learn(change)
        self._sway_dirty = True

    def _check_faults(self, events):
        for i in range(self.n_zones):
            bad = not -FAULT_LIMIT_G <= self.y[i] <= FAULT_LIMIT_G
            if bad and not self._faulty[i]:
                self._faulty[i] = True
                now = self._now()
                events.append(
                    {
                        "type": "fault",
                        "t_ms": now,
                        "decided_ms": now,
                        "zone": i + 1,
                        "reason": f"reads {int(self.y[i])} g, beyond what the ship can hold",
                    }
                )
            elif not bad and self._faulty[i]:
                self._faulty[i] = False

    # --- episodes on the ship ------------------------------------------------------------
    def _reset_episode(self, k):
        self.onset_k = k
        self.peak = 0.0  # highest fast level (above base) since the last commit
        self.trough = 0.0
        self.released_k = None  # when the hand was seen letting go
        self.stable_run = 0
        self.plateau = None  # [level_g, start_k, n, after_release] of the last still stretch
        self.leave = None  # a pending leaving: dict
        self.leave_run = 0
        self.returned = None  # a leaving whose weight came back: dict (shift or stay)
        self.committed = False  # something was decided in this episode
        self.dropping_k = None  # a drop on the loaded zone: the hand letting go or a tip
        self.low_run = 0
        self._held = None  # a short rest before a rise, see _hold_short_rest
        self._emptied = False  # back at the old level since the release, nothing resting
        self._area_n = 0
        self._area_open = True
        for i in range(self.n_zones):
            self._area[i] = 0.0

    def _ship_step(self, events, k, total, fast):
        d = fast - self.base
        sigma_fast = sqrt(self._var_total / self.fast_n)
        trigger = TRIGGER_SIGMAS * sigma_fast
        if trigger < TRIGGER_MIN_G:
            trigger = TRIGGER_MIN_G
        if not self.active:
            if d > trigger or d < -trigger:
                self._trigger_run += 1
            else:
                self._trigger_run = 0
                self._rest_step(k, total)
            if self._trigger_run >= min(2, self.fast_n):
                self.active = True
                onset = self._find_onset(k, trigger * 0.4)
                self._rebase(onset)
                d = fast - self.base
                self._reset_episode(onset)
            else:
                return
        self._episode_step(events, k, d, sigma_fast)

    def _rebase(self, onset):
        """Re-measure the resting total just before an episode: the mean since the ship came
        to rest, not the slow zero-tracking, which still carries the last decision's error."""
        last = onset - self.fast_n
        n = last - self._rest_k + 1
        if n > self.rebase_n:
            n = self.rebase_n
        if n < self.rebase_min_n:
            self._base_n = self.rebase_min_n  # the tracked level, of doubtful age: assume little
            return
        self._base_n = n
        delta = (self._mean_total(last, n) - self.base) / self.n_zones
        for i in range(self.n_zones):
            self.ref[i] += delta
        self.base = self._sum_ref()

    def _find_onset(self, k, level):
        """The first recent sample whose total strayed past `level` from the base."""
        h = self.history_n
        onset = k
        for back in range(1, min(self.fast_n * 3 + 2, k)):
            j = k - back
            v = self._total[j % h] - self.base
            if -level < v < level:
                break
            onset = j
        return onset

    def _episode_step(self, events, k, d, sigma_fast):
        n = self.n_zones
        y = self.y
        ref = self.ref
        if self._area_open and self.leave is None and self.returned is None:
            area = self._area
            for i in range(n):
                area[i] += y[i] - ref[i]
            self._area_n += 1
        if (
            self.short_rest_n
            and self.released_k is not None
            and self.plateau is None
            and self._held is None
            and self.leave is None
            and self.returned is None
        ):
            # let go of, and back at the old level with nothing seen resting: it was a hand
            # (a touch); if the load rises again from there, that is a new loading
            if d < self._floor_g:
                self._emptied = True
            elif self._emptied and d > self._floor_g + self.leave_level:
                self._emptied = False
                self.released_k = None
                self.peak = d
                self._area_n = 0
                self._area_open = True
                for i in range(n):
                    self._area[i] = 0.0
        if d > self.peak:
            self.peak = d
        if d < self.trough:
            self.trough = d
        # a hand let go only of what clearly came on (not of sway after the last decision)
        if self.released_k is None and self.peak >= PLACE_MIN_G and self.peak >= self.leave_level:
            let_go = RELEASE_MIN_G
            if let_go < RELEASE_SIGMAS * sigma_fast:
                let_go = RELEASE_SIGMAS * sigma_fast
            if let_go < RELEASE_FRACTION * self.peak:
                let_go = RELEASE_FRACTION * self.peak
            if self.peak - d > let_go:
                self.released_k = k
                self._area_open = False
                self._emptied = False

        # holding still? the fast mean stays in a noise band over STABLE_MS
        h = self.history_n
        w = self.stable_w
        hi = -1.0e30
        lo = 1.0e30
        newer = 0.0
        older = 0.0
        half = w // 2
        for j in range(w):
            v = self._fast[(k - j) % h]
            if v > hi:
                hi = v
            if v < lo:
                lo = v
            if j < half:
                newer += v
            elif j >= w - half:
                older += v
        band = SETTLE_SIGMAS * sigma_fast
        if band < SETTLE_BAND_MIN_G:
            band = SETTLE_BAND_MIN_G
        # ... and does not drift one way (a hand pressing slowly, a touch beginning)
        trend = (newer - older) / half if half else 0.0
        if trend > TREND_FRACTION * band or -trend > TREND_FRACTION * band:
            hi = lo + band + 1.0
        leave_level = LEAVE_SIGMAS * sigma_fast
        if leave_level < LEAVE_MIN_G:
            leave_level = LEAVE_MIN_G
        self.leave_level = leave_level
        if hi - lo <= band:
            self.stable_run += 1
            if self.peak >= PLACE_MIN_G:
                self._area_open = False  # the load has arrived: later hands are not loading
            if self.dropping_k is not None:
                if (
                    self.plateau is not None
                    and d < self._floor_g
                    and self.plateau[0] >= self._floor_g
                ):
                    # it settled back at the old level: the piece itself tipped off
                    level = self.plateau[0]
                    onset = self.dropping_k
                    self._decide_place(events, k)
                    self._notice_leaving(events, k, d - level, leave_level, onset)
                    return
                self.released_k = self.dropping_k  # it settled above the old level: a release
                self.dropping_k = None
                self.low_run = 0
            self._update_plateau(k, band)
        else:
            self.stable_run = 0

        if self.leave is not None:
            self._follow_leaving(events, k, d, sigma_fast)
            return
        if self._check_leaving(events, k, d, leave_level):
            return
        if self.returned is not None:
            if self.stable_run >= 1 and self.plateau[2] >= self.shift_settle_n:
                self._decide_shift(events, k)
            return

        plateau = self.plateau
        held = self._held
        if (
            held is not None
            and self.stable_run >= 1
            and plateau is not None
            and plateau[3]
            and self._commit_held(events, plateau[0])
        ):
            # the second piece rests above the first: the first is placed, the second is
            # weighed from it
            plateau[0] -= held[0]
            self.peak -= held[0]
        if self.stable_run >= 1 and plateau is not None:
            level = plateau[0]
            floor = self._floor_g
            if level >= floor:
                if plateau[3]:
                    n = plateau[2]
                    if n >= self.place_min_n:
                        n += self._held_same(level)  # what rested before the hand came
                    ready = self._weighed_enough(level, n)
                else:
                    ready = plateau[2] >= self.plain_n
                if ready and self._rose_since_release(plateau):
                    self._new_load_phase(plateau)
                    return
                if ready and self._load_on_one_zone(k, level, plateau[2]):
                    self._decide_place(events, k)
                    return
            elif -PLACE_MIN_G < level < PLACE_MIN_G:
                if plateau[2] >= self.quiet_n:
                    self._end_episode(events, k)
                    return
            elif -floor < level < floor:
                if self._fits_no_piece(level, plateau[2]):
                    # lighter than any piece, either way: no place, no fall, nothing aboard
                    # changed (a hand resting on the ship, drift, noise). Where the ship
                    # cannot come to rest at the old level (it would start an episode again
                    # at once), it rests at this one once it has stood the longest weighing
                    # window (a hand does not rest that still that long)
                    size = level if level > 0 else -level
                    if size < TRIGGER_SIGMAS * sigma_fast or size < TRIGGER_MIN_G:
                        self._end_episode(events, k)
                        return
                    if plateau[2] >= self.place_max_n:
                        self._rezero(k, plateau[2])
                        self._end_episode(events, k)
                        return
            elif plateau[2] >= self.place_min_n and self._quiet_loss(-level, plateau[2]):
                # a piece's worth is missing and has stood still, though it went too gently
                # to be noticed leaving in this noise (a light piece at 10 SPS)
                self._notice_leaving(events, k, level, self.leave_level, plateau[1])
                return
        if k - self.onset_k > self.max_episode_n:
            self._end_episode(events, k)

    def _update_plateau(self, k, band):
        """The still stretch now: its mean level over the latest samples and its length.

        A stretch that resumes at the same level after a brief wobble (a gust of sway, a
        twitch of noise) continues the one before.
        """
        n = self.stable_run + self.stable_w - 1
        start = k - n + 1
        plateau = self.plateau
        if plateau is None or self.stable_run == 1:
            after_release = self.released_k is not None and self.released_k <= start
            level = self._mean_total(k, n) - self.base
            tolerance = band if band > PLATEAU_MERGE_G else PLATEAU_MERGE_G
            if (
                plateau is None
                or plateau[3] != after_release
                or start - (plateau[1] + plateau[2] - 1) > self.merge_gap_n
                or abs(level - plateau[0]) > tolerance
                or self._strayed(plateau, start)
            ):
                self.plateau = plateau = [0.0, start, n, after_release]
        n = k - plateau[1] + 1
        plateau[2] = n
        w = n if n < self.place_max_n else self.place_max_n
        plateau[0] = self._mean_total(k, w) - self.base

    def _strayed(self, plateau, start):
        """True if the level left the last still stretch by more than a wobble before this one
        began (a hand brushing the piece between them): then they are not one stretch."""
        h = self.history_n
        level = plateau[0] + self.base
        j = plateau[1] + plateau[2]
        while j < start:
            v = self._fast[j % h] - level
            if v > self.leave_level or -v > self.leave_level:
                return True
            j += 1
        return False

    def _rose_since_release(self, plateau):
        """True if a still stretch after the release stands clearly above the level the load
        first settled at once the hand had let go: not the piece, but a hand brushing it
        (its going would look like a fall) or more load coming on."""
        if not plateau[3] or self.released_k is None:
            return False
        first = self.released_k + self.rise_gap_n
        last = plateau[1] - 1
        n = last - first + 1
        if n < self.rise_min_n:
            return False
        if n > self.place_max_n:
            n = self.place_max_n
        settled = self._mean_total(last, n) - self.base
        return plateau[0] - settled > self.leave_level

    def _new_load_phase(self, plateau):
        """What holds still now rose after the release: wait for it to go (or be let go of)."""
        self.peak = plateau[0]
        self.released_k = None
        self.plateau = None
        self.dropping_k = None
        self.low_run = 0

    def _mean_total(self, k, w):
        h = self.history_n
        s = 0.0
        for j in range(w):
            s += self._total[(k - j) % h]
        return s / w

    def _weighed_enough(self, level, n):
        if n < self.place_min_n:
            return False
        if n >= self.place_max_n:
            return True
        # the error of the level it rose from counts too
        se = sqrt(self._var_total * (1.0 / n + 1.0 / self._base_n))
        if self.items:
            return place_margin(level, self.items) >= PLACE_MARGIN_SE * se
        return se <= PLACE_SE_G

    def _fits_no_piece(self, level, n):
        """True if a still stretch of `n` samples at `level` (grams from the base, either
        way) is clearly lighter than any piece: below the floor by its weighing error, or
        still below it when weighed over the longest window."""
        if n < self.place_min_n:
            return False
        if n >= self.place_max_n:
            return True
        se = sqrt(self._var_total * (1.0 / n + 1.0 / self._base_n))
        size = level if level > 0 else -level
        return self._floor_g - size >= PLACE_MARGIN_SE * se

    def _rezero(self, k, n):
        """The ship rests at the level of the last `n` still samples: take it as each zone's
        level (what is aboard is unchanged)."""
        w = n if n < self.place_max_n else self.place_max_n
        change = self._zone_change(k, w)
        for i in range(self.n_zones):
            self.ref[i] += change[i]
        self.base = self._sum_ref()
        self._base_n = w

    def _quiet_loss(self, grams, n):
        """True if `grams` missing over `n` still samples is clearly a piece's worth: above
        the smallest place by its weighing error, and (with items) fitting a piece."""
        se = sqrt(self._var_total * (1.0 / n + 1.0 / self._base_n))
        if grams - PLACE_MIN_G < PLACE_MARGIN_SE * se:
            return False
        return not self.items or _fit_errors(grams, self.items) <= FRESH_FIT_ERRORS

    def _now(self):
        return self._t[self.k % self.history_n]

    def _time_of(self, j):
        k = self.k
        if k - j >= self.history_n:
            j = k - self.history_n + 1
        return self._t[j % self.history_n]

    def _zone_change(self, k, w):
        """Mean zone grams over the last `w` samples minus the committed levels."""
        zn = self.zone_history_n
        if w > zn:
            w = zn
        out = []
        for i in range(self.n_zones):
            ring = self._zones[i]
            s = 0.0
            for j in range(w):
                s += ring[(k - j) % zn]
            out.append(s / w - self.ref[i])
        return out

    # --- place ---------------------------------------------------------------------------
    def _load_on_one_zone(self, k, level, n):
        """The new load sits on one zone (a piece), not spread by a hand on others."""
        w = n if n < self.place_max_n else self.place_max_n
        change = self._zone_change(k, w)
        # the zone the hand loaded, if it was seen loading; else where the load is now
        zone = self._place_zone(change)
        gained = -self._losses(change)[zone]
        return gained >= ONE_ZONE_FRACTION * level

    def _decide_place(self, events, k):
        plateau = self.plateau
        grams = plateau[0]
        w = plateau[2] if plateau[2] < self.place_max_n else self.place_max_n
        self._base_n = w  # the new level is the plateau's mean
        # where the load rested: over the still stretch itself, not the samples since (a
        # piece leaving another zone may be what ended it)
        end = plateau[1] + plateau[2] - 1
        if end > k or k - end > self.zone_history_n - w:
            end = k
        change = self._zone_change(end, w)
        t_ms = self._time_of(self.released_k if self.released_k is not None else plateau[1])
        held = self._held
        if held is not None:
            if self._commit_held(events, grams):
                grams -= held[0]
                for i in range(self.n_zones):
                    change[i] -= held[1][i]
            else:
                # it was a hand brushing the ship: the piece is what rests now, and where
                # it was pressed is where the first hand loaded it
                more = self._held_same(grams)
                if more:
                    grams = (grams * w + held[0] * more) / (w + more)
                self._held = None
                self._area[:] = held[2]
                self._area_n = held[3]
                t_ms = held[4]
        self._place_event(events, k, grams, change, t_ms)
        self._after_commit(k)

    def _held_same(self, level):
        """The samples of a held still stretch that weigh the same piece as `level` does now
        (a hand came and went, and the load is back where it stood), else 0: a stretch of
        at least a weighing window's length, at `level` within the leaving threshold."""
        held = self._held
        if held is None or held[5] < self.place_min_n:
            return 0
        if level - held[0] > self.leave_level or held[0] - level > self.leave_level:
            return 0
        return held[5]

    def _commit_held(self, events, level):
        """If `level` (grams over the base) stands clearly above a held short rest, a second
        piece came on after it: place the first as it rested; True if so."""
        held = self._held
        # the second piece must be clearly there, and heavy enough to be a piece
        limit = self.leave_level if self.leave_level > self._floor_g else self._floor_g
        if held is None or level - held[0] <= limit:
            return False
        if self.items and _fit_errors(held[0], self.items) > FRESH_FIT_ERRORS:
            return False  # what rested before was no piece (the HX711 still rising)
        self._held = None
        loading = (list(self._area), self._area_n)
        self._area[:] = held[2]
        self._area_n = held[3]
        self._place_event(events, self.k, held[0], held[1], held[4])
        self._area[:] = loading[0]
        self._area_n = loading[1]
        return True

    def _place_event(self, events, k, grams, change, t_ms):
        """Emit a place of `grams` resting as `change` shows, and book it (not if it is
        lighter than any piece: then what rests is left to be judged as the level it is)."""
        if grams < self._floor_g:
            return
        zone = self._place_zone(change)
        event = {
            "type": "place",
            "t_ms": t_ms,
            "decided_ms": self._now(),
            "zone": zone + 1,
            "grams": _grams(grams),
        }
        if self.items:
            item, ambiguous, alternatives = name_place(grams, self.items)
            event["item"] = item
            if ambiguous:
                event["ambiguous"] = True
                event["alternatives"] = alternatives
            self.cargo.add(zone + 1, item)
            self._last_place = (k, zone, grams, item)
        events.append(event)
        self.ref[zone] += grams
        self.base = self._sum_ref()

    def _place_zone(self, change):
        """The zone that took the load: where the hand pressed and where the load rests,
        each seen through the sway."""
        scores = self.sway.zone_scores(change)
        if self._area_n:
            # each on its own scale: a hand pressing hard (or brushing another zone while
            # the piece comes to rest) must not outweigh where the load rests
            pressed = self.sway.zone_scores(self._area)
            rest_top = _top(scores)
            press_top = _top(pressed)
            for i in range(self.n_zones):
                scores[i] = scores[i] / rest_top + pressed[i] / press_top
        best = 0
        for i in range(1, self.n_zones):
            if scores[i] > scores[best]:
                best = i
        return best

    def _after_commit(self, k):
        self.committed = True
        self._held = None
        self.dropping_k = None
        self.low_run = 0
        self.peak = 0.0
        self.trough = 0.0
        self.released_k = None
        self.plateau = None
        self.stable_run = 0
        self.leave_run = 0
        self._area_n = 0
        self._area_open = True
        for i in range(self.n_zones):
            self._area[i] = 0.0

    # --- leaving and fall ----------------------------------------------------------------
    def _check_leaving(self, events, k, d, leave_level):
        """Start a pending leaving when the total drops; True if it did.

        A still stretch at a raised level (a piece, not yet decided) is weighed and decided
        first when the level leaves it: upwards (a second piece, a touch) or downwards
        (cargo leaving) -- except when the drop is the loading hand letting go, seen as the
        load falling on the zone it was loaded on while staying above the old level.
        """
        plateau = self.plateau
        level_ref = 0.0
        if (
            self.short_rest_n
            and (plateau is None or not plateau[3])
            and self.released_k is not None
            and self.stable_run == 0
            and d < self._floor_g
        ):
            # back at the old level with no still stretch seen since the release: at 10 SPS
            # a piece that tipped off within half a second rested for two samples only
            rest = self._short_rest(k, d + leave_level, 1)
            if rest is not None:
                self.plateau = plateau = rest
        elif (
            self.short_rest_n
            and self.released_k is not None
            and (plateau is None or plateau[1] + plateau[2] <= self.released_k)
            and self.stable_run == 0
            and self.dropping_k is None
        ):
            # rising again with no still stretch seen since the release: a second piece
            # loaded after the first rested for two samples (once the HX711 had settled), or
            # a hand brushing the ship. Keep the two samples in hand and weigh what comes.
            rest = self._short_rest(k - 1, PLACE_MIN_G, 2)
            if rest is not None and d > rest[0] + leave_level:
                self._hold_short_rest(rest, d)
                return False
        if plateau is not None and plateau[0] >= self._floor_g and self.stable_run == 0:
            ready = plateau[2] >= (self.commit_min_n if plateau[3] else self.plain_drop_n)
            if ready and self._rose_since_release(plateau):
                self._new_load_phase(plateau)
                return False
            # a hand still pressing trembles by some percent of its force: more than that
            rise = leave_level
            if not plateau[3] and TREMOR_FRACTION * plateau[0] > rise:
                rise = TREMOR_FRACTION * plateau[0]
            if ready and d > plateau[0] + rise and self.dropping_k is None:
                # more is coming onto the ship: a second piece comes after the first has
                # rung out, so a short stretch right after the release is not weighed (a
                # hand brushing the fresh piece, or its ringing seen at 10 SPS)
                if self.short_rest_n and not plateau[3] and plateau[2] < self.plain_n:
                    # at 10 SPS a short stretch with no release seen may be the HX711's ramp
                    # of an unpressed piece with a hand already coming: weigh what comes
                    self._hold_short_rest(plateau, d)
                elif (
                    self.short_rest_n
                    and self.items
                    and _fit_errors(plateau[0], self.items) > FRESH_FIT_ERRORS
                ):
                    # what rested after the release is no piece: at 10 SPS a hand that came
                    # back within the HX711's settling is blended with it; weigh what rests
                    # once it has gone
                    self._hold_short_rest(plateau, d)
                elif not plateau[3] or plateau[2] >= self.rise_commit_n:
                    self._decide_place(events, k)
                return False
            if ready and d < plateau[0] - leave_level:
                self.low_run = self.low_run + 1 if d < self._floor_g else 0
                if self.low_run >= self.low_n:
                    level_ref = plateau[0]  # back to the old level: the piece itself left
                elif self.dropping_k is None:
                    end = plateau[1] + plateau[2] - 1
                    one_zone = self._load_on_one_zone(end, plateau[0], plateau[2])
                    if not one_zone or self._hand_let_go(k, plateau):
                        # on the zone being loaded: the hand letting go (what stays is the
                        # piece) or the piece tipping off: the level it settles at will tell
                        self.dropping_k = k
                    else:
                        level_ref = plateau[0]  # something else is leaving the ship
                elif plateau[3] and d < -leave_level:
                    # it went below the old level: the piece that rested left, and more
                    level_ref = plateau[0]
        if d < level_ref - leave_level:
            self.leave_run += 1
        else:
            self.leave_run = 0
            return False
        ringing = self.released_k is not None and k - self.released_k < self.ringing_n
        needed = self.leave_ringing_n if ringing else self.leave_n
        if self.leave_run < needed:
            return False
        if level_ref:
            self._decide_place(events, k)
            d -= level_ref
        self._notice_leaving(events, k, d, leave_level)
        return True

    def _hold_short_rest(self, rest, d):
        """A short rest followed by a rise: keep it (level, zone change, loading area, release
        time) and follow the new load as a loading of its own; `_decide_place` settles it."""
        n = rest[2]
        area = self._area
        self._held = (
            rest[0],
            self._zone_change(rest[1] + n - 1, n),
            list(area),
            self._area_n,
            self._time_of(self.released_k if self.released_k is not None else rest[1]),
            n,
        )
        self.peak = d
        self.released_k = None
        self.plateau = None
        self.dropping_k = None
        self.low_run = 0
        self._area_n = 0
        self._area_open = True
        for i in range(self.n_zones):
            area[i] = 0.0

    def _short_rest(self, k, floor, settle):
        """The flattest run of `short_rest_n` samples from `settle` samples after the release
        up to `k` that stood above `floor` (grams over the base), as a still stretch after the
        release, or None."""
        h = self.history_n
        n = self.short_rest_n
        first = self.released_k + settle
        if k - first > h - 1:
            first = k - h + 1
        band = SETTLE_SIGMAS * sqrt(self._var_total)
        if band < SETTLE_BAND_MIN_G:
            band = SETTLE_BAND_MIN_G
        if floor < self._floor_g:
            floor = self._floor_g  # lighter is no piece
        best = None
        best_spread = band
        for j in range(first, k - n + 1):
            hi = -1.0e30
            lo = 1.0e30
            for i in range(j, j + n):
                v = self._total[i % h] - self.base
                if v > hi:
                    hi = v
                if v < lo:
                    lo = v
            if lo >= floor and hi - lo <= best_spread:
                best_spread = hi - lo
                best = j
        if best is None:
            return None
        return [self._mean_total(best + n - 1, n) - self.base, best, n, True]

    def _hand_let_go(self, k, plateau):
        """True if the drop from a still stretch was on the zone being loaded (a release)."""
        if not self._area_n:
            return True
        loaded = self._place_zone([0.0] * self.n_zones)
        w = self.fast_n
        zn = self.zone_history_n
        then = plateau[1] + plateau[2] - 1  # the last still sample
        span = k - then
        if span > zn - w:
            return True
        change = []
        for i in range(self.n_zones):
            ring = self._zones[i]
            now_s = 0.0
            then_s = 0.0
            for j in range(w):
                now_s += ring[(k - j) % zn]
                then_s += ring[(then - j) % zn]
            change.append((now_s - then_s) / w)
        losses = self._losses_raw(change)
        worst = 0
        for i in range(1, self.n_zones):
            if losses[i] > losses[worst]:
                worst = i
        if worst == loaded:
            return True
        # another zone lost it: a piece leaving only if a zone that held cargo lost most of
        # it; else it was a hand brushing an empty zone while the piece came to rest
        grams = self._losses(change)
        drop = 0.0
        for v in change:
            drop -= v
        empty = self._floor_g
        below = None
        for i in range(self.n_zones):
            could = self.ref[i] >= empty and self.ref[i] >= 0.5 * grams[i]
            if i != loaded and grams[i] >= 0.5 * drop and could:
                if below is None:
                    # where each zone stands now against what it held (the loaded zone
                    # left out): cargo that left takes its zone below that, a hand that
                    # went (pressed with the still stretch) leaves it where it was
                    below = self._zone_change(k, w)
                    below[loaded] = 0.0
                    below = self._losses(below)
                if below[i] >= 0.5 * grams[i]:
                    return False
        return True

    def _losses(self, change):
        """Per zone: grams lost (positive) once sway is taken out, least-squares amplitudes."""
        projected = self.sway.project_out(change)
        keep = self.sway.keep_diag
        return [-projected[i] / keep[i] for i in range(self.n_zones)]

    def _losses_raw(self, change):
        """Per zone: a matched-filter score for a loss on that zone alone, sway removed."""
        scores = self.sway.zone_scores(change)
        return [-v for v in scores]

    def _losing_zones(self, change, total_loss):
        """The zones (0-based) that lost the weight, sway taken out; at least one."""
        floor = 0.25 * total_loss
        if self.items:
            lightest = min(self.items[name] for name in self.items)
            if floor > ZONE_FLOOR_ITEM * lightest:
                floor = ZONE_FLOOR_ITEM * lightest  # the lightest piece must not go unseen
        if floor < 0.7:
            floor = 0.7
        zones = self.sway.changed_zones([-v for v in change], floor, 4)
        if not zones:
            losses = self._losses(change)
            worst = 0
            for i in range(1, self.n_zones):
                if losses[i] > losses[worst]:
                    worst = i
            zones = [worst]
        return zones

    def _notice_leaving(self, events, k, d, leave_level, onset=None):
        if onset is None:
            onset = self._find_onset(k, leave_level * 0.3)
        change = self._zone_change(k, self.fast_n)
        zones = self._losing_zones(change, -d)
        wait = 0
        for z in zones:
            if self.landing_n[z] > wait:
                wait = self.landing_n[z]
        # noticed late (a drop first taken for the hand letting go): the landing clock runs
        # from when the drop got this deep, not from now
        reached = self._reached(k, onset, 0.7 * d)
        self.leave = {
            "onset_k": onset,
            "notice_k": k,
            "zones": zones,
            "wait_n": wait,
            "deepest": d,
            "deepest_k": reached,
            "deadline_k": reached + wait,
            "air_sum": 0.0,
            "air_n": 0,
            "gone_k": k,  # the latest sample at which the weight was (mostly) missing
            "split": None,  # (end_k, window, deadline_k, next_k) when a second piece follows
        }
        events.append(
            {
                "type": "leaving",
                "t_ms": self._time_of(onset),
                "decided_ms": self._now(),
                "grams": _grams(-d),
                "zones": [z + 1 for z in zones],
            }
        )

    def _follow_leaving(self, events, k, d, sigma_fast):
        leave = self.leave
        if d < leave["deepest"]:
            leave["deepest"] = d
        if d < 0.8 * leave["deepest"]:  # the piece is off its zone: weigh what is missing
            leave["air_sum"] += d
            leave["air_n"] += 1
        if d < 0.5 * leave["deepest"]:
            leave["gone_k"] = k
        h = self.history_n
        falling = self._fast[(k - self.progress_n) % h] - self._fast[k % h]
        step = 3.0 * sigma_fast
        if step < PROGRESS_FRACTION * -d:
            step = PROGRESS_FRACTION * -d
        split = leave["split"]
        if falling > step:
            pause = k - self.progress_n - leave["deepest_k"]
            if pause >= self.pause_n and split is None:
                # the drop had stopped and starts again: perhaps a second piece follows the
                # first; if so, the first is judged on its own clock by what was missing
                w = pause if pause < self.place_max_n else self.place_max_n
                end_k = leave["deepest_k"] + pause
                level = self._mean_total(end_k, w) - self.base
                split = leave["split"] = [end_k, w, leave["deadline_k"], k, level, False]
            if split is None or split[5]:
                # still going: the piece has not left yet, the clock starts when it has
                leave["deepest_k"] = k
                deadline = k + leave["wait_n"]
                if deadline > leave["deadline_k"]:
                    leave["deadline_k"] = deadline
        if split is not None and not split[5]:
            if d < split[4] - self.leave_level:
                split[5] = True  # another piece's weight is going: it is a second piece
                leave["deepest_k"] = k
                deadline = k + leave["wait_n"]
                if deadline > leave["deadline_k"]:
                    leave["deadline_k"] = deadline
            elif k - split[3] > self.pause_n + self.progress_n:
                split = leave["split"] = None  # a wobble (a landing ringing), not a piece
        if split is not None and split[5] and k >= split[2]:
            end_k, w, _, second_k, _, _ = split
            self._decide_fall(events, k, self.base - self._mean_total(end_k, w), w, end_k)
            self._notice_leaving(events, k, self._fast[k % h] - self.base, 0.0, second_k)
            return
        if k - leave["deepest_k"] > self.fall_weigh_n and (
            (d > self.leave_level and self.deck[leave["zones"][0]])
            or (d > 0.5 * leave["deepest"] and self._returned_late(leave))
            or (self.short_rest_n and d > self.leave_level and d > -0.5 * leave["deepest"])
        ):
            # more than went is back, and a piece leaving the deck has nowhere aboard to
            # land; or the weight came back after it had stayed away longer than any landing
            # on a lower zone takes; or (at 10 SPS, where the HX711 averages a landing's
            # knock away) half as much again as went came back: not the piece returning but
            # a hand loading the ship after it had gone; what was missing before the hand
            # came is what fell
            end_k = k - 1
            while (
                end_k > leave["deepest_k"]
                and self._fast[end_k % h] - self.base > 0.8 * leave["deepest"]
            ):
                end_k -= 1
            w = end_k - leave["deepest_k"] + 1
            if w >= self.fall_weigh_n:
                if w > self.place_max_n:
                    w = self.place_max_n
                self._decide_fall(events, k, self.base - self._mean_total(end_k, w), w, end_k)
                return
        if k < leave["deadline_k"] or k - leave["deepest_k"] < self.fall_weigh_n:
            return
        # a slow slide can hide in the noise: the clock starts when the drop was (nearly)
        # as deep as it is now, whatever the noise said on the way
        reached = self._reached(k, leave["onset_k"], 0.7 * leave["deepest"])
        if (
            k < reached + leave["wait_n"]
            and k < leave["notice_k"] + leave["wait_n"] + self.extra_wait_n
        ):
            return
        w = k - leave["deepest_k"]
        if w > self.place_max_n:
            w = self.place_max_n
        drop = self.base - self._mean_total(k, w)
        # the fast mean, not the last samples: a landing piece rings at 20-30 Hz
        if -d < 0.5 * -leave["deepest"] or -d < PLACE_MIN_G:
            self._weight_returned(events, k)
            return
        if self._hand_on_fresh_piece(drop):
            self._unweigh_hand(events, k, drop)
            return
        self._decide_fall(events, k, drop, w, k)

    def _returned_late(self, leave):
        """True if the weight stayed away, from when the drop was (nearly) complete, at least
        as long as the piece needed to land on a lower zone and show there: what comes back
        now is not the piece landing (a yard piece lands within ~0.2 s of leaving)."""
        reached = self._reached(leave["gone_k"], leave["onset_k"], 0.7 * leave["deepest"])
        return leave["gone_k"] - reached >= leave["wait_n"] + self.late_n

    def _hand_on_fresh_piece(self, drop):
        """True if what went was a hand weighed with the piece placed just before, not cargo:
        it went from that piece's zone, what stays there is a piece, and the zone held
        nothing else that fits (the belief about its cargo, or nothing at all)."""
        last = self._last_place
        if last is None or self.leave["onset_k"] - last[0] > self.fresh_n:
            return False
        place_k, zone, grams, item = last
        if self.leave["zones"][0] != zone:
            return False
        rest = grams - drop
        if rest < self._floor_g or _fit_errors(rest, self.items) > FRESH_FIT_ERRORS:
            return False
        for z in self.leave["zones"]:
            aboard = list(self.cargo.zones[z + 1])
            if z == zone:
                if self.ref[zone] - grams < self._floor_g:
                    continue  # the zone held nothing before this piece: nothing else to go
                if item in aboard:
                    aboard.remove(item)
            if _subset_fit(drop, aboard, self.items) <= FRESH_CARGO_ERRORS:
                return False
        return True

    def _unweigh_hand(self, events, k, drop):
        """Take the hand's grams back off the piece placed just before: nothing left."""
        place_k, zone, grams, item = self._last_place
        self._last_place = None
        self.ref[zone] -= drop
        self.base = self._sum_ref()
        if self.cargo.remove(zone + 1, item):
            self.cargo.add(zone + 1, name_place(grams - drop, self.items)[0])
        events.append(
            {
                "type": "stay",
                "t_ms": self._time_of(self.leave["onset_k"]),
                "decided_ms": self._now(),
                "grams": _grams(drop),
            }
        )
        self.leave = None
        self._after_commit(k)
        if self.table_sense is not None:
            self.table_sense.settle_hit(False, self._now())

    def _reached(self, k, since, level):
        """The first sample from `since` on whose fast mean was at or below `level` (grams
        from the base), or k."""
        h = self.history_n
        j = since
        while j < k:
            if self._fast[j % h] - self.base <= level:
                return j
            j += 1
        return k

    def _decide_fall(self, events, k, drop, w, end_k):
        leave = self.leave
        self._base_n = w  # the new level is the mean after the drop
        change = self._zone_change(end_k, w)
        losses = self._losses(change)
        zones = self._losing_zones(change, drop)
        for z in leave["zones"]:
            if z not in zones:
                zones.append(z)
        zones.sort()
        light = drop < self._floor_g
        if light:
            # lighter than any piece: no fall, and nothing aboard went (a hand that rested
            # on the ship, drift): the weight stays off the zones that lost it
            event = {
                "type": "stay",
                "t_ms": self._time_of(leave["onset_k"]),
                "decided_ms": self._now(),
                "grams": _grams(drop) if drop > 0 else 0.0,
            }
        else:
            event = {
                "type": "fall",
                "t_ms": self._time_of(leave["onset_k"]),
                "decided_ms": self._now(),
                "grams": _grams(drop),
                "zones": [z + 1 for z in zones],
            }
        if self.items and not light:
            zone_losses = {}
            amplitudes = self.sway.zone_amplitudes([-v for v in change], zones)
            for j in range(len(zones)):
                zone_losses[zones[j] + 1] = amplitudes[j]
            pieces, ambiguous, alternatives = name_fall(
                drop, self.items, self.cargo.counts_by_item(), zone_losses, self.cargo
            )
            event["items"] = pieces
            if ambiguous:
                event["ambiguous"] = True
                event["alternatives"] = alternatives
            self._unload(pieces, zones)
        events.append(event)
        lost = 0.0
        for z in zones:
            if losses[z] > 0:
                lost += losses[z]
        for z in zones:
            if lost > 0:
                if losses[z] > 0:
                    self.ref[z] -= drop * losses[z] / lost
            else:
                self.ref[z] -= drop / len(zones)
        self.base = self._sum_ref()
        self.leave = None
        self._after_commit(k)
        if light:
            if self.table_sense is not None:
                self.table_sense.settle_hit(False, self._now())
            return
        self._last_fall_k = k
        self._last_place = None
        if self.table_sense is not None:
            more = self.table_sense.settle_hit(True, self._now())
            if more:
                events.extend(more)

    def _unload(self, pieces, zones):
        """Take the fallen pieces off the cargo list, from the zones that lost weight first."""
        for item in pieces:
            taken = False
            for z in zones:
                if self.cargo.remove(z + 1, item):
                    taken = True
                    break
            if not taken:
                for z in range(1, self.n_zones + 1):
                    if self.cargo.remove(z, item):
                        break

    # --- a leaving whose weight came back: shift or stay ---------------------------------
    def _weight_returned(self, events, k):
        leave = self.leave
        in_air = 0.0  # unknown unless the dip was long enough to weigh (not at 10 SPS)
        if leave["air_n"] >= 3:
            in_air = -leave["air_sum"] / leave["air_n"]
        self.returned = {"onset_k": leave["onset_k"], "zones": leave["zones"], "grams": in_air}
        self.leave = None
        self.plateau = None
        self.stable_run = 0
        if self.table_sense is not None:
            self.table_sense.settle_hit(False, self._now())

    def _decide_shift(self, events, k):
        returned = self.returned
        w = self.plateau[2]
        change = self._zone_change(k, w)
        losses = self._losses(change)
        source = returned["zones"][0]
        for z in returned["zones"]:
            if losses[z] > losses[source]:
                source = z
        target = -1
        for i in range(self.n_zones):
            if i != source and (target < 0 or losses[i] < losses[target]):
                target = i
        lost = losses[source]
        gained = -losses[target]
        now = self._now()
        if lost >= SHIFT_MIN_G and gained >= SHIFT_MIN_G:
            # what went missing from the total while the piece was in the air: sway-proof
            grams = returned["grams"]
            if grams < SHIFT_MIN_G:
                grams = 0.5 * (lost + gained)
            event = {
                "type": "shift",
                "t_ms": self._time_of(returned["onset_k"]),
                "decided_ms": now,
                "from": source + 1,
                "to": target + 1,
                "grams": _grams(grams),
            }
            if self.items:
                item = self._moved_item(source + 1, grams)
                if item is not None:
                    event["item"] = item
                    self.cargo.remove(source + 1, item)
                    self.cargo.add(target + 1, item)
            events.append(event)
            self.ref[source] -= grams
            self.ref[target] += grams
            self.base = self._sum_ref()
        else:
            events.append(
                {
                    "type": "stay",
                    "t_ms": self._time_of(returned["onset_k"]),
                    "decided_ms": now,
                    "grams": _grams(returned["grams"]),
                }
            )
        self.returned = None
        self._after_commit(k)

    def _moved_item(self, zone, grams):
        best = None
        best_error = 1.0e30
        for item in self.cargo.zones[zone]:
            error = abs(self.items[item] - grams)
            if error < best_error:
                best_error = error
                best = item
        return best

    # --- end of an episode ---------------------------------------------------------------
    def _end_episode(self, events, k):
        if not self.committed and self.peak - self.trough >= TOUCH_MIN_G:
            zones = []
            if self._area_n:
                scores = self.sway.zone_scores(self._area)
                top = 0
                for i in range(1, self.n_zones):
                    if scores[i] > scores[top]:
                        top = i
                zones.append(top + 1)
            swing = self.peak if self.peak > -self.trough else self.trough
            events.append(
                {
                    "type": "touch",
                    "t_ms": self._time_of(self.onset_k),
                    "decided_ms": self._now(),
                    "grams": _grams(swing),
                    "zones": zones,
                }
            )
        self.active = False
        self._rest_k = k
        self._trigger_run = 0
        self.leave = None
        self.returned = None
