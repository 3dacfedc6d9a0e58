"""A zoo of ships: families of virtual ships, each stretching one kind of physics far past
`normal` and `hard`, so the detector can be judged on ships it was not tuned on.

Each family is a `Level` (bosun.sim.params) drawn from like the two presets; its ranges are
documented below as the plausible span of a real ship (or table, or hand). Benchmarks work
leave-one-family-out: tune on some families, report on one never tuned on
(bench/detection/corpus.py holds every family's seeds, bench/README.md the figures).

Named behaviours (the ranges each family draws from):
- deck slides and tumbles (`slides`): of the shifts, `deck_slide_share` 0.6 are a deck piece
  tipping into a neighbouring quarter, unloading `deck_unload_fraction` 0.3-1.0 of its weight
  (1.0: a moment in the air) for `deck_tumble_ms` 60-220 ms;
- topples at release (`topples`): `topple_probability` 0.15 of placements topple off the
  moment the hand lets go, before the piece was ever still;
- cascades (`cascades`): `cascade_probability` 0.25 of placements set off 2-3 pieces on
  other zones, `cascade_gap_ms` 100-400 ms apart;
- topples that knock cargo off (`knocks`): as `topples`, and `topple_knock_share` 0.5 of the
  topples take 1-2 pieces aboard along (their own zone's or any other's), each leaving
  `topple_knock_gap_ms` 30-400 ms after the last: the separately written ship's toppled
  pieces did so 70 times in 271 (bench/README.md, after round AS), the zoo's never;
- loads that jostle the ship (`jostles`): `jostle_probability` 0.3 of placements set a piece
  at rest going (any zone's, not the one being loaded) `jostle_ms` -300-600 ms from the
  let-go, so while the hand may still press, alone or taking 1-2 more along as any fall
  does: the separately written ship's falls began around another zone's load 470 times in
  2875, 389 of them a piece alone (bench/README.md, after round AS); the zoo's almost only
  as `cascades`' 2-3 pieces, 150-600 ms after the let-go;
- a mat that rings hard (`rings`): as `topples`, and every piece that lands on the mat
  rocks it on with 3-20 times its weight at 8-18 Hz, decaying in 60-250 ms
  (`mat_ring_fraction`, `mat_ring_hz`, `mat_ring_decay_ms`; the hands' `impact_hz` spike
  comes first): the separately written ship's mat swung 50-120 g each way at 8-18 Hz for a
  7.8 g crate (seeds 0 and 1302; 250 g for seed 906's chest), the zoo's (`sensors`) at most
  0.4 of the piece's weight at 3-10 Hz, so the detector's ring fit (detector_topple
  .ringing_level) had never been tried on a zoo ship (bench/README.md, after round AV);
- sway and crosstalk (`sway`): modes of 0.3-4 Hz, damping from light (4 s) to heavy
  (0.3 s), up to 0.4 g of sway per gram loaded, crosstalk 5-15 % between neighbours;
- rough hands and pieces (`rough`): presses of 5-60 g held 0.1-1.5 s, ringing up to 0.7 of
  the piece's weight, landing spikes up to 14 times it, mat bounces resting up to 0.6 s,
  10 glitches a minute, piece weights scattered 5 % (about +-10 % at two sigmas);
- all of it at once, moderately (`mixed`);
- the sensors (`sensors`): each channel's calibration off by up to +-5 %
  (`calibration_error` 0.05: a 20 g piece reads 19-21 g on a zone), the HX711s settling
  slower than the datasheet's four conversion periods (`settle_lag_periods` 0-4: a lag after
  their filter that takes up to four periods more to come within 1 % of a step, so up to
  800 ms in all at 10 SPS, 100 ms at 80 SPS), the piezo's sensitivity 0.5-2x (`piezo_gain`,
  drawn log-uniform: it needs 0.25-4x the energy to trip) and the table ringing on after a
  strike at 40-250 Hz, decaying in 5-60 ms (`piezo_ring_hz`, `piezo_ring_decay_ms`: the
  comparator trips again on each swing above its threshold, so a strike can fill several
  samples at 80 SPS), the mat rocking on after a landing with 5-40 % of the piece's weight at
  3-10 Hz, decaying in 80-300 ms (`mat_ring_fraction`, `mat_ring_hz`, `mat_ring_decay_ms`),
  bounces resting up to 0.6 s (as `rough`), piece weights scattered 5 % (about +-10 %).
  Calibration, settling and the piezo are drawn per ship (a trace), the mat's ring per landing.
- wear and tear (`wear`, on `normal`): a landed piece hops on the mat before it rests
  (`hop_count` 0-3 hops, each `hop_air_ms` 20-120 ms in the air, lower each time: its weight
  leaves the mat and comes back, each landing strikes the table again, and it rests with its
  whole weight; a `bounced` piece still leaves the mat for good); calibration that changes
  during a session: a zone's zero steps as its cell is knocked (`zero_step_per_min` 2 for the
  ship, by `zero_step_g` 0.2-1.0 g either sign, below the lightest piece's 2.6 g) and each
  channel's gain drifts smoothly with temperature to 1 +- `gain_drift` 0.03 by
  `gain_drift_s` 180 s (a whole corpus session: faster than a real table warms, so that a
  session shows it all); the HX711s' unsettled readings after power-up (each channel's first
  readings off by `power_up_error_g` 20-500 g either sign, settling in within
  `power_up_settle_ms` 0-400 ms: up to 32 samples at 80 SPS, 4 at 10 SPS); a piezo that
  saturates (a strike `piezo_saturate_strength` 2.5-5 times its comparator's threshold or more,
  a knuckle's rap being 3, holds the output high for `piezo_latch_ms` 50-300 ms, so strikes
  meanwhile are not heard apart). The power-up error, gain drift and saturation strength are
  drawn per ship, the zero steps, latches and hops as they happen, each from its own stream.
- the table under the ship (`tables`, on `normal`): a load mat as noisy as 0.6 g rms at
  80 SPS (`mat_noise_g_rms` 0.15-0.6; 0.56 of that at 10 SPS, as the datasheet has it), twice
  the `hard` mat's worst: a cheap mat's cell, its long lead by the ship's power cable. The other,
  separately written ship (bench/othership) drew mats this noisy, and bosun's mat, judged by a
  guessed noise, began an episode at once and never ended it (round I, seed 900). Only the
  mat is noisier; everything else is `normal`.
Not modelled: a gain change mid-session (the HX711's channel or gain switched, with its
unsettled reading), a cell that creeps back after its zero stepped, a piece hopping off the
mat's edge.
"""

