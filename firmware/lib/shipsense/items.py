"""Item identification: which piece was placed, which pieces fell, from calibrated weights.

`check_items(obj)` validates an items table (`{"rat": 2.6, "boat": 11.8, ...}`, grams a
piece). `Cargo` keeps what the detector believes is aboard, zone by zone. `name_place` and
`name_fall` pick the most likely piece or set of pieces for a weight change and say when the
choice is ambiguous (two answers fit about equally well, or none fits) instead of guessing
silently. Plain Python: it runs on the ESP32 too.
"""

from math import sqrt

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Iterator

MAX_ITEM_GRAMS = 10000.0
MAX_NAME_LENGTH = 40
# The weighing error of one piece: a fixed part (noise, sway left in the settle window) and a
# part proportional to the weight (calibration, creep, crosstalk). Tuned on the simulator.
WEIGHING_ERROR_G = 0.35
WEIGHING_ERROR_FRACTION = 0.03
# Answers whose normalised errors differ by less than this are too close to call.
AMBIGUITY_MARGIN = 1.0
# An answer this many weighing errors off is no match at all.
NO_MATCH_ERRORS = 4.0
# At most this many pieces in one fall: more would be a shipwreck, not an event.
MAX_PIECES_IN_A_FALL = 5
# The error of one zone's lost grams once sway is taken out (crosstalk leaks a few percent of
# it into the neighbours), and how many answers per zone are combined.
ZONE_ERROR_G = 0.6
ZONE_ERROR_FRACTION = 0.15
ZONE_OPTIONS = 4
ZONE_PIECES = 6  # a zone's most recent pieces considered for a fall (64 subsets at most)
# Squared-error penalty for naming a piece the cargo list did not have on that zone
# (2 ln(odds) for a cargo list that is right about 29 times in 30).
CARGO_DOUBT = 6.8


def check_items(obj: object) -> "dict[str, float]":
    """A validated copy of an items table: item name -> grams a piece (ValueError if bad)."""
    if not isinstance(obj, dict):
        raise ValueError("items must be a JSON object of item name -> grams")
    if not obj:
        raise ValueError("items must name at least one item")
    checked: dict[str, float] = {}
    for name in obj:
        weight = obj[name]
        if not isinstance(name, str) or not name or len(name) > MAX_NAME_LENGTH:
            raise ValueError(f"item name {name!r} must be 1-{MAX_NAME_LENGTH} characters")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise ValueError(f"item {name!r}: grams must be a number, not {weight!r}")
        if weight != weight or not 0 < weight <= MAX_ITEM_GRAMS:
            raise ValueError(
                f"item {name!r}: grams must be above 0 and at most {MAX_ITEM_GRAMS:g}, "
                f"not {weight!r}"
            )
        checked[name] = float(weight)
    return checked


def weighing_error_g(grams: float) -> float:
    """The expected error (one sigma) of weighing `grams` on the ship."""
    proportional = WEIGHING_ERROR_FRACTION * grams
    return sqrt(WEIGHING_ERROR_G * WEIGHING_ERROR_G + proportional * proportional)


def _sorted_names(items: "dict[str, float] | dict[str, int]") -> "list[str]":
    names = list(items)
    names.sort()
    return names


def name_place(grams: float, items: "dict[str, float]") -> "tuple[str, bool, list[str]]":
    """(item, ambiguous, alternatives) for a piece of `grams` placed on the ship.

    `alternatives` lists the other items that fit about as well (best first); it is empty
    unless `ambiguous`. With no item within NO_MATCH_ERRORS the nearest is still named,
    flagged ambiguous.
    """
    scored = []
    for name in _sorted_names(items):
        weight = items[name]
        scored.append((abs(grams - weight) / weighing_error_g(weight), name))
    scored.sort()
    best_error, best = scored[0]
    alternatives = []
    for error, name in scored[1:]:
        if error - best_error < AMBIGUITY_MARGIN:
            alternatives.append(name)
    ambiguous = bool(alternatives) or best_error > NO_MATCH_ERRORS
    return best, ambiguous, alternatives


