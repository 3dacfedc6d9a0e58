"""The tables file: validated with errors naming the file and the field; items saved back."""

from __future__ import annotations

import pytest

from bosun.tables import TableConfigError, load_tables, save_table_items

GOOD = """# the café's tables
[[table]]
id = "window"
game = "riffraff"
settle_s = 3
players = [{ name = "ann", colour = "#e63946" }, { name = "bob", colour = "#2a9df4" }]
"""


def write(tmp_path, text):
    path = tmp_path / "bosun.toml"
    path.write_text(text)
    return path


def test_a_good_file_loads(tmp_path):
    (table,) = load_tables(write(tmp_path, GOOD))
    assert table.id == "window" and table.settle_s == 3
    assert table.player_names == ["ann", "bob"] and table.colour_of("bob") == "#2a9df4"
    assert table.table_sensor == "mat" and table.trace is True
    assert table.own_catch == "back"  # RR12's default


def test_rr12_a_table_may_box_every_caught_piece(tmp_path):
    (table,) = load_tables(write(tmp_path, GOOD.replace("settle_s = 3", 'own_catch = "box"')))
    assert table.own_catch == "box"


@pytest.mark.parametrize(
    "text, complaint",
    [
        ("[[table]\n", "not valid TOML"),
        (GOOD.replace('"window"', '"Window Seat"'), "id"),
        (GOOD.replace("settle_s = 3", "settle_s = 2"), "settle_s"),
        (GOOD.replace('"#2a9df4"', '"blue"'), "colour"),
        (GOOD.replace('name = "bob"', 'name = "ann"'), "same name"),
        (GOOD + GOOD.replace("# the café's tables", ""), "share an id"),
        (GOOD.replace('game = "riffraff"', 'game = "chess"'), "game"),
        (GOOD + 'captain = "zed"\n', "not seated"),
        (GOOD + "wheels = 4\n", "wheels"),
        (GOOD.replace("settle_s = 3", 'own_catch = "keep"'), "own_catch"),
        # item weights: finite, above zero, and only the game's own pieces (RR2)
        (GOOD + "items = { rat = nan }\n", r"items\.rat: .*finite"),
        (GOOD + "items = { boat = inf }\n", r"items\.boat: .*finite"),
        (GOOD + "items = { barrel = -inf }\n", r"items\.barrel: .*finite"),
        (GOOD + "items = { rat = -2.6 }\n", r"items\.rat: .*greater than 0"),
        (GOOD + "items = { rat = 0 }\n", r"items\.rat: .*greater than 0"),
        (GOOD + "items = { rat = 5000 }\n", r"items\.rat: .*less than or equal to 1000"),
        (GOOD + 'items = { rat = "2.6" }\n', r"items\.rat: .*number"),
        (GOOD + "items = { rat = true }\n", r"items\.rat: .*number"),
        (GOOD + "items = { parrot = 4.0 }\n", r"items\.parrot: not a piece of riffraff"),
        # flags are true or false, nothing that merely looks like one
        (GOOD + 'trace = "yes"\n', r"trace: .*boolean"),
        (GOOD + 'trace = "false"\n', r"trace: .*boolean"),
        (GOOD + "demo = 1\n", r"demo: .*boolean"),
        (GOOD + '[home_assistant]\nenabled = "yes"\n', r"home_assistant\.enabled: .*boolean"),
    ],
)
def test_a_bad_file_names_what_is_wrong(tmp_path, text, complaint):
    with pytest.raises(TableConfigError, match=complaint) as err:
        load_tables(write(tmp_path, text))
    assert "bosun.toml" in str(err.value)


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(TableConfigError, match="cannot read"):
        load_tables(tmp_path / "nope.toml")


def test_calibrated_items_are_written_back_keeping_comments(tmp_path):
    path = write(tmp_path, GOOD)
    save_table_items(path, "window", {"rat": 2.612, "boat": 11.8})
    assert "# the café's tables" in path.read_text()
    (table,) = load_tables(path)
    assert table.items == {"rat": 2.61, "boat": 11.8}
    with pytest.raises(TableConfigError, match="no table 'door'"):
        save_table_items(path, "door", {"rat": 2.6})


def test_calibrated_weights_of_the_games_own_pieces_load(tmp_path):
    (table,) = load_tables(write(tmp_path, GOOD + "items = { rat = 2.6, boat = 12 }\n"))
    assert table.items == {"rat": 2.6, "boat": 12.0}