from __future__ import annotations

from dataclasses import replace

from bosun.sim.params import HARD, LEVELS, NORMAL, Level


def _hands(name: str, **behaviour) -> Level:
    """A family that is `normal` but for what its hands and pieces do."""
    return replace(NORMAL, name=name, hands=replace(NORMAL.hands, **behaviour))


FAMILIES: dict[str, Level] = {
    "slides": _hands(
        "slides",
        deck_slide_share=0.6,
        deck_tumble_ms=(60.0, 220.0),
        deck_unload_fraction=(0.3, 1.0),
    ),
    "topples": _hands("topples", topple_probability=0.15),
    "cascades": _hands("cascades", cascade_probability=0.25, cascade_gap_ms=(100.0, 400.0)),
    "knocks": _hands(
        "knocks",
        topple_probability=0.15,
        topple_knock_share=0.5,
        topple_knock_gap_ms=(30.0, 400.0),
    ),
    "jostles": _hands("jostles", jostle_probability=0.3, jostle_ms=(-300.0, 600.0)),
    "rings": _hands(
        "rings",
        topple_probability=0.15,
        mat_ring_fraction=(3.0, 20.0),
        mat_ring_hz=(8.0, 18.0),
        mat_ring_decay_ms=(60.0, 250.0),
    ),
    "sway": replace(
        NORMAL,
        name="sway",
        sway_hz=(0.3, 4.0),
        sway_decay_s=(0.3, 4.0),
        sway_g_per_g=0.4,
        sway_max_g=5.0,
        crosstalk=(0.05, 0.15),
    ),
    "rough": replace(
        HARD,
        name="rough",
        glitch_per_min=10.0,
        piece_scatter=0.05,
        hands=replace(
            HARD.hands,
            press_g=(5.0, 60.0),
            press_ms=(100.0, 1500.0),
            ring_fraction=(0.1, 0.7),
            impact_factor=(2.0, 14.0),
            bounce_rest_ms=(0.0, 600.0),
        ),
    ),
    "mixed": replace(
        HARD,
        name="mixed",
        sway_hz=(0.4, 3.0),
        crosstalk=(0.03, 0.10),
        piece_scatter=0.04,
        hands=replace(
            HARD.hands,
            deck_slide_share=0.4,
            deck_tumble_ms=(60.0, 200.0),
            deck_unload_fraction=(0.3, 1.0),
            topple_probability=0.08,
            cascade_probability=0.12,
        ),
    ),
    "sensors": replace(
        NORMAL,
        name="sensors",
        calibration_error=0.05,
        settle_lag_periods=(0.0, 4.0),
        piezo_gain=(0.5, 2.0),
        piezo_ring_hz=(40.0, 250.0),
        piezo_ring_decay_ms=(5.0, 60.0),
        piece_scatter=0.05,
        hands=replace(
            NORMAL.hands,
            mat_ring_fraction=(0.05, 0.4),
            mat_ring_hz=(3.0, 10.0),
            mat_ring_decay_ms=(80.0, 300.0),
            bounce_rest_ms=(0.0, 600.0),
        ),
    ),
    "wear": replace(
        NORMAL,
        name="wear",
        power_up_error_g=(20.0, 500.0),
        power_up_settle_ms=(0.0, 400.0),
        zero_step_per_min=2.0,
        zero_step_g=(0.2, 1.0),
        gain_drift=0.03,
        gain_drift_s=180.0,
        piezo_saturate_strength=(2.5, 5.0),
        piezo_latch_ms=(50.0, 300.0),
        hands=replace(NORMAL.hands, hop_count=(0, 3), hop_air_ms=(20.0, 120.0)),
    ),
    "tables": replace(NORMAL, name="tables", mat_noise_g_rms=(0.15, 0.6)),
}


def level_named(name: str) -> Level:
    """A preset (`normal`, `hard`) or a zoo family by name."""
    if name in LEVELS:
        return LEVELS[name]
    if name in FAMILIES:
        return FAMILIES[name]
    raise ValueError(f"unknown level or family {name!r}: {', '.join([*LEVELS, *FAMILIES])}")
