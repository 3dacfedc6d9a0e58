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
- `shift` {from, to, grams[, item]}: cargo moved between zones and stayed aboard.
- `land` {grams, bounced}: something from the ship hit the table (`grams` null without a
  mat; 0.0 with `bounced` true when it bounced off the mat).
- `knock` {grams}: the table was hit but nothing came from the ship (`grams`: mat peak).
- `touch` {grams, zones}: the ship was pressed or brushed and nothing changed.
- `stay` {grams}: a `leaving` that came to nothing (the weight came back).
- `fault` {zone, reason}: a load cell reads something no piece can cause.

Ambiguity: when two answers fit a weight about equally well, or none fits, the event has
`"ambiguous": true` and `alternatives` (other item names for a place, other lists for a
fall) besides the best answer.

Other methods: `set_items(items)` (None to forget them), `zone_grams()` (settled grams per
zone), `cargo` (what is believed aboard, a `shipsense.items.Cargo`).

How it works, in brief: each channel is median-filtered over three samples (a single-sample
HX711 glitch vanishes); the total over all zones is the main signal because sway only moves
load between zones; noise is measured at rest and sets the thresholds; zero-tracking runs
only at rest. A drop in the total starts a `leaving`; the fall is confirmed once the piece
could have landed on the deck from the height of its zone (or at once when the mat feels
it). A rise that holds still after the hand lets go is a `place`; zones are told apart by
where the load went during the loading (the hand press) and at rest.

