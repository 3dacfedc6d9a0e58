"""The detector's tuning in one place: grams and milliseconds, and their sample counts at a rate.

Every threshold the detector's states use is here, with why it has the value it has. The
landing clocks come from the ship's one description (`shipsense.geometry`: each zone's height
and the zones below it), not from numbers written out by hand. `windows(det)` turns the
milliseconds into sample counts for the detector's rate.
"""

TABLE_MODES = ("none", "mat", "piezo", "both")

# --- rings and rest ------------------------------------------------------------------------
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
GLITCH_SIGMAS = 6.0  # ... or this many noise sigmas of one zone, if more
TRIGGER_MIN_G = 0.6  # smallest change of the total that starts an episode
TRIGGER_SIGMAS = 5.0
ONSET_FRACTION = 0.4  # an episode began where the total first strayed this share of the trigger
FAULT_LIMIT_G = 5000.0  # a zone beyond this is a broken channel
INPUT_LIMIT_G = 1.0e6
MAX_EPISODE_MS = 30000  # a disturbance this long is given up: the levels are re-learned
# the sway model learns from zone changes over this lag, this often, refreshed this often
SWAY_LAG_MS = 150
SWAY_EVERY_MS = 40
SWAY_REFRESH_MS = 1000
SWAY_MEMORY_S = 30
SWAY_LEARN_ENERGY = 12.0  # clear sway: the change's energy beats the noise this many times ...
SWAY_LEARN_NET = 0.3  # ... and nearly nothing added or lost (net under this share of it)
RECENT_FALL_MS = 1500  # the table is told a fall was this recent (a late landing)

# --- loading and place ---------------------------------------------------------------------
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
SHORT_REST_SAMPLES = 2  # at 10 SPS a piece may be seen resting for this many samples only

# --- leaving, fall and shift ---------------------------------------------------------------
SHIFT_MIN_G = 0.9
ZONE_FLOOR_ITEM = 0.6  # with items, a zone losing this share of the lightest piece counts
ZONE_FLOOR_FRACTION = 0.25  # ... else this share of the loss (never under ZONE_FLOOR_G)
ZONE_FLOOR_G = 0.7
SHIFT_SETTLE_MS = 200
# A piece leaving a yard lands on a lower zone within its free fall from that yard's height
# to the lowest zone below it, plus TUMBLE_FACTOR for tumbling; the deck (nothing below) has
# no landing clock. Derived from geometry.py's heights and BELOW by `derive_landing_ms`,
# which runs on the host only: importing geometry here would put it (and ship_messages) on
# the ESP32's heap for ten numbers. tests/unit/test_shipsense_tuning.py holds the two equal.
# Then the time the landing needs to show through the filters.
TUMBLE_FACTOR = 1.08
LANDING_MS = (0, 0, 0, 0, 182, 182, 223, 223, 258, 258)  # was written 183 for zones 5-6 by hand
LANDING_SEEN_MS = 20
LANDING_SLOW_SAMPLES = 2  # at 10 SPS the HX711 needs 400 ms to show a step in full
FALL_WEIGH_MS = 100  # fallen grams are weighed over at least this long after the drop
EXTRA_WAIT_MS = 150  # the most a slow slide may push the verdict back
# Weight back after it stayed away this much longer than the landing clock is not the piece
# landing on a lower zone. At 10 SPS the clock already allows the HX711's 200 ms, and a
# piece landing shows back within two samples less than it: there, one sample less will do
LATE_MS = 100
PAUSE_MS = 60  # a drop that stood still this long and goes on is the next piece leaving
PROGRESS_MS = 25  # a drop still deepening over this span (by a noise margin, and by ...
PROGRESS_FRACTION = 0.05  # ... this fraction of it) means the piece is still going
SLOW_RATE_HZ = 40  # below this rate the HX711's settling shapes the rules (10 SPS)


def landing_ms(zone):
    """How long a piece leaving `zone` (1-based) needs, at most, to land on a zone below it
    (whole ms; 0 for the deck, which has nothing below). Zones past the ship's ten (a
    detector built for more channels) take the top yard's clock."""
    return LANDING_MS[zone - 1] if zone <= len(LANDING_MS) else LANDING_MS[-1]