def place_margin(grams: float, items: "dict[str, float]") -> float:
    """Grams between `grams` and the nearest weight at which another item would be named."""
    weights = [items[name] for name in items]
    weights.sort()
    nearest = 0
    for k in range(1, len(weights)):
        if abs(weights[k] - grams) < abs(weights[nearest] - grams):
            nearest = k
    w = weights[nearest]
    far = NO_MATCH_ERRORS * weighing_error_g(w)
    below = w - far if nearest == 0 else 0.5 * (weights[nearest - 1] + w)
    above = w + far if nearest == len(weights) - 1 else 0.5 * (weights[nearest + 1] + w)
    margin = grams - below
    if above - grams < margin:
        margin = above - grams
    return margin


class Cargo:
    """What the detector believes is aboard, zone by zone (1-based): each piece's item name
    (`zones`) and, in step, the grams it weighed when it was placed (`weighed`; 0.0 when not
    weighed or named on a close call). A fall is judged against the pieces as they weighed:
    a heavy plank is still heavy when it falls, and a zone that reads 4 % light read it
    light when it came aboard too."""

    def __init__(self, n_zones: int) -> None:
        self.n_zones = n_zones
        self.zones: list[list[str]] = [[] for _ in range(n_zones + 1)]
        self.weighed: list[list[float]] = [[] for _ in range(n_zones + 1)]

    def clear(self) -> None:
        for pieces in self.zones:
            del pieces[:]
        for grams in self.weighed:
            del grams[:]

    def add(self, zone: int, item: str, grams: float = 0.0) -> None:
        self.zones[zone].append(item)
        self.weighed[zone].append(grams)

    def remove(self, zone: int, item: str) -> bool:
        """Take one `item` off `zone` (the most recently loaded one); False if none is there."""
        pieces = self.zones[zone]
        for k in range(len(pieces) - 1, -1, -1):
            if pieces[k] == item:
                del pieces[k]
                del self.weighed[zone][k]
                return True
        return False

    def move(self, source: int, target: int, item: str) -> None:
        """One `item` moved from zone `source` to `target` (a shift), with what it weighed."""
        pieces = self.zones[source]
        for k in range(len(pieces) - 1, -1, -1):
            if pieces[k] == item:
                del pieces[k]
                self.add(target, item, self.weighed[source].pop(k))
                return

    def weighed_g(self, zone: int, k: int, items: "dict[str, float]") -> float:
        """The grams of the `k`-th piece on `zone`: as weighed when placed, unless that is no
        plausible weight for its item (not weighed, or weighed with a hand on it): then the
        item's calibrated weight."""
        nominal = items[self.zones[zone][k]]
        grams = self.weighed[zone][k]
        if abs(grams - nominal) > NO_MATCH_ERRORS * weighing_error_g(nominal):
            return nominal
        return grams

    def count(self) -> int:
        return sum(len(pieces) for pieces in self.zones)

    def counts_by_item(self) -> "dict[str, int]":
        counts: dict[str, int] = {}
        for pieces in self.zones:
            for item in pieces:
                counts[item] = counts.get(item, 0) + 1
        return counts

    def as_dict(self) -> "dict[int, list[str]]":
        """{zone: [items]} for zones holding something."""
        out: dict[int, list[str]] = {}
        for zone in range(1, self.n_zones + 1):
            if self.zones[zone]:
                out[zone] = list(self.zones[zone])
        return out


