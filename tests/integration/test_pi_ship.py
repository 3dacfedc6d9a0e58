"""A Raspberry Pi ship (bosun.pi): the firmware's ship core and HX711 driver under CPython, its
GPIO lines a stand-in for libgpiod wired to the virtual board's datasheet model of the HX711
(tests/support/fake_gpiod.py), publishing to a real mosquitto what an ESP32 ship publishes."""

from __future__ import annotations

import json
import sys
import threading
import time

import pytest
from support.fake_gpiod import Amplifiers, FakeGpiod, LineSettings
from support.polling import CEILING_S
from support.ship_host import ShipHost

from bosun.board import analog
from bosun.pi import lines as pi_lines
from bosun.pi import run_gpio_ship
from bosun.pi.config import ConfigError, load
from shipcore.hx711 import SETTLE_READINGS
from shipsense import protocol

TABLE = "pi1"
CHIP = "/dev/gpiochip-test"
SCK = 5
# zones 1-10, then the mat (BCM numbers; the detector assumes the ship's ten zones: given
# four, it named a clear step on zone 2 as zone 3 in about one run in three)
DOUTS = [6, 13, 19, 26, 12, 16, 20, 4, 17, 22, 21]
BOAT_G = 11.8


def write_config(folder, broker, **changes) -> str:
    config = {
        "table": TABLE,
        "mqtt": {"url": f"mqtt://{broker.host}:{broker.port}", "keepalive_s": 5},
        "pins": {
            "hx711_sck": SCK,
            "hx711_dout": DOUTS[:10],
            "mat_dout": DOUTS[10],
            "led_data": 23,
            "piezo": 24,
        },
        "zones": 10,
        "drop_sensor": "mat",
        "leds": {"count": 0},
        "weights_interval_ms": 200,
        "status_interval_s": 1,
    }
    config.update(changes)
    path = folder / "config.json"
    path.write_text(json.dumps(config))
    return str(path)


@pytest.fixture
def cells():
    return analog.make_cells(len(DOUTS), seed=11)


@pytest.fixture
def amplifiers(cells):
    amps = Amplifiers(SCK, DOUTS, noise_counts=2.0)
    for channel, cell in enumerate(cells):
        amps.set_grams(channel, 0.0, cell.offset, cell.counts_per_g)
    return amps


def test_a_pi_ship_publishes_what_an_esp32_ship_does_and_obeys_commands(
    mosquitto, tmp_path, cells, amplifiers
):
    config_path = write_config(tmp_path, mosquitto)
    perfect = analog.calibration(cells, 10, {"boat": BOAT_G, "rat": 2.6})
    (tmp_path / "calibration.json").write_text(json.dumps(perfect))
    gpiod = FakeGpiod(CHIP, amplifiers)
    host = ShipHost(mosquitto, TABLE)
    stop = threading.Event()
    said: list[str] = []
    ship = threading.Thread(
        target=run_gpio_ship,
        args=(config_path,),
        kwargs={"chip": CHIP, "gpiod": gpiod, "stop": stop, "log": said.append},
        daemon=True,
    )
    ship.start()

    def events() -> list[dict]:
        return host.of(protocol.EVENT)

    try:
        status = host.wait_for(lambda: [s for s in host.of(protocol.STATUS) if s.get("online")])
        status = status[0]
        assert status["fw"].startswith("bosun-ship") and "Python" in status["fw"]
        assert status["table"] == TABLE and status["calibration"]
        # the detector learns the empty ship, then a boat is set down on zone 2 (~150 ms)
        host.wait_for(lambda: len(host.of(protocol.WEIGHTS)) >= 5)
        ramp = [BOAT_G * step / 15 for step in range(1, 16)]
        amplifiers.ramp_grams(1, ramp, cells[1].offset, cells[1].counts_per_g)
        (place,) = host.wait_for(lambda: [e for e in events() if e["type"] == "place"])
        assert place["zone"] == 2 and place["grams"] == pytest.approx(BOAT_G, abs=0.5)
        assert place["item"] == "boat" and place["seq"] >= 1 and place["boot"] == status["boot"]
        weights = host.wait_for(
            lambda: [w for w in host.of(protocol.WEIGHTS) if w["zones_g"][1] > BOAT_G - 0.3]
        )[-1]
        assert weights["zones_g"][0] == pytest.approx(0.0, abs=0.2)

        # the host's commands: the firmware's own handling, result by result
        host.command({"id": "c0", "cmd": "tare", "zones": [1]})
        assert "only in maintenance" in host.result("c0")["error"]
        host.command({"id": "m1", "cmd": "maintenance", "on": True})
        assert host.result("m1")["ok"]
        host.command({"id": "c1", "cmd": "tare", "zones": [1]})
        tared = host.result("c1")
        assert tared["ok"], tared
        assert tared["tare"]["z1"] == pytest.approx(cells[0].offset, abs=20)
        host.command({"id": "c2", "cmd": "calibrate", "zone": 12, "grams": 100})
        refused = host.result("c2")
        assert not refused["ok"] and "zone 12 does not exist" in refused["error"]
        host.command(b"not json")
        host.wait_for(lambda: [r for r in host.of(protocol.RESULT) if r["id"] is None])
        saved = json.loads((tmp_path / "calibration.json").read_text())
        assert saved["zones"][0]["tare"] == tared["tare"]["z1"]  # kept beside config
        assert gpiod.requests and not gpiod.requests[0].released
    finally:
        stop.set()
        ship.join(CEILING_S)
        host.close()
    assert not ship.is_alive()
    assert gpiod.requests[0].released  # the lines go back to the kernel
    assert any("boot" in line for line in said)


