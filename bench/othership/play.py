"""A random session on the other ship: who loads, touches, knocks and what falls, and when.

`play` walks through 180 s of table time turn by turn. Each action adds forces and impulses
to a `Plan` (what the model will feel) and records its ground truth. Behaviour odds are
drawn per session (BEHAVIOUR) so sessions differ in how clumsy the players are.
"""

import math
import random
from collections import Counter
from dataclasses import dataclass, field

from . import interludes
from .loads import Ramp, Ring, ms, smoothstep_points
from .model import Plan
from .params import DECK_ZONES, ITEM_GRAMS, SHIFT_TARGETS, ZONES, ShipParams

PIECES_PER_ITEM = 5

# name: (low, high, meaning), drawn per session.
BEHAVIOUR = {
    "p_topple": (0.06, 0.14, "a just-loaded piece topples off as it is let go"),
    "p_fall_after_place": (0.25, 0.40, "loading disturbs the ship and other cargo falls"),
    "p_shift_after_place": (0.05, 0.10, "loading makes a piece slide or drop to another zone"),
    "p_cascade": (0.20, 0.35, "a falling piece takes another with it (a third: x0.35)"),
    "p_catch": (0.10, 0.25, "a falling piece is caught by a player"),
    "p_bounce": (0.20, 0.35, "a piece landing on the mat bounces off onto the table"),
    "p_fall_after_knock": (0.15, 0.35, "a knock on the table shakes cargo off"),
    "p_fall_after_touch": (0.10, 0.20, "a touch of the ship shakes cargo off"),
    "p_firm_press": (0.25, 0.55, "a player presses firmly (20-60 g) rather than gently"),
}


@dataclass
class Piece:
    """One physical piece: its name (`crate#3`), item and true mass in grams."""

    name: str
    item: str
    grams: float


@dataclass
class Aboard:
    """A piece lying on a zone, and the truth record that put it there."""

    piece: Piece
    zone: int
    arrived_ms: float
    record: dict | None  # the place record, None once the piece has shifted


@dataclass
class Session:
    """The plan, the truth and the counts of one session."""

    plan: Plan
    truth: list[dict]
    counts: Counter = field(default_factory=Counter)


