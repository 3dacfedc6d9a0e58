"""The other ship's physics: a rigid hull on a ball joint, ten springy cells, a mat, a piezo.

`simulate` turns a `Plan` (the forces hands and pieces apply, the impulses of impacts and
knocks) into what the sensors report, in three stages:

1. Mechanics on a fine clock (3 substeps a sample at 80 SPS, 20 at 10 SPS). Each zone's
   frame is a damped spring between the applied force and its cell (deck stiff, yards
   springy). The hull rocks about two axes as a damped oscillator pulled towards the tilt
   its off-centre load asks for; a zone's vertical acceleration (lever x angular
   acceleration) scales what its cell feels, including the tared platform on it, and the
   lateral acceleration at the zone's height leaks in through the cell's cross-axis
   sensitivity (so the high yards feel the rocking most). The mat is one more oscillator.
2. HX711 conversion: each chip has its own phase; a sample is the mean of the force over its
   conversion period (so a step shows partly in the first sample), then crosstalk from
   neighbouring cells, the zone's scale as calibrated (params.calibrate) with its gain
   error, zero drift, white noise and rare glitches.
3. The piezo: a comparator with a one-shot, tripped by impacts above a threshold.

Every oscillator is advanced with its exact solution over a step (zero-order-hold input),
so a coarse step stays stable and an impulse is a jump in velocity.
"""

import math
import random
from dataclasses import dataclass, field

from .loads import Channel
from .params import ZONES, ShipParams

GRAVITY_CM_S2 = 981.0


class Resonator:
    """x'' + 2 zeta w x' + w^2 x = w^2 u, advanced exactly over a fixed step dt_s."""

    __slots__ = ("x", "v", "w2", "sigma", "decay", "cos_wd", "sin_wd_over_wd", "wd_sin")

    def __init__(self, f_hz: float, zeta: float, dt_s: float, x0: float = 0.0):
        omega = 2 * math.pi * f_hz
        zeta = min(zeta, 0.95)
        wd = omega * math.sqrt(1 - zeta * zeta)
        self.x, self.v = x0, 0.0
        self.w2 = omega * omega
        self.sigma = zeta * omega
        self.decay = math.exp(-self.sigma * dt_s)
        self.cos_wd = math.cos(wd * dt_s)
        self.sin_wd_over_wd = math.sin(wd * dt_s) / wd
        self.wd_sin = math.sin(wd * dt_s) * wd

    def step(self, u: float) -> float:
        e0, v0 = self.x - u, self.v
        sigma, k = self.sigma, self.decay
        c, s_over = self.cos_wd, self.sin_wd_over_wd
        self.x = u + k * (e0 * c + (v0 + sigma * e0) * s_over)
        self.v = k * (v0 * c - (self.w2 * e0 + sigma * v0) * s_over)
        return self.x

    def accel(self, u: float) -> float:
        return self.w2 * (u - self.x) - 2 * self.sigma * self.v

    def kick(self, impulse: float) -> None:
        """An impulse of the input (u times seconds) arriving faster than one step."""
        self.v += self.w2 * impulse


@dataclass
class Plan:
    """Everything the session does to the hardware; times in trace ms."""

    zones: dict[int, Channel] = field(default_factory=lambda: {z: Channel() for z in ZONES})
    mat: Channel = field(default_factory=Channel)
    zone_kicks: list[tuple[float, int, float]] = field(default_factory=list)  # g*s
    mat_kicks: list[tuple[float, float]] = field(default_factory=list)  # g*s
    ship_kicks: list[tuple[float, float, float]] = field(default_factory=list)  # rad/s
    impacts: list[tuple[float, float]] = field(default_factory=list)  # mJ at the piezo


@dataclass
class Trace:
    """The sensors' output: one entry a sample."""

    t_ms: list[float]
    zones: dict[int, list[float]]
    table_g: list[float]
    impact: list[int]


