"""The detector's tuning in one place: grams and milliseconds, and their sample counts at a rate.

Every threshold the detector's states use is here, with why it has the value it has. The
landing clocks come from the ship's one description (`shipsense.geometry`: each zone's height
and the zones below it), not from numbers written out by hand. `windows(det)` turns the
milliseconds into sample counts for the detector's rate.
"""

try:
    from micropython import const
except ImportError:  # CPython: the host runs this very module

    def const(__expr):  # positional-only, as MicroPython's (the leading __ tells pyright)
        return __expr


# `const`: inlined where used and, for the _private names, no RAM at all on the ESP32 (the
# public ones are read by the states' modules and stay in this module's dict).
TABLE_MODES = ("none", "mat", "piezo", "both")

# --- rings and rest ------------------------------------------------------------------------
_HISTORY_MS = const(3000)  # how far back the rings reach
_ZONE_HISTORY_MS = const(1300)
# A still stretch is located zone by zone over those of its samples still in the zones'
# rings, if at least this many (else over the latest samples)
STRETCH_SEEN_MIN = const(3)
_FAST_MS = const(50)  # the moving mean that feeds the triggers
_STABLE_MS = const(100)  # the span over which "holding still" is judged
_WARMUP_MS = const(600)  # samples used to learn the empty ship before deciding anything
# After power-up the HX711s read far off and settle in (four conversions, 400 ms at 10 SPS,
# and a slow input or cell on top): when the second sample moved this far from the first on
# this many channels at once (a hand, a glitch or noise moves one or two), the detector
# starts afresh once no channel moved that far for POWER_UP_CALM_MS (a settling with a few
# steps still to go moves under a tenth of one in that time), or after POWER_UP_MAX_MS
# whatever. Noise learned from the settling blinded the triggers (zoo-wear: places missed up
# to 14 s in), and the first reading is no empty ship.
POWER_UP_STEP_G = const(2.0)
POWER_UP_CHANNELS = const(3)
_POWER_UP_CALM_MS = const(200)
_POWER_UP_MAX_MS = const(2000)
_TRACK_MS = const(4000)  # zero-tracking time constant at rest (drift, creep)
# an episode's starting level: the mean of the rest before it, this long ...
_REBASE_MS = const(2000)
_REBASE_MIN_MS = const(200)  # ... at least this long (else the zero-tracking level stands)
_NOISE_MS = const(3000)  # noise estimate time constant at rest
SIGMA_START_G = const(0.1)  # noise assumed per zone before it is measured
GLITCH_MIN_G = const(3.0)  # the Hampel filter replaces a sample this far off its neighbours' median
GLITCH_SIGMAS = const(6.0)  # ... or this many noise sigmas of one zone, if more
TRIGGER_MIN_G = const(0.6)  # smallest change of the total that starts an episode
TRIGGER_SIGMAS = const(5.0)
# A change too small for one fast mean on a noisy ship (a rat's 2.6 g against 0.5 g of
# noise a sample at 10 SPS: the trigger stood at 2.5 g) still starts an episode once the
# total has stood off the base over this long: its mean beyond TRIGGER_SIGMAS of that mean's
# noise and beyond the floor (no piece weighs less), every fast mean in it beyond half of
# that. Else the zero-tracking followed the loss down, and the fall came over a second late
# (zoo-rough-2 30410).
_SLOW_MS = const(500)
ONSET_FRACTION = const(0.4)  # episodes begin where the total first strays this share of the trigger
FAULT_LIMIT_G = const(5000.0)  # a zone beyond this is a broken channel
INPUT_LIMIT_G = const(1.0e6)
_MAX_EPISODE_MS = const(30000)  # a disturbance this long is given up: the levels are re-learned
# the sway model learns from zone changes over this lag, this often, refreshed this often
_SWAY_LAG_MS = const(150)
SWAY_EVERY_MS = const(40)
_SWAY_REFRESH_MS = const(1000)
SWAY_MEMORY_S = const(30)
# clear sway: the change's energy beats the noise this many times ...
SWAY_LEARN_ENERGY = const(12.0)
SWAY_LEARN_NET = const(0.3)  # ... and nearly nothing added or lost (net under this share of it)
_RECENT_FALL_MS = const(1500)  # the table is told a fall was this recent (a late landing)

