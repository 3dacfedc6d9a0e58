"""Force shapes over time: weight ramps, hand pulses, damped rings, and the ship's sway.

Times are integer microseconds. Every shape is evaluated at non-decreasing times only, so
finished shapes can be folded away; nothing accumulates floats over a long session.
"""

from __future__ import annotations

import cmath
import math
from dataclasses import dataclass

TWO_PI = 2.0 * math.pi


@dataclass(slots=True)
class Ramp:
    """A lasting change of load on one channel, linear from `t0_us` to `t1_us`."""

    channel: int
    t0_us: int
    t1_us: int
    delta_g: float

    def at(self, t_us: int) -> float:
        if t_us >= self.t1_us:
            return self.delta_g
        if t_us <= self.t0_us:
            return 0.0
        return self.delta_g * (t_us - self.t0_us) / (self.t1_us - self.t0_us)


class Pulse:
    """A hand's push on one channel: smooth rise, hold with a little tremor, smooth release."""

    __slots__ = ("channel", "t0_us", "t1_us", "peak_g", "rise_us", "fall_start_us", "fall_us")
    TREMOR_HZ = 9.0  # physiological hand tremor, 8-12 Hz
    TREMOR_FRACTION = 0.04

    def __init__(
        self, channel: int, t0_us: int, rise_us: int, hold_us: int, fall_us: int, peak_g: float
    ):
        self.channel = channel
        self.t0_us = t0_us
        self.rise_us = max(rise_us, 1)
        self.fall_us = max(fall_us, 1)
        self.fall_start_us = t0_us + self.rise_us + max(hold_us, 0)
        self.t1_us = self.fall_start_us + self.fall_us
        self.peak_g = peak_g

    def at(self, t_us: int) -> float:
        if t_us <= self.t0_us or t_us >= self.t1_us:
            return 0.0
        since_us = t_us - self.t0_us
        if since_us < self.rise_us:
            envelope = 0.5 - 0.5 * math.cos(math.pi * since_us / self.rise_us)
        elif t_us < self.fall_start_us:
            envelope = 1.0
        else:
            envelope = 0.5 + 0.5 * math.cos(math.pi * (t_us - self.fall_start_us) / self.fall_us)
        tremor = self.TREMOR_FRACTION * math.sin(TWO_PI * self.TREMOR_HZ * since_us * 1e-6)
        return self.peak_g * envelope * (1.0 + tremor)


class DampedSine:
    """A decaying oscillation on one channel: a released piece ringing, an impact, a ripple."""

    __slots__ = ("channel", "t0_us", "t1_us", "amplitude_g", "omega_per_us", "tau_us")

    def __init__(self, channel: int, t0_us: int, amplitude_g: float, hz: float, tau_us: int):
        self.channel = channel
        self.t0_us = t0_us
        self.tau_us = max(tau_us, 1)
        self.t1_us = t0_us + 6 * self.tau_us  # e^-6: below a quarter percent
        self.amplitude_g = amplitude_g
        self.omega_per_us = TWO_PI * hz * 1e-6

    def at(self, t_us: int) -> float:
        if t_us <= self.t0_us or t_us >= self.t1_us:
            return 0.0
        since_us = t_us - self.t0_us
        return (
            self.amplitude_g
            * math.exp(-since_us / self.tau_us)
            * math.sin(self.omega_per_us * since_us)
        )


class Sway:
    """The ship rocking on its ball joint: two damped modes (roll, pitch) over zone levers.

    Each zone reads `roll(t) * lever_x + pitch(t) * lever_y`; the levers of all ten zones sum
    to zero per mode, so sway only moves load between zones, except a small common `bob`.
    A disturbance is an impulse (grams, signed) at a zone; it starts each mode like a sine
    (no jump) with an amplitude in proportion to the zone's lever in that mode.
    """

    def __init__(
        self,
        levers: list[tuple[float, float]],
        hz: tuple[float, float],
        decay_s: float,
        g_per_g: float,
        max_g: float,
        vertical_fraction: float,
    ):
        self.levers_x = [lever[0] for lever in levers]
        self.levers_y = [lever[1] for lever in levers]
        decay_per_us = 1.0 / (max(decay_s, 1e-3) * 1e6)
        self.lambdas = [complex(-decay_per_us, TWO_PI * f * 1e-6) for f in hz]
        self.g_per_g = g_per_g
        # Cap each mode so that no zone sways by more than max_g (hull zones see both modes).
        widest = max(abs(x) + abs(y) for x, y in levers)
        self.max_mode_g = max_g / widest
        self.vertical_fraction = vertical_fraction
        self.amplitudes = [0j, 0j]
        self.ref_us = [0, 0]
        self.pending: list[tuple[int, float, float]] = []  # (t_us, grams roll, grams pitch)

    def impulse(self, t_us: int, zone: int, grams: float) -> None:
        """A sudden load change of `grams` at `zone` (1-10) at `t_us`."""
        if self.g_per_g == 0.0 or grams == 0.0:
            return
        scaled = grams * self.g_per_g
        self.push(t_us, scaled * self.levers_x[zone - 1], scaled * self.levers_y[zone - 1])

    def push(self, t_us: int, roll_g: float, pitch_g: float) -> None:
        """A disturbance with given mode amplitudes (a knock on the table has no zone)."""
        self.pending.append((t_us, roll_g, pitch_g))
        self.pending.sort(key=lambda p: p[0])

    def _fold_due(self, t_us: int, state: tuple[list[complex], list[int]]) -> None:
        amplitudes, refs = state
        pending = self.pending
        while pending and pending[0][0] <= t_us:
            at_us, roll_g, pitch_g = pending.pop(0)
            for mode, kick in ((0, roll_g), (1, pitch_g)):
                current = amplitudes[mode]
                if current:
                    current *= cmath.exp(self.lambdas[mode] * (at_us - refs[mode]))
                current += -1j * kick  # Re(-i k e^{i w t}) = k sin(w t): starts at zero
                if abs(current) > self.max_mode_g:
                    current *= self.max_mode_g / abs(current)
                amplitudes[mode] = current
                refs[mode] = at_us

    def add_to(self, zones_g: list[float], t_us: int, peek: bool = False) -> None:
        """Add the sway at `t_us` to the ten zone readings in place.

        Times must not go back, except with `peek`, which changes nothing.
        """
        amplitudes, refs = self.amplitudes, self.ref_us
        if self.pending and self.pending[0][0] <= t_us:
            if peek:
                amplitudes, refs = list(amplitudes), list(refs)
                saved = list(self.pending)
                self._fold_due(t_us, (amplitudes, refs))
                self.pending = saved
            else:
                self._fold_due(t_us, (amplitudes, refs))
        roll_c, pitch_c = amplitudes
        if not roll_c and not pitch_c:
            return
        roll_now = roll_c * cmath.exp(self.lambdas[0] * (t_us - refs[0]))
        pitch_now = pitch_c * cmath.exp(self.lambdas[1] * (t_us - refs[1]))
        if abs(roll_now) + abs(pitch_now) < 1e-6:
            if not peek:
                self.amplitudes = [0j, 0j]  # decayed below a microgram: stop computing
            return
        roll, pitch = roll_now.real, pitch_now.real
        bob = self.vertical_fraction * (roll + pitch) * 0.1
        lx, ly = self.levers_x, self.levers_y
        for i in range(10):
            zones_g[i] += roll * lx[i] + pitch * ly[i] + bob