class _Table:
    """The state of play while the session is generated."""

    def __init__(self, rng: random.Random, params: ShipParams):
        self.rng = rng
        self.params = params
        self.odds = {name: rng.uniform(lo, hi) for name, (lo, hi, _) in BEHAVIOUR.items()}
        self.has_mat = params.table in ("mat", "both")
        self.plan = Plan()
        self.truth: list[dict] = []
        self.counts: Counter = Counter()
        self.aboard: list[Aboard] = []
        self.supply: list[Piece] = []
        self.on_mat: list[Piece] = []  # fallen pieces resting on the mat
        for item in ITEM_GRAMS:
            for n in range(1, PIECES_PER_ITEM + 1):
                grams = params.item_grams[item] * (1 + rng.gauss(0.0, params.piece_spread))
                self.supply.append(Piece(f"{item}#{n}", item, grams))

    # --- helpers -------------------------------------------------------------------------
    def read_g(self, piece: Piece, zone: int) -> float:
        return round(piece.grams * self.params.reads[zone], 3)

    def near(self, a: int, b: int) -> bool:
        (xa, ya, ha), (xb, yb, hb) = self.params.xyh_cm[a], self.params.xyh_cm[b]
        return math.dist((xa, ya, ha), (xb, yb, hb)) < 9.0

    def pick(self, candidates: list[Aboard], near_zone: int | None) -> Aboard:
        weights = []
        for ab in candidates:
            w = 1.0 if ab.zone in DECK_ZONES else 2.5
            if near_zone is not None and self.near(ab.zone, near_zone):
                w *= 3.0
            weights.append(w)
        return self.rng.choices(candidates, weights)[0]

    def leave_zone(self, ab: Aboard, points: list[tuple[float, float]], left_ms: float):
        self.plan.zones[ab.zone].add(Ramp(points))
        self.aboard.remove(ab)
        if ab.record is not None:
            ab.record["left_ms"] = ms(left_ms)

    # --- actions -------------------------------------------------------------------------
    def place(self, t: float) -> float:
        """A player loads one piece (RR8); returns when the turn's consequences are over."""
        rng, odds = self.rng, self.odds
        if not self.supply:
            return t
        piece = self.supply.pop(rng.randrange(len(self.supply)))
        zone = rng.choice(ZONES)
        channel = self.plan.zones[zone]
        weight_in = rng.uniform(30, 150)
        channel.add(Ramp(smoothstep_points(t, t + weight_in, 0.0, piece.grams)))
        firm = rng.random() < odds["p_firm_press"]
        press = rng.uniform(20, 60) if firm else rng.uniform(3, 20)
        p0 = t + rng.uniform(0, weight_in)
        p1 = p0 + rng.uniform(60, 300)
        p2 = p1 + rng.uniform(80, 700)
        let_go = p2 + rng.uniform(30, 200)
        points = smoothstep_points(p0, p1, 0.0, press)
        tremor_t = p1 + rng.uniform(20, 40)
        while tremor_t < p2:  # a hand is never still: 8-12 Hz tremor of a few %
            points.append((tremor_t, press * (1 + rng.gauss(0.0, 0.04))))
            tremor_t += rng.uniform(40, 60)
        points.append((p2, press))
        points += smoothstep_points(p2, let_go, press, 0.0)[1:]
        ramp = Ramp(points)
        channel.add(ramp)
        wobble = piece.grams * rng.uniform(0.02, 0.10) * rng.choice((-1, 1))
        channel.add(Ring(let_go, wobble, rng.uniform(5, 15), rng.uniform(30, 90)))
        record = {
            "type": "place",
            "t_ms": ms(let_go),
            "start_ms": ms(t),
            "zone": zone,
            "item": piece.item,
            "piece": piece.name,
            "grams": self.read_g(piece, zone),
            "press_g": round(ramp.peak() * self.params.reads[zone], 2),
            "left_ms": None,
        }
        self.truth.append(record)
        self.counts["places"] += 1
        placed = Aboard(piece, zone, let_go, record)
        self.aboard.append(placed)

        roll = rng.random()
        others = [ab for ab in self.aboard if ab is not placed]
        if roll < odds["p_topple"]:
            self.counts["topples"] += 1
            start = let_go + rng.uniform(0, 60)
            return self.fall_episode(start, zone, first=placed, just_loaded=placed)
        roll -= odds["p_topple"]
        if roll < odds["p_fall_after_place"] and others:
            start = let_go + rng.uniform(-150, 1800)
            return self.fall_episode(start, zone, pool=others, just_loaded=placed)
        roll -= odds["p_fall_after_place"]
        if roll < odds["p_shift_after_place"]:
            mover = placed if rng.random() < 0.4 else self.pick(self.aboard, zone)
            start = max(let_go, mover.arrived_ms) + rng.uniform(50, 900)
            return self.shift(start, mover)
        return let_go + rng.uniform(300, 800)

    def fall_episode(
        self,
        start: float,
        near_zone: int,
        first: Aboard | None = None,
        pool: list[Aboard] | None = None,
        just_loaded: Aboard | None = None,
    ) -> float:
        """One piece slides or tumbles off, maybe taking one or two more with it (RR11)."""
        rng, odds = self.rng, self.odds
        pool = list(pool if pool is not None else self.aboard)
        if first is None:
            first = self.pick(pool, near_zone)
        chosen = [first]
        for _ in range(2):
            rest = [ab for ab in self.aboard if ab not in chosen]
            chance = odds["p_cascade"] * (1.0 if len(chosen) == 1 else 0.35)
            if not rest or rng.random() >= chance:
                break
            chosen.append(self.pick(rest, chosen[-1].zone))
        if len(chosen) > 1:
            self.counts["cascades"] += 1

        entries, prev_leave, end = [], None, start
        caught = []
        for ab in chosen:
            tumble = rng.uniform(50, 250) if ab is just_loaded else rng.uniform(40, 350)
            if prev_leave is None:
                start = max(start, ab.arrived_ms + 30)
                leave = start + tumble
            else:
                leave = prev_leave + rng.uniform(100, 550)
                start = max(start + 10, leave - tumble, ab.arrived_ms + 30)
                leave = max(leave, start + 30)
            entry, piece_end = self.fall_off(ab, start, leave)
            if entry["outcome"] == "caught":
                caught.append(ab)
            entries.append(entry)
            prev_leave, end = leave, max(end, piece_end)
        for ab in caught:  # RR12: caught pieces go to the box, unless only the one just loaded
            if len(caught) == 1 and ab is just_loaded:
                self.supply.append(ab.piece)
        self.truth.append(
            {
                "type": "fall",
                "t_ms": entries[0]["leave_ms"],
                "grams": round(sum(e["grams"] for e in entries), 3),
                "zones": sorted({e["zone"] for e in entries}),
                "items": [e["item"] for e in entries],
                "pieces": entries,
            }
        )
        self.counts["falls"] += 1
        return end + rng.uniform(400, 1200)

    def fall_off(self, ab: Aboard, start: float, leave: float) -> tuple[dict, float]:
        """The piece's weight goes from its zone, it drops, and lands, bounces or is caught."""
        rng, params, plan = self.rng, self.params, self.plan
        piece, zone, m = ab.piece, ab.zone, ab.piece.grams
        points = [(start, 0.0), (leave, -m)]
        if rng.random() < 0.5:  # tumbling over an edge unloads it unevenly
            points.append(
                (start + (leave - start) * rng.uniform(0.3, 0.7), -m * rng.uniform(0.15, 0.6))
            )
        self.leave_zone(ab, points, leave)
        height_cm = params.drop_height_cm(zone) + rng.uniform(-1.0, 1.0)
        speed_m_s = math.sqrt(2 * 9.81 * height_cm / 100.0)
        land = leave + 1000.0 * math.sqrt(2 * height_cm / 981.0) + rng.uniform(0, 40)
        energy_mj = m * 9.81 * height_cm / 100.0
        entry = {
            "piece": piece.name,
            "item": piece.item,
            "zone": zone,
            "grams": self.read_g(piece, zone),
            "start_ms": ms(start),
            "leave_ms": ms(leave),
            "outcome": "landed",
            "land_ms": ms(land),
            "off_mat_ms": None,
        }
        if rng.random() < self.odds["p_catch"]:
            entry["outcome"], entry["land_ms"] = "caught", None
            return entry, leave + 300
        momentum_gs = m * speed_m_s / 9.81
        plan.impacts.append((land, energy_mj * rng.uniform(0.3, 1.2)))
        if self.has_mat and rng.random() < self.odds["p_bounce"]:
            bounce = rng.uniform(0.4, 0.7)
            plan.mat_kicks.append((land, momentum_gs * (1 + bounce)))
            if rng.random() < 0.6:  # hops straight off the mat
                off = land + rng.uniform(8, 40)
                hop_s = 2 * bounce * speed_m_s / 9.81
                plan.impacts.append((off + 1000 * hop_s, energy_mj * bounce**2))
            else:  # rolls across the mat and over its edge
                off = land + rng.uniform(100, 600)
                plan.mat.add(Ramp([(land, 0.0), (land + 10, m)]))
                plan.mat.add(Ramp(smoothstep_points(off - 40, off, 0.0, -m, 2)))
            entry["outcome"], entry["off_mat_ms"] = "bounced", ms(off)
            self.supply.append(piece)
            return entry, off
        plan.mat_kicks.append((land, momentum_gs * (1 + rng.uniform(0.05, 0.3))))
        plan.mat.add(Ramp([(land, 0.0), (land + 8, m)]))
        if not self.has_mat:  # on the bare table: back to a supply (RR13)
            self.supply.append(piece)
        else:  # on the mat until a player clears it (interludes.collect)
            self.on_mat.append(piece)
        return entry, land

    def shift(self, start: float, ab: Aboard) -> float:
        """A piece slides to a neighbouring quarter or drops to a lower zone (RR13)."""
        rng, plan = self.rng, self.plan
        m, source = ab.piece.grams, ab.zone
        target = rng.choice(SHIFT_TARGETS[source])
        grams = self.read_g(ab.piece, source)
        if source in DECK_ZONES:  # slides over: briefly partly unloaded
            unloaded = rng.uniform(50, 250)
            left = start + 0.6 * unloaded
            land = start + unloaded
            self.leave_zone(ab, smoothstep_points(start, left, 0.0, -m, 3), left)
            plan.zones[target].add(Ramp(smoothstep_points(start + 0.4 * unloaded, land, 0.0, m, 3)))
            # it tips over onto the new quarter: a soft bump, 0.02-0.15 m/s downwards
            plan.zone_kicks.append((land, target, m * rng.uniform(0.02, 0.15) / 9.81))
        else:  # drops from its yard
            left = start + rng.uniform(40, 200)
            self.leave_zone(ab, smoothstep_points(start, left, 0.0, -m, 3), left)
            drop_cm = max(3.0, self.params.xyh_cm[source][2] - self.params.xyh_cm[target][2])
            hit = left + 1000.0 * math.sqrt(2 * drop_cm / 981.0)
            speed_m_s = math.sqrt(2 * 9.81 * drop_cm / 100.0)
            plan.zone_kicks.append((hit, target, m * speed_m_s * rng.uniform(1.1, 1.4) / 9.81))
            plan.zones[target].add(Ramp([(hit, 0.0), (hit + 5, m)]))
            plan.zones[target].add(Ring(hit, m * rng.uniform(0.05, 0.2), rng.uniform(6, 15), 40))
            land = hit + rng.uniform(20, 100)
        record = {
            "type": "shift",
            "t_ms": ms(left),
            "start_ms": ms(start),
            "land_ms": ms(land),
            "from": source,
            "to": target,
            "grams": grams,
            "item": ab.piece.item,
            "piece": ab.piece.name,
        }
        self.truth.append(record)
        self.counts["shifts"] += 1
        self.aboard.append(Aboard(ab.piece, target, land, None))
        return land + rng.uniform(400, 1000)