Memory is bounded (fixed rings, a few seconds long); time is kept as sample counts, so a
six-hour session at 80 SPS is as exact as a minute on a single-precision ESP32.
"""

from array import array
from math import sqrt

from shipsense.items import Cargo, check_items, name_fall, name_place

TABLE_MODES = ("none", "mat", "piezo", "both")

# --- tuning (grams and milliseconds; windows become sample counts at the chosen rate) ------
HISTORY_MS = 3000  # how far back the rings reach
FAST_MS = 50  # the moving mean that feeds the triggers
WARMUP_MS = 600  # samples used to learn the empty ship before deciding anything
TRACK_MS = 4000  # zero-tracking time constant at rest (drift, creep)
NOISE_MS = 3000  # noise estimate time constant at rest
SIGMA_START_G = 0.15  # noise assumed per zone before it is measured
TRIGGER_MIN_G = 0.6  # smallest total change that starts an episode
TRIGGER_SIGMAS = 5.0
LEAVE_MIN_G = 0.9  # smallest drop that is announced as `leaving`
LEAVE_SIGMAS = 6.0
LEAVE_MS = 25  # the drop must hold this long
PLACE_MIN_G = 0.9  # smallest rise that is a `place`
SETTLE_MS = 150  # a placed piece is at rest after this long without change
SETTLE_PRESSED_MS = 600  # ... or this long when no hand release was seen
SETTLE_BAND_MIN_G = 0.35
SETTLE_SIGMAS = 4.5
QUIET_MS = 500  # the episode is over after this long at rest
TOUCH_MIN_G = 1.5  # smaller transients are not worth a `touch`
SHIFT_MIN_G = 0.9
# How long a piece leaving each zone needs to reach the deck (zones 1-4 are the deck,
# 5-6 the low yard, 7-8 the middle yard, 9-10 the top yard), then the time to see it land.
LANDING_MS = (0, 0, 0, 0, 150, 150, 200, 200, 250, 250)
LANDING_SEEN_MS = 50
MAT_TRIGGER_MIN_G = 0.8
MAT_SETTLE_MS = 300
LAND_MIN_G = 0.8
LAND_CONTEXT_MS = 2000  # a table hit this soon after a fall notice is the fall landing
FAULT_LIMIT_G = 5000.0  # a zone beyond this is a broken channel
INPUT_LIMIT_G = 1.0e6


def _median3(a, b, c):
    if a > b:
        a, b = b, a
    if b > c:
        b = c
    return a if a > b else b


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
            raise ValueError(
                "table must be one of {}, not {!r}".format(", ".join(TABLE_MODES), table)
            )
        self.rate_hz = rate_hz
        self.n_zones = n_zones
        self.table = table
        self.uses_mat = table in ("mat", "both")
        self.uses_piezo = table in ("piezo", "both")
        self.items = None
        self.cargo = Cargo(n_zones)
        if items is not None:
            self.set_items(items)

        ns = self._samples
        self.history_n = ns(HISTORY_MS)
        self.fast_n = ns(FAST_MS)
        self.warmup_n = ns(WARMUP_MS)
        self.track_alpha = 1.0 / ns(TRACK_MS)
        self.noise_alpha = 1.0 / ns(NOISE_MS)
        self.leave_n = ns(LEAVE_MS)
        self.settle_n = max(2, ns(SETTLE_MS))
        self.settle_pressed_n = ns(SETTLE_PRESSED_MS)
        self.quiet_n = ns(QUIET_MS)
        self.mat_settle_n = max(2, ns(MAT_SETTLE_MS))
        self.land_context_n = ns(LAND_CONTEXT_MS)
        self.landing_n = []
        for zone in range(n_zones):
            height_ms = LANDING_MS[zone] if zone < len(LANDING_MS) else LANDING_MS[-1]
            self.landing_n.append(ns(height_ms + LANDING_SEEN_MS))

        h = self.history_n
        self._t = [0] * h  # sample times as given (ints on the ESP32)
        self._total = array("f", [0.0] * h)  # median-filtered total grams
        self._fast = array("f", [0.0] * h)  # its FAST_MS moving mean
        self._zone_sum = [0.0] * n_zones  # per zone: running sums over the settle window
        self._zone_ring = [array("f", [0.0] * self.settle_pressed_n) for _ in range(n_zones)]
        self._raw = [array("f", [0.0, 0.0, 0.0]) for _ in range(n_zones)]
        self.zf = [0.0] * n_zones  # median-filtered zones, this sample
        self.ref = [0.0] * n_zones  # settled grams per zone (committed levels)
        self.base = 0.0  # settled total (the sum of ref, kept in step)
        self._zone_peak = [0.0] * n_zones
        self._zone_low = [0.0] * n_zones
        self._table_raw = array("f", [0.0, 0.0, 0.0])
        self._table_ring = array("f", [0.0] * self.mat_settle_n)
        self.k = -1  # index of the current sample
        self._last_t = None
        self._noise_var = 2.0 * n_zones * SIGMA_START_G * SIGMA_START_G
        self._fast_var = n_zones * SIGMA_START_G * SIGMA_START_G / self.fast_n
        self._table_var = 2.0 * SIGMA_START_G * SIGMA_START_G
        self._faulty = [False] * n_zones
        self._reset_episode()
        self.active = False
        self._trigger_run = 0
        self._last_notice_k = -(10**9)
        # table channel
        self.table_base = 0.0
        self._table_active = False
        self._table_onset_k = 0
        self._table_peak = 0.0
        self._table_stable = 0
        self._last_impact = 0
        self._impact_waiting_k = None

    # --- public helpers ----------------------------------------------------------------
    def set_items(self, items):
        """Use calibrated item weights ({name: grams}) from now on; None forgets them."""
        if items is None:
            self.items = None
            self.cargo.clear()
            return
        self.items = check_items(items)

    def zone_grams(self):
        """The settled grams per zone (what rests on each zone, as far as is known)."""
        return list(self.ref)

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

        # median of three per zone: a single-sample glitch never reaches the logic
        total = 0.0
        r3 = k % 3
        first = k == 0
        zf = self.zf
        for i in range(n):
            raw = self._raw[i]
            v = zones_g[i]
            if first:
                raw[0] = v
                raw[1] = v
                raw[2] = v
            else:
                raw[r3] = v
            m = _median3(raw[0], raw[1], raw[2])
            zf[i] = m
            total += m
        self._total[slot] = total
        fn = self.fast_n
        if k + 1 < fn:
            fn = k + 1
        s = 0.0
        for j in range(fn):
            s += self._total[(k - j) % h]
        fast = s / fn
        self._fast[slot] = fast

        # the per-zone rings feed settle-window means (sums recomputed: nothing accumulates)
        zr = self.settle_pressed_n
        zslot = k % zr
        for i in range(n):
            self._zone_ring[i][zslot] = zf[i]

        if k < self.warmup_n:
            self._warm_up(k, total, fast)
        else:
            self._check_faults(events)
            self._ship_step(events, k, total, fast)
        if self.uses_mat or self.uses_piezo:
            self._table_step(events, k, table_g, impact)
        return events

    # --- warm-up: learn the empty (or loaded) ship ---------------------------------------
    def _warm_up(self, k, total, fast):
        weight = 1.0 / (k + 1)
        for i in range(self.n_zones):
            self.ref[i] += (self.zf[i] - self.ref[i]) * weight
        self.base = self._sum_ref()
        if k > 0:
            self._learn_noise(k)

    def _sum_ref(self):
        s = 0.0
        for v in self.ref:
            s += v
        return s

    def _learn_noise(self, k):
        h = self.history_n
        diff = self._total[k % h] - self._total[(k - 1) % h]
        a = self.noise_alpha
        if k < self.warmup_n:
            a = 1.0 / (k + 1) if k + 1 < 1.0 / a else a
        self._noise_var += (diff * diff - self._noise_var) * a
        if k >= 2 * self.fast_n:
            fdiff = self._fast[k % h] - self._fast[(k - self.fast_n) % h]
            self._fast_var += (fdiff * fdiff * 0.5 - self._fast_var) * a

    def sigma_total(self):
        """The measured noise (g, one sigma) of the filtered total, sample to sample."""
        return sqrt(self._noise_var * 0.5)

    def sigma_fast(self):
        """The measured noise (g, one sigma) of the fast moving mean of the total."""
        return sqrt(self._fast_var)

    def _check_faults(self, events):
        for i in range(self.n_zones):
            bad = not -FAULT_LIMIT_G <= self.zf[i] <= FAULT_LIMIT_G
            if bad and not self._faulty[i]:
                self._faulty[i] = True
                events.append(
                    {
                        "type": "fault",
                        "t_ms": self._t[self.k % self.history_n],
                        "decided_ms": self._t[self.k % self.history_n],
                        "zone": i + 1,
                        "reason": f"reads {int(self.zf[i])} g, beyond what the ship can hold",
                    }
                )
            elif not bad and self._faulty[i]:
                self._faulty[i] = False

    # --- episodes on the ship ------------------------------------------------------------
    def _reset_episode(self):
        self.onset_k = 0
        self.peak_up = 0.0
        self.peak_down = 0.0
        self.emitted = False
        self.leave = None  # a pending fall: dict(onset_k, deadline_k, zones, grams)
        self.returned = False  # weight left and came back: a shift or nothing
        self.stable_n = 0
        self.leave_run = 0
        self.pressed = False
        for i in range(self.n_zones):
            self._zone_peak[i] = 0.0
            self._zone_low[i] = 0.0

    def _ship_step(self, events, k, total, fast):
        d = fast - self.base
        sf = self.sigma_fast()
        trigger = TRIGGER_SIGMAS * sf
        if trigger < TRIGGER_MIN_G:
            trigger = TRIGGER_MIN_G
        if not self.active:
            if d > trigger or d < -trigger:
                self._trigger_run += 1
            else:
                self._trigger_run = 0
                self._track_rest(k)
            if self._trigger_run >= 2 or (self._trigger_run >= 1 and self.fast_n == 1):
                self.active = True
                self._reset_episode()
                self.onset_k = self._find_onset(k, trigger * 0.4)
            else:
                return
        self._episode_step(events, k, d, sf)

    def _track_rest(self, k):
        a = self.track_alpha
        for i in range(self.n_zones):
            self.ref[i] += (self.zf[i] - self.ref[i]) * a
        self.base = self._sum_ref()
        self._learn_noise(k)

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

    def _episode_step(self, events, k, d, sf):
        n = self.n_zones
        zf = self.zf
        ref = self.ref
        for i in range(n):
            dz = zf[i] - ref[i]
            if dz > self._zone_peak[i]:
                self._zone_peak[i] = dz
            if dz < self._zone_low[i]:
                self._zone_low[i] = dz
        if d > self.peak_up:
            self.peak_up = d
        if d < self.peak_down:
            self.peak_down = d

        stable = self._is_stable(k, sf)
        self.stable_n = self.stable_n + 1 if stable else 0

        # first notice: weight leaving the ship
        leave_level = LEAVE_SIGMAS * sf
        if leave_level < LEAVE_MIN_G:
            leave_level = LEAVE_MIN_G
        if self.leave is None and d < -leave_level:
            self.leave_run += 1
            if self.leave_run >= self.leave_n:
                self._notice_leaving(events, k, d, leave_level)
        else:
            self.leave_run = 0

        if self.leave is not None:
            self._follow_leaving(events, k, d)
            return

        # the hand pressed and has let go: the press peak stands well above the level now
        if self.peak_up - d > max(2.0, 0.25 * d):
            self.pressed = True

        if d > PLACE_MIN_G and d > 4.0 * sf:
            needed = self.settle_n if self.pressed else self.settle_pressed_n
            if self.stable_n >= needed:
                self._decide_place(events, k, needed)
                return

        if self.stable_n >= self.quiet_n and -PLACE_MIN_G < d < PLACE_MIN_G:
            self._end_episode(events, k)

    def _is_stable(self, k, sf):
        """The fast mean has stayed within a noise band over the settle window."""
        h = self.history_n
        w = self.settle_n
        hi = -1.0e30
        lo = 1.0e30
        for j in range(w):
            v = self._fast[(k - j) % h]
            if v > hi:
                hi = v
            if v < lo:
                lo = v
        band = SETTLE_SIGMAS * sf
        if band < SETTLE_BAND_MIN_G:
            band = SETTLE_BAND_MIN_G
        return hi - lo <= band

    def _window_mean_total(self, k, w):
        h = self.history_n
        s = 0.0
        for j in range(w):
            s += self._total[(k - j) % h]
        return s / w

    def _zone_means(self, k, w):
        zr = self.settle_pressed_n
        if w > zr:
            w = zr
        means = []
        for i in range(self.n_zones):
            ring = self._zone_ring[i]
            s = 0.0
            for j in range(w):
                s += ring[(k - j) % zr]
            means.append(s / w)
        return means

    def _now(self):
        return self._t[self.k % self.history_n]

    def _time_of(self, j):
        k = self.k
        if k - j >= self.history_n:
            j = k - self.history_n + 1
        return self._t[j % self.history_n]

    # --- place ---------------------------------------------------------------------------
    def _decide_place(self, events, k, window):
        grams = self._window_mean_total(k, window) - self.base
        means = self._zone_means(k, window)
        zone = self._place_zone(means)
        event = {
            "type": "place",
            "t_ms": self._time_of(k - window + 1),
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
        events.append(event)
        self._commit_change(means, grams, zone)
        self.emitted = True
        self.peak_up = 0.0
        self.pressed = False
        for i in range(self.n_zones):
            self._zone_peak[i] = 0.0

    def _place_zone(self, means):
        """The zone that took the load: where it rose at rest, and where the hand pressed."""
        best = 0
        best_score = -1.0e30
        for i in range(self.n_zones):
            score = (means[i] - self.ref[i]) + 0.5 * self._zone_peak[i]
            if score > best_score:
                best_score = score
                best = i
        return best

    def _commit_change(self, means, grams, zone):
        """Move the committed levels: `grams` went onto (or off, if negative) `zone`."""
        self.ref[zone] += grams
        self.base = self._sum_ref()

    # --- leaving and fall ----------------------------------------------------------------
    def _losing_zones(self, loss_total):
        """Zones (0-based) whose load fell by a real share of `loss_total`."""
        zones = []
        floor = 0.3 * loss_total
        if floor < 0.5:
            floor = 0.5
        for i in range(self.n_zones):
            if self.ref[i] - self.zf[i] >= floor:
                zones.append(i)
        if not zones:
            worst = 0
            for i in range(1, self.n_zones):
                if self.zf[i] - self.ref[i] < self.zf[worst] - self.ref[worst]:
                    worst = i
            zones.append(worst)
        return zones

    def _notice_leaving(self, events, k, d, level):
        onset = self._find_onset(k, level * 0.3)
        zones = self._losing_zones(-d)
        wait = 0
        for z in zones:
            if self.landing_n[z] > wait:
                wait = self.landing_n[z]
        self.leave = {"onset_k": onset, "deadline_k": onset + wait, "zones": zones}
        self._last_notice_k = k
        self._impact_waiting_k = None
        events.append(
            {
                "type": "leaving",
                "t_ms": self._time_of(onset),
                "decided_ms": self._now(),
                "grams": _grams(-d),
                "zones": [z + 1 for z in zones],
            }
        )
        self.emitted = True

    def _follow_leaving(self, events, k, d):
        leave = self.leave
        if k < leave["deadline_k"] and not self._mat_confirms(d):
            return
        w = self.fast_n
        drop = self.base - self._window_mean_total(k, w)
        if drop >= PLACE_MIN_G:
            self._decide_fall(events, k, drop)
        else:
            self.returned = True
            self.leave = None
            self.stable_n = 0

    def _mat_confirms(self, d):
        if not self.uses_mat or not self._table_active:
            return False
        return self._table_level - self.table_base >= max(LAND_MIN_G, -0.5 * d)

    def _decide_fall(self, events, k, drop):
        leave = self.leave
        zones = self._losing_zones(drop)
        for z in leave["zones"]:
            if z not in zones:
                zones.append(z)
        zones.sort()
        event = {
            "type": "fall",
            "t_ms": self._time_of(leave["onset_k"]),
            "decided_ms": self._now(),
            "grams": _grams(drop),
            "zones": [z + 1 for z in zones],
        }
        if self.items:
            losses = {}
            for z in zones:
                losses[z + 1] = self.ref[z] - self.zf[z]
            pieces, ambiguous, alternatives = name_fall(
                drop, self.items, self.cargo.counts_by_item(), losses, self.cargo
            )
            event["items"] = pieces
            if ambiguous:
                event["ambiguous"] = True
                event["alternatives"] = alternatives
            self._unload(pieces, zones)
        events.append(event)
        # the lost grams come off the zones that lost them, in proportion
        lost = 0.0
        for z in zones:
            loss = self.ref[z] - self.zf[z]
            if loss > 0:
                lost += loss
        for z in zones:
            loss = self.ref[z] - self.zf[z]
            if lost > 0 and loss > 0:
                self.ref[z] -= drop * loss / lost
        if lost <= 0:
            self.ref[zones[0]] -= drop
        self.base = self._sum_ref()
        self.leave = None
        self.peak_down = 0.0
        self.stable_n = 0
        self._last_notice_k = k

    def _unload(self, pieces, zones):
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

    # --- end of an episode: shift, touch, or nothing ---------------------------------------
    def _end_episode(self, events, k):
        means = self._zone_means(k, self.settle_pressed_n)
        lost_zone = -1
        gained_zone = -1
        lost = 0.0
        gained = 0.0
        for i in range(self.n_zones):
            change = means[i] - self.ref[i]
            if -change > lost:
                lost = -change
                lost_zone = i
            if change > gained:
                gained = change
                gained_zone = i
        if (
            (self.returned or self.leave_run)
            and lost >= SHIFT_MIN_G
            and gained >= SHIFT_MIN_G
            and lost_zone != gained_zone
        ):
            grams = 0.5 * (lost + gained)
            event = {
                "type": "shift",
                "t_ms": self._time_of(self.onset_k),
                "decided_ms": self._now(),
                "from": lost_zone + 1,
                "to": gained_zone + 1,
                "grams": _grams(grams),
            }
            if self.items:
                item = self._moved_item(lost_zone + 1, grams)
                if item is not None:
                    event["item"] = item
                    self.cargo.remove(lost_zone + 1, item)
                    self.cargo.add(gained_zone + 1, item)
            events.append(event)
            self.ref[lost_zone] -= grams
            self.ref[gained_zone] += grams
            self.base = self._sum_ref()
        elif self.returned:
            events.append(
                {
                    "type": "stay",
                    "t_ms": self._time_of(self.onset_k),
                    "decided_ms": self._now(),
                    "grams": _grams(-self.peak_down),
                }
            )
        elif not self.emitted and self.peak_up - self.peak_down >= TOUCH_MIN_G:
            zones = []
            top = 0
            for i in range(self.n_zones):
                if self._zone_peak[i] > self._zone_peak[top]:
                    top = i
            zones.append(top + 1)
            events.append(
                {
                    "type": "touch",
                    "t_ms": self._time_of(self.onset_k),
                    "decided_ms": self._now(),
                    "grams": _grams(
                        self.peak_up if self.peak_up > -self.peak_down else self.peak_down
                    ),
                    "zones": zones,
                }
            )
        self.active = False
        self._trigger_run = 0

    def _moved_item(self, zone, grams):
        pieces = self.cargo.zones[zone]
        if not pieces:
            return None
        best = None
        best_error = 1.0e30
        for item in pieces:
            error = abs(self.items[item] - grams)
            if error < best_error:
                best_error = error
                best = item
        return best

    # --- the table: mat and piezo ----------------------------------------------------------
    def _table_step(self, events, k, table_g, impact):
        in_context = k - self._last_notice_k <= self.land_context_n or self.leave is not None
        if self.uses_piezo and impact is not None:
            rising = impact == 1 and self._last_impact == 0
            self._last_impact = impact
            if rising and not self.uses_mat:
                kind = "land" if in_context else "knock"
                event = {"type": kind, "t_ms": self._now(), "decided_ms": self._now()}
                event["grams"] = None
                if kind == "land":
                    event["bounced"] = False
                events.append(event)
            elif rising and self._impact_waiting_k is None:
                self._impact_waiting_k = k
        if not self.uses_mat or table_g is None:
            return
        raw = self._table_raw
        if k == 0:
            raw[0] = table_g
            raw[1] = table_g
            raw[2] = table_g
            self.table_base = table_g
        else:
            raw[k % 3] = table_g
        level = _median3(raw[0], raw[1], raw[2])
        self._table_level = level
        ring = self._table_ring
        tn = self.mat_settle_n
        ring[k % tn] = level
        hi = -1.0e30
        lo = 1.0e30
        count = tn if k + 1 >= tn else k + 1
        s = 0.0
        for j in range(count):
            v = ring[(k - j) % tn]
            s += v
            if v > hi:
                hi = v
            if v < lo:
                lo = v
        mean = s / count
        sigma = sqrt(self._table_var * 0.5)
        trigger = 5.0 * sigma
        if trigger < MAT_TRIGGER_MIN_G:
            trigger = MAT_TRIGGER_MIN_G
        change = level - self.table_base
        if not self._table_active:
            if change > trigger or change < -trigger:
                self._table_active = True
                self._table_onset_k = k
                if self._impact_waiting_k is not None and k - self._impact_waiting_k < 4:
                    self._table_onset_k = self._impact_waiting_k
                self._table_peak = change
                return
            if k > 0 and k >= self.warmup_n // 2:
                prev = ring[(k - 1) % tn]
                diff = level - prev
                self._table_var += (diff * diff - self._table_var) * self.noise_alpha
            self.table_base += (level - self.table_base) * self.track_alpha
            if self._impact_waiting_k is not None and k - self._impact_waiting_k > 4:
                # a piezo hit the mat did not feel: classify it by the piezo alone
                self._impact_waiting_k = None
                events.append(self._table_event(in_context, None, self._now()))
            return
        if change > self._table_peak:
            self._table_peak = change
        if hi - lo <= max(0.5, 4.0 * sigma) and k - self._table_onset_k >= tn:
            net = mean - self.table_base
            self.table_base = mean
            self._table_active = False
            self._impact_waiting_k = None
            events.append(self._table_event(in_context, net, self._time_of(self._table_onset_k)))

    def _table_event(self, in_context, net, t_ms):
        if in_context or (net is not None and net >= LAND_MIN_G):
            event = {"type": "land", "t_ms": t_ms, "decided_ms": self._now()}
            if net is None:
                event["grams"] = None
                event["bounced"] = False
            elif net >= LAND_MIN_G:
                event["grams"] = _grams(net)
                event["bounced"] = False
            else:
                event["grams"] = 0.0
                event["bounced"] = True
            return event
        return {
            "type": "knock",
            "t_ms": t_ms,
            "decided_ms": self._now(),
            "grams": None if net is None else _grams(self._table_peak),
        }


def _grams(value):
    """Grams rounded to 0.01 g, the same way on every Python."""
    if value < 0:
        return -int(-value * 100.0 + 0.5) / 100.0
    return int(value * 100.0 + 0.5) / 100.0
