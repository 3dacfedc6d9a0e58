"""The ship's sensors: eleven HX711 load-cell channels (ten zones and the mat) and the piezo.

HX711 (datasheet): each output averages the input over its conversion period, and its
digital filter needs four output periods to settle after a step (50 ms at 80 SPS, 400 ms
at 10 SPS). Modelled as a [1, 11, 11, 1]/24 filter over the last four period averages (a
cubic B-spline, the shape of a sinc^4 decimator's step response). Output-referred white
noise, single-sample glitches (a disturbed serial read), creep (the cell's reading rises
towards `creep_fraction` of its load with `creep_tau_s`) and thermal drift (a slow sine that
starts at the channel's rate) come on top.

The zoo's effects (off by default): a first-order lag behind the filter (`settle_lag_periods`,
a slow input or cell), and each channel's calibration off by a factor (`calibration`). The
`wear` family's (off by default, drawn from their own random stream): the first readings after
power-up far off and settling in (`power_up_error_g`, `power_up_settle_ms`), a zone's zero
stepping when its cell is knocked (`zero_step_per_min`, `zero_step_g`; at the cell, so the
filter smooths the step), each channel's gain drifting (`gain_drift` over `gain_drift_s`), and
the piezo saturating after a hard strike (`piezo_saturate_strength`, `piezo_latch_ms`).
"""

from __future__ import annotations

import math
import random

from bosun.sim.params import SensorParams

FILTER_TAPS = (1.0 / 24.0, 11.0 / 24.0, 11.0 / 24.0, 1.0 / 24.0)  # newest first
CHANNELS = 11


class LoadCellBank:
    """All eleven load-cell channels; `read()` turns period-averaged forces into readings."""

    def __init__(
        self,
        params: SensorParams,
        has_mat: bool,
        rng: random.Random,
        wear_rng: random.Random | None = None,
    ):
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
        self.wear = None if wear_rng is None else SensorWear(params, wear_rng, self.channels_fitted)

    def read(self, averaged_g: list[float], t_us: int, span_us: int) -> list[float]:
        """Readings at `t_us` (grams, 11 channels) from the forces averaged over `span_us`."""
        history = self.history
        first = not history
        if self.wear is not None:
            averaged_g = self.wear.at_the_cells(averaged_g, t_us, span_us)
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
        if self.wear is not None:
            self.wear.at_the_output(out, t_us)

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


class SensorWear:
    """The `wear` family's load-cell effects: zero steps at the cells, gain drift and the
    power-up error at the output. Only built for a ship that has them, with its own stream."""

    def __init__(self, params: SensorParams, rng: random.Random, channels_fitted: int):
        self.params = params
        self.rng = rng
        self.zero_g = [0.0] * CHANNELS  # each cell's zero, moved by the steps so far
        self.zero_steps: list[tuple[int, int, float]] = []  # (t_us, zone 1-10, grams)
        self.channels_fitted = channels_fitted
        settle_us = params.power_up_settle_ms * 1e3
        self.settle_us = settle_us
        # e^-(t / tau) takes each error down to 10 mg (below any cell's noise) by settle_us
        self.power_up_tau_us = [
            settle_us / math.log(abs(e) / 0.01) if abs(e) > 0.01 else 0.0
            for e in params.power_up_error_g
        ]

    def at_the_cells(self, averaged_g: list[float], t_us: int, span_us: int) -> list[float]:
        """The forces as the cells feel them: a zone's zero steps now and then (a knock)."""
        params = self.params
        rate = params.zero_step_per_min
        stepped = None
        if rate and self.rng.random() < rate * span_us / 60e6:
            zone = self.rng.randrange(1, 11)
            size = self.rng.uniform(*params.zero_step_g) * self.rng.choice((-1.0, 1.0))
            after_us = self.rng.randrange(max(span_us, 1))  # into this conversion period
            self.zero_steps.append((t_us - span_us + after_us, zone, size))
            stepped = (zone - 1, size, 1.0 - after_us / max(span_us, 1))
        if not self.zero_steps:
            return averaged_g
        out = [value + zero for value, zero in zip(averaged_g, self.zero_g, strict=True)]
        if stepped is not None:  # the period averages the new zero over its part after the step
            channel, size, part = stepped
            out[channel] += size * part
            self.zero_g[channel] += size
        return out

    def at_the_output(self, out: list[float], t_us: int) -> None:
        """Gain drift and the power-up error on the filtered readings, in place."""
        params = self.params
        share = min(t_us / (params.gain_drift_s * 1e6), 1.0)
        # smooth in and out (a cell warming), 0 at power-up and its full drift at gain_drift_s
        share = share * share * (3.0 - 2.0 * share)
        for i, drift in enumerate(params.gain_drift):
            if drift:
                out[i] *= 1.0 + drift * share
        if t_us < self.settle_us:
            for i in range(self.channels_fitted):
                tau_us = self.power_up_tau_us[i]
                if tau_us:
                    out[i] += params.power_up_error_g[i] * math.exp(-t_us / tau_us)


class Piezo:
    """The table's piezo and comparator: the firmware latches a pulse until the next sample.

    With ringing (`ring_decay_ms` above 0) a strike of `strength` times the comparator's
    threshold rings on at `ring_hz`, and every swing still above the threshold trips it again.
    """

    MAX_SWINGS = 1000

    def __init__(
        self,
        ring_hz: float = 100.0,
        ring_decay_ms: float = 0.0,
        saturate_strength: float = 0.0,
        latch_ms: tuple[float, float] = (50.0, 300.0),
        rng: random.Random | None = None,
    ) -> None:
        self.pending_us: list[int] = []
        self.ring_period_us = 1e6 / ring_hz
        self.ring_tau_us = ring_decay_ms * 1e3
        # A saturated piezo's comparator stays high (the `wear` family): strikes this strong
        # latch it for a time drawn from latch_ms, and strikes meanwhile are not heard apart.
        self.saturate_strength = saturate_strength
        self.latch_ms = latch_ms
        self.rng = rng
        self.latches: list[tuple[int, int]] = []  # (from_us, until_us), still to be read
        self.latched: list[tuple[int, int]] = []  # every latch so far, for tests and reports

    def hit(self, t_us: int, strength: float = 1.0) -> None:
        """A strike at `t_us`, `strength` times what the comparator needs (at least 1)."""
        if self.saturate_strength and strength >= self.saturate_strength and self.rng:
            until_us = t_us + round(self.rng.uniform(*self.latch_ms) * 1e3)
            self.latches.append((t_us, until_us))
            self.latched.append((t_us, until_us))
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
        if self.latches:
            # the output is high at any moment of (after_us, until_us] within a latch
            fired |= any(start <= until_us and end > after_us for start, end in self.latches)
            self.latches = [latch for latch in self.latches if latch[1] > until_us]
        return fired
