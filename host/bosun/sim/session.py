"""Sessions: a ship driven by random game-like hands, or by a script, sample by sample.

`random_session(ship, level, seconds, seed)` and `scripted_session(ship, script, seconds)`
are generators of samples; the truth is on the ship afterwards (`ship.truth_json()`).

Script actions (dicts, e.g. JSON lines), applied when the clock reaches `at_ms`:
  {"at_ms": 500, "action": "place", "zone": 7, "item": "barrel"}   (+ "press_g", "press_ms")
  {"at_ms": 3000, "action": "fall", "pieces": [[7, "barrel"], [9, null]],
   "outcomes": ["landed", "caught"], "gaps_ms": [400]}   (a piece: [zone, item or null])
  {"at_ms": 6000, "action": "shift", "zone": 9, "item": "rat", "to": 3}   ("to" optional)
  {"at_ms": 8000, "action": "touch", "zones": [5, 6]}   (+ "peak_g", "duration_ms")
  {"at_ms": 9000, "action": "knock"}   (+ "ripple_g")
  {"at_ms": 12000, "action": "collect"}
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator
from typing import Any

from bosun.sim.params import LEVELS, Level
from bosun.sim.ship import OUTCOMES, Sample, VirtualShip
from shipsense.geometry import BELOW, ZONES

WIND_DOWN_S = 4.0  # no new action this close to the end, so everything in flight finishes

# Forced early in every random session so that each effect shows up at least once.
AGENDA = (
    "fall:landed",
    "fall:caught",
    "fall:bounced",
    "fall:together",
    "fall:sequence",
    "shift",
    "touch",
    "knock",
    "collect",
    "idle",
)
WEIGHTS = {"place": 45, "fall": 12, "shift": 8, "touch": 12, "knock": 8, "collect": 10, "idle": 5}
OUTCOME_WEIGHTS = (55, 25, 20)  # landed, caught, bounced


class RandomHands:
    """The players' and table's hands for a random session; decides as the ship goes."""

    def __init__(self, ship: VirtualShip, level: Level, seed: int | str, end_s: float):
        self.ship = ship
        self.level = level
        self.rng = random.Random(f"{seed}/session")
        self.end_us = round((end_s - WIND_DOWN_S) * 1e6)
        agenda = list(AGENDA)
        self.rng.shuffle(agenda)
        self.agenda = ["place", "place", "place:yard", "place"] + agenda
        self.next_us = self._idle_us()

    def step(self) -> None:
        """Act if the time has come and the ship has settled; call before every sample."""
        ship = self.ship
        now = ship.now_us
        if now < self.next_us or now < ship.busy_until_us or now >= self.end_us:
            return
        at_ms = (now + self.rng.randrange(ship.period_us)) / 1000.0
        kind = self.agenda[0] if self.agenda else self._choose()
        if self._act(kind, at_ms):
            if self.agenda and kind == self.agenda[0]:
                self.agenda.pop(0)
        else:
            self._place(at_ms)
        self.next_us = max(ship.busy_until_us, self.next_us, now) + self._idle_us()

    # ---- choices --------------------------------------------------------------------------

    def _choose(self) -> str:
        aboard = self._ready_aboard(self.ship.now_us)
        weights = dict(WEIGHTS)
        weights["fall"] += max(0, len(aboard) - 12) * 6  # a crowded ship tips more
        if not self.ship.on_mat():
            weights["collect"] = 0
        kinds = list(weights)
        return self.rng.choices(kinds, [weights[k] for k in kinds])[0]

    def _act(self, kind: str, at_ms: float) -> bool:
        """Do `kind`; False if it is not possible now (then the caller places a piece)."""
        head, _, variant = kind.partition(":")
        at_us = round(at_ms * 1000)
        if head == "place":
            return self._place(at_ms, yard=variant == "yard")
        if head == "fall":
            aboard = self._ready_aboard(at_us)
            count = 2 if variant in ("together", "sequence") else self._fall_count()
            if len(aboard) < count:
                return False
            self._fall(self.rng.sample(aboard, count), at_ms, variant)
            return True
        if head == "shift":
            share = self.level.hands.deck_slide_share
            if share > 0.0 and self.rng.random() < share:  # only drawn in zoo families
                on_deck = [p for p in self._ready_aboard(at_us) if p.zone not in BELOW]
                if on_deck:
                    self.ship.deck_slide(self.rng.choice(on_deck), at_ms=at_ms)
                    return True
            on_yards = [p for p in self._ready_aboard(at_us) if p.zone in BELOW]
            if not on_yards:
                return False
            self.ship.shift(self.rng.choice(on_yards), at_ms=at_ms)
            return True
        if head == "touch":
            self.ship.touch(at_ms=at_ms)
            return True
        if head == "knock":
            self.ship.knock(at_ms=at_ms)
            return True
        if head == "collect":
            if not [p for p in self.ship.on_mat() if p.ready_us <= at_us]:
                return False
            self.ship.collect(at_ms=at_ms)
            return True
        if head == "idle":
            self.next_us = self.ship.now_us + round(self.rng.uniform(5.0, 20.0) * 1e6)
            return True
        raise ValueError(f"unknown action kind {kind!r}")

    def _place(self, at_ms: float, yard: bool = False) -> bool:
        ship, rng, level = self.ship, self.rng, self.level
        at_us = round(at_ms * 1000)
        items = sorted({p.item for p in ship.supply() if p.ready_us <= at_us})
        if not items:
            return False
        zone = rng.choice(tuple(BELOW) if yard else ZONES)
        # RR9: on a yard zone that already holds a piece, a player may load two.
        two = zone in BELOW and bool(ship.aboard(zone)) and rng.random() < 0.4
        placement = ship.place(zone, rng.choice(items), at_ms=at_ms)
        placed = [placement]
        if two:
            items = sorted({p.item for p in ship.supply() if p.ready_us <= placement.done_us})
            if items:
                second_ms = placement.done_ms + rng.uniform(200.0, 800.0)
                placed.append(ship.place(zone, rng.choice(items), at_ms=second_ms))
        hands = level.hands
        if hands.topple_probability > 0.0 and rng.random() < hands.topple_probability:
            # it topples off the moment it is let go, before it was ever still (zoo only)
            outcome = rng.choices(OUTCOMES, OUTCOME_WEIGHTS)[0]
            share = hands.topple_knock_share
            if share > 0.0 and rng.random() < share and self._knock_off(placed[-1], outcome):
                return True
            self.ship.fall(placed[-1].piece, outcome, at_ms=placed[-1].t_ms)
            return True
        chance = hands.cascade_probability
        if chance > 0.0 and rng.random() < chance and self._cascade(placed[-1]):
            return True
        chance = hands.jostle_probability
        if chance > 0.0 and rng.random() < chance and self._jostle(placed):
            return True
        overlap = rng.random() < level.overlap_probability
        if overlap:  # a hand brushes the ship while the piece still rings
            ship.touch(at_ms=placed[-1].t_ms + rng.uniform(50.0, 300.0))
        if not overlap and rng.random() < 0.25:  # the load tips the ship
            fall_ms = placed[-1].t_ms + 1000.0 * rng.uniform(*level.rest_before_tip_s)
            fall_us = round(fall_ms * 1000)
            others = [p for p in self._ready_aboard(fall_us) if p.id != placed[-1].piece]
            count = self._fall_count()
            chosen = [ship.piece(placed[-1].piece)] if rng.random() < 0.7 else []
            chosen += rng.sample(others, min(len(others), count - len(chosen)))
            if chosen:
                self._fall(chosen, fall_ms, "")
        return True

    def _fall(self, pieces: list, at_ms: float, variant: str) -> None:
        rng, level = self.rng, self.level
        if variant in ("landed", "caught", "bounced"):
            outcomes = [variant] * len(pieces)
        else:
            outcomes = rng.choices(OUTCOMES, OUTCOME_WEIGHTS, k=len(pieces))
        sequence = variant == "sequence" or (variant == "" and rng.random() < 0.5)
        gap_range = level.sequence_gap_ms if sequence else level.together_gap_ms
        gaps = [rng.uniform(*gap_range) for _ in pieces[1:]]
        fall = self.ship.fall(pieces, outcomes, at_ms=at_ms, gaps_ms=gaps)
        if rng.random() < level.overlap_probability:  # someone knocks the table meanwhile
            self.ship.knock(at_ms=fall.t_ms + rng.uniform(50.0, 300.0))

    def _cascade(self, placement) -> bool:
        """The placement sets off 2-3 pieces on other zones, one after another (zoo only)."""
        rng, hands = self.rng, self.level.hands
        fall_ms = placement.t_ms + rng.uniform(150.0, 600.0)
        fall_us = round(fall_ms * 1000)
        by_zone: dict[int, list] = {}
        for p in self._ready_aboard(fall_us):
            if p.zone != placement.zone:
                by_zone.setdefault(p.zone, []).append(p)
        zones = sorted(by_zone)
        if len(zones) < 2:
            return False
        count = min(len(zones), rng.choice((2, 2, 3)))
        chosen = [rng.choice(by_zone[z]) for z in rng.sample(zones, count)]
        outcomes = rng.choices(OUTCOMES, OUTCOME_WEIGHTS, k=count)
        gaps = [rng.uniform(*hands.cascade_gap_ms) for _ in chosen[1:]]
        self.ship.fall(chosen, outcomes, at_ms=fall_ms, gaps_ms=gaps)
        return True

    def _jostle(self, placed: list) -> bool:
        """Loading jostles the ship: a piece at rest (on any zone; not one just loaded) starts
        to go `jostle_ms` after the last let-go, while the hand may still press, maybe taking
        more along (zoo only); False if none is aboard to go."""
        rng, last = self.rng, placed[-1]
        weight_on_ms = last.start_ms + 50.0  # not before the piece being loaded weighs on
        fall_ms = max(weight_on_ms, last.t_ms + rng.uniform(*self.level.hands.jostle_ms))
        loaded = {placement.piece for placement in placed}
        at_rest = [p for p in self._ready_aboard(round(fall_ms * 1000)) if p.id not in loaded]
        if not at_rest:
            return False
        self._fall(rng.sample(at_rest, min(len(at_rest), self._fall_count())), fall_ms, "")
        return True

    def _knock_off(self, placement, outcome: str) -> bool:
        """The piece toppling off as it is let go takes 1-2 pieces aboard along, from its own
        zone or any other, each leaving `topple_knock_gap_ms` after the last (zoo only); False
        if none is aboard to knock."""
        rng, hands = self.rng, self.level.hands
        at_us = round(placement.t_ms * 1000)
        aboard = [p for p in self._ready_aboard(at_us) if p.id != placement.piece]
        if not aboard:
            return False
        knocked = rng.sample(aboard, min(len(aboard), rng.choice((1, 1, 2))))
        pieces = [self.ship.piece(placement.piece), *knocked]
        outcomes = [outcome, *rng.choices(OUTCOMES, OUTCOME_WEIGHTS, k=len(knocked))]
        gaps = [rng.uniform(*hands.topple_knock_gap_ms) for _ in knocked]
        self.ship.fall(pieces, outcomes, at_ms=placement.t_ms, gaps_ms=gaps)
        return True

    def _fall_count(self) -> int:
        return self.rng.choices((1, 2, 3), (60, 30, 10))[0]

    def _ready_aboard(self, at_us: int) -> list:
        return [p for p in self.ship.aboard() if p.ready_us <= at_us]

    def _idle_us(self) -> int:
        return round(self.rng.uniform(*self.level.idle_s) * 1e6)


def sample_count(seconds: float, rate_sps: int) -> int:
    """Samples in a session of `seconds`: t = 0, 1/rate, ... below `seconds`."""
    return math.ceil(seconds * rate_sps - 1e-9)


def random_session(
    ship: VirtualShip, level: str | Level, seconds: float, seed: int | str = 0
) -> Iterator[Sample]:
    """Samples of `seconds` of random game-like play on `ship` (every effect shows up)."""
    lv = LEVELS[level] if isinstance(level, str) else level
    hands = RandomHands(ship, lv, seed, seconds)
    for _ in range(sample_count(seconds, ship.rate_sps)):
        hands.step()
        yield ship.next_sample()


def scripted_session(
    ship: VirtualShip, script: Iterable[dict[str, Any]], seconds: float
) -> Iterator[Sample]:
    """Samples of `seconds` with the script's actions applied at their `at_ms`."""
    actions = sorted(
        ((check_action(a, index), index) for index, a in enumerate(script, 1)),
        key=lambda pair: pair[0]["at_ms"],
    )
    pending = 0
    for index in range(sample_count(seconds, ship.rate_sps)):
        next_us = index * 1_000_000 // ship.rate_sps
        while pending < len(actions) and actions[pending][0]["at_ms"] * 1000 < next_us:
            action, number = actions[pending]
            try:
                apply_action(ship, action)
            except (ValueError, TypeError) as error:
                raise ValueError(f"script action {number}: {error}") from None
            pending += 1
        yield ship.next_sample()


