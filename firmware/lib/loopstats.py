"""How well the sample loop keeps its period: cost per sample, slack, missed conversions.

Per sample the loop reports `cost_us` (reading the HX711 train, calibration, detection,
queueing events: the work that must happen every period) and `slack_us` (time spent idle
waiting for the next conversion, after the network, LED and status work of that period).
A period longer than 1.5 nominal periods is a missed conversion. `summary()` gives the
figures since the last summary for the status message and starts a new window.
"""


class LoopStats:
    """Running min/mean/max of the loop's cost and slack over a status window."""

    def __init__(self, period_us: int) -> None:
        self.period_us = period_us
        self.total_samples = 0
        self.total_missed = 0
        self._reset()

    def _reset(self) -> None:
        self.samples = 0
        self.cost_sum = 0
        self.cost_max = 0
        self.slack_sum = 0
        self.slack_min: int | None = None
        self.period_sum = 0
        self.periods = 0
        self.missed = 0

    def add(self, cost_us: int, slack_us: int, period_us: int) -> None:
        self.samples += 1
        self.total_samples += 1
        self.cost_sum += cost_us
        if cost_us > self.cost_max:
            self.cost_max = cost_us
        self.slack_sum += slack_us
        if self.slack_min is None or slack_us < self.slack_min:
            self.slack_min = slack_us
        if period_us > 0:
            self.period_sum += period_us
            self.periods += 1
            if period_us * 2 > self.period_us * 3:
                self.missed += 1
                self.total_missed += 1

    def summary(self) -> dict:
        n = self.samples or 1
        result = {
            "samples": self.samples,
            "nominal_period_ms": self.period_us / 1000,
            "period_ms_mean": round(self.period_sum / (self.periods or 1) / 1000, 3),
            "sample_cost_us_mean": self.cost_sum // n,
            "sample_cost_us_max": self.cost_max,
            "slack_ms_mean": round(self.slack_sum / n / 1000, 3),
            "slack_ms_min": round((self.slack_min or 0) / 1000, 3),
            "missed_conversions": self.missed,
            "missed_total": self.total_missed,
        }
        self._reset()
        return result
