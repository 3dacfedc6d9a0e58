"""Home Assistant's settings in bosun.toml and what the bridge sends (no broker needed)."""

from __future__ import annotations

import pytest

from bosun.cli import main
from bosun.commands import run as run_command
from bosun.commands.run import redacted
from bosun.home_assistant import discovery as ha
from bosun.home_assistant.bridge import _moved
from bosun.tables import TableConfigError, load_tables_file

TABLE = """
[[table]]
id = "t1"
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#457b9d" }]
"""


def test_home_assistant_is_off_unless_the_tables_file_turns_it_on(tmp_path):
    path = tmp_path / "bosun.toml"
    path.write_text(TABLE)
    assert load_tables_file(path).home_assistant.enabled is False
    path.write_text(TABLE + '[home_assistant]\nenabled = true\nbroker = "mqtt://u:p@ha:1884"\n')
    settings = load_tables_file(path).home_assistant
    assert settings.enabled and settings.broker == "mqtt://u:p@ha:1884"
    assert settings.discovery_prefix == "homeassistant" and settings.weight_every_s == 2


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ('broker = "http://ha:80"', "broker"),
        ('discovery_prefix = "home/#"', "discovery_prefix"),
        ("weight_every_s = 0", "weight_every_s"),
        ("weight_step_g = -1", "weight_step_g"),
        ("enabeld = true", "enabeld"),
    ],
)
def test_a_bad_home_assistant_setting_is_named(tmp_path, line, named):
    path = tmp_path / "bosun.toml"
    path.write_text(TABLE + f"[home_assistant]\n{line}\n")
    with pytest.raises(TableConfigError, match=named):
        load_tables_file(path)


def test_a_zone_moves_when_it_changes_by_the_step():
    before = {"zone_1": 10.0, "mat": 0.0}
    assert not _moved(before, {"zone_1": 10.9, "mat": 0.0}, step_g=1.0)
    assert _moved(before, {"zone_1": 11.0, "mat": 0.0}, step_g=1.0)
    assert _moved(before, {"zone_1": 10.0, "mat": None}, step_g=1.0)
    assert not _moved(before, dict(before), step_g=0.0)
    assert _moved(before, {"zone_1": 10.1, "mat": 0.0}, step_g=0.0)
    assert _moved(None, before, step_g=1.0)


def test_a_harbour_has_docks_and_no_turn_while_everyone_chooses():
    harbour = ha.TableDevice(
        "h1", "Montego Bay", (1, 2, 3, 4), zone_word="dock", board="harbour", mat=False
    )
    names = [config["name"] for _, config in ha.configs(harbour)]
    assert names[1:5] == ["Dock 1", "Dock 2", "Dock 3", "Dock 4"] and "Mat" not in names
    assert ha.configs(harbour)[0][1]["device"]["model"] == "Montego Bay harbour"
    grams = ha.grams_state(harbour, {"zones_g": [-0.04, 2.26, 3.0], "table_g": 1.0})
    assert grams == {"dock_1": 0.0, "dock_2": 2.3, "dock_3": 3.0, "dock_4": None}
    assert str(grams["dock_1"]) == "0.0"  # not -0.0
    cards = {"phase": "cards", "round": 2, "pending": None}
    assert ha.game_state("Montego Bay", cards)["turn"] is None
    resolve = {"phase": "resolve", "round": 2, "pending": {"player": "ann", "room": "N3"}}
    assert ha.game_state("Montego Bay", resolve)["turn"] == "ann"
    assert ha.game_state("Montego Bay", None)["phase"] == "no game"


def test_only_falls_and_places_fire_with_the_fields_the_referee_checked():
    place = {"type": "place", "zone": 3, "grams": 12.345, "boot": "b", "seq": 1, "x": "y" * 9}
    assert ha.event_state(place) == {"event_type": "place", "grams": 12.3, "zone": 3}
    fall = {"type": "fall", "zones": [1, 2], "grams": 5.0, "pieces": [{"zone": 1}]}
    assert ha.event_state(fall) == {"event_type": "fall", "grams": 5.0, "zones": [1, 2]}
    assert ha.event_state({"type": "touch", "zone": 1}) is None


def test_the_terminal_never_shows_the_brokers_password():
    assert redacted("mqtt://user:secret@ha.local:1883") == "mqtt://user@ha.local:1883"
    assert redacted("mqtt://ha.local:1883") == "mqtt://ha.local:1883"


def test_bosun_run_refuses_a_bad_section_before_anything_starts(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "bosun.toml"
    path.write_text(TABLE + "[home_assistant]\nweight_every_s = 0.1\n")
    assert main(["run", "--tables", str(path)]) == 2
    assert "weight_every_s" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bosun.toml"]


@pytest.mark.parametrize(
    ("flag", "section", "enabled"),
    [
        ([], "", False),
        (["--home-assistant"], "", True),
        ([], "[home_assistant]\nenabled = true\n", True),
    ],
)
def test_bosun_run_turns_home_assistant_on_by_flag_or_file(
    tmp_path, monkeypatch, flag, section, enabled
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bosun.toml").write_text(TABLE + section)
    monkeypatch.setenv("BOSUN_OPERATOR_KEY", "k")
    given = {}

    async def serve(options, console, demo_tables=0, firmware=False):
        given["options"] = options
        return 0

    monkeypatch.setattr(run_command, "serve", serve)
    assert main(["run", *flag]) == 0
    assert given["options"].home_assistant.enabled is enabled
