"""The one place Riff Raff's state becomes something a person or a file may see.

Every output (replay, dashboard, player pages, MQTT) goes through `build_view`; the only
secret, a card chosen before the reveal (RR4), is added for its own chooser and nobody else.
"""

from __future__ import annotations

from typing import Any

from bosun.games.riffraff.state import ITEMS, ZONES, RiffRaffState


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
        "players": {
            p: {
                "supply": s.pieces_left(p),
                "items": {item: s.supply[p][item] for item in ITEMS},
                "played": list(s.played[p]),
                "card": s.round_cards.get(p),
                "chosen": p in s.hidden_cards or p in s.round_cards,
            }
            for p in s.players
        },
        "ship": {str(z): [piece.item for piece in s.ship[z]] for z in ZONES},
        "boxed": s.boxed,
        "last_turn": s.last_turn_player,
        "winners": list(s.winners),
    }
    if viewer is not None and viewer in s.players:
        view["you"] = viewer
        view["my_card"] = s.hidden_cards.get(viewer, s.round_cards.get(viewer))
    return view


def known_order(s: RiffRaffState) -> list[str]:
    """Players still to go after the active one, up to the first tie the captain has not settled."""
    order: list[str] = []
    for player in s.still_to_go:
        value = s.round_cards[player]
        if sum(1 for p in s.still_to_go if s.round_cards[p] == value) > 1:
            break
        order.append(player)
    return order
