"""The one place Montego Bay's state becomes something a person or a file may see.

Every output (replay, dashboard, player pages, MQTT) goes through `build_view`, and a game's
timeline (the history pages) through `build_timeline`. The secrets are the cards chosen
before the reveal (MB6), added for their own chooser and nobody else, and the order of the
ship deck, which nobody sees (only how many ships are left). Revealed cards are public: every
worker's hand is taken back each round (MB13), so none of them is a matter of memory.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from bosun.games.montego_bay.board import stop_label
from bosun.games.montego_bay.state import PILOT, MontegoBayState, Room, Ship


def build_view(s: MontegoBayState, viewer: str | None = None) -> dict[str, Any]:
    """The public state (DESIGN.md), plus `my_cards` when `viewer` is a seated player."""
    w = s.warehouse_count
    pending = s.pending
    view: dict[str, Any] = {
        "game": "montego-bay",
        "phase": s.phase,
        "round": s.round,
        "docks": [_dock(d) for d in s.docks],
        "deck_left": len(s.deck),
        "order": list(s.order),
        "workers": {t: stop_label(at, w) for t, at in s.positions.items()},
        "jack": (
            {"player": s.jack.player, "worker": s.jack.worker, "at": stop_label(s.jack.at, w)}
            if s.jack
            else None
        ),
        "players": {
            p: {"points": s.points[p], "silver": s.silver[p], "barrels": s.barrels[p]}
            for p in s.players
        },
        "pending": (
            {
                "player": pending.player,
                "room": stop_label(pending.stop, w),
                "action": pending.action,
                "count": pending.count,
            }
            if pending
            else None
        ),
        "winners": list(s.winners),
        # Beyond the contract: what a table or a dashboard needs to show the game.
        "warehouses": [[_room(north), _room(south)] for north, south in s.warehouses],
        "hires": dict(s.hires),
        "chosen": [p for p in s.players if p in s.hidden_cards or p in s.round_cards],
        "cards": copy.deepcopy(s.round_cards),
        "events": copy.deepcopy(s.events),
    }
    if viewer is not None and viewer in s.players:
        view["you"] = viewer
        view["my_cards"] = dict(s.hidden_cards.get(viewer) or s.round_cards.get(viewer) or {})
    return view


def barrels_by_dock(view: dict[str, Any] | None) -> Counter[int]:
    """Barrels aboard the ship at each dock (1-based) of a public view; none without a view."""
    if not view:
        return Counter()
    return Counter(
        {i: sum(d["cargo"].values()) for i, d in enumerate(view["docks"], 1) if d and "cargo" in d}
    )


def _dock(dock: Ship | str | None) -> dict[str, Any] | None:
    if dock is None:
        return None
    if dock == PILOT:
        return {"pilot": True}
    return {"slots": dock.slots, "points": list(dock.points), "cargo": dict(dock.cargo)}


def _room(room: Room) -> dict[str, int]:
    """A room in the setup's form: {"barrels": n} or {"broken": n}, with "silver" if any."""
    out = {"broken": room.broken} if room.broken else {"barrels": room.barrels}
    if room.silver:
        out["silver"] = room.silver
    return out


def build_timeline(
    s: MontegoBayState, timeline: dict[str, Any], running: bool, viewer: str | None = None
) -> dict[str, Any]:
    """A game's timeline as `viewer` (None: anyone) may see it, from the history's replay.

    `timeline` may hold `rounds` ({round, cards: [{player, value}], revealed_ms}): while the
    game runs, the cards of a round not yet revealed are hidden (MB6) except the viewer's own.
    """
    out = copy.deepcopy(timeline)
    if not running:
        return out
    for entry in out.get("rounds", []):
        if entry.get("revealed_ms") is not None:
            continue
        for line in entry.get("cards", []):
            if line.get("player") != viewer or viewer not in s.hidden_cards:
                line["value"] = None
                line["hidden"] = True
    return out