def settled_readings(bus, amplifiers: Amplifiers, count: int) -> list[int]:
    """The bus's values after `count` clean readings in a row since the amplifiers last
    powered down: a busy machine may stretch a pulse by itself, and each chip then settles
    afresh (SETTLE_READINGS), as LoadCells discards after a power-down."""
    deadline = time.monotonic() + CEILING_S
    clean, downs = 0, amplifiers.power_downs
    while clean < count:
        assert time.monotonic() < deadline
        while not bus.ready():
            time.sleep(0.001)
        ok = bus.read()
        if amplifiers.power_downs != downs:  # settling starts again
            clean, downs = 0, amplifiers.power_downs
        else:
            clean += ok
    return list(bus.values)


def test_the_driver_throws_away_a_train_with_a_stretched_clock_pulse(amplifiers, cells):
    # Linux may preempt the process with SCK high: over 60 us the HX711 powers down. The
    # firmware's driver measures every pulse and refuses that train.
    lines = pi_lines.GpioLines(FakeGpiod(CHIP, amplifiers), CHIP, SCK, DOUTS)
    bus = lines.bus(128)
    try:
        # past the amplifiers' settling after power-up (SETTLE_READINGS)
        for value, cell in zip(
            settled_readings(bus, amplifiers, SETTLE_READINGS + 1), cells, strict=True
        ):
            assert value == pytest.approx(cell.offset, abs=12)  # 2 counts rms of noise
        while not bus.ready():
            time.sleep(0.001)
        downs = amplifiers.power_downs
        amplifiers.stretch_next_us = 150
        assert not bus.read()
        assert bus.powered_down and bus.stretched_pulses >= 1 and bus.longest_high_us >= 150
        # the model powered down, so the reading is void. A busy machine may power it down
        # once more in the same read: another pulse of the train preempted with SCK high, or
        # the train so slow that the bus reset the amplifiers (CI on 2 cores saw 2)
        assert amplifiers.power_downs >= downs + 1
    finally:
        lines.release()


