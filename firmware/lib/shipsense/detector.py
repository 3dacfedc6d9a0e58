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

How it works, in brief. A session whose HX711s are still settling after power-up (the second
sample far from the first on several channels at once) is read once they have calmed: the
detector starts afresh there. Every channel passes a three-sample Hampel filter (a single-sample
HX711 glitch is replaced, real steps pass untouched). The sum over all zones is the main
signal: sway only moves load between zones. Noise is measured at rest and sets the
thresholds; zero-tracking (drift, creep) runs only at rest, and a change the sum holds for
half a second starts an episode even below one sample's threshold (a rat on a noisy ship at
10 SPS, else taken in as drift). A drop in the sum starts a `leaving`; it becomes a `fall`
once the piece could have landed on a lower zone from the height of its zone, or a `shift`
if the weight came back in time for that (weight coming
back later, or more of it than went, is a hand loading the ship after the piece fell, even
when its rise was first taken for the piece coming back); a deck quarter's clock is the
time a piece tumbling into the next quarter needs. Any clock is cut short once the table felt
the piece land: the mat holds what the ship lost, or (a piezo alone) the table was struck no
sooner than the piece could reach it, and the ship, given the time to show a landing aboard,
still misses the weight. A rise that vanished, with a mat fitted, waits for the mat: a piece
landed on it (held still, or weighed by the mat before the ship's episode was over, or
resting on it, however it rang, when cargo began to leave) is a piece that toppled off as it
was let go (a `place` and a `fall`), else a `touch`. A
fresh piece that rested briefly while weight then leaves other zones is placed before the
leaving (a cascade); one whose rest is weighed after cargo left zones that held it (jointly
fitted with the fresh piece, sway out; a zone that reads light is judged beside the fresh
gain too) weighs what its own zone gained, and what left is noticed leaving from when it
began to go, if the fresh piece's zone made it up (else it moved aboard). A drop on another
zone while a fresh piece settles is cargo leaving only if that zone ends below what it held
(a hand that brushed it leaves it where it was). A rise that holds still after the hand lets go is a
`place`, weighed over a window long enough for the noise measured (and, with items, until
the weight clearly names one), from the level the ship rested at just before (the mean of
that rest, not the slow zero-tracking). A still stretch that rose again after the release
is a hand brushing the fresh piece, not the piece: it is waited out. A rise that holds still
with no release seen is placed once it has held 0.85 s; with items, longer when its weight
fits a piece only loosely or not at all (a hand may still be pressing a light piece). One
that goes all at once before then (a piece set down gently, or a hand resting at a piece's
weight) waits out its zone's landing clock (it may drop onto a zone below: a place and a
shift), then asks the table: a landing is a `place` and a `fall`, silence a `touch`
(`detector_gone`). At
10 SPS the HX711 needs three to four conversions to show a step, so a piece may be seen at
rest for two samples only: such a short rest is the piece when the load then falls back to
the old level (it tipped off), and is held when more rises until what rises is weighed (a
second piece, or a hand that goes again). Weight arriving rings (a piece dropping onto a
zone strikes its frame): a drop that follows the total standing above the level the ship
had before anything left, or one gone again by its deadline, is no second piece leaving. A
still load or a loss lighter than half the lightest piece (without items, than the smallest
place, 0.9 g) is never a `place` or a `fall`: it fits no piece (a hand resting on the
ship, drift, noise). Such a loss after a `leaving` is a `stay`; such a level left standing
is where the ship rests. A heavier still
loss too gentle to be noticed leaving falls once it fits a piece, or, fitting none (read
light), once the mat took about as much or it stood missing over the longest weighing
window. Zones are told
apart after removing the ship's sway, whose two modes (roll and pitch) are learned at rest
(`shipsense.sway`).

The code: this module is the façade (checks, the glitch filter, the rings, dispatch); the
states and what they decide live in `shipsense.detector_*` (see `detector_records` for the
state machine: AT_REST, LOADING, LEAVING, RETURNED), their tuning in `detector_tuning`.