# --- loading and place ---------------------------------------------------------------------
LEAVE_MIN_G = const(0.9)  # smallest drop announced as `leaving`
LEAVE_SIGMAS = const(5.5)
_LEAVE_MS = const(20)  # the drop must hold this long ...
_LEAVE_RINGING_MS = const(90)  # ... or this long while a released piece may still ring
_RINGING_MS = const(600)
PLACE_MIN_G = const(0.9)  # smallest rise that is a `place`
RELEASE_MIN_G = const(0.6)  # the hand let go: the level fell this far below its peak, and ...
RELEASE_SIGMAS = const(6.0)  # ... this many noise sigmas, and ...
RELEASE_FRACTION = const(0.2)  # ... this fraction of the peak (a pressing hand trembles ~4%)
TREMOR_FRACTION = const(0.1)  # a rise from a still stretch with no release seen must beat this
SETTLE_BAND_MIN_G = const(0.3)
SETTLE_SIGMAS = const(4.0)
TREND_FRACTION = const(0.6)  # the span's older and newer halves may differ by this much of the band
ROCK_SWING = const(0.15)  # a load rocking about a steady level swings this share of it at most
ROCK_LET_GO_SWING = const(0.6)  # ... or this, let go of a window ago and fitting a piece well
# a placed piece is weighed over at least this (and 5 samples) ...
_PLACE_MIN_WINDOW_MS = const(100)
_PLACE_MAX_WINDOW_MS = const(1200)  # ... and at most this
PLACE_SE_G = const(0.15)  # without items, weigh until the standard error is this small
PLACE_MARGIN_SE = const(2.5)  # with items, until the weight is this many errors from a boundary
_PLAIN_MS = const(850)  # a rise without a seen release is a place once it has held this long
# ... or when it held this long (4 samples) and then went away again: placed and fallen
# where the table heard it land, a touch where the table (a mat, or a piezo at 80 SPS) stayed
# silent (detector_gone.never_let_go)
_PLAIN_DROP_MS = const(350)
# ... but with items, a still load that fits no piece is a hand still pressing one down (a
# press is held still for up to ~1.2 s: the zoo's `rough` hands press 0.1-1.5 s, rise and
# let-go included); it is a place without a release only once it has held longer than that
_PLAIN_PRESSED_MS = const(1600)
# ... and one that fits its nearest piece only loosely (further than this many weighing
# errors: ~90 % of pieces placed with no release seen, on the tuning sets, fit better) may
# be a light piece a hand still presses down to about another piece's weight: it waits longer
# for the hand to let go, as long as it stays on (a still stretch that ends is decided then),
# up to a press held still ~1.2 s ...
PRESSED_FIT_ERRORS = const(0.75)
_PLAIN_DOUBT_MS = const(1225)
# ... but not once the load began this long ago: a pressing hand lets go within ~1.5 s of
# coming (this keeps the longer wait short where the stretch began late, as at 10 SPS)
_PRESS_LONGEST_MS = const(1500)
# A still level lighter than any piece, that the ship cannot rest at the old level beside, is
# where it rests once it has held this long (at least the shortest weighing window). A knocked
# cell's zero steps so (zoo `wear`: up to 1 g); waiting the longest window (1.2 s) held the
# episode open, and a place begun meanwhile was weighed on the step. 100-350 ms decide the same.
_SUB_FLOOR_REST_MS = const(300)
# An episode that ends on a still level this many of its weighing errors off the level it
# began from ends where the ship now stands (detector_rest.rest_where_standing): noise
# stands that far off once in 16000 endings, a zero step of 0.3-1 g at 4-15 errors. 3 and 4
# decide the same on every tuning set; 2 cost a shift (tuning, 10 SPS)
NEW_ZERO_SE = const(4.0)
_PLATEAU_MERGE_MS = const(150)  # a still stretch may pause this long and go on at the same level
PLATEAU_MERGE_G = const(0.4)
_COMMIT_MIN_MS = const(100)  # a plateau this long after the release is weighed if a fall follows
_CASCADE_MIN_MS = const(50)  # ... or this long, if weight then leaves other zones
# A still stretch after the release that stands above where the load first settled is not
# the piece: a hand brushed it (or more came on). Judged from this long after the release ...
_RISE_GAP_MS = const(100)
_RISE_MIN_MS = const(50)  # ... over at least this long before the stretch began
_RISE_COMMIT_MS = const(300)  # a stretch after the release this long is a piece when more comes on
_QUIET_MS = const(150)  # the episode is over after this long back at the old level
# A drop soon after a place that leaves a piece's weight behind and fits no cargo of the
# zones that lost it was a hand weighed with the fresh piece (with items only).
_FRESH_MS = const(1500)
FRESH_FIT_ERRORS = const(2.5)  # what stays fits a piece this well ...
FRESH_CARGO_ERRORS = const(3.0)  # ... and what went fits no cargo better than this
# A still load this many times the heaviest piece is no piece: a hand resting on the ship
# after it let go (the second ship's hands rest 20-50 g on a yard for up to a second)
NO_PIECE_FACTOR = const(1.5)
ONE_ZONE_FRACTION = const(0.5)  # a placed piece shows at least this share of its weight on its zone
# A cascade weighed in one still stretch: cargo left another zone while a fresh piece came to
# rest, and the total shows only their difference. A zone lost cargo only if it held at least
# this share of what it lost (sway and the noise of a short stretch make up the rest) ...
CASCADE_HELD_FRACTION = const(0.5)
# ... (looked for only when such a zone reads below its level by this share of the floor
# before any fit: a loss of a piece's worth shows so even through sway and crosstalk)
CASCADE_LIGHT_FRACTION = const(0.5)
# ... and the loss still stands this share deep when the place is decided (else it came back:
# a hand, not cargo); it began where those zones first stood this share of it down
CASCADE_STANDS_FRACTION = const(0.5)
CASCADE_ONSET_FRACTION = const(0.3)
# ... and the zone that took the fresh piece gained the total's change plus at least this
# share of the loss (cargo that left the ship; a loss it did not make up went elsewhere aboard)
CASCADE_GAIN_FRACTION = const(0.25)
# A zone's loss seen through sway and crosstalk is a few tenths of a gram off (its neighbour
# reads a share of it, and of the fresh piece beside it): it is the pieces on the zone's cargo
# list that weigh within this many zone weighing errors of it (its most recent few)
CASCADE_CARGO_ERRORS = const(2.0)
CASCADE_CARGO_PIECES = const(4)
TOUCH_MIN_G = const(1.5)  # smaller transients are not worth a `touch`
_SHORT_REST_SAMPLES = const(2)  # at 10 SPS a piece may be seen resting for this many samples only
# A fresh piece that came to rest as cargo left other zones rests between two pieces' weights,
# which takes a second or more to weigh: it is weighed by what its own zone gained (detector_place
# .weighed_by_its_gain), at 10 SPS as soon as a place may be, at 80 SPS once it stood this long
# (sooner, the cargo may still be leaving: from 0.1 s 3 falls fewer were found on the second
# ship's tuning traces, from 0.2 s one; the falls over 450 ms at 80 SPS went 182 -> 177).
_GAIN_WEIGH_MS = const(400)

