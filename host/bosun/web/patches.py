"""What changed between two snapshots, as a JSON Patch (RFC 6902: add, remove, replace).

A live page gets a whole snapshot when its stream opens and then only what changed since the
snapshot before: a table view's ship weights and clock change a few times a second, its
feed by a line now and then, the rest seldom. Lists that slide (the feed: lines dropped at
the front, new ones added at the end) become removes at the front and adds at the end;
other lists of one length are compared item by item; any other list is replaced whole, and
so is any part whose changes would take more bytes than the part itself.
`apply_patch` is what the pages do (static/js/common.js), for tests and measurements.
"""

from __future__ import annotations

import copy
import json
from typing import Any

Op = dict[str, Any]


def _pointer(path: str, key: str | int) -> str:
    """RFC 6901: '~' and '/' inside a key are escaped (player names may hold them)."""
    return f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"


def make_patch(old: Any, new: Any) -> list[Op]:
    """The operations that turn `old` into `new` (both JSON values)."""
    ops: list[Op] = []
    _diff(old, new, "", ops)
    return ops


def _same(a: Any, b: Any) -> bool:
    # 1 == 1.0 == True in Python, not in JSON: a changed type is a change, at any depth
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _diff(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    if _same(old, new):
        return
    if path and isinstance(old, dict | list) and type(old) is type(new):
        # many small changes inside (a ship's ten weights) cost more than the new value
        inner: list[Op] = []
        _diff_inside(old, new, path, inner)
        whole = {"op": "replace", "path": path, "value": new}
        if len(inner) > 1 and len(json.dumps(inner)) > len(json.dumps(whole)):
            ops.append(whole)
        else:
            ops.extend(inner)
        return
    _diff_inside(old, new, path, ops)


def _diff_inside(old: Any, new: Any, path: str, ops: list[Op]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": _pointer(path, key)})
        for key, value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": _pointer(path, key), "value": value})
            else:
                _diff(old[key], value, _pointer(path, key), ops)
        return
    if isinstance(old, list) and isinstance(new, list):
        dropped = _slid(old, new)
        # a full feed keeps its length: a line off the front, one on at the end
        if dropped is not None and (len(old) != len(new) or 2 * dropped <= len(old)):
            ops.extend({"op": "remove", "path": _pointer(path, 0)} for _ in range(dropped))
            ops.extend(
                {"op": "add", "path": _pointer(path, "-"), "value": value}
                for value in new[len(old) - dropped :]
            )
            return
        if len(old) == len(new):
            for index, (a, b) in enumerate(zip(old, new, strict=True)):
                _diff(a, b, _pointer(path, index), ops)
            return
    ops.append({"op": "replace", "path": path, "value": new})


def _slid(old: list, new: list) -> int | None:
    """How many items `new` dropped from the front of `old` before adding at its end (the
    fewest), if that is how it came about."""
    for dropped in range(len(old) + 1):
        kept = len(old) - dropped
        if kept > len(new):
            continue
        if all(_same(a, b) for a, b in zip(old[dropped:], new[:kept], strict=True)):
            return dropped if kept or not old else None
    return None


def _parts(path: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]


def apply_patch(document: Any, ops: list[Op]) -> Any:
    """`document` with `ops` applied (a copy); ValueError for an operation that does not fit."""
    document = copy.deepcopy(document)
    for op in ops:
        parts = _parts(op["path"])
        if not parts:
            if op["op"] != "replace":
                raise ValueError(f"cannot {op['op']} the whole document")
            document = copy.deepcopy(op["value"])
            continue
        parent = document
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        last = parts[-1]
        if isinstance(parent, list):
            if op["op"] == "add":
                index = len(parent) if last == "-" else int(last)
                parent.insert(index, copy.deepcopy(op["value"]))
            elif op["op"] == "remove":
                del parent[int(last)]
            else:
                parent[int(last)] = copy.deepcopy(op["value"])
        elif op["op"] == "remove":
            del parent[last]
        else:
            parent[last] = copy.deepcopy(op["value"])
    return document
