"""The table under the ship: the load mat and the piezo, turned into land/knock/collect events.

`TableSense.step(...)` takes one sample of the mat (grams or None) and the piezo (0/1 or
None) and returns events. Whether a hit on the table is cargo landing or a knock depends on
the ship: the detector says when a fall is in the air (`fall_context`), and for a hit that
came while it could not yet tell a fall from a shift, it calls `settle_hit(is_fall)` later.
"""

from math import sqrt

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Callable

MAT_TRIGGER_MIN_G = 1.0  # a mat change that starts a table episode
MAT_TRIGGER_SIGMAS = 6.0
MAT_SETTLE_MS = 250  # the mat is at rest after this long without change
MAT_SETTLE_FALL_MS = 500  # ... longer while cargo is landing (a bounce rests up to 400 ms)
MAT_BAND_MIN_G = 0.4
# A piece that has landed on the mat rings it about its weight before the mat holds still:
# steady once the swing is within this share of the level and the two halves of a window
# agree within this share (steady_mean)
STEADY_SWING = 0.5
STEADY_HALVES = 0.1
LAND_MIN_G = 0.8  # a piece that stays on the mat weighs at least this
GLITCH_MIN_G = 3.0
TRACK_MS = 4000
NOISE_MS = 3000
# The mat's base and noise are learned from its first samples before any episode may begin
# (the ship's warm-up is as long, but at least LEARN_MIN samples: at 10 SPS six would leave
# the noise a guess): a noisy mat judged by a guessed noise would start an episode at once
# and never find it still.
LEARN_MS = 600
LEARN_MIN = 16
# A mat episode this long is no landing ringing out (a ring dies within 500 ms): the mat is
# noisier than learned, and its noise is learned again as it goes, until it holds still.
STUCK_MS = 2000
PIEZO_WAIT_MS = 60  # a piezo hit without a mat change this long after is judged alone ...
# ... plus the HX711's settling (four output periods, datasheet): the piezo is heard at once,
# the load cells show the same moment that much later (400 ms at 10 SPS), so a hit is only
# judged once the ship and the mat could have shown what caused it
HX711_SETTLE_SAMPLES = 4
MAX_HELD_HITS = 8


