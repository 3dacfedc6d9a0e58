"""Item identification: the most likely piece or pieces, and honesty when it is unclear."""

from __future__ import annotations

import pytest

from bosun.sim.params import ITEM_GRAMS
from shipsense.items import Cargo, check_items, name_fall, name_place, place_margin

ITEMS = dict(ITEM_GRAMS)  # the game set's weights (RR2), as calibrated


def test_a_clear_weight_names_one_piece():
    assert name_place(6.0, ITEMS) == ("barrel", False, [])
    assert name_place(2.65, ITEMS) == ("rat", False, [])


def test_a_weight_between_two_pieces_is_flagged_with_the_other_candidate():
    item, ambiguous, alternatives = name_place(2.95, ITEMS)
    assert ambiguous and {item, *alternatives} == {"rat", "bottle"}


def test_a_weight_like_no_piece_is_named_but_flagged():
    item, ambiguous, _ = name_place(30.0, ITEMS)
    assert item == "boat" and ambiguous


def test_place_margin_is_the_distance_to_the_nearest_naming_boundary():
    assert place_margin(6.1, ITEMS) == pytest.approx(0.45)  # halfway to plank is 5.65
    assert place_margin(5.7, ITEMS) == pytest.approx(0.05)


def test_a_fall_is_named_among_what_is_aboard():
    pieces, ambiguous, _ = name_fall(7.7, ITEMS, {"bottle": 1, "sailor": 1, "boat": 1})
    assert pieces == ["bottle", "sailor"] and not ambiguous
    pieces, ambiguous, _ = name_fall(7.7, ITEMS, {"crate": 1, "boat": 1})
    assert pieces == ["crate"] and not ambiguous


def test_a_fall_that_fits_two_sets_aboard_says_so():
    pieces, ambiguous, alternatives = name_fall(7.65, ITEMS, {"crate": 1, "bottle": 1, "sailor": 1})
    assert ambiguous
    assert sorted([pieces, *alternatives]) == [["bottle", "sailor"], ["crate"]]


def test_the_zones_that_lost_weight_decide_between_equal_sets():
    cargo = Cargo(10)
    cargo.add(7, "crate")
    cargo.add(2, "bottle")
    cargo.add(2, "sailor")
    pieces, _, _ = name_fall(7.65, ITEMS, cargo.counts_by_item(), {2: 7.7}, cargo)
    assert pieces == ["bottle", "sailor"]
    pieces, _, _ = name_fall(7.65, ITEMS, cargo.counts_by_item(), {7: 7.6}, cargo)
    assert pieces == ["crate"]


def test_without_a_fit_aboard_any_pieces_are_considered():
    pieces, _, _ = name_fall(11.8, ITEMS, {"rat": 2})
    assert pieces == ["boat"]


def test_cargo_takes_the_most_recent_piece_of_a_kind():
    cargo = Cargo(10)
    cargo.add(9, "rat")
    cargo.add(9, "boat")
    cargo.add(9, "rat")
    assert cargo.remove(9, "rat") and cargo.zones[9] == ["rat", "boat"]
    assert not cargo.remove(3, "rat")
    assert cargo.as_dict() == {9: ["rat", "boat"]} and cargo.count() == 2


@pytest.mark.parametrize(
    "items, complaint",
    [
        ([], "JSON object"),
        ({}, "at least one"),
        ({"rat": "2.6"}, "must be a number"),
        ({"rat": True}, "must be a number"),
        ({"rat": 0}, "above 0"),
        ({"rat": float("nan")}, "above 0"),
        ({"rat": 1e9}, "at most"),
        ({"": 2.6}, "1-40 characters"),
    ],
)
def test_bad_item_tables_are_refused(items, complaint):
    with pytest.raises(ValueError, match=complaint):
        check_items(items)


def test_a_fall_that_contradicts_the_cargo_list_is_named_by_its_weight():
    """The list is a belief: a plank logged as a bottle is still a plank when it falls."""
    cargo = Cargo(10)
    cargo.add(8, "bottle")
    pieces, _, _ = name_fall(5.2, ITEMS, cargo.counts_by_item(), {8: 5.0}, cargo)
    assert pieces == ["plank"]
    # ... but within the weighing error, the list decides between close pieces
    pieces, _, _ = name_fall(3.0, ITEMS, cargo.counts_by_item(), {8: 2.9}, cargo)
    assert pieces == ["bottle"]


def loaded(zone: int, *pieces: tuple[str, float]) -> Cargo:
    """A cargo list with `pieces` (item, grams weighed) on `zone`, in that order."""
    cargo = Cargo(10)
    for item, grams in pieces:
        cargo.add(zone, item, grams)
    return cargo


def test_a_fall_is_named_from_what_each_piece_weighed_when_it_was_placed():
    """A heavy plank and a light barrel: the one that fell is the one that weighed as much;
    by the items' weights alone (5.2 g and 6.1 g) 5.7 g is a close call, and says so."""
    cargo = loaded(3, ("plank", 5.7), ("barrel", 6.4))
    for grams, item, other in ((5.7, "plank", "barrel"), (6.4, "barrel", "plank")):
        pieces, ambiguous, others = name_fall(
            grams, ITEMS, cargo.counts_by_item(), {3: grams}, cargo
        )
        assert pieces == [item]
        assert others == ([] if grams == 6.4 else [[other]]) and ambiguous is (grams == 5.7)


def test_two_pieces_that_weighed_alike_make_a_fall_ambiguous():
    cargo = loaded(3, ("plank", 5.9), ("barrel", 6.0))
    pieces, ambiguous, others = name_fall(5.95, ITEMS, cargo.counts_by_item(), {3: 5.95}, cargo)
    assert ambiguous and sorted([pieces, *others]) == [["barrel"], ["plank"]]


def test_a_weight_no_piece_of_its_kind_has_is_not_trusted():
    """Weighed with a hand on it (or not weighed): the item's calibrated weight is used."""
    cargo = loaded(5, ("boat", 24.7), ("rat", 0.0))
    assert [cargo.weighed_g(5, k, ITEMS) for k in (0, 1)] == [ITEMS["boat"], ITEMS["rat"]]
    assert name_fall(11.9, ITEMS, cargo.counts_by_item(), {5: 11.9}, cargo)[0] == ["boat"]


def test_a_shifted_piece_keeps_what_it_weighed():
    cargo = loaded(2, ("plank", 5.7), ("rat", 2.6))
    cargo.move(2, 6, "plank")
    assert (cargo.zones[2], cargo.weighed[2]) == (["rat"], [2.6])
    assert (cargo.zones[6], cargo.weighed[6]) == (["plank"], [5.7])
    assert cargo.remove(6, "plank") and cargo.weighed[6] == []
