"""A Riff Raff game's timeline: its turns, rounds' cards, falls and decisions, as it was played.

`RiffRaffTimeline.record` is given every action of a game's effective log as it replays,
with the public view before and after it; the history pages and statistics read what it
kept. Secrets: it keeps every card; what may be seen of them is the game's secret filter's
to say (`bosun.games.riffraff.view.build_timeline`, RR4 and RR7).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Turn:
    """One player's turn as it happened: when, where, what was loaded and what fell."""

    round: int
    player: str
    zone: int
    card: int | None
    start_ms: int
    end_ms: int | None = None
    announced: int | None = None
    loads: list[dict[str, Any]] = field(default_factory=list)
    falls: list[dict[str, Any]] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "player": self.player,
            "zone": self.zone,
            "card": self.card,
            "start_ms": self.start_ms,
            "end_ms": self.end_ms,
            "length_ms": None if self.end_ms is None else self.end_ms - self.start_ms,
            "announced": self.announced,
            "loads": self.loads,
            "falls": self.falls,
        }


def _kinds(pieces: list[Any]) -> list[str]:
    """The kinds of a fall's pieces: {"item", "zone"} (RR13a) or a bare kind."""
    return [p["item"] if isinstance(p, dict) else p for p in pieces]


def _ship_diff(before: dict[str, list[str]], after: dict[str, list[str]]) -> dict[str, list[str]]:
    """Pieces per zone that were aboard before and are gone after (a fall)."""
    gone: dict[str, list[str]] = {}
    for zone, items in before.items():
        remaining = Counter(after.get(zone, []))
        lost = []
        for item in items:
            if remaining[item]:
                remaining[item] -= 1
            else:
                lost.append(item)
        if lost:
            gone[zone] = lost
    return gone


class RiffRaffTimeline:
    """Turns, rounds, falls and other decisions of one Riff Raff game, action by action.

    Loads and falls keep the id of their log entry (`entry`), to find the ship event behind it.
    """

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self._rounds: dict[tuple[int, int], dict[str, Any]] = {}
        self.falls: list[dict[str, Any]] = []  # every fall with the zones it came from
        self.events: list[dict[str, Any]] = []  # other things worth a line: decisions
        self._open_turn: Turn | None = None

    @property
    def rounds(self) -> list[dict[str, Any]]:
        return [self._rounds[k] for k in sorted(self._rounds)]

    def record(
        self, at_ms: int, action: dict, entry: int | None, before: dict, after: dict
    ) -> None:
        """One accepted action, with the public view before and after it."""
        open_turn, turns = self._open_turn, self.turns
        kind = action.get("type")
        if kind == "card":
            line = {"at_ms": at_ms, "player": action["player"], "value": action["value"]}
            key = (after["cycle"], after["round"])
            played = self._rounds.setdefault(
                key, {"round": after["round"], "cycle": after["cycle"]}
            )
            played.setdefault("cards", []).append(line)
            if after["phase"] != "choose":
                played["revealed_ms"] = at_ms  # RR4: the last card reveals them all
        elif kind in ("captain", "next"):
            what = "chose the captain" if kind == "captain" else "chose who goes next"
            text = f"{action['by']} {what}: {action['player']}"
            self.events.append(
                {"at_ms": at_ms, "kind": kind, "text": text, "round": after["round"]}
            )
        elif kind == "announce" and open_turn is not None:
            open_turn.announced = action["pieces"]
        elif kind == "load" and open_turn is not None:
            load = {"at_ms": at_ms, "item": action["item"], "zone": action["zone"], "entry": entry}
            open_turn.loads.append(load)
        elif kind == "shift":
            text = f"a {action['item']} moved from zone {action['from']} to zone {action['to']}"
            self.events.append(
                {"at_ms": at_ms, "kind": "shift", "text": text, "round": after["round"]}
            )
        elif kind == "fall":
            gone = _ship_diff(before["ship"], after["ship"])
            late = not before["fall_ends_turn"] if "fall_ends_turn" in before else False
            fall = {
                "at_ms": at_ms,
                "player": action["player"],
                "fallen": _kinds(action.get("fallen", [])),
                "caught": _kinds(action.get("caught", [])),
                "zones": gone,
                "round": before["round"],
                "late": late,  # RR14: after the player's turn; the open turn went on
                "entry": entry,
            }
            self.falls.append(fall)
            target = open_turn if open_turn is not None and not late else None
            if target is None:  # RR14: the last turn the player it fell to had
                target = next((t for t in reversed(turns) if t.player == fall["player"]), None)
            if target is not None:
                target.falls.append(fall)
        if before["turn"] != after["turn"] or (open_turn and after["phase"] == "over"):
            if open_turn is not None and open_turn.end_ms is None:
                open_turn.end_ms = at_ms
                self._open_turn = None
            if after["turn"] is not None:
                player = after["turn"]
                self._open_turn = Turn(
                    round=after["round"],
                    player=player,
                    zone=after["target_zone"],
                    card=after["players"][player]["card"],
                    start_ms=at_ms,
                )
                turns.append(self._open_turn)

    def finish(self, running: bool) -> None:
        """The log is replayed (the secret filter, not the timeline, hides cards)."""
