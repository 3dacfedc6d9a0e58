"""Riff Raff's full game state, secrets included. Only `view.build_view` turns it into output."""

from __future__ import annotations

from dataclasses import dataclass, field

from shipsense.geometry import YARD_ZONES as _YARDS
from shipsense.geometry import ZONES as ZONES  # RR1: 1-4 hull quarters, 5-10 the yards
from shipsense.pieces import ITEMS as ITEMS  # RR2, re-exported for the engine and views

YARD_ZONES = frozenset(_YARDS)
CARD_VALUES = tuple(range(1, 11))  # RR4
ROUNDS_PER_CYCLE = 10  # RR16
SETTLE_WINDOWS_S = (0, 3)  # RR14


@dataclass
class Piece:
    """One wooden piece aboard; `id` grows with every load, so the newest piece has the top id."""

    id: int
    item: str


@dataclass
class Turn:
    """The open turn: whose, where to load, how many pieces and how many are down."""

    player: str
    target_zone: int
    zone_held_cargo: bool  # RR9: judged at the start of the turn
    announced: int | None = None
    loaded_ids: list[int] = field(default_factory=list)


@dataclass
class Decision:
    """A captain's tie decision the game waits for (RR5, RR6)."""

    kind: str  # "captain" (RR5) or "next" (RR6)
    by: str
    among: list[str]


@dataclass
class RiffRaffState:
    players: list[str]
    settle_s: int
    captain: str
    supply: dict[str, dict[str, int]]
    round: int = 1
    cycle: int = 1
    phase: str = "choose"
    ship: dict[int, list[Piece]] = field(default_factory=lambda: {z: [] for z in ZONES})
    next_piece_id: int = 1
    boxed: int = 0
    played: dict[str, list[int]] = field(default_factory=dict)
    # Cards chosen this round and not yet revealed: secret (RR4). Read only by build_view.
    hidden_cards: dict[str, int] = field(default_factory=dict)
    # Cards revealed this round, which fix the turn order (RR6).
    round_cards: dict[str, int] = field(default_factory=dict)
    still_to_go: list[str] = field(default_factory=list)
    turn: Turn | None = None
    decision: Decision | None = None
    last_turn_player: str | None = None
    last_turn_loaded_ids: list[int] = field(default_factory=list)
    winners: list[str] = field(default_factory=list)

    def pieces_left(self, player: str) -> int:
        return sum(self.supply[player].values())

    def aboard(self) -> list[tuple[int, Piece]]:
        return [(zone, piece) for zone in ZONES for piece in self.ship[zone]]
