"""Trains the load cells could not read fresh are missed conversions to the detector
(firmware/lib/shipcore/core.py), run under CPython as bosun's virtual ships run it."""

from __future__ import annotations

import json
from pathlib import Path

from bosun.demo.virtual_ship import CellsBus
from bosun.pi.ship import MonotonicClock
from shipcore import settings
from shipcore.core import ShipCore
from shipsense import protocol

ZONES = 10
SCALE = 100.0  # counts a gram: the default calibration's scale below


class Bus(CellsBus):
    """The virtual ships' HX711 bus (the ESP32's pins cannot exist here), whose reads can
    fail: the test sets each train's counts and whether the read worked."""

    ok = True

    def read(self) -> bool:
        return self.ok


class Clock(MonotonicClock):
    """The Pi ship's clock, stopped: the test says when periodic work is due."""

    @staticmethod
    def ticks_ms() -> int:
        return 0


class Core(ShipCore):
    def send(self, name: str, payload: bytes) -> None:
        pass

    def set_status(self, payload: bytes) -> None:
        pass


def make_core(tmp_path: Path) -> tuple[Core, Bus]:
    raw = {
        "table": "t1",
        "wifi": {"ssid": "x", "password": ""},
        "mqtt": {"url": "mqtt://127.0.0.1:1883"},
        "default_counts_per_g": SCALE,
        "trace": True,  # rows stay in core.trace_rows: only periodic() sends them
    }
    config, problems = settings.check(raw)
    assert not problems, problems
    bus = Bus(ZONES + 1)
    core = Core(
        config,
        [],
        bus,
        Clock(),
        str(tmp_path / "config.json"),
        str(tmp_path / "calibration.json"),
        log=lambda _text: None,
    )
    return core, bus


def train(core: Core, bus: Bus, n: int, grams: list[float], impact: int = 0) -> None:
    """`n` conversion periods with zone loads `grams` (zone 1 first), a few counts of noise."""
    for _ in range(n):
        core.t_ms += 12
        for ch in range(ZONES + 1):
            load = grams[ch] if ch < len(grams) else 0.0
            bus.values[ch] = round(load * SCALE) + core.t_ms % 3
        core.sample(core.t_ms, 0, 12, impact)


def test_a_train_that_could_not_be_read_is_no_sample_for_the_detector_or_the_trace(tmp_path):
    core, bus = make_core(tmp_path)
    train(core, bus, 40, [0.0])
    fed, traced = core.detector.k, len(core.trace_rows)
    assert traced > 20  # settled trains were fed and traced, one row each
    bus.ok = False  # preempted mid-train: the bus threw it away
    train(core, bus, 3, [5.0])
    assert (core.detector.k, len(core.trace_rows)) == (fed, traced)
    bus.ok = True
    train(core, bus, 1, [5.0])
    assert core.detector.k == fed + 1
    assert abs(core.trace_rows[-1][1] - 5.0) < 0.05


def test_the_settling_after_a_power_down_is_skipped_and_a_piezo_hit_in_it_is_not_lost(tmp_path):
    core, bus = make_core(tmp_path)
    train(core, bus, 40, [0.0])
    fed = core.detector.k
    bus.ok, bus.powered_down = False, True  # SCK held high too long: every chip reset
    train(core, bus, 1, [0.0])
    bus.ok, bus.powered_down = True, False
    train(core, bus, 1, [0.0], impact=1)  # a settling reading, and the piezo felt a hit
    assert core.detector.k == fed
    settling = core.cells.settled
    train(core, bus, 8, [0.0])
    assert not settling and core.cells.settled
    rows = core.trace_rows[-(core.detector.k - fed) :]
    # the hit comes with the first fresh train, once
    assert [row[-1] for row in rows][:2] == [1, 0]


def test_weights_without_a_fresh_train_since_the_last_say_the_last_readings_not_zero(tmp_path):
    sent: list[tuple[str, bytes]] = []
    core, bus = make_core(tmp_path)
    core.send = lambda name, payload: sent.append((name, payload))  # type: ignore[method-assign]
    train(core, bus, 30, [0.0])  # tared
    core.periodic(10**6)
    train(core, bus, 20, [0.0, 4.0])
    core.periodic(2 * 10**6)
    bus.ok = False  # every train of the next interval thrown away
    train(core, bus, 5, [0.0, 4.0])
    core.periodic(3 * 10**6)
    weights = [json.loads(payload) for name, payload in sent if name == protocol.WEIGHTS]
    assert [round(w["zones_g"][1]) for w in weights] == [0, 4, 4]
