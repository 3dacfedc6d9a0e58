"""The ship's sway on its ball joint, learned at rest so that events can be seen through it.

A rocking ship moves load between zones in two patterns, roll (port against starboard) and
pitch (fore against aft), each a fixed vector over the zones times a decaying oscillation.
`SwayModel` learns those two vectors from how the zones move while nothing happens (the
covariance of short-term zone changes, refreshed by power iteration), starting from the
layout's signs (RR1 zones: 1 fore-port, 2 fore-starboard, 3 aft-port, 4 aft-starboard;
odd yard zones port, even starboard). `project_out(v)` removes any sway from a vector of
zone changes, so what remains is what pieces did.
"""

from math import sqrt

# The layout's prior: roll and pitch lever signs per zone (1-based zones 1..10).
ROLL_SIGNS = (-1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0)
PITCH_SIGNS = (1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
PRIOR_G2 = 0.02  # how strongly the prior holds, in g^2 of sway variance (a few seconds' worth)
MODES = 2


def _normalise(v: "list[float]") -> bool:
    s = 0.0
    for x in v:
        s += x * x
    if s <= 0.0:
        return False
    s = 1.0 / sqrt(s)
    for i in range(len(v)):
        v[i] *= s
    return True


class SwayModel:
    """Two learned sway modes over `n_zones` zones; see the module docstring."""

    def __init__(self, n_zones: int, alpha: float) -> None:
        n = n_zones
        self.n = n
        self.alpha = alpha  # weight of one learning sample
        self.cov = [[0.0] * n for _ in range(n)]  # symmetric; only i <= j is kept up to date
        self.modes: list[list[float]] = []
        for signs in (ROLL_SIGNS, PITCH_SIGNS):
            mode = [signs[i] if i < len(signs) else 0.0 for i in range(n)]
            if not _normalise(mode):
                mode = [0.0] * n
            self.modes.append(mode)
        self._orthonormalise()
        for mode in self.modes:
            for i in range(n):
                for j in range(i, n):
                    self.cov[i][j] += PRIOR_G2 * mode[i] * mode[j]
        self.learned = 0
        self._refresh_diag()

    def learn(self, change: "list[float]") -> None:
        """Fold one vector of short-term zone changes (grams, sway only) into the covariance."""
        a = self.alpha
        keep = 1.0 - a
        n = self.n
        cov = self.cov
        for i in range(n):
            ci = change[i] * a
            row = cov[i]
            for j in range(i, n):
                row[j] = row[j] * keep + ci * change[j]
        self.learned += 1

    def refresh(self) -> None:
        """One power-iteration step for the two modes (cheap; call now and then)."""
        n = self.n
        cov = self.cov
        new = []
        for mode in self.modes:
            out = [0.0] * n
            for i in range(n):
                s = 0.0
                row = cov[i]
                for j in range(n):
                    s += (row[j] if j >= i else cov[j][i]) * mode[j]
                out[i] = s
            new.append(out)
        self.modes = new
        self._orthonormalise()
        self._refresh_diag()

    def _orthonormalise(self) -> None:
        first = self.modes[0]
        _normalise(first)
        second = self.modes[1]
        dot = 0.0
        for i in range(self.n):
            dot += first[i] * second[i]
        for i in range(self.n):
            second[i] -= dot * first[i]
        if not _normalise(second):
            self.modes[1] = [0.0] * self.n

    def _refresh_diag(self) -> None:
        # how much of a lone change on zone i survives projecting out the sway
        self.keep_diag = []
        for i in range(self.n):
            s = 1.0
            for mode in self.modes:
                s -= mode[i] * mode[i]
            self.keep_diag.append(s if s > 0.05 else 0.05)

    def project_out(self, v: "list[float]") -> "list[float]":
        """`v` (zone grams) with its sway components removed (a new list)."""
        out = list(v)
        n = self.n
        for mode in self.modes:
            dot = 0.0
            for i in range(n):
                dot += mode[i] * v[i]
            for i in range(n):
                out[i] -= dot * mode[i]
        return out

    def transfer(self, projected: "list[float]", source: int, target: int) -> "tuple":
        """(grams, fit) of `grams` moved from zone `source` to `target` (0-based) explaining
        a change whose sway was projected out (`projected`): the least-squares amount, and how
        much of the change it explains (grams squared). Judged as a pair, a move fore or aft
        along the deck is told from pitch, which alone shifts load between those zones."""
        # u = e_target - e_source; what survives of u once sway is projected out is u minus
        # its modes' parts, so u . P(u) = 2 - sum over modes of (mode_t - mode_s)^2
        kept = 2.0
        for mode in self.modes:
            d = mode[target] - mode[source]
            kept -= d * d
        if kept < 0.05:
            kept = 0.05
        along = projected[target] - projected[source]
        return along / kept, along * along / kept

    def zone_scores(self, v: "list[float]") -> "list[float]":
        """Per zone: how well a lone change on that zone explains `v` once sway is removed.

        The least-squares amplitude of a single-zone change after projecting out sway,
        scaled by the square root of what survives the projection (a matched filter).
        """
        projected = self.project_out(v)
        scores = []
        for i in range(self.n):
            scores.append(projected[i] / sqrt(self.keep_diag[i]))
        return scores

    def changed_zones(self, v: "list[float]", floor: float, most: int = 3) -> "list[int]":
        """Zones (0-based) that explain `v` once sway is removed, greedily, strongest first.

        Each step takes the zone whose lone change fits the rest best (a matched filter),
        and stops when its least-squares amplitude falls below `floor` grams.
        """
        rest = self.project_out(v)
        n = self.n
        zones = []
        for _ in range(most):
            best = -1
            best_score = 0.0
            for i in range(n):
                if i in zones:
                    continue
                score = rest[i] / sqrt(self.keep_diag[i])
                if score > best_score:
                    best_score = score
                    best = i
            if best < 0:
                break
            amplitude = rest[best] / self.keep_diag[best]
            if amplitude < floor:
                break
            zones.append(best)
            # take that zone's change out: amplitude times the projected unit change
            column = [0.0] * n
            column[best] = 1.0
            column = self.project_out(column)
            for i in range(n):
                rest[i] -= amplitude * column[i]
        return zones

    def zone_amplitudes(self, v: "list[float]", zones: "list[int]") -> "list[float]":
        """Least-squares grams on each of `zones` (0-based) explaining `v`, sway removed."""
        m = len(zones)
        if not m:
            return []
        rest = self.project_out(v)
        columns = []
        for z in zones:
            unit = [0.0] * self.n
            unit[z] = 1.0
            columns.append(self.project_out(unit))
        # normal equations: (columns . columns) a = columns . rest, solved by elimination
        a = [[0.0] * (m + 1) for _ in range(m)]
        for r in range(m):
            for c in range(m):
                a[r][c] = columns[r][zones[c]]
            a[r][m] = rest[zones[r]]
        for col in range(m):
            pivot = col
            for r in range(col + 1, m):
                if abs(a[r][col]) > abs(a[pivot][col]):
                    pivot = r
            a[col], a[pivot] = a[pivot], a[col]
            if abs(a[col][col]) < 1e-9:
                return [rest[z] for z in zones]
            for r in range(m):
                if r != col:
                    f = a[r][col] / a[col][col]
                    for c in range(col, m + 1):
                        a[r][c] -= f * a[col][c]
        return [a[r][m] / a[r][r] for r in range(m)]