def substeps_per_sample(rate_sps: int) -> int:
    return 3 if rate_sps == 80 else 20


def sample_period_ms(params: ShipParams) -> float:
    return 1000.0 / params.rate_sps * (1.0 + params.clock_rate_error)


def _mechanics(params: ShipParams, plan: Plan, steps: int, dt_ms: float):
    """Noise-free force each cell and the mat feel, one value a substep."""
    dt_s = dt_ms / 1000.0
    zones = list(ZONES)
    xs = [params.xyh_cm[z][0] for z in zones]
    ys = [params.xyh_cm[z][1] for z in zones]
    hs = [params.xyh_cm[z][2] for z in zones]
    k_roll = 1.0 / math.radians(params.roll_deg_per_gcm)  # g*cm per rad
    k_pitch = 1.0 / math.radians(params.pitch_deg_per_gcm)
    roll = Resonator(params.roll_f_hz, params.roll_zeta, dt_s)
    pitch = Resonator(params.pitch_f_hz, params.pitch_zeta, dt_s)
    frames = [Resonator(params.zone_f_hz[z], params.zone_zeta[z], dt_s) for z in zones]
    platform = [params.platform_g[z] for z in zones]
    shear = [params.shear[z] for z in zones]
    mat_omega, mat_zeta = params.mat_omega_zeta()
    mat = Resonator(mat_omega / (2 * math.pi), mat_zeta, dt_s)
    channels = [plan.zones[z] for z in zones]
    index_of = {z: i for i, z in enumerate(zones)}

    zone_kicks = sorted(plan.zone_kicks)
    mat_kicks = sorted(plan.mat_kicks)
    ship_kicks = sorted(plan.ship_kicks)
    zk = mk = sk = 0
    felt = [[0.0] * steps for _ in zones]
    mat_felt = [0.0] * steps
    force = [0.0] * len(zones)
    for j in range(steps):
        t_ms = (j + 0.5) * dt_ms
        t_end = t_ms + 0.5 * dt_ms
        for i, channel in enumerate(channels):
            force[i] = channel.at(t_ms)
        u_roll = -sum(f * y for f, y in zip(force, ys, strict=True)) / k_roll
        u_pitch = -sum(f * x for f, x in zip(force, xs, strict=True)) / k_pitch
        while zk < len(zone_kicks) and zone_kicks[zk][0] < t_end:
            _, zone, impulse = zone_kicks[zk]
            i = index_of[zone]
            frames[i].kick(impulse)
            roll.kick(-impulse * ys[i] / k_roll)
            pitch.kick(-impulse * xs[i] / k_pitch)
            zk += 1
        while sk < len(ship_kicks) and ship_kicks[sk][0] < t_end:
            roll.v += ship_kicks[sk][1]
            pitch.v += ship_kicks[sk][2]
            sk += 1
        while mk < len(mat_kicks) and mat_kicks[mk][0] < t_end:
            mat.kick(mat_kicks[mk][1])
            mk += 1
        roll.step(u_roll)
        pitch.step(u_pitch)
        acc_roll = roll.accel(u_roll)
        acc_pitch = pitch.accel(u_pitch)
        tilt_roll = roll.x
        for i in range(len(zones)):
            cell = frames[i].step(force[i])
            carried = cell + platform[i]
            vertical = xs[i] * acc_pitch + ys[i] * acc_roll
            lateral = hs[i] * (acc_roll + 0.3 * acc_pitch) / GRAVITY_CM_S2 + tilt_roll
            felt[i][j] = cell + carried * (vertical / GRAVITY_CM_S2 + shear[i] * lateral)
        mat_felt[j] = mat.step(plan.mat.at(t_ms))
    return felt, mat_felt