def test_a_train_held_up_mid_way_is_thrown_away_and_the_amplifiers_reset(amplifiers, cells):
    # Preempted between two pulses for longer than a conversion period, an HX711 may drop
    # its half-read word and start the next one mid-train: out of step with the clock until
    # it is powered down. The Pi's bus times the whole train and resets the chips.
    lines = pi_lines.GpioLines(FakeGpiod(CHIP, amplifiers), CHIP, SCK, DOUTS)
    bus = lines.bus(128, rate_hz=80)

    try:
        settled_readings(bus, amplifiers, SETTLE_READINGS + 1)
        while not bus.ready():
            time.sleep(0.001)
        slow = bus.slow_trains
        amplifiers.stall_after_pulses, amplifiers.stall_us = 10, 14_000
        assert not bus.read()
        assert bus.slow_trains == slow + 1 and bus.powered_down
        # the bus powered the chips down after the hold-up (a busy machine may also have
        # stretched a pulse of the train, which powers them down on its own)
        assert amplifiers.last_power_down_us > amplifiers.stall_ended_us > 0
        # every chip starts afresh: after its settling readings it reads true again
        after = settled_readings(bus, amplifiers, SETTLE_READINGS + 2)
        for value, cell in zip(after, cells, strict=True):
            assert value == pytest.approx(cell.offset, abs=12)
    finally:
        lines.release()


def test_the_config_is_checked_by_the_firmwares_rules_with_the_pis_pins(tmp_path, mosquitto):
    path = write_config(tmp_path, mosquitto, leds={"count": 8}, drop_sensor="both")
    config, problems = load(path)
    assert config["zones"] == 10 and config["pins"]["hx711_dout"] == DOUTS[:10]
    assert config["leds"]["count"] == 0 and config["drop_sensor"] == "mat"
    assert any("LED" in p for p in problems) and any("piezo" in p for p in problems)
    bad = write_config(tmp_path, mosquitto, pins={"hx711_sck": 40})
    with pytest.raises(ConfigError, match="pins.hx711_sck must be a Raspberry Pi GPIO number"):
        load(bad)
    (tmp_path / "config.json").write_text('{"table": "pi1"}')
    with pytest.raises(ConfigError, match="has no pins"):
        load(str(tmp_path / "config.json"))
    with pytest.raises(ConfigError, match="cannot read"):
        load(str(tmp_path / "missing.json"))


def test_without_gpiod_the_ship_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gpiod", None)
    with pytest.raises(RuntimeError, match=r"pip install 'bosun\[pi\]'"):
        pi_lines.import_gpiod()


def test_the_stand_in_speaks_the_real_gpiod_api():
    # The stand-in must not drift from libgpiod's bindings (gpiod 2.x, a test dependency).
    import inspect

    gpiod = pi_lines.import_gpiod()
    request_lines = inspect.signature(gpiod.request_lines).parameters
    assert list(request_lines)[:3] == ["path", "config", "consumer"]
    for name in ("set_value", "get_value", "get_values", "release"):
        assert hasattr(gpiod.LineRequest, name)
    assert {"direction", "output_value"} <= set(inspect.signature(gpiod.LineSettings).parameters)
    assert {"direction", "output_value"} <= set(inspect.signature(LineSettings).parameters)
    assert [v.name for v in gpiod.line.Value] == ["INACTIVE", "ACTIVE"]
    assert {"INPUT", "OUTPUT"} <= {d.name for d in gpiod.line.Direction}


def test_the_command_names_what_is_wrong_and_exits_2(tmp_path, capsys):
    from bosun.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(["ship", "--gpio", str(tmp_path / "missing.json")])
    assert args.chip == "/dev/gpiochip0" and not args.realtime
    assert args.run(args) == 2
    assert "bosun ship: cannot read" in capsys.readouterr().err
    paired_too = parser.parse_args(["ship", "--gpio", str(tmp_path / "c.json"), "list"])
    assert paired_too.run(paired_too) == 2
    assert "use one or the other" in capsys.readouterr().err
    (tmp_path / "config.json").write_text('{"table": "Bad Id", "pins": {}}')
    args = parser.parse_args(["ship", "--gpio", str(tmp_path / "config.json")])
    assert args.run(args) == 2
    assert "table must be" in capsys.readouterr().err
