"""Ground truth of a simulated session: what physically happened, with times and grams.

Written as JSON lines (`OUT_PREFIX.truth.jsonl`), sorted by `t_ms`; the first line is the
session header. Times are milliseconds on the trace's clock (3 decimals, i.e. microseconds),
grams have 3 decimals and are the real piece weights (what the trace should add up to).

- `{"type":"session","seed":7,"level":"normal","rate_sps":80,"table":"both","seconds":120,
  "samples":9600,"items":{"rat":2.6,...}}` — how the trace was made.
- `{"type":"place","t_ms":..,"start_ms":..,"zone":7,"item":"barrel","piece":"barrel#2",
  "grams":6.08,"press_g":11.2,"left_ms":null}` — `t_ms`: the hand leaves the piece
  (it rests from then on); `start_ms`: the piece's weight starts coming onto the zone;
  `press_g`: the hand's extra peak force; `left_ms`: when the piece later started to leave
  the zone (by a fall or shift), or null.
- `{"type":"fall","t_ms":..,"grams":8.71,"zones":[7,9],"items":["barrel","rat"],"pieces":[
  {"piece":"barrel#2","item":"barrel","zone":7,"grams":6.08,"start_ms":..,"leave_ms":..,
  "outcome":"landed","land_ms":..,"off_mat_ms":null}, ...]}` — cargo left the ship, one
  record an episode (pieces falling together or one after another). `t_ms` = the first
  piece's `leave_ms`, the moment it loses contact with the ship (`start_ms`: its weight
  starts to go). `outcome`: `landed` (rests on the table/mat from `land_ms`), `caught`
  (never lands, `land_ms` null), `bounced` (hits the mat at `land_ms`, leaves it again at
  `off_mat_ms`). A landed piece that hopped on the mat before it rested (the zoo's `wear`
  family) has `"hops":[[off_ms, on_ms], ...]`: its weight left the mat and came back; it
  rests from the last `on_ms`, with its whole weight.
- `{"type":"shift","t_ms":..,"start_ms":..,"land_ms":..,"from":9,"to":3,"grams":2.61,
  "item":"rat","piece":"rat#1"}` — a piece dropped from a yard onto a lower zone and stayed.
- `{"type":"touch","t_ms":..,"end_ms":..,"zones":[5,6],"peak_g":14.2}` — a hand brushed the
  ship; nothing changed.
- `{"type":"knock","t_ms":..,"ripple_g":4.1}` — a knock on the table (piezo impact, mat
  ripple); nothing left the ship.
- `{"type":"collect","t_ms":..,"grams":6.08,"items":["barrel"],"pieces":["barrel#2"]}` — a
  hand took pieces off the mat (`t_ms`: their weight has gone).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def ms(t_us: int | None) -> float | None:
    """Microseconds as milliseconds for JSON (exact to the microsecond)."""
    return None if t_us is None else round(t_us / 1000.0, 3)


def grams(value: float) -> float:
    return round(value, 3)


class InMilliseconds:
    """Every `*_us` time of a record also reads as `*_ms` (`land_ms`, `start_ms`, ...)."""

    def __getattr__(self, name: str) -> Any:
        if name.endswith("_ms"):
            t_us = getattr(self, name[:-3] + "_us")
            return None if t_us is None else t_us / 1000.0
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class Timed(InMilliseconds):
    """A truth record: `t_ms` (see each type) and `done_ms` (all its motion is over)."""

    t_us: int
    done_us: int


@dataclass
class Placement(Timed):
    """A piece put on a zone by hand; `t_us` is when the hand left it."""

    t_us: int
    start_us: int
    zone: int
    item: str
    piece: str
    grams: float
    press_g: float
    done_us: int  # the piece has stopped ringing
    left_us: int | None = None

    kind = "place"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "place",
            "t_ms": ms(self.t_us),
            "start_ms": ms(self.start_us),
            "zone": self.zone,
            "item": self.item,
            "piece": self.piece,
            "grams": grams(self.grams),
            "press_g": grams(self.press_g),
            "left_ms": ms(self.left_us),
        }


@dataclass
class FallingPiece(InMilliseconds):
    """One piece of a fall: where from, when it left, and how it ended."""

    piece: str
    item: str
    zone: int
    grams: float
    start_us: int
    leave_us: int
    outcome: str  # landed | caught | bounced
    land_us: int | None
    off_mat_us: int | None
    # a landed piece hopping on the mat before it rests (the `wear` family): (lift-off,
    # landing) of each hop; its weight is on the mat again from the last landing
    hops_us: list[tuple[int, int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = {
            "piece": self.piece,
            "item": self.item,
            "zone": self.zone,
            "grams": grams(self.grams),
            "start_ms": ms(self.start_us),
            "leave_ms": ms(self.leave_us),
            "outcome": self.outcome,
            "land_ms": ms(self.land_us),
            "off_mat_ms": ms(self.off_mat_us),
        }
        if self.hops_us:  # only pieces that hopped carry it, so other truths read as before
            out["hops"] = [[ms(off), ms(on)] for off, on in self.hops_us]
        return out


@dataclass
class Fall(Timed):
    """Cargo leaving the ship, one episode; `t_us` is when the first piece left."""

    pieces: list[FallingPiece]
    done_us: int  # the last piece has landed and stopped ringing (or was caught)

    kind = "fall"

    @property
    def t_us(self) -> int:
        return min(p.leave_us for p in self.pieces)

    @property
    def start_us(self) -> int:
        return min(p.start_us for p in self.pieces)

    @property
    def grams(self) -> float:
        return sum(p.grams for p in self.pieces)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "fall",
            "t_ms": ms(self.t_us),
            "grams": grams(self.grams),
            "zones": sorted({p.zone for p in self.pieces}),
            "items": [p.item for p in self.pieces],
            "pieces": [p.to_json() for p in self.pieces],
        }


@dataclass
class Shift(Timed):
    """A piece dropped from a yard onto a lower zone and stayed aboard."""

    t_us: int  # left its zone
    start_us: int
    land_us: int
    from_zone: int
    to_zone: int
    item: str
    piece: str
    grams: float
    done_us: int

    kind = "shift"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "shift",
            "t_ms": ms(self.t_us),
            "start_ms": ms(self.start_us),
            "land_ms": ms(self.land_us),
            "from": self.from_zone,
            "to": self.to_zone,
            "grams": grams(self.grams),
            "item": self.item,
            "piece": self.piece,
        }


@dataclass
class Touch(Timed):
    """A hand brushing the ship: a transient, nothing changes."""

    t_us: int
    end_us: int
    zones: list[int]
    peak_g: float
    done_us: int

    kind = "touch"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "touch",
            "t_ms": ms(self.t_us),
            "end_ms": ms(self.end_us),
            "zones": list(self.zones),
            "peak_g": grams(self.peak_g),
        }


@dataclass
class Knock(Timed):
    """A knock on the table: piezo impact, mat ripple, no weight leaves the ship."""

    t_us: int
    ripple_g: float
    done_us: int

    kind = "knock"

    def to_json(self) -> dict[str, Any]:
        return {"type": "knock", "t_ms": ms(self.t_us), "ripple_g": grams(self.ripple_g)}


@dataclass
class Collect(Timed):
    """A hand taking fallen pieces off the mat."""

    t_us: int
    pieces: list[str]
    items: list[str]
    grams: float
    done_us: int

    kind = "collect"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "collect",
            "t_ms": ms(self.t_us),
            "grams": grams(self.grams),
            "items": list(self.items),
            "pieces": list(self.pieces),
        }


TruthRecord = Placement | Fall | Shift | Touch | Knock | Collect


@dataclass
class SessionInfo:
    """The header line of a truth file."""

    seed: int | str
    level: str
    rate_sps: int
    table: str
    seconds: float
    samples: int
    items: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "session",
            "seed": self.seed,
            "level": self.level,
            "rate_sps": self.rate_sps,
            "table": self.table,
            "seconds": self.seconds,
            "samples": self.samples,
            "items": dict(self.items),
        }