def _multisets(names: "list[str]", limits: "list[int]", max_size: int) -> "Iterator[list[int]]":
    """Yield every non-empty multiset of `names` (a list of counts) within `limits`."""
    n = len(names)
    counts = [0] * n

    def walk(index: int, size: int) -> "Iterator[list[int]]":
        if index == n:
            if size:
                yield list(counts)
            return
        top = limits[index]
        if top > max_size - size:
            top = max_size - size
        for c in range(top + 1):
            counts[index] = c
            yield from walk(index + 1, size + c)
        counts[index] = 0

    yield from walk(0, 0)


def name_fall(
    grams: float,
    items: "dict[str, float]",
    aboard_counts: "dict[str, int] | None" = None,
    zone_losses: "dict[int, float] | None" = None,
    cargo: "Cargo | None" = None,
) -> "tuple[list[str], bool, list[list[str]]]":
    """(pieces, ambiguous, alternatives) for `grams` that left the ship.

    With `cargo` (what is aboard, zone by zone) and `zone_losses` ({zone: grams lost}),
    each losing zone's loss is matched by pieces that were on that zone, and the sum by the
    total: pieces of equal total weight are told apart by where they were. Otherwise, or if
    nothing aboard fits, the pieces are chosen among `aboard_counts` ({item: pieces
    aboard}) and then among any pieces. `pieces` is a sorted list of item names;
    `alternatives` a list of such lists.
    """
    candidates: list[tuple[float, list[str]]] = []
    by_zone: Cargo | None = None  # the cargo the candidates were built from, zone by zone
    if zone_losses and cargo is not None:
        candidates = _by_zone(grams, items, zone_losses, cargo, True)
        if candidates and candidates[0][0] <= NO_MATCH_ERRORS:
            by_zone = cargo
        else:
            candidates = []
    names = _sorted_names(items)
    if not candidates and aboard_counts:
        limits = [aboard_counts.get(name, 0) for name in names]
        candidates = _score_sets(grams, items, names, limits, zone_losses, cargo)
        if candidates and candidates[0][0] > NO_MATCH_ERRORS:
            candidates = []  # nothing aboard fits: the detector's cargo list must be off
    if not candidates:
        limits = [MAX_PIECES_IN_A_FALL] * len(names)
        candidates = _score_sets(grams, items, names, limits, None, None)
    best_error, best = candidates[0]
    alternatives = []
    for error, pieces in candidates[1:4]:
        if error - best_error < AMBIGUITY_MARGIN:
            alternatives.append(pieces)
    if by_zone is not None and zone_losses and not alternatives:
        # what the pieces weighed tells which of them fell; that they are the kinds the list
        # says is as sure as their weight against the items' weights: close to another set
        # by those, the fall is a close call too
        plain = _by_zone(grams, items, zone_losses, by_zone, False)
        for error, pieces in plain[:4]:
            if error - plain[0][0] < AMBIGUITY_MARGIN and pieces != best:
                alternatives.append(pieces)
    ambiguous = bool(alternatives) or best_error > NO_MATCH_ERRORS
    return best, ambiguous, alternatives


def zone_error_g(grams: float) -> float:
    """The expected error (one sigma) of the grams lost by one zone, seen through sway."""
    proportional = ZONE_ERROR_FRACTION * grams
    return sqrt(ZONE_ERROR_G * ZONE_ERROR_G + proportional * proportional)


def _zone_subsets(
    cargo: Cargo, zone: int, items: "dict[str, float]", loss: float, error: float, weighed: bool
) -> "list[tuple[float, list[str], float]]":
    """(squared miss, sorted names, grams) for the sub-multisets of a zone's pieces (the
    empty one too), each kind's pieces chosen to fit the zone's `loss` best; a piece weighs
    what it `weighed` when placed, else its item's weight; the most recent ZONE_PIECES
    pieces only (bounded work)."""
    aboard = cargo.zones[zone]
    first = len(aboard) - ZONE_PIECES if len(aboard) > ZONE_PIECES else 0
    n = len(aboard) - first
    if weighed:
        grams = [cargo.weighed_g(zone, first + j, items) for j in range(n)]
    else:
        grams = [items[aboard[first + j]] for j in range(n)]
    best: dict[str, tuple[float, list[str], float]] = {}
    for mask in range(1 << n):
        names = []
        weight = 0.0
        for j in range(n):
            if mask >> j & 1:
                names.append(aboard[first + j])
                weight += grams[j]
        if len(names) > MAX_PIECES_IN_A_FALL:
            continue
        names.sort()
        miss = (loss - weight) / error
        key = ",".join(names)
        if key not in best or miss * miss < best[key][0]:
            best[key] = (miss * miss, names, weight)
    return [best[key] for key in best]


