"""The ship's sensors: eleven HX711 load-cell channels (ten zones and the mat) and the piezo.

HX711 (datasheet): each output averages the input over its conversion period, and its
digital filter needs four output periods to settle after a step (50 ms at 80 SPS, 400 ms
at 10 SPS). Modelled as a [1, 11, 11, 1]/24 filter over the last four period averages (a
cubic B-spline, the shape of a sinc^4 decimator's step response). Output-referred white
noise, single-sample glitches (a disturbed serial read), creep (the cell's reading rises
towards `creep_fraction` of its load with `creep_tau_s`) and thermal drift (a slow sine that
starts at the channel's rate) come on top.

The zoo's effects (off by default): a first-order lag behind the filter (`settle_lag_periods`,
a slow input or cell), and each channel's calibration off by a factor (`calibration`).
"""

from __future__ import annotations

import math
import random

from bosun.sim.params import SensorParams

FILTER_TAPS = (1.0 / 24.0, 11.0 / 24.0, 11.0 / 24.0, 1.0 / 24.0)  # newest first
CHANNELS = 11


class LoadCellBank:
    """All eleven load-cell channels; `read()` turns period-averaged forces into readings."""

    def __init__(self, params: SensorParams, has_mat: bool, rng: random.Random):
        self.params = params
        self.rng = rng
        self.noise = list(params.noise_g_rms)
        period_us = max(params.drift_period_min, 1e-3) * 60e6
        self.drift_omega_per_us = 2.0 * math.pi / period_us
        # amplitude of the drift sine whose slope at t = 0 is the channel's rate
        self.drift_amplitude_g = [
            d / 60e6 / self.drift_omega_per_us for d in params.drift_g_per_min
        ]
        self.channels_fitted = CHANNELS if has_mat else CHANNELS - 1
        self.history: list[list[float]] = []  # newest first, four period averages
        self.creep = [0.0] * CHANNELS
        self.creep_tau_us = max(params.creep_tau_s, 1e-3) * 1e6
        self.glitches = 0  # count, for tests and reports
        self.lagged: list[float] = []  # the lag's output, per channel (settled at power-up)
        # A lag with time constant tau leaves e^-(t / tau) of a step: 1 % at tau x ln 100.
        self.lag_tau_periods = params.settle_lag_periods / math.log(100.0)
        self.calibration = None if set(params.calibration) == {1.0} else params.calibration

    def read(self, averaged_g: list[float], t_us: int, span_us: int) -> list[float]:
        """Readings at `t_us` (grams, 11 channels) from the forces averaged over `span_us`."""
        history = self.history
        first = not history
        if first:
            history.extend([averaged_g] * 4)  # powered up long before: filter settled
        else:
            history.insert(0, averaged_g)
            history.pop()
        h0, h1, h2, h3 = history
        a, b = FILTER_TAPS[0], FILTER_TAPS[1]
        out = [a * (h0[i] + h3[i]) + b * (h1[i] + h2[i]) for i in range(CHANNELS)]
        if self.lag_tau_periods:
            out = self._lag(out, first)

        creep_fraction = self.params.creep_fraction
        if creep_fraction:
            if first:  # what was aboard before power-up has crept long ago
                self.creep = [creep_fraction * value for value in out]
            keep = math.exp(-span_us / self.creep_tau_us)
            creep = self.creep
            for i in range(CHANNELS):
                target = creep_fraction * out[i]
                creep[i] = target + (creep[i] - target) * keep
                out[i] += creep[i]
        calibration = self.calibration
        if calibration is not None:
            out = [value * factor for value, factor in zip(out, calibration, strict=True)]

        gauss = self.rng.gauss
        noise, drift = self.noise, self.drift_amplitude_g
        wander = math.sin(self.drift_omega_per_us * t_us)
        for i in range(CHANNELS):
            if drift[i]:
                out[i] += drift[i] * wander
            if noise[i]:
                out[i] += gauss(0.0, noise[i])

        glitch_per_min = self.params.glitch_per_min
        if glitch_per_min and self.rng.random() < glitch_per_min * span_us / 60e6:
            channel = self.rng.randrange(self.channels_fitted)
            size = self.rng.uniform(*self.params.glitch_g)
            out[channel] += size if self.rng.random() < 0.5 else -size
            self.glitches += 1
        return out

    def _lag(self, filtered: list[float], first: bool) -> list[float]:
        """The first-order lag after the HX711's filter, one conversion period on."""
        if first:
            self.lagged = list(filtered)
            return filtered
        keep = math.exp(-1.0 / self.lag_tau_periods)
        lagged = self.lagged
        for i in range(CHANNELS):
            lagged[i] = filtered[i] + (lagged[i] - filtered[i]) * keep
        return list(lagged)


class Piezo:
    """The table's piezo and comparator: the firmware latches a pulse until the next sample.

    With ringing (`ring_decay_ms` above 0) a strike of `strength` times the comparator's
    threshold rings on at `ring_hz`, and every swing still above the threshold trips it again.
    """

    MAX_SWINGS = 1000

    def __init__(self, ring_hz: float = 100.0, ring_decay_ms: float = 0.0) -> None:
        self.pending_us: list[int] = []
        self.ring_period_us = 1e6 / ring_hz
        self.ring_tau_us = ring_decay_ms * 1e3

    def hit(self, t_us: int, strength: float = 1.0) -> None:
        """A strike at `t_us`, `strength` times what the comparator needs (at least 1)."""
        self.pending_us.append(t_us)
        if self.ring_tau_us > 0.0 and strength > 1.0:
            # the envelope strength x e^(-t / tau) stays above the threshold this long
            ringing_us = self.ring_tau_us * math.log(strength)
            swings = min(int(ringing_us / self.ring_period_us), self.MAX_SWINGS)
            self.pending_us += [t_us + round(k * self.ring_period_us) for k in range(1, swings + 1)]
        self.pending_us.sort()

    def read(self, after_us: int, until_us: int) -> int:
        """1 if an impact happened in (after_us, until_us], else 0; forgets those."""
        fired = 0
        pending = self.pending_us
        while pending and pending[0] <= until_us:
            if pending.pop(0) > after_us:
                fired = 1
        return fired
