"""Games are kits in one registry: what each brings, and that nothing else names a game."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bosun.games import Rejected, game_named, registry
from bosun.games.match import Match
from bosun.tables import TableConfig, default_seats

HOST = Path(__file__).resolve().parents[2] / "host" / "bosun"


def test_bosun_registers_its_two_games_with_everything_they_bring():
    assert registry.names()[:2] == ["riffraff", "montego-bay"]
    assert registry.default_game() == "riffraff"
    riffraff, montego = registry.kit("riffraff"), registry.kit("montego-bay")
    assert (riffraff.title, montego.title) == ("Riff Raff", "Montego Bay")
    assert game_named("riffraff") is riffraff.engine
    assert riffraff.calibration.zones == tuple(range(1, 11))
    assert montego.calibration.zones == (1, 2, 3, 4) and montego.calibration.items == ("barrel",)
    assert riffraff.timeline is not None and montego.timeline is None


def test_a_table_of_an_unknown_game_is_refused_naming_the_games_there_are():
    with pytest.raises(ValueError, match="unknown game 'chess'.*montego-bay, riffraff"):
        TableConfig(id="t1", game="chess", players=default_seats(["ann", "bob"]))
    with pytest.raises(Rejected, match="unknown game 'chess'"):
        Match().submit({"type": "setup", "game": "chess", "players": ["ann", "bob"]})


def test_a_name_is_registered_once():
    riffraff = registry.kit("riffraff")
    assert registry.register(riffraff) is riffraff  # the same kit again: no change
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.GameKit(**{**riffraff.__dict__, "title": "Another"}))


@pytest.mark.parametrize(
    "game, body, expected",
    [
        (
            "riffraff",
            {"captain": "bob", "settle_s": 3, "own_catch": "box", "decision_s": 60},
            {"captain": "bob", "settle_s": 3, "own_catch": "box", "decision_s": 60},
        ),
        (
            "riffraff",
            {},
            {"captain": None, "settle_s": None, "own_catch": None, "decision_s": None},
        ),
        (
            "riffraff",
            {"seed": 4},
            "Riff Raff has no seed: a new game takes captain, settle_s, own_catch and decision_s",
        ),
        ("riffraff", {"own_catch": "keep"}, 'own_catch must be "back" or "box" \\(RR12\\)'),
        ("riffraff", {"settle_s": "3"}, "settle_s: must be a whole number"),
        ("montego-bay", {"seed": 4}, {"seed": 4, "decision_s": None}),
        ("montego-bay", {"seed": None}, {"seed": None, "decision_s": None}),
        ("montego-bay", {"decision_s": -1}, "decision_s: .*greater than or equal to 0"),
        ("riffraff", {"decision_s": 3601}, "decision_s: .*less than or equal to 3600"),
        ("montego-bay", {"seed": -1}, "seed must be a whole number from 0"),
        ("montego-bay", {"seed": True}, "seed must be a whole number from 0"),
        ("montego-bay", {"captain": "ann"}, "Montego Bay has no captain"),
    ],
)
def test_each_game_takes_its_own_new_game_options(game, body, expected):
    kit = registry.kit(game)
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=expected):
            kit.new_game_options(body)
    else:
        assert kit.new_game_options(body) == expected


def _game_comparisons(path: Path, names: set[str], root: Path = HOST) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) and side.value in names:
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
                if isinstance(side, ast.Tuple | ast.List | ast.Set) and any(
                    isinstance(e, ast.Constant) and e.value in names for e in side.elts
                ):
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_nothing_outside_a_games_own_modules_asks_which_game_it_is():
    names = set(registry.names())
    # a game's own modules: its package, its referee, its bots, its virtual table; and the
    # store's migrations, each a one-off repair of what one game once stored
    own = ("riffraff", "montego_bay", "harbour", "migrations")
    found = [
        place
        for path in sorted(HOST.rglob("*.py"))
        if not any(part.removesuffix(".py") in own for part in path.relative_to(HOST).parts)
        for place in _game_comparisons(path, names)
    ]
    assert found == []


def test_the_scan_finds_a_question_about_the_game(tmp_path):
    module = tmp_path / "web.py"
    module.write_text('if config.game == "montego-bay":\n    pass\nok = game in ("riffraff",)\n')
    assert len(_game_comparisons(module, set(registry.names()), tmp_path)) == 2
