"""Montego Bay's game data: bosun's defaults, a table's own file, and bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bosun.games.match import Match
from bosun.games.montego_bay import (
    GameDataError,
    default_game_data,
    load_game_data,
)
from bosun.games.montego_bay.game_data import DEFAULT_DATA

DEFAULT_FILE = Path(__file__).parents[2] / "host/bosun/games/montego_bay/data" / DEFAULT_DATA


def seeded(players: list[str], **more) -> dict:
    game = Match()
    game.submit({"type": "setup", "game": "montego-bay", "players": players, "seed": 1, **more})
    return game.view()


def test_the_defaults_make_a_game_for_two_three_and_four_players():
    data = default_game_data()
    assert data.starting_silver == 1  # MB16
    assert {n: r.warehouses for n, r in data.by_players.items()} == {"2": 7, "3": 7, "4": 8}
    assert len(data.warehouse_tiles) >= 8
    deck = data.deck_for(4)
    assert len(deck) >= data.by_players["4"].ships
    assert all(ship.slots >= 3 for ship in deck)  # MB3
    assert data.about  # the reasons are written down with the numbers


def test_four_players_score_by_the_four_player_points():
    data = default_game_data()
    with_points_4p = next(s for s in data.ships if s.points_4p)
    assert data.deck_for(4)[0].points == with_points_4p.points_4p
    assert data.deck_for(3)[0].points == with_points_4p.points


def test_the_two_player_variant_plays_a_shorter_deck():
    two, four = seeded(["a", "b"]), seeded(["a", "b", "c", "d"])
    data = default_game_data()
    assert two["deck_left"] == data.by_players["2"].ships - 3
    assert four["deck_left"] == data.by_players["4"].ships - 3
    assert two["deck_left"] < four["deck_left"]


def own_data(**changes) -> dict:
    data = json.loads(DEFAULT_FILE.read_text())
    data.update(changes)
    return data


def test_a_table_loads_its_own_file_and_puts_it_inline_in_the_setup(tmp_path):
    tile = [{"barrels": 4, "silver": 1}, {"broken": 2}]
    path = tmp_path / "harbour.json"
    path.write_text(json.dumps(own_data(starting_silver=3, warehouse_tiles=[tile] * 8)))
    data = load_game_data(path)
    view = seeded(["a", "b", "c"], data=data.model_dump(exclude_defaults=True))
    assert all(info["silver"] == 3 for info in view["players"].values())
    assert all(sorted(pair, key=str) == sorted(tile, key=str) for pair in view["warehouses"])


@pytest.mark.parametrize(
    "text, reason",
    [
        ("{not json", "not valid JSON"),
        (json.dumps(own_data(starting_silver=-1)), "starting_silver: input should be greater"),
        (
            json.dumps(own_data(warehouse_tiles=[[{"barrels": 1}, {"barrels": 1}]] * 7)),
            "4 players use 8 warehouses but only 7 tiles",
        ),  # fmt: skip
        (
            json.dumps(own_data(by_players={"2": {"warehouses": 7, "ships": 3}})),
            "by_players needs an entry for 3, 4 players",
        ),  # fmt: skip
        (json.dumps(own_data(ships=[{"slots": 3, "points": [3, 2, 1]}])), "deck has only 1"),
        (json.dumps(own_data(ship_deck=[])), "ship_deck: extra inputs are not permitted"),
    ],
)
def test_a_bad_data_file_is_named_with_what_is_wrong(tmp_path, text, reason):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(GameDataError, match=reason) as err:
        load_game_data(path)
    assert str(err.value).startswith(str(path))


def test_a_missing_data_file_is_named(tmp_path):
    with pytest.raises(GameDataError, match="cannot be read"):
        load_game_data(tmp_path / "nope.json")
