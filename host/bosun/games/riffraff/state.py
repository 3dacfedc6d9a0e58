"""Riff Raff's full game state, secrets included. Only `view.build_view` turns it into output."""

from __future__ import annotations

from dataclasses import dataclass, field

from shipsense.pieces import ITEMS as ITEMS  # RR2, re-exported for the engine and views

ZONES = tuple(range(1, 11))  # RR1: 1-4 hull quarters, 5-10 the yards
YARD_ZONES = frozenset(range(5, 11))
CARD_VALUES = tuple(range(1, 11))  # RR4
ROUNDS_PER_CYCLE = 10  # RR16
SETTLE_WINDOWS_S = (0, 3)  # RR14
OWN_CATCH = ("back", "box")  # RR12: the Greek/English text, the Korean text
# Readings of the rules a log may be played under (setup's `rules_edition`). Edition 1 is
# how bosun read them before late falls (RR14) kept the next turn going: a fall after the
# next turn opened ended that turn, and a lone caught piece went back to the player who had
# loaded it last even after their turn. Games stored then replay under it (migration 0003).
RULES_EDITIONS = (1, 2)


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
    own_catch: str = "back"
    rules_edition: int = 2
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
    # The cards face up (RR7): the most recent revealed round's, until the next reveal.
    shown_cards: dict[str, int] = field(default_factory=dict)
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

    def late_fall(self) -> bool:
        """RR14: cargo falling now is the previous player's (no turn open, or the open turn's
        player has not loaded anything yet)."""
        if self.turn is None:
            return True
        return self.rules_edition >= 2 and not self.turn.loaded_ids

    def falls_to(self) -> str | None:
        """Whose supply cargo falling now goes to (RR13, RR14); None before any turn."""
        return self.last_turn_player if self.late_fall() else self.turn.player
