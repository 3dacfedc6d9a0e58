"""Montego Bay: bad actions are rejected with a reason a player understands, changing nothing."""

from __future__ import annotations

import pytest
from montego_helpers import BOARD, SHIPS, cards, hire, new_game, refused

from bosun.games.match import Match

HUGE = 10**30


def waiting_for_cy_to_load():
    """Round 1 after the cards: cy is asked to load 3 barrels from N1."""
    game = new_game()
    hire(game)
    cards(game, ann=(2, 1), bob=(4, 3), cy=(1, 5))
    assert game.view()["pending"] == {"player": "cy", "room": "N1", "action": "load", "count": 3}
    return game


BAD_WHILE_CY_LOADS = [
    ({"type": "load", "player": "cy", "ships": {"2": "3"}}, "ships.2: must be a whole number"),
    ({"type": "load", "player": "cy", "ships": {"2": 3.0}}, "ships.2: must be a whole number"),
    ({"type": "load", "player": "cy", "ships": {"2": True}}, "ships.2: must be a whole number"),
    ({"type": "load", "player": "cy", "ships": [3]}, "ships: must be an object"),
    ({"type": "load", "player": "cy"}, "ships: missing"),
    ({"type": "load", "player": "cy", "ships": {"2": HUGE}}, "6 free slots, not room for 1000"),
    ({"type": "load", "player": "cy", "ships": {"2": -1, "3": 4}}, "cannot load -1 barrels"),
    ({"type": "load", "player": "cy", "ships": {"5": 3}}, "'5' is not a dock"),
    ({"type": "load", "player": "cy", "ships": {"02": 3}}, "'02' is not a dock"),
    ({"type": "load", "player": "cy", "ships": {"1": 3}}, "pilot boat"),
    ({"type": "load", "player": "cy", "ships": {}}, "exactly 3 barrels, not 0"),
    ({"type": "load", "player": "cy", "ships": {str(i): 0 for i in range(9)}}, "at most 8"),
    ({"type": "load", "player": "bob", "ships": {"2": 3}}, "cy is to load 3 barrels from N1"),
    ({"type": "load", "player": "dee", "ships": {"2": 3}}, "'dee' is not playing"),
    ({"type": "load", "player": "x" * 500, "ships": {"2": 3}}, "at most 32"),
    ({"type": "load", "player": 7, "ships": {"2": 3}}, "player: must be text"),
    ({"type": "unload", "player": "cy", "ships": {"2": 1}}, "unload is not the question"),
    ({"type": "hire", "player": "cy", "worker": None}, "hired at the start of a round"),
    ({"type": "cards", "player": "cy", "big": 1, "little": 1}, "once everyone has declared"),
    ({"type": "setup", "game": "montego-bay", "players": ["a", "b"]}, "already set up"),
    ({"type": "sail", "player": "cy"}, "unknown action type 'sail'"),
]


@pytest.mark.parametrize(
    "action, reason", BAD_WHILE_CY_LOADS, ids=[str(i) for i in range(len(BAD_WHILE_CY_LOADS))]
)
def test_a_bad_answer_is_rejected_with_its_reason(action, reason):
    game = waiting_for_cy_to_load()
    refused(game, action.pop("type"), reason, **action)


BAD_HIRES_AND_CARDS = [
    ("hire", {"player": "ann", "worker": "Big"}, "'Big' is not a worker"),
    ("hire", {"player": "ann", "worker": 3}, "worker: must be text"),
    ("hire", {"player": "ann"}, "worker: missing"),
    ("hire", {"player": "ann", "worker": "big"}, "Lazy Jack costs 3"),
    ("cards", {"player": "ann", "big": 1, "little": 2}, "waiting for ann, bob, cy to declare"),
    ("load", {"player": "ann", "ships": {"2": 1}}, "nobody is asked to load barrels now"),
]


@pytest.mark.parametrize("kind, fields, reason", BAD_HIRES_AND_CARDS)
def test_bad_declarations_are_rejected(kind, fields, reason):
    refused(new_game(), kind, reason, **fields)


@pytest.mark.parametrize(
    "fields, reason",
    [
        ({"big": "3", "little": 1}, "big: must be a whole number"),
        ({"big": 3}, "little: missing"),
        ({"big": HUGE, "little": 1}, "big: cards run from 1 to 5, there is no 1000"),
        ({"big": 1, "little": -2}, "little: cards run from 1 to 5, there is no -2"),
        ({"big": 1, "little": 2, "jack": 3}, "nobody hired him this round"),
    ],
)
def test_bad_cards_are_rejected(fields, reason):
    game = new_game()
    hire(game)
    refused(game, "cards", reason, player="ann", **fields)


def setup(**fields):
    return {"game": "montego-bay", "players": ["ann", "bob", "cy"], **fields}


BAD_SETUPS = [
    (setup(players=["ann"]), "players: list should have at least 2 items"),
    (setup(players=["a", "b", "c", "d", "e"]), "players: list should have at most 4 items"),
    (setup(players=["ann", "ann"]), "same name"),
    (setup(players=["ann", " "]), "not blank"),
    (setup(seed=-1), "seed: input should be greater than or equal to 0"),
    (setup(seed=HUGE), "seed: input should be less than or equal to"),
    (setup(seed="7"), "seed: must be a whole number"),
    (setup(warehouses=BOARD[:3]), "3 players need at least 4 warehouses"),
    (setup(warehouses=[[{"barrels": 1}]] * 5), r"warehouses\[0\]: list should have at least 2"),
    (setup(warehouses=[BOARD[0]] * 51), "warehouses: list should have at most 50"),
    (setup(warehouses="random"), "warehouses: must be a list"),
    (setup(ships=[{"slots": HUGE, "points": [1, 1, 1]}]), r"ships\[0\].slots: input should be"),
    (setup(ships=[{"slots": 3, "points": [1, 1, 1, 1]}]), r"ships\[0\].points: list should"),
    (setup(ships=[{"slots": 3, "points": [-1, 0, 0]}]), r"ships\[0\].points\[0\]"),
    (setup(ships=[{"slots": 3, "points": [3, 2, 1], "copies": 2}]), "copies"),
    (setup(ships=[SHIPS[0]] * 201), "ships: list should have at most 200"),
    (setup(silver={"zed": 3}), "silver: 'zed' is not playing"),
    (setup(silver={"ann": 1000}), "less than or equal to 999"),
    (setup(silver={"ann": -1}), "greater than or equal to 0"),
    (setup(order=["ann:big"] * 6), "more than once"),
    (setup(data="my-harbour.json"), "content inline, not a path"),
    (setup(data={"starting_silver": 2}), "data.by_players: missing"),
    (setup(game="montego"), "unknown game 'montego'"),
]


@pytest.mark.parametrize("action, reason", BAD_SETUPS, ids=[str(i) for i in range(len(BAD_SETUPS))])
def test_a_bad_setup_is_rejected_with_its_reason(action, reason):
    refused(Match(), "setup", reason, **action)