def samples(rate_hz, ms):
    """`ms` as a whole number of samples at `rate_hz` (at least one)."""
    n = int(ms * rate_hz / 1000.0 + 0.5)
    return n if n > 0 else 1


def windows(det):
    """Set the detector's windows (sample counts) for its rate: `det.<name>_n`."""
    rate_hz = det.rate_hz

    def ns(ms):
        return samples(rate_hz, ms)

    det.history_n = ns(HISTORY_MS)
    det.zone_history_n = ns(ZONE_HISTORY_MS)
    det.fast_n = ns(FAST_MS)
    det.stable_w = max(3, ns(STABLE_MS))
    det.warmup_n = ns(WARMUP_MS)
    det.track_alpha = 1.0 / ns(TRACK_MS)
    det.noise_alpha = 1.0 / ns(NOISE_MS)
    det.leave_n = ns(LEAVE_MS)
    det.leave_ringing_n = ns(LEAVE_RINGING_MS)
    det.low_n = max(2, det.leave_ringing_n)
    det.ringing_n = ns(RINGING_MS)
    det.place_min_n = max(5, ns(PLACE_MIN_WINDOW_MS))
    det.place_max_n = max(det.place_min_n, ns(PLACE_MAX_WINDOW_MS))
    det.plain_n = ns(PLAIN_MS)
    det.plain_drop_n = max(4, ns(PLAIN_DROP_MS))
    det.commit_min_n = max(2, ns(COMMIT_MIN_MS))
    # at 10 SPS a piece seen for two samples between the release and its tipping off
    det.short_rest_n = SHORT_REST_SAMPLES if det.stable_w <= 3 else 0
    det.rise_gap_n = ns(RISE_GAP_MS)
    det.rebase_n = ns(REBASE_MS)
    det.rebase_min_n = ns(REBASE_MIN_MS)
    det.rise_min_n = ns(RISE_MIN_MS)
    det.rise_commit_n = ns(RISE_COMMIT_MS)
    det.fresh_n = ns(FRESH_MS)
    det.merge_gap_n = ns(PLATEAU_MERGE_MS)
    det.quiet_n = ns(QUIET_MS)
    det.shift_settle_n = max(3, ns(SHIFT_SETTLE_MS))
    det.sway_lag_n = ns(SWAY_LAG_MS)
    det.sway_every_n = ns(SWAY_EVERY_MS)
    det.sway_refresh_n = ns(SWAY_REFRESH_MS)
    det.progress_n = ns(PROGRESS_MS)
    det.fall_weigh_n = max(2, ns(FALL_WEIGH_MS))
    det.pause_n = max(2, ns(PAUSE_MS))
    det.extra_wait_n = ns(EXTRA_WAIT_MS)
    det.late_n = ns(LATE_MS) if rate_hz >= SLOW_RATE_HZ else -1
    det.max_episode_n = ns(MAX_EPISODE_MS)
    det.recent_fall_n = ns(RECENT_FALL_MS)
    det.landing_n = []
    det.deck = []  # zones with nothing below them: a piece leaving them cannot shift
    slow_n = LANDING_SLOW_SAMPLES if rate_hz < SLOW_RATE_HZ else 0
    for zone in range(det.n_zones):
        height_ms = landing_ms(zone + 1)
        det.landing_n.append(ns(height_ms + LANDING_SEEN_MS) + slow_n)
        det.deck.append(height_ms == 0)


def derive_landing_ms():
    """LANDING_MS from the ship's one description (host only: imports geometry)."""
    from shipsense.geometry import BELOW, ZONE_HEIGHT_M, ZONES, drop_ms

    out = []
    for zone in ZONES:
        below = BELOW.get(zone)
        if not below:
            out.append(0)
            continue
        lowest = min(ZONE_HEIGHT_M[z] for z in below)
        out.append(int(TUMBLE_FACTOR * drop_ms(ZONE_HEIGHT_M[zone] - lowest) + 0.5))
    return tuple(out)
