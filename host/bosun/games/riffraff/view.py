"""The one place Riff Raff's state becomes something a person or a file may see.

Every output (replay, dashboard, player pages, MQTT) goes through `build_view`, and a game's
timeline (the history pages) through `build_timeline`. The secrets: a card chosen before the
reveal (RR4), added for its own chooser and nobody else; and, while the game runs, the cards
of earlier rounds (RR7: face down, only the most recent round's stay up), which each player
still sees of their own.
"""

from __future__ import annotations

import copy
from typing import Any

from bosun.games.riffraff.state import ITEMS, ROUNDS_PER_CYCLE, ZONES, RiffRaffState


def build_view(s: RiffRaffState, viewer: str | None = None) -> dict[str, Any]:
    """The public state, plus `my_card` when `viewer` is a seated player."""
    turn = s.turn
    view: dict[str, Any] = {
        "game": "riffraff",
        "phase": s.phase,
        "round": s.round,
        "cycle": s.cycle,
        "captain": s.captain,
        "turn": turn.player if turn else None,
        "order": known_order(s),
        "target_zone": turn.target_zone if turn else None,
        "pieces_announced": turn.announced if turn else None,
        "pieces_loaded": len(turn.loaded_ids) if turn else None,
        "pending": (
            {"decision": s.decision.kind, "by": s.decision.by, "among": list(s.decision.among)}
            if s.decision
            else None
        ),
        "settle_s": s.settle_s,
        "own_catch": s.own_catch,
        "players": {
            p: {
                "supply": s.pieces_left(p),
                "items": {item: s.supply[p][item] for item in ITEMS},
                # RR7: the card face up; a player's own view holds all of theirs (below)
                "played": [s.shown_cards[p]] if p in s.shown_cards else [],
                "card": s.round_cards.get(p),
                "chosen": p in s.hidden_cards or p in s.round_cards,
            }
            for p in s.players
        },
        "ship": {str(z): [piece.item for piece in s.ship[z]] for z in ZONES},
        "boxed": s.boxed,
        "last_turn": s.last_turn_player,
        # RR14: whose supply cargo falling now goes to (the previous player's when the open
        # turn's player has loaded nothing yet); null before the first turn and at the end
        "falls_to": s.falls_to() if s.phase != "over" else None,
        "fall_ends_turn": s.phase == "turn" and not s.late_fall(),  # RR11, or a late fall
        "winners": list(s.winners),
    }
    if viewer is not None and viewer in s.players:
        view["you"] = viewer
        view["my_card"] = s.hidden_cards.get(viewer, s.round_cards.get(viewer))
        view["players"][viewer]["played"] = list(s.played[viewer])  # RR7: one's own cards
    return view


def build_timeline(
    s: RiffRaffState, timeline: dict[str, Any], running: bool, viewer: str | None = None
) -> dict[str, Any]:
    """A game's timeline as `viewer` (None: anyone) may see it, from the history's replay.

    `timeline` holds `rounds` ({round, cards: [{player, value}], revealed_ms}) and `turns`
    ({round, player, card, zone, loads: [{zone, ...}]}) with every card. Once the game is over
    all of it is public. While it runs: a card not yet revealed is hidden (RR4), and so is
    every card of an earlier round (RR7), with the zone of that turn, which equals the card
    (RR8); `viewer` still sees their own cards of this cycle (their page shows them).
    """
    out = copy.deepcopy(timeline)
    if not running:
        return out
    face_up = _face_up_round(s, out.get("rounds", []))
    cycle_rounds = _rounds_of_this_cycle(s)
    for entry in out.get("rounds", []):
        shown = entry.get("revealed_ms") is not None and entry["round"] == face_up
        for line in entry.get("cards", []):
            own = line["player"] == viewer and entry["round"] in cycle_rounds
            if not (shown or own):
                line["value"] = None
                line["hidden"] = True
    for turn in out.get("turns", []):
        own = turn["player"] == viewer and turn["round"] in cycle_rounds
        if turn["round"] != face_up and not own:
            turn["card"] = None
            turn["zone"] = None
            for load in turn.get("loads", []):
                load["zone"] = None
    return out


def _face_up_round(s: RiffRaffState, rounds: list[dict[str, Any]]) -> int | None:
    """The number of the round whose cards lie face up (RR7), if any."""
    if not s.shown_cards:
        return None  # none revealed yet, or the 2-player cycle just began (RR16)
    revealed = [entry["round"] for entry in rounds if entry.get("revealed_ms") is not None]
    return max(revealed, default=None)


def _rounds_of_this_cycle(s: RiffRaffState) -> range:
    first = (s.cycle - 1) * ROUNDS_PER_CYCLE + 1
    return range(first, s.round + 1)


def known_order(s: RiffRaffState) -> list[str]:
    """Players still to go after the active one, up to the first tie the captain has not settled."""
    order: list[str] = []
    for player in s.still_to_go:
        value = s.round_cards[player]
        if sum(1 for p in s.still_to_go if s.round_cards[p] == value) > 1:
            break
        order.append(player)
    return order