# --- leaving, fall and shift ---------------------------------------------------------------
SHIFT_MIN_G = const(0.9)
# a returned weight that stood at its level this long before a hand's load came is weighed
# there (two samples at 10 SPS; at 80 SPS the fast mean passes through the level faster)
_SHIFT_BEFORE_HAND_MS = const(200)
# A fresh piece let go of on a zone as cargo there moved onto another (measure.what_moved): the
# other gained this share of the piece less, the source lost no more, and a piece of its
# cargo weighs that: the cargo moved (a 3.3 g sailor on yard 10, its 2.2 g rat slid to 8)
MOVED_SHORT_FRACTION = const(0.15)
# A still stretch held with no let-go seen, as cargo leaves another zone: the loaded zone
# losing this share of what it held at once (past its neighbours' crosstalk share of that
# loss) and keeping a piece's worth lost a hand's press (a 6 g press let go of a barrel)
PRESS_LET_GO_FRACTION = const(0.25)
SHIFT_ITEM_LOW = const(0.55)  # a shift weighed between these shares of the moved piece's
SHIFT_ITEM_HIGH = const(1.35)  # weight is that piece (else its own grams stand)
SHIFT_AIR_FRACTION = const(0.8)  # a shift weighed in the air under this share of what moved
SHIFT_AIR_HIGH = const(1.2)  # ... and over this share of it, the yard it left sprang back
# names no piece lighter than the total's deepest dip as it went (a lower bound: the piece
# was all off the ship at most then) less this many noise sigmas (the deepest of a few noisy
# samples: a 2.6 g rat dipped 3.8 g in 0.4 g noise), or less this share of it if more
# (zoo-sway-20316-10sps: a 6.9 g dip in 0.1 g noise, the 6.2 g barrel was not what moved)
SHIFT_DIP_SIGMAS = const(4.0)
SHIFT_DIP_FRACTION = const(0.92)
# A move between two zones that never dipped the total (detector_silent.at_rest): the zones'
# means over STABLE_MS now against SILENT_LAG_MS ago (the HX711's 400 ms at 10 SPS and then
# some), judged every SILENT_EVERY_MS. One zone down and another up, each by at least this
# share of the smallest move (half the lightest piece, SHIFT_MIN_G at least), ...
SILENT_SIDE_FRACTION = const(0.6)
SILENT_NET_FRACTION = const(0.3)  # ... the total unchanged within this share of the move, ...
SILENT_FIT_FRACTION = const(0.6)  # ... the move explaining this share of what is not sway, ...
SILENT_SWAY_FRACTION = const(0.5)  # ... and this share of it left once sway is taken out, ...
SILENT_STILL_FRACTION = const(0.2)  # ... twice in a row, the same within this share
_SILENT_LAG_MS = const(600)
_SILENT_EVERY_MS = const(100)
ZONE_FLOOR_ITEM = const(0.6)  # with items, a zone losing this share of the lightest piece counts
ZONE_FLOOR_FRACTION = const(0.25)  # ... else this share of the loss (never under ZONE_FLOOR_G)
ZONE_FLOOR_G = const(0.7)
_SHIFT_SETTLE_MS = const(200)
# A still stretch not yet decided whose load, after a drop, stands again on another zone
# (detector_slide): a piece that rested there and then slid or dropped. It must have rested
# this long (a person sees a piece put down, not a hand passing it across: the tuning sets'
# slides after an undecided rest came 0.6-0.9 s after the put-down) ...
_SLIDE_REST_MS = const(500)
# ... or this long once the hand was seen letting go of it: two conversions at 10 SPS, as a
# place after a release needs (COMMIT_MIN). The second ship's pieces slid 50-400 ms after the
# let-go and were placed where they came to rest (a wrong zone to the referee)
_SLIDE_RELEASED_REST_MS = const(200)
# ... and stand again this soon after the drop began (a slide or a short drop onto a zone
# beside it takes 0.2-0.5 s; the HX711 shows it settled some 0.3 s later at 10 SPS) ...
_SLIDE_MS = const(1000)
# A pressed piece let go of that hopped or slid off its zone at once and landed on one beside
# it (or below, a yard's): the load back at the old level (a hop, seen at 10 SPS) or settled
# above where it first stood, a piece's weight rising elsewhere within this of the let-go
# (the second ship's hops take 0.1-0.3 s in the air; a piece that stood a moment, too
# briefly to be weighed, slides off 0.1-0.8 s after the let-go; the HX711 shows the landing
# a conversion or two late, its knock like a light press). As long as a slide may take.
_HOP_MS = const(1000)
# ... the zone it was pressed on took the press alone: no other zone took this share of it
# (crosstalk is some 10 %; the zoo's rough hands press one zone as the piece rests on another)
HOP_AREA_FRACTION = const(0.25)
SLIDE_LEVEL_FRACTION = const(0.2)  # ... weighing what rested within this share (or leave level) ...
SLIDE_ZONE_FRACTION = const(0.5)  # ... its zone down and another up by this share of it at least
# where it rested is read from the zones' ring, which at 10 SPS reaches 1.3 s back: at least
# this many samples of the stretch must still be in it (two tell a zone that holds a piece)
SLIDE_ZONE_MIN_N = const(2)
# Zones that share structure (geometry.NEIGHBOURS, 1-based, held equal by
# tests/unit/test_shipsense_tuning.py): a load on one shows a share on the other
# (crosstalk, up to 15 % on the zoo's `sway` ships; the simulator allows under 20 %). A place
# books that share on the neighbours as they read it, up to CROSSTALK_MAX of the piece.
CROSSTALK_PAIRS = (
    (1, 2),
    (1, 3),
    (2, 4),
    (3, 4),
    (5, 6),
    (7, 8),
    (9, 10),
    (5, 7),
    (7, 9),
    (6, 8),
    (8, 10),
)
CROSSTALK_MAX = const(0.2)
# A loss under this share of the lightest piece that no fitted table heard land is no fall
# (detector_leaving.unheard_light_loss): the second ship's drifts of 1.3-1.8 g read as rats
# of 2.4 g; a rat that fell read 0.6 of itself at least, and then struck the table. Weight
# moved between zones under this share is no piece moving either, unless a piece on the zone
# it left is plausibly that reading (detector_shift.name_moved): the second ship's false
# shifts of 1.0-1.7 g; a rat that moved read 0.74 of itself at least.
LIGHT_DOUBT = const(0.7)
# A piece leaving a yard lands on a lower zone within its free fall from that yard's height
# to the lowest zone below it, plus TUMBLE_FACTOR for tumbling; the deck (nothing below) has
# no landing clock. Derived from geometry.py's heights and BELOW by its `landing_clocks_ms`
# on the host only (importing geometry here would put it and ship_messages on the ESP32's
# heap for ten numbers); tests/unit/test_shipsense_tuning.py holds the two equal.
# Then the time the landing needs to show through the filters.
TUMBLE_FACTOR = const(1.08)
LANDING_MS = (0, 0, 0, 0, 182, 182, 223, 223, 258, 258)  # was written 183 for zones 5-6 by hand
_LANDING_SEEN_MS = const(20)
# Every deck quarter has deck quarters beside it (geometry.NEIGHBOURS, held by
# tests/unit/test_shipsense_tuning.py): a deck piece that tips over, slides or tumbles into
# the next quarter is off both for a while (the independent model: 100-150 ms; the zoo's
# `slides` family: 60-220 ms from the first unloading, of which this clock, counted from the
# deepest point of the drop, needs 180 ms), so a deck zone's landing clock is this long. A
# fall from the deck is decided that much later (80 SPS fall p50 +10 ms on the zoo and the
# corpus), unless the mat already holds what the ship lost (fusion, detector_leaving).
_DECK_SLIDE_MS = const(180)
# A piece toppling off the top yard reaches the table within its free fall from there, plus
# TUMBLE_FACTOR (geometry.py's heights, held by tests/unit/test_shipsense_tuning.py), and the
# mat shows it LANDING_SEEN_MS later: a vanished rise waits this long for the mat's word.
TABLE_FALL_MS = const(284)
# A piece toppling off the deck strikes the table no sooner than its free fall from there
# (110 ms) less its tipping over; the load cells show the let-go this many samples late.
_TOPPLE_SOONEST_MS = const(80)
_BRIEF_REST_MS = const(75)  # a piece that stood a moment after the let-go held its level
BRIEF_REST_SIGMAS = const(3.0)  # ... within this many of the total's noise ...
BRIEF_REST_FRACTION = const(0.1)  # ... and this share of the level; failing that, a piece
# that rang as it stood, or stood only an instant between the let-go and its tipping off,
# held its level within this share (the second ship's 80 SPS topples onto a piezo table)
UNSTEADY_REST_FRACTION = const(0.4)
_LET_GO_SEEN_SAMPLES = const(2)
# The mat holds a toppled piece once its level has stood still this long off its base (the
# landing's ringing gone: a knock's ripple never stands still off the base); its own verdict
# waits MAT_SETTLE_MS (250 ms) more, and a topple's fall is decided no later than that.
_MAT_STILL_MS = const(60)
# ... or, while it still rings about a piece's weight, over this window (detector_topple
# .pending_step, table.steady_mean): a crate off the top yard rings the mat 6-9 g for about
# 100 ms after a 280 ms fall, which made a topple's fall 450-500 ms late at 80 SPS
_MAT_STEADY_MS = const(75)
# ... or, ringing harder (the second ship's: 50-120 g each way at 8-18 Hz), by the level the
# ring dies toward over this window (detector_topple.ringing_level; 10 SPS's HX711 averages it)
_MAT_RING_MS = const(200)
_MAT_RING_EARLY_MS = const(125)  # ... sooner, where the brief rest agrees or it rings about base
# A piece let go of that vanished as cargo fell waits at most this long past its landing time
# for the ship to decide the falls and the mat to settle (detector_vanished.cargo_step)
_CARGO_WAIT_MS = const(3000)
# At 10 SPS the HX711 shows a step in full only after three to four conversions: a piece
# that toppled off within one of them shows as a rise of a part of its weight. The mat may
# hold up to this many times what the ship saw rise (at 80 SPS: what the ship saw).
_RISE_SEEN_SLOW_FACTOR = const(2)
MAT_HOLDS_FRACTION = const(0.5)  # the mat holds a landed piece: this share of the ship's loss
# A still loss that fits no piece is a piece all the same when the mat took about as much
# meanwhile, within this or this share of it (detector_place.mat_took)
MAT_TOOK_G = const(1.0)
MAT_TOOK_FRACTION = const(0.25)
# A piece leaving a zone strikes the table no sooner than its free fall from that zone's
# height (no tumbling), always later than a piece leaving it lands on a lower zone (LANDING_MS
# allows tumbling): a strike, or the mat's change, that soon after the weight went may be the
# piece landing on the table, never before (a knock, or the ship ringing as a piece landed on
# it). Derived by geometry.py's `table_clocks_ms`, held equal by
# tests/unit/test_shipsense_fall_fusion.py.
TABLE_SOONEST_MS = (111, 111, 111, 111, 202, 202, 235, 235, 263, 263)
# The load cells show a piece leaving (the fast mean at 70 % of the drop, the clocks' `deep_k`)
# about this many samples after it left: the HX711's four settling periods and the glitch
# filter's one (at either rate: 64 ms at 80 SPS, 390 ms at 10 SPS on the zoo's tuning sets).
_WENT_SEEN_SAMPLES = const(5)
_TABLE_SEEN_SAMPLES = const(4)
_MAT_SEEN_SAMPLES = const(2)
_LANDING_SLOW_SAMPLES = const(2)  # at 10 SPS the HX711 needs 400 ms to show a step in full
_FALL_WEIGH_MS = const(100)  # fallen grams are weighed over at least this long after the drop
_EXTRA_WAIT_MS = const(150)  # the most a slow slide may push the verdict back
# Weight back after it stayed away this much longer than the landing clock is not the piece
# landing on a lower zone. At 10 SPS the clock already allows the HX711's 200 ms, and a
# piece landing shows back within two samples less than it: there, one sample less will do
_LATE_MS = const(100)
_PAUSE_MS = const(60)  # a drop that stood still this long and goes on is the next piece leaving
_PROGRESS_MS = const(25)  # a drop still deepening over this span (by a noise margin, and by ...
PROGRESS_FRACTION = const(0.05)  # ... this fraction of it) means the piece is still going
# ... and a total rising by this share of what went as the landing clock runs out (and by
# the noise margin) is a piece landing aboard late: the verdict waits, up to EXTRA_WAIT_MS
# (seed 1016: a barrel from yard 7 landed on quarter 1 212 ms after it left)
ARRIVING_FRACTION = const(0.1)
_SLOW_RATE_HZ = const(40)  # below this rate the HX711's settling shapes the rules (10 SPS)


