"""The analogue side of the virtual board: grams on a load cell to HX711 counts.

A load cell's bridge is never balanced (an offset of tens of thousands of counts), its
sensitivity differs from cell to cell by a few percent, and the amplifier adds a few
counts of electrical noise; the ADC clamps at 0x7FFFFF / 0x800000. `LoadCellModel` gives
each channel its own offset and scale from a seed, and `calibration()` is what a perfect
calibration of those cells would store (the firmware's calibration.json format).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

RAW_MIN = -0x800000
RAW_MAX = 0x7FFFFF
# A 5 kg cell at 1 mV/V behind gain 128 gives ~420 counts a gram.
NOMINAL_COUNTS_PER_G = 420.0


@dataclass(frozen=True)
class LoadCellModel:
    """One load cell and its amplifier: counts = offset + grams * counts_per_g + noise."""

    offset: int
    counts_per_g: float
    noise_counts: float = 2.0

    def counts(self, grams: float, rng: random.Random) -> int:
        value = self.offset + grams * self.counts_per_g
        if self.noise_counts:
            value += rng.gauss(0.0, self.noise_counts)
        return max(RAW_MIN, min(RAW_MAX, round(value)))


def make_cells(
    channels: int, seed: int | str = 0, noise_counts: float = 2.0
) -> list[LoadCellModel]:
    """`channels` different cells (zones first, then the mat), the same for the same seed."""
    rng = random.Random(f"{seed}/cells")
    return [
        LoadCellModel(
            offset=rng.randint(-80000, 80000),
            counts_per_g=round(NOMINAL_COUNTS_PER_G * rng.uniform(0.95, 1.05), 3),
            noise_counts=noise_counts,
        )
        for _ in range(channels)
    ]


def calibration(cells: list[LoadCellModel], zones: int, items: dict[str, float] | None) -> dict:
    """The calibration.json a perfect calibration of `cells` would write (version 1)."""

    def cell(model: LoadCellModel) -> dict:
        return {"tare": model.offset, "counts_per_g": model.counts_per_g, "calibrated": True}

    return {
        "version": 1,
        "zones": [cell(model) for model in cells[:zones]],
        "mat": cell(cells[zones]) if len(cells) > zones else None,
        "items": dict(items or {}),
    }