def _piezo_trips(params: ShipParams, plan: Plan, rng: random.Random, end_ms: float):
    """(start, end) ms of each comparator trip: impacts over threshold plus false trips."""
    trips = []
    for t_ms, energy_mj in plan.impacts:
        if energy_mj >= params.piezo_threshold_mj:
            trips.append((t_ms, t_ms + params.piezo_hold_ms))
    rate_per_ms = params.piezo_spurious_per_min / 60000.0
    t = 0.0
    while rate_per_ms > 0:
        t += rng.expovariate(rate_per_ms)
        if t >= end_ms:
            break
        trips.append((t, t + params.piezo_hold_ms))
    return sorted(trips)


def _glitch(rng: random.Random, value: float) -> float:
    """A wild sample: a bit slip somewhere in the 24-bit word."""
    return value + rng.choice((-1, 1)) * 2.0 ** rng.uniform(6, 13)


def simulate(params: ShipParams, plan: Plan, seconds: float, rng: random.Random) -> Trace:
    """What the cells, the mat and the piezo report over `seconds` of the plan."""
    substeps = substeps_per_sample(params.rate_sps)
    period_ms = sample_period_ms(params)
    samples = int(seconds * 1000.0 / period_ms)
    dt_ms = period_ms / substeps
    felt, mat_felt = _mechanics(params, plan, samples * substeps, dt_ms)

    phase = {c: rng.randrange(substeps) for c in (*ZONES, 11)}
    period_s = period_ms / 1000.0
    walk_sd = params.drift_walk_g_rt_s * math.sqrt(period_s)
    glitch_p = params.glitch_per_sample
    sources = {z: [(s, xt) for (s, r), xt in params.crosstalk.items() if r == z] for z in ZONES}

    def converted(values: list[float], c: int) -> list[float]:
        # HX711: the mean over its own conversion period, which ends `phase` substeps early
        out = []
        for k in range(1, samples + 1):
            end = k * substeps - phase[c]
            start = max(0, end - substeps)
            out.append(sum(values[start:end]) / max(1, end - start))
        return out

    averaged = {z: converted(felt[i], z) for i, z in enumerate(ZONES)}
    zones_out = {}
    for z in ZONES:
        gain, noise_sd = params.gain[z] * params.scale[z], params.noise_sd_g[z]
        slope_per_sample = params.drift_slope_g_min[z] * period_ms / 60000.0
        own, others = averaged[z], [(averaged[s], xt) for s, xt in sources[z]]
        zero, column = 0.0, []
        for k in range(samples):
            zero += rng.gauss(0.0, walk_sd) + slope_per_sample
            load = own[k] + sum(values[k] * xt for values, xt in others)
            value = gain * load + zero + rng.gauss(0.0, noise_sd)
            if rng.random() < glitch_p:
                value = _glitch(rng, value)
            column.append(value)
        zones_out[z] = column

    mat_avg = converted(mat_felt, 11)
    mat_gain = 1.0 + params.mat_gain_error
    mat_slope = params.drift_slope_g_min[11] * period_ms / 60000.0
    zero, table_g = 0.0, []
    for k in range(samples):
        zero += rng.gauss(0.0, walk_sd) + mat_slope
        value = mat_gain * mat_avg[k] + zero + rng.gauss(0.0, params.mat_noise_g)
        if rng.random() < glitch_p:
            value = _glitch(rng, value)
        table_g.append(value)

    jitter_cap = period_ms / 4
    t_ms = []
    for k in range(1, samples + 1):
        jitter = max(-jitter_cap, min(jitter_cap, rng.gauss(0.0, params.clock_jitter_ms)))
        t_ms.append(k * period_ms + jitter)

    trips = _piezo_trips(params, plan, rng, samples * period_ms)
    impact, ti = [], 0
    for k in range(1, samples + 1):
        lo, hi = (k - 1) * period_ms, k * period_ms
        while ti < len(trips) and trips[ti][1] <= lo:
            ti += 1
        impact.append(1 if ti < len(trips) and trips[ti][0] < hi else 0)
    return Trace(t_ms=t_ms, zones=zones_out, table_g=table_g, impact=impact)
