"""What happens between loads: a hand touching the ship, a knock on the table, a collect.

Each function adds its forces to the table's plan, writes its truth record and returns
when it (and whatever it shook loose) is over.
"""

import math

from .loads import Ramp, ms, smoothstep_points
from .params import NEIGHBOUR_PAIRS, ZONES


def touch(table, t: float) -> float:
    """A hand touches one zone, or two neighbouring ones, without loading anything (RR10)."""
    rng, plan = table.rng, table.plan
    if rng.random() < 0.8:
        zones = [rng.choice(ZONES)]
    else:
        zones = list(rng.choice([pair for pair, w in NEIGHBOUR_PAIRS.items() if w == 1.0]))
    peak = rng.uniform(5, 60)
    up, hold, down = rng.uniform(50, 300), rng.uniform(50, 800), rng.uniform(50, 300)
    end = t + up + hold + down
    share = rng.uniform(0.3, 0.7)
    shares = [1.0] if len(zones) == 1 else [share, 1.0 - share]
    for zone, part in zip(zones, shares, strict=True):
        force = peak * part
        points = smoothstep_points(t, t + up, 0.0, force, 3)
        points += smoothstep_points(t + up + hold, end, force, 0.0, 3)
        plan.zones[zone].add(Ramp(points))
    gain = sum(table.params.reads[z] for z in zones) / len(zones)
    table.truth.append(
        {
            "type": "touch",
            "t_ms": ms(t),
            "end_ms": ms(end),
            "zones": sorted(zones),
            "peak_g": round(peak * gain, 1),
        }
    )
    table.counts["touches"] += 1
    if table.aboard and rng.random() < table.odds["p_fall_after_touch"]:
        return table.fall_episode(end + rng.uniform(50, 600), zones[0])
    return end + rng.uniform(200, 600)


def knock(table, t: float) -> float:
    """Someone knocks the table: the mat rings, the piezo may trip, the ship is jolted."""
    rng, params, plan = table.rng, table.params, table.plan
    ripple = rng.uniform(3, 40)
    omega, zeta = params.mat_omega_zeta()
    sigma, wd = zeta * omega, omega * math.sqrt(1 - zeta * zeta)
    t_peak = math.atan2(wd, sigma) / wd
    # an impulse J lifts the mat to w^2 J / wd * exp(-sigma t) * sin(wd t) at its peak
    impulse = ripple * wd / (omega * omega * math.exp(-sigma * t_peak) * math.sin(wd * t_peak))
    plan.mat_kicks.append((t, impulse * rng.choice((-1, 1))))
    plan.impacts.append((t, ripple * rng.uniform(0.3, 2.0)))
    jolt_rad = math.radians(ripple / 20.0 * rng.uniform(0.2, 1.0))
    heading = rng.uniform(0, 2 * math.pi)
    roll_w, pitch_w = 2 * math.pi * params.roll_f_hz, 2 * math.pi * params.pitch_f_hz
    plan.ship_kicks.append(
        (t, jolt_rad * roll_w * math.cos(heading), jolt_rad * pitch_w * math.sin(heading))
    )
    table.truth.append(
        {
            "type": "knock",
            "t_ms": ms(t),
            "ripple_g": round(ripple * (1 + params.mat_gain_error), 1),
        }
    )
    table.counts["knocks"] += 1
    roll = rng.random()
    if table.aboard and roll < table.odds["p_fall_after_knock"]:
        return table.fall_episode(t + rng.uniform(80, 800), rng.choice(ZONES))
    if table.aboard and roll < table.odds["p_fall_after_knock"] + 0.06:
        return table.shift(t + rng.uniform(80, 600), table.pick(table.aboard, None))
    return t + rng.uniform(300, 700)


def collect(table, t: float) -> float:
    """A player clears the pieces resting on the mat back to the supplies (RR12-RR13: fallen
    pieces go back; nobody lifts cargo off the ship, RR10): a hand presses a little as it
    grips each, then lifts it. Nothing to do without a mat or with nothing on it."""
    rng, plan = table.rng, table.plan
    if not table.on_mat:
        return t
    count = min(len(table.on_mat), rng.choice((1, 2, 3)))
    taken = [table.on_mat.pop(rng.randrange(len(table.on_mat))) for _ in range(count)]
    start, names = t, []
    for piece in taken:
        grip = rng.uniform(1, 10)
        a = start + rng.uniform(40, 150)
        lift = a + rng.uniform(80, 250)
        plan.mat.add(Ramp([(start, 0.0), (a, grip), (lift, grip * 0.8), (lift + 60, -piece.grams)]))
        table.supply.append(piece)
        names.append(piece.name)
        start = lift + rng.uniform(200, 600)
    table.truth.append(
        {
            "type": "collect",
            "t_ms": ms(t),
            "grams": round(sum(p.grams for p in taken) * (1.0 + table.params.mat_gain_error), 3),
            "items": [p.item for p in taken],
            "pieces": names,
        }
    )
    table.counts["collects"] += 1
    return start + rng.uniform(200, 600)