ACTION_KEYS = {
    "place": {"zone", "item", "press_g", "press_ms"},
    "fall": {"pieces", "outcomes", "gaps_ms"},
    "shift": {"zone", "item", "to"},
    "touch": {"zones", "peak_g", "duration_ms"},
    "knock": {"ripple_g"},
    "collect": set(),
}


def check_action(action: Any, number: int) -> dict[str, Any]:
    """A script action's shape, or ValueError naming the action's number and the problem."""
    where = f"script action {number}"
    if not isinstance(action, dict):
        raise ValueError(f"{where}: must be a JSON object, not {type(action).__name__}")
    kind = action.get("action")
    if kind not in ACTION_KEYS:
        raise ValueError(f"{where}: action must be one of {', '.join(ACTION_KEYS)}, not {kind!r}")
    at_ms = action.get("at_ms")
    if isinstance(at_ms, bool) or not isinstance(at_ms, int | float) or not 0 <= at_ms < 1e9:
        raise ValueError(f"{where}: at_ms must be a number of milliseconds >= 0, not {at_ms!r}")
    unknown = set(action) - ACTION_KEYS[kind] - {"action", "at_ms"}
    if unknown:
        raise ValueError(f"{where}: unknown field(s) for {kind}: {', '.join(sorted(unknown))}")
    return action


