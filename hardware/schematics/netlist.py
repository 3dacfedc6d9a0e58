"""Read a KiCad netlist file back: components with their fields, and nets with their nodes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))')


def parse_sexp(text: str) -> list:
    """Parse one S-expression into nested lists of strings."""
    stack: list[list] = [[]]
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            if text[position:].strip():
                raise ValueError(f"netlist: cannot read at character {position}")
            break
        position = match.end()
        opening, closing, quoted, bare = match.groups()
        if opening:
            stack.append([])
        elif closing:
            if len(stack) == 1:
                raise ValueError(f"netlist: unbalanced ')' at character {position}")
            finished = stack.pop()
            stack[-1].append(finished)
        elif quoted is not None:
            stack[-1].append(quoted.replace('\\"', '"').replace("\\\\", "\\"))
        elif bare is not None:
            stack[-1].append(bare)
    if len(stack) != 1 or len(stack[0]) != 1:
        raise ValueError("netlist: expected exactly one balanced expression")
    return stack[0][0]


def _children(expr: list, key: str) -> list[list]:
    return [item for item in expr[1:] if isinstance(item, list) and item and item[0] == key]


def _value(expr: list, key: str, default: str = "") -> str:
    found = _children(expr, key)
    return found[0][1] if found and len(found[0]) > 1 else default


@dataclass(frozen=True)
class Component:
    """One component of the netlist."""

    ref: str
    value: str
    footprint: str
    fields: dict[str, str]


@dataclass(frozen=True)
class Node:
    """One pin on a net."""

    ref: str
    pin: str
    pin_type: str


@dataclass(frozen=True)
class Netlist:
    """A parsed KiCad netlist."""

    components: dict[str, Component]
    nets: dict[str, tuple[Node, ...]]

    def net_of(self, ref: str, pin: str) -> str | None:
        """The name of the net that pin `pin` of `ref` is on, or None if unconnected."""
        for name, nodes in self.nets.items():
            if any(node.ref == ref and node.pin == pin for node in nodes):
                return name
        return None


def read_netlist(source: str | Path) -> Netlist:
    """Parse KiCad netlist text, or the file at `source` when given a Path."""
    text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
    root = parse_sexp(text)
    if not root or root[0] != "export":
        raise ValueError("netlist: not a KiCad netlist (no export expression)")
    components: dict[str, Component] = {}
    for block in _children(root, "components"):
        for comp in _children(block, "comp"):
            fields = {}
            for fields_block in _children(comp, "fields"):
                for fld in _children(fields_block, "field"):
                    name = _value(fld, "name")
                    fields[name] = fld[2] if len(fld) > 2 and isinstance(fld[2], str) else ""
            ref = _value(comp, "ref")
            components[ref] = Component(
                ref, _value(comp, "value"), _value(comp, "footprint"), fields
            )
    nets: dict[str, tuple[Node, ...]] = {}
    for block in _children(root, "nets"):
        for net in _children(block, "net"):
            nodes = tuple(
                Node(_value(node, "ref"), _value(node, "pin"), _value(node, "pintype"))
                for node in _children(net, "node")
            )
            nets[_value(net, "name")] = nodes
    return Netlist(components=components, nets=nets)
