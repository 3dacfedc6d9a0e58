"""What changed between two snapshots (web/patches.py): applied, it gives the new snapshot
exactly; a table's usual changes (a weight, a feed line) make a patch far smaller than it."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from bosun.web.patches import apply_patch, make_patch

KEYS = st.sampled_from(["a", "b", "zone/3", "~x", "", "players"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-2, 2) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=25,
)


@given(JSON, JSON)
def test_a_patch_turns_the_old_snapshot_into_the_new_one(old, new):
    patched = apply_patch(old, make_patch(old, new))
    assert json.dumps(patched, sort_keys=True) == json.dumps(new, sort_keys=True)


def test_a_sliding_feed_sends_only_its_new_line_and_a_type_change_is_a_change():
    feed = [{"at_ms": i, "text": f"line {i}"} for i in range(50)]
    old = {"feed": feed, "now_ms": 1, "state": {"round": 1}}
    new = {
        "feed": [*feed[1:], {"at_ms": 50, "text": "line 50"}],
        "now_ms": 2,
        "state": {"round": 1},
    }
    ops = make_patch(old, new)
    assert ops == [
        {"op": "remove", "path": "/feed/0"},
        {"op": "add", "path": "/feed/-", "value": {"at_ms": 50, "text": "line 50"}},
        {"op": "replace", "path": "/now_ms", "value": 2},
    ]
    assert len(json.dumps(ops)) * 10 < len(json.dumps(new))
    assert make_patch({"x": 1}, {"x": 1.0}) == [{"op": "replace", "path": "/x", "value": 1.0}]
    assert make_patch({"x": 1}, {"x": True}) == [{"op": "replace", "path": "/x", "value": True}]
    assert apply_patch({"a/b": 1}, make_patch({"a/b": 1}, {"a/b": 2})) == {"a/b": 2}