def landing_ms(zone):
    """How long a piece leaving `zone` (1-based) needs, at most, to land on a zone below it
    (whole ms; 0 for the deck, which has nothing below). Zones past the ship's ten (a
    detector built for more channels) take the top yard's clock."""
    return LANDING_MS[zone - 1] if zone <= len(LANDING_MS) else LANDING_MS[-1]


def table_soonest_ms(zone):
    """How long a piece leaving `zone` (1-based) needs, at least, to reach the table (whole
    ms); zones past the ship's ten take the top yard's."""
    return TABLE_SOONEST_MS[zone - 1] if zone <= len(TABLE_SOONEST_MS) else TABLE_SOONEST_MS[-1]


def samples(rate_hz, ms):
    """`ms` as a whole number of samples at `rate_hz` (at least one)."""
    n = int(ms * rate_hz / 1000.0 + 0.5)
    return n if n > 0 else 1


def windows(det):
    """Set the detector's windows (sample counts) for its rate: `det.<name>_n`."""
    rate_hz = det.rate_hz

    def ns(ms):
        return samples(rate_hz, ms)

    det.history_n = ns(_HISTORY_MS)
    det.zone_history_n = ns(_ZONE_HISTORY_MS)
    det.fast_n = ns(_FAST_MS)
    det.slow_parts = max(2, ns(_SLOW_MS) // det.fast_n)  # fast means in the slow span ...
    det.slow_span_n = det.slow_parts * det.fast_n  # ... and its samples
    det.stable_w = max(3, ns(_STABLE_MS))
    det.warmup_n = ns(_WARMUP_MS)
    det.power_up_calm_n = max(2, ns(_POWER_UP_CALM_MS))
    det.power_up_max_n = ns(_POWER_UP_MAX_MS)
    det.track_alpha = 1.0 / ns(_TRACK_MS)
    det.noise_alpha = 1.0 / ns(_NOISE_MS)
    det.leave_n = ns(_LEAVE_MS)
    det.leave_ringing_n = ns(_LEAVE_RINGING_MS)
    det.low_n = max(2, det.leave_ringing_n)
    det.ringing_n = ns(_RINGING_MS)
    det.place_min_n = max(5, ns(_PLACE_MIN_WINDOW_MS))
    det.place_max_n = max(det.place_min_n, ns(_PLACE_MAX_WINDOW_MS))
    det.plain_n = ns(_PLAIN_MS)
    det.plain_drop_n = max(4, ns(_PLAIN_DROP_MS))
    det.plain_pressed_n = ns(_PLAIN_PRESSED_MS)
    det.plain_doubt_n = ns(_PLAIN_DOUBT_MS)
    det.press_longest_n = ns(_PRESS_LONGEST_MS)
    det.sub_floor_rest_n = ns(_SUB_FLOOR_REST_MS)
    det.commit_min_n = max(2, ns(_COMMIT_MIN_MS))
    det.cascade_min_n = max(3, ns(_CASCADE_MIN_MS))
    # at 10 SPS a piece seen for two samples between the release and its tipping off
    det.short_rest_n = _SHORT_REST_SAMPLES if det.stable_w <= 3 else 0
    det.gain_weigh_n = det.place_min_n if det.short_rest_n else ns(_GAIN_WEIGH_MS)
    det.rise_gap_n = ns(_RISE_GAP_MS)
    det.rebase_n = ns(_REBASE_MS)
    det.rebase_min_n = ns(_REBASE_MIN_MS)
    det.rise_min_n = ns(_RISE_MIN_MS)
    det.rise_commit_n = ns(_RISE_COMMIT_MS)
    det.fresh_n = ns(_FRESH_MS)
    det.merge_gap_n = ns(_PLATEAU_MERGE_MS)
    det.quiet_n = ns(_QUIET_MS)
    det.shift_settle_n = max(3, ns(_SHIFT_SETTLE_MS))
    det.before_hand_n = max(2, ns(_SHIFT_BEFORE_HAND_MS))
    det.slide_rest_n = ns(_SLIDE_REST_MS)
    det.slide_released_rest_n = ns(_SLIDE_RELEASED_REST_MS)
    det.slide_n = ns(_SLIDE_MS)
    det.hop_n = ns(_HOP_MS)
    det.silent_lag_n = ns(_SILENT_LAG_MS)
    det.silent_every_n = ns(_SILENT_EVERY_MS)
    det.sway_lag_n = ns(_SWAY_LAG_MS)
    det.sway_every_n = ns(SWAY_EVERY_MS)
    det.sway_refresh_n = ns(_SWAY_REFRESH_MS)
    det.progress_n = ns(_PROGRESS_MS)
    det.fall_weigh_n = max(2, ns(_FALL_WEIGH_MS))
    det.pause_n = max(2, ns(_PAUSE_MS))
    det.extra_wait_n = ns(_EXTRA_WAIT_MS)
    det.late_n = ns(_LATE_MS) if rate_hz >= _SLOW_RATE_HZ else -1
    det.max_episode_n = ns(_MAX_EPISODE_MS)
    det.recent_fall_n = ns(_RECENT_FALL_MS)
    det.landing_n = []
    det.table_soonest_n = []  # a piece leaving the zone strikes the table no sooner
    det.deck = []  # zones with nothing below them: a piece leaving them can only slide
    slow_n = _LANDING_SLOW_SAMPLES if rate_hz < _SLOW_RATE_HZ else 0
    det.table_fall_n = ns(TABLE_FALL_MS + _LANDING_SEEN_MS) + slow_n  # the mat is an HX711 too
    det.mat_still_n = max(3, ns(_MAT_STILL_MS))
    det.mat_steady_n = 2 * max(2, (ns(_MAT_STEADY_MS) + 1) // 2)  # even: two halves
    det.mat_ring_n = 2 * (ns(_MAT_RING_MS) // 2) if rate_hz >= _SLOW_RATE_HZ else 0
    det.mat_ring_early_n = ns(_MAT_RING_EARLY_MS) if det.mat_ring_n else 0
    det.cargo_wait_n = ns(_CARGO_WAIT_MS)
    det.topple_soonest_n = ns(_TOPPLE_SOONEST_MS) - _LET_GO_SEEN_SAMPLES
    det.brief_rest_n = max(2, ns(_BRIEF_REST_MS))
    # a strike on the table (or the mat's change) is judged once the load cells could show a
    # piece that landed on a lower zone at that moment (table.HX711_SETTLE_SAMPLES)
    det.table_seen_n = _TABLE_SEEN_SAMPLES
    det.mat_seen_n = _MAT_SEEN_SAMPLES
    # at 10 SPS a rise as short as a topple's shows in part only: it weighs no piece
    det.rise_weighs = rate_hz >= _SLOW_RATE_HZ
    det.rise_seen_factor = _RISE_SEEN_SLOW_FACTOR if rate_hz < _SLOW_RATE_HZ else 1
    for zone in range(det.n_zones):
        height_ms = landing_ms(zone + 1)
        deck = height_ms == 0
        if deck:
            height_ms = _DECK_SLIDE_MS
        det.landing_n.append(ns(height_ms + _LANDING_SEEN_MS) + slow_n)
        det.deck.append(deck)
        det.table_soonest_n.append(ns(table_soonest_ms(zone + 1)) - _WENT_SEEN_SAMPLES)