Memory is bounded (fixed rings of a few seconds); time is kept as sample counts, so a
six-hour session is as exact as a minute, also with single-precision floats on the ESP32.
"""

from array import array
from math import sqrt

from shipsense import detector_commit as commit
from shipsense import (
    detector_episode,
    detector_rest,
    detector_silent,
    detector_topple,
    detector_vanished,
)
from shipsense import detector_tuning as tuning
from shipsense.detector_records import AT_REST, LEAVING
from shipsense.detector_tuning import GLITCH_MIN_G, GLITCH_SIGMAS, INPUT_LIMIT_G
from shipsense.items import Cargo, check_items
from shipsense.sway import SwayModel
from shipsense.table import TableSense

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's declarations only


class Detector:
    """The online detector for one ship (see the module docstring for the API)."""

    def __init__(
        self,
        rate_hz: "int | float" = 80,
        n_zones: int = 10,
        table: str = "none",
        items: "dict | None" = None,
    ) -> None:
        if isinstance(rate_hz, bool) or not isinstance(rate_hz, (int, float)):
            raise ValueError("rate_hz must be a number")
        if not 1 <= rate_hz <= 2000:
            raise ValueError(f"rate_hz must be between 1 and 2000, not {rate_hz!r}")
        if isinstance(n_zones, bool) or not isinstance(n_zones, int) or not 1 <= n_zones <= 64:
            raise ValueError("n_zones must be a whole number from 1 to 64")
        if table not in tuning.TABLE_MODES:
            raise ValueError(f"table must be one of {', '.join(tuning.TABLE_MODES)}, not {table!r}")
        self.rate_hz = rate_hz
        self.n_zones = n_zones
        self.table = table
        self.items: dict[str, float] | None = None
        self.cargo = Cargo(n_zones)
        # Below this (grams from the old level) no piece is where the load was: half the
        # lightest piece with items (noise, sway and drift stay below it), else the smallest
        # place. A still load or a loss lighter than this is never a `place` or a `fall`: it
        # fits no piece (a hand resting on the ship, drift, noise). See set_items.
        self.floor_g = tuning.PLACE_MIN_G
        self.lightest_g = 0.0  # the lightest item's grams (0.0 without items) ...
        self.heaviest_g = 0.0  # ... and the heaviest's
        if items is not None:
            self.set_items(items)
        tuning.windows(self)  # every window as a sample count at this rate (detector_tuning)
        # the windows this module reads, declared for the checker only (declarations that
        # run, here or in the class body, cost MicroPython heap when frozen)
        if TYPE_CHECKING:
            self.history_n: int
            self.zone_history_n: int
            self.fast_n: int
            self.warmup_n: int
            self.recent_fall_n: int
            self.silent_every_n: int

        h = self.history_n
        self.t_ring: list[int | float] = [0] * h  # sample times as given (ints on the ESP32)
        self.total_ring = array("f", [0.0] * h)  # filtered total grams
        self.fast_ring = array("f", [0.0] * h)  # its FAST_MS moving mean
        zn = self.zone_history_n
        self.zone_rings = [array("f", [0.0] * zn) for _ in range(n_zones)]
        self.raw = [[0.0, 0.0, 0.0] for _ in range(n_zones)]  # the glitch filter's last three
        self.y = [0.0] * n_zones  # glitch-filtered zones, this sample
        self.ref = [0.0] * n_zones  # committed grams per zone
        self.base = 0.0  # committed total (the sum of ref)
        self.area = [0.0] * n_zones  # zone deviations summed over the loading
        self.area_n = 0
        self.area_open = True
        self.sway_change = [0.0] * n_zones
        self.k = -1  # index of the current sample
        self.last_t: int | float | None = None
        self.var_total = n_zones * tuning.SIGMA_START_G * tuning.SIGMA_START_G
        self.prev_total1 = 0.0
        self.prev_total2 = 0.0
        self.faulty = [False] * n_zones
        self.sway = SwayModel(
            n_zones, 1.0 / max(1, tuning.SWAY_MEMORY_S * 1000 // tuning.SWAY_EVERY_MS)
        )
        self.sway_dirty = False
        self.state = AT_REST
        self.rest_k = self.warmup_n
        self.base_n = self.warmup_n  # samples behind the level places are weighed from
        self.trigger_run = 0
        self.last_fall_k = -(10**9)
        self.spike_k = -(10**9)  # the latest sample the glitch filter took a rise out of
        self.last_place = None  # the latest place (a LastPlace), with items
        self.leave_level = tuning.LEAVE_MIN_G
        self.pending = None  # a touch waiting for the table's word (a PendingTouch: a topple?)
        self.vanished = None  # a let-go load gone as cargo left (a PendingTouch until it fell)
        self.silent = None  # a move between zones seen at rest once: (from, to, grams)
        self.silent_quiet_k = 0  # no such move is looked for before this sample
        self.silent_after_touch = False  # the last episode decided nothing (or last, resting)
        self.silent_before = [0.0] * n_zones  # the zones' means as the last episode began
        self.silent_from_k = 0  # ... or as its last decision was made on a still stretch (at k)
        self.silent_delta = [0.0] * n_zones  # the at-rest look's own lists (no allocation)
        self.silent_then = [0.0] * n_zones
        self.loading_change = [0.0] * n_zones  # the zones against ref as the loading began
        commit.reset_episode(self, 0)
        self.power_up = detector_rest.POWER_UP_FIRST  # the HX711s settling after power-up
        self.power_up_n = 0
        self.power_up_calm = 0
        self.last_in = [0.0] * (n_zones + 1)  # the previous sample as fed (zones, mat)
        self.table_sense: TableSense | None = None
        if table != "none":

            def ns(ms: float) -> int:
                return tuning.samples(rate_hz, ms)

            self.table_sense = TableSense(ns, table in ("mat", "both"), table in ("piezo", "both"))

    # --- public helpers ----------------------------------------------------------------
    def set_items(self, items: "dict | None") -> None:
        """Use calibrated item weights ({name: grams}) from now on; None forgets them."""
        if items is None:
            self.items = None
            self.cargo.clear()
            self.floor_g = tuning.PLACE_MIN_G
            self.lightest_g = 0.0
            self.heaviest_g = 0.0
            return
        self.items = check_items(items)
        lightest = self.lightest_g = min(self.items[name] for name in self.items)
        self.heaviest_g = max(self.items[name] for name in self.items)
        self.floor_g = 0.5 * lightest if 0.5 * lightest > tuning.PLACE_MIN_G else tuning.PLACE_MIN_G

    def restart(self) -> None:
        """Forget everything learned and start afresh with the next sample (the readings
        before it were the HX711s settling after power-up)."""
        self.__init__(self.rate_hz, self.n_zones, self.table, self.items)

    def zone_grams(self) -> "list[float]":
        """The settled grams per zone (what rests on each zone, as far as is known)."""
        return list(self.ref)

    def sigma_total(self) -> float:
        """The measured noise (g, one sigma) of one sample of the summed zones."""
        return sqrt(self.var_total)

    # --- the sample loop -----------------------------------------------------------------
    def feed(
        self,
        t_ms: "int | float",
        zones_g: "list[float]",
        table_g: "float | None" = None,
        impact: "int | None" = None,
    ) -> "list[dict]":
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
        if self.last_t is not None and not t_ms > self.last_t:
            raise ValueError(f"t_ms {t_ms!r} is not after the previous sample's {self.last_t!r}")
        settled = self.power_up == detector_rest.POWER_UP_DONE
        if not settled and detector_rest.power_up(self, zones_g, table_g):
            self.last_t = t_ms
            return []
        self.last_t = t_ms
        events: list[dict] = []
        self.k += 1
        k = self.k
        h = self.history_n
        slot = k % h
        self.t_ring[slot] = t_ms

        # Hampel filter over three samples per zone (it outputs the middle one)
        limit = GLITCH_SIGMAS * sqrt(self.var_total / n)
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
            raw = self.raw[i]
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
            if b - med > limit:
                b = med
                self.spike_k = k - 1  # a rise taken out: perhaps a piece striking the zone
            elif med - b > limit:
                b = med
            y[i] = b
            total += b
            self.zone_rings[i][zslot] = b
        total_ring = self.total_ring
        total_ring[slot] = total
        fn = self.fast_n if k + 1 >= self.fast_n else k + 1
        s = 0.0
        for j in range(fn):
            s += total_ring[(k - j) % h]
        fast = s / fn
        self.fast_ring[slot] = fast

        if k < self.warmup_n:
            detector_rest.warm_up(self, k, total)
        else:
            detector_rest.check_faults(self, events)
            d = fast - self.base
            sigma_fast = sqrt(self.var_total / self.fast_n)
            if self.state != AT_REST or detector_rest.step(self, k, total, d, sigma_fast):
                # the base may have been re-measured as the episode began
                detector_episode.step(self, events, k, fast - self.base, sigma_fast)
            elif self.trigger_run == 0 and k % self.silent_every_n == 0:
                detector_silent.at_rest(self, events, k)
        self.prev_total2 = self.prev_total1
        self.prev_total1 = total
        if self.table_sense is not None:
            more = self.table_sense.step(k, t_ms, table_g, impact, self._fall_context())
            if self.vanished is not None and more:
                detector_vanished.landed_meanwhile(self, self.vanished, more)
            if self.pending is not None:
                if self.pending.cargo_g is not None:  # it vanished as cargo fell
                    detector_vanished.cargo_step(self, k, more, events)
                else:
                    detector_topple.pending_step(self, k, more, events)
            if more:
                events.extend(more)
        return events

    def _fall_context(self) -> int:
        """2 while a piece may be in the air, 1 soon after a fall, else 0 (for the table)."""
        if self.state == LEAVING:
            return 2
        if self.k - self.last_fall_k <= self.recent_fall_n:
            return 1
        return 0