def play(rng: random.Random, params: ShipParams, seconds: float = 180.0) -> Session:
    """A session: 30-40 loads 1-5 s apart, touches, knocks and the mat cleared between."""
    table = _Table(rng, params)
    loads = rng.randint(30, 40)
    between = ["touch"] * rng.randint(8, 12) + ["knock"] * rng.randint(8, 12)
    between += ["collect"] * rng.choice((2, 3, 4))  # clearing the mat
    rng.shuffle(between)
    gaps_with = {}
    for kind in between:  # collects come late, at the end of a round
        low = loads // 3 if kind == "collect" else 0
        gaps_with.setdefault(rng.randrange(low, loads), []).append(kind)
    actions = {"touch": interludes.touch, "knock": interludes.knock, "collect": interludes.collect}
    # scale the pauses so that a typical session fits: ~2.6 s a turn is spent doing things
    last_start_ms = seconds * 1000.0 - 7000.0
    pause_scale = min(1.0, max(0.35, (last_start_ms / 1000.0 / loads - 2.6) / 2.5))
    t = rng.uniform(800, 2000)
    for turn in range(loads):
        if t > last_start_ms:
            break
        end = table.place(t)
        t = end + 1000.0 * rng.uniform(1.0, 4.0) * pause_scale
        for kind in gaps_with.get(turn, []):
            at = end + rng.uniform(400, 1200)
            if at > last_start_ms:
                break
            end = actions[kind](table, at)
            t = max(t, end + rng.uniform(600, 1500))
    body = sorted(table.truth, key=lambda r: r["t_ms"])
    return Session(plan=table.plan, truth=body, counts=table.counts)