class TableSense:
    """The mat and piezo channel of the detector (see the module docstring)."""

    def __init__(self, samples: "Callable[[float], int]", uses_mat: bool, uses_piezo: bool) -> None:
        self.uses_mat = uses_mat
        self.uses_piezo = uses_piezo
        self.settle_n = max(2, samples(MAT_SETTLE_MS))
        self.settle_fall_n = max(3, samples(MAT_SETTLE_FALL_MS))
        self.track_alpha = 1.0 / samples(TRACK_MS)
        self.noise_alpha = 1.0 / samples(NOISE_MS)
        self.learn_n = max(LEARN_MIN, samples(LEARN_MS))
        self.stuck_n = samples(STUCK_MS)
        self.piezo_wait_n = samples(PIEZO_WAIT_MS) + HX711_SETTLE_SAMPLES
        ring_n = self.settle_fall_n
        self.ring = [0.0] * ring_n
        self.ring_n = ring_n
        self.raw = [0.0, 0.0, 0.0]
        self.base = 0.0
        self.var = 0.02  # second-difference variance / 6 = noise variance
        self.level = 0.0
        self.prev1 = 0.0
        self.prev2 = 0.0
        self.active = False
        self.onset_k = 0
        self.onset_t = 0
        self.peak = 0.0
        self.trough = 0.0
        self.in_fall = False
        # a rise vanished and a piece that toppled off may be landing (the detector sets it):
        # the mat waits as long to hold still as in a fall, its verdict stays its own
        self.expect_landing = False
        self.last_impact = 0
        # piezo hits waiting for the load cells to speak: the first's k, its time, how many
        self.hit_k: int | None = None
        self.hit_t = 0
        self.hit_n = 0
        self.held_hits: list[float] = []  # times of hits in a possible fall, for the verdict
        self.episode_hits = 0  # piezo hits during the present mat episode: pieces that struck
        # the last landing: an episode that left weight on the mat, with those that began
        # within the mat's settling time (settle_n) of the last one's end (a piece the mat
        # took in steps: at 10 SPS its filter still moves as a first episode holds still)
        self.landed_k = -1  # its first sample ...
        self.landed_g = 0.0  # ... the grams it left ...
        self.landed_hits = 0  # ... how many piezo hits came with it ...
        self.landed_end_k = -1000000  # ... and the sample its last episode ended
        self.struck_k = -1  # the piezo's latest hit, whatever it was judged (a topple's landing?)
        self.struck_before_k = -1  # ... and the one before it
        self.k = -1

    def sigma(self) -> float:
        return sqrt(self.var)

    def step(
        self, k: int, t: float, table_g: "float | None", impact: "int | None", fall_context: int
    ) -> "list[dict] | None":
        """One sample; returns a list of events (usually empty)."""
        events = None
        self.k = k
        if self.uses_piezo and impact is not None:
            rising = impact == 1 and self.last_impact == 0
            self.last_impact = impact
            if rising:
                self.struck_before_k = self.struck_k
                self.struck_k = k
                if self.uses_mat and table_g is not None and self.active:
                    self.episode_hits += 1
                elif self.hit_k is None:
                    self.hit_k = k
                    self.hit_t = t
                    self.hit_n = 1
                else:
                    self.hit_n += 1
        if self.uses_mat and table_g is not None:
            events = self._mat_step(k, t, table_g, fall_context)
        if self.hit_k is not None and k - self.hit_k > self.piezo_wait_n:
            # no mat change came with it: judge the hits alone, by what the ship did
            more = None
            for _ in range(self.hit_n):
                one = self._piezo_hit(self.hit_t, t, fall_context)
                if one:
                    more = one if more is None else more + one
            self.hit_k = None
            if more:
                events = more if events is None else events + more
        return events

    def _land(self, t: float, now_t: float) -> dict:
        event = {"type": "land", "t_ms": t, "decided_ms": now_t, "grams": None, "bounced": False}
        if self.uses_piezo:
            event["impacts"] = 1
        return event

    def _piezo_hit(self, t: float, now_t: float, fall_context: int) -> "list[dict] | None":
        if fall_context == 2:  # a fall or a shift is in the air: wait for the ship's verdict
            if len(self.held_hits) < MAX_HELD_HITS:
                self.held_hits.append(t)
            return None
        if fall_context == 1:
            return [self._land(t, now_t)]
        return [{"type": "knock", "t_ms": t, "decided_ms": now_t, "grams": None}]

    def settle_hit(self, is_fall: bool, now_t: float) -> "list[dict] | None":
        """The ship has decided between fall and shift: held piezo hits become lands."""
        held = self.held_hits
        self.held_hits = []
        if not held or not is_fall:
            return None  # a shift's piece landing on the deck shook the table: no event
        return [self._land(t, now_t) for t in held]

    def _mat_step(self, k: int, t: float, value: float, fall_context: int) -> "list[dict] | None":
        raw = self.raw
        if k == 0:
            raw[0] = raw[1] = raw[2] = value
            self.base = self.level = self.prev1 = self.prev2 = value
        # Hampel filter over three samples: a lone glitch is replaced by the median
        raw[k % 3] = value
        a, b, c = raw[(k - 2) % 3], raw[(k - 1) % 3], raw[k % 3]
        med = a if (a - b) * (c - a) >= 0 else (b if (b - a) * (c - b) >= 0 else c)
        level = b
        limit = 6.0 * self.sigma()
        if limit < GLITCH_MIN_G:
            limit = GLITCH_MIN_G
        if self.ring_n > 16:
            # sampled fast enough to see a ring (a landing's window of 40 samples at 80 SPS;
            # at 10 SPS the HX711 averages one): its crest is no glitch where the mat moved
            # as far the sample before
            swing = abs(self.prev1 - self.prev2)
            if limit < swing:
                limit = swing
        if b - med > limit or med - b > limit:
            level = med
        self.level = level
        ring = self.ring
        ring[k % self.ring_n] = level
        events = None
        d2 = level - 2.0 * self.prev1 + self.prev2
        noise = d2 * d2 / 6.0  # one sample of the noise variance: a second difference
        if k < self.learn_n:
            self._learn(k, level, noise)
            return None
        change = level - self.base
        trigger = MAT_TRIGGER_SIGMAS * self.sigma()
        if trigger < MAT_TRIGGER_MIN_G:
            trigger = MAT_TRIGGER_MIN_G
        if not self.active:
            if change > trigger or change < -trigger:
                self.active = True
                self.onset_k = k
                self.onset_t = t
                self.episode_hits = 0
                if self.hit_k is not None and k - self.hit_k <= self.piezo_wait_n:
                    self.onset_t = self.hit_t
                    self.episode_hits = self.hit_n
                self.hit_k = None
                self.peak = change if change > 0 else 0.0
                self.trough = change if change < 0 else 0.0
                self.in_fall = fall_context > 0
            else:
                self.var += (noise - self.var) * self.noise_alpha
                self.base += change * self.track_alpha
        else:
            if fall_context > 0:
                self.in_fall = True
            if change > self.peak:
                self.peak = change
            if change < self.trough:
                self.trough = change
            if k - self.onset_k > self.stuck_n:
                self.var += (noise - self.var) * self.noise_alpha
            n = self.settle_fall_n if self.in_fall or self.expect_landing else self.settle_n
            if k - self.onset_k >= n:
                mean = self.still_mean(k, n)
                if mean is not None:
                    events = [self._end_episode(mean - self.base, t, fall_context)]
                    self.base = mean
                    self.active = False
        self.prev2 = self.prev1
        self.prev1 = level
        return events

    def _learn(self, k: int, level: float, noise: float) -> None:
        """One of the mat's first samples: its base is their mean, its noise variance the
        mean of their `noise` (second differences' squares over 6)."""
        self.base += (level - self.base) / (k + 1)
        if k >= 3:  # (the level lags the input by a sample: the first is repeated)
            self.var += (noise - self.var) / (k - 2)
        self.prev2 = self.prev1
        self.prev1 = level

    def still_mean(self, k: int, n: int) -> "float | None":
        """The mat's mean over its last `n` samples (at most the ring's) if they held still;
        else None."""
        ring = self.ring
        hi = -1.0e30
        lo = 1.0e30
        s = 0.0
        for j in range(n):
            v = ring[(k - j) % self.ring_n]
            s += v
            if v > hi:
                hi = v
            if v < lo:
                lo = v
        # over a landing's window (MAT_SETTLE_FALL_MS), about the band the noise alone stays
        # within 99 times in 100: it widens with the samples (4.5 sigma over 5, 6.1 over 40).
        # At 80 SPS a still mat failed a fixed 4.5 sigma there about half the time, and its
        # verdict waited. Over the shorter windows the band stays tight (a mat swaying slowly
        # stands within it a moment at each crest), and so it does once an episode has gone
        # on past STUCK_MS, the noise learned from the episode's own motion
        width = 4.5
        if n > self.settle_n and k - self.onset_k <= self.stuck_n:
            width += 0.42 * (sqrt(n) - 2.236)  # (sqrt(5))
        band = width * self.sigma()
        if band < MAT_BAND_MIN_G:
            band = MAT_BAND_MIN_G
        if hi - lo > band:
            return None
        return s / n

    def resting_mean(self, k: int, n: int, floor_g: float) -> "float | None":
        """The mat's mean above its base over its last `n` samples (at most the ring's) if a
        weight rests on it, however it still rings: every sample `floor_g` or more above the
        base, and none more than twice another; else None."""
        if n > self.ring_n:
            n = self.ring_n
        hi = -1.0e30
        lo = 1.0e30
        s = 0.0
        for j in range(n):
            v = self.ring[(k - j) % self.ring_n] - self.base
            s += v
            if v > hi:
                hi = v
            if v < lo:
                lo = v
        mean = s / n
        if lo < floor_g or hi > 2.0 * lo:
            return None
        return mean

    def weighted_mean(self, k: int, n: int) -> float:
        """The last `n` samples' mean above the base, weighted 1, 2, .. n/2 .. 2, 1."""
        ring = self.ring
        s = 0.0
        for j in range(n):
            s += (j + 1 if j + 1 < n - j else n - j) * ring[(k - j) % self.ring_n]
        return s / (((n + 1) // 2) * ((n + 2) // 2)) - self.base  # (the weights' sum)

    def steady_mean(self, k: int, n: int, floor_g: float) -> "float | None":
        """The mat's mean over its last `n` samples (even, at most the ring's) if a weight
        rests on it, still ringing about a steady level: every sample `floor_g` or more above
        the base (nothing hopped off), both halves' means within a tenth of the level (at
        least MAT_BAND_MIN_G apart allowed), and the swing within half the level; else None."""
        ring = self.ring
        half = n // 2
        hi = -1.0e30
        lo = 1.0e30
        first = 0.0
        second = 0.0
        for j in range(n):
            v = ring[(k - j) % self.ring_n] - self.base
            if j < half:
                second += v
            else:
                first += v
            if v > hi:
                hi = v
            if v < lo:
                lo = v
        mean = (first + second) / n
        if lo < floor_g or hi - lo > STEADY_SWING * mean:
            return None
        band = STEADY_HALVES * mean
        if band < MAT_BAND_MIN_G:
            band = MAT_BAND_MIN_G
        difference = (first - second) / half
        if difference > band or -difference > band:
            return None
        return mean

    def _end_episode(self, net: float, t: float, fall_context: int) -> dict:
        onset_t = self.onset_t
        event = None
        if net >= LAND_MIN_G:
            if self.onset_k - self.landed_end_k <= self.settle_n:
                self.landed_g += net
                self.landed_hits += self.episode_hits
            else:
                self.landed_k = self.onset_k
                self.landed_g = net
                self.landed_hits = self.episode_hits
            self.landed_end_k = self.k
            event = {
                "type": "land",
                "t_ms": onset_t,
                "decided_ms": t,
                "grams": _grams(net),
                "bounced": False,
            }
        elif net <= -LAND_MIN_G:
            return {"type": "collect", "t_ms": onset_t, "decided_ms": t, "grams": _grams(-net)}
        elif self.in_fall or fall_context > 0:
            event = {
                "type": "land",
                "t_ms": onset_t,
                "decided_ms": t,
                "grams": 0.0,
                "bounced": True,
            }
        if event is not None:
            if self.uses_piezo:
                # how many pieces struck the table: those that stayed and those that bounced off
                event["impacts"] = self.episode_hits
            return event
        swing = self.peak if self.peak > -self.trough else -self.trough
        return {"type": "knock", "t_ms": onset_t, "decided_ms": t, "grams": _grams(swing)}


def _grams(value: float) -> float:
    if value < 0:
        return -int(-value * 100.0 + 0.5) / 100.0
    return int(value * 100.0 + 0.5) / 100.0