def apply_action(ship: VirtualShip, action: dict[str, Any]) -> None:
    """Apply one checked script action at its `at_ms`."""
    kind, at_ms = action["action"], action["at_ms"]
    if kind == "place":
        ship.place(
            action.get("zone"),
            action.get("item"),
            at_ms=at_ms,
            press_g=action.get("press_g"),
            press_ms=action.get("press_ms"),
        )
    elif kind == "fall":
        refs = action.get("pieces")
        if not isinstance(refs, list) or not refs:
            raise ValueError("pieces must be a list of [zone, item or null]")
        pieces = []
        for ref in refs:
            if not isinstance(ref, list) or len(ref) != 2:
                raise ValueError(f"a piece is [zone, item or null], not {ref!r}")
            pieces.append(ship.find(ref[0], ref[1]))
        ship.fall(
            pieces, action.get("outcomes", "landed"), at_ms=at_ms, gaps_ms=action.get("gaps_ms")
        )
    elif kind == "shift":
        ship.shift(ship.find(action.get("zone"), action.get("item")), action.get("to"), at_ms)
    elif kind == "touch":
        ship.touch(
            action.get("zones"),
            at_ms=at_ms,
            peak_g=action.get("peak_g"),
            duration_ms=action.get("duration_ms"),
        )
    elif kind == "knock":
        ship.knock(at_ms=at_ms, ripple_g=action.get("ripple_g"))
    else:
        ship.collect(at_ms=at_ms)