def _by_zone(
    grams: float,
    items: "dict[str, float]",
    zone_losses: "dict[int, float]",
    cargo: Cargo,
    weighed: bool,
) -> "list[tuple[float, list[str]]]":
    """Candidate sets built zone by zone from the cargo, scored on each zone and the total
    (the pieces as they `weighed` when placed, else by their items' weights)."""
    per_zone = []
    for zone in sorted(zone_losses):
        loss = zone_losses[zone]
        error = zone_error_g(loss if loss > 0 else 0.0)
        options = _zone_subsets(cargo, zone, items, loss, error, weighed)
        aboard = cargo.zones[zone]
        # the cargo list is a belief: one piece of another kind may have been there instead
        for name in _sorted_names(items):
            if name not in aboard:
                miss = (loss - items[name]) / error
                options.append((miss * miss + CARGO_DOUBT, [name], items[name]))
        options.sort()
        per_zone.append(options[:ZONE_OPTIONS])
    scored: dict[str, tuple[float, list[str]]] = {}
    combos: list[tuple[float, list[str], float]] = [(0.0, [], 0.0)]
    for options in per_zone:
        combos = [
            (a + b, pieces + subset, w + v) for a, pieces, w in combos for b, subset, v in options
        ]
    for zone_score, pieces, total in combos:
        if not pieces or len(pieces) > MAX_PIECES_IN_A_FALL:
            continue
        miss = (grams - total) / weighing_error_g(total)
        error = sqrt(miss * miss + zone_score) + 0.25 * (len(pieces) - 1)
        pieces = sorted(pieces)
        key = ",".join(pieces)
        if key not in scored or error < scored[key][0]:
            scored[key] = (error, pieces)
    out = [scored[key] for key in scored]
    out.sort()
    return out


def _score_sets(
    grams: float,
    items: "dict[str, float]",
    names: "list[str]",
    limits: "list[int]",
    zone_losses: "dict[int, float] | None",
    cargo: "Cargo | None",
) -> "list[tuple[float, list[str]]]":
    scored: list[tuple[float, list[str]]] = []
    for counts in _multisets(names, limits, MAX_PIECES_IN_A_FALL):
        total = 0.0
        pieces = []
        for k in range(len(names)):
            if counts[k]:
                total += counts[k] * items[names[k]]
                pieces.extend([names[k]] * counts[k])
        error = abs(grams - total) / weighing_error_g(total)
        # a set of many pieces that happens to add up is less likely than a few pieces
        error += 0.25 * (len(pieces) - 1)
        if zone_losses and cargo is not None:
            error += _zone_misfit(pieces, zone_losses, cargo, items)
        scored.append((error, pieces))
    scored.sort()  # (error, sorted names) is a total order: the same on every Python
    return scored


def _zone_misfit(
    pieces: "list[str]", zone_losses: "dict[int, float]", cargo: Cargo, items: "dict[str, float]"
) -> float:
    """A penalty when the pieces cannot have come from the zones that lost weight."""
    available: dict[str, int] = {}
    for zone in zone_losses:
        for item in cargo.zones[zone]:
            available[item] = available.get(item, 0) + 1
    missing = 0.0
    for item in pieces:
        if available.get(item, 0) > 0:
            available[item] -= 1
        else:
            missing += 1.0
    return missing
