"""Montego Bay's full game state, secrets included. Only `view.build_view` turns it into output."""

from __future__ import annotations

from dataclasses import dataclass, field

WORKER_KINDS = ("big", "little")  # MB2
CARD_VALUES = tuple(range(1, 6))  # MB2, MB13: every worker's hand is 1-5, taken back each round
BARRELS_PER_PLAYER = 16  # MB16
LAZY_JACK_SILVER = 3  # MB5
DOCKS = 4  # MB3
LAST_SHIPS_TRIGGER = 6  # MB11, MB17
GAME_END_SHIPS = 3  # MB10
WEST_PUB, EAST_PUB = "west", "east"  # MB12: where Big and Little workers start
PILOT = "pilot"  # MB3: the pilot boat, which takes dock 1 and holds no cargo


@dataclass(frozen=True)
class Room:
    """A room of a warehouse (MB1)."""

    barrels: int = 0
    broken: int = 0
    silver: int = 0


@dataclass
class Ship:
    """A ship card at a dock or still in the deck; `deck_index` is its place in the deck."""

    slots: int
    points: tuple[int, ...]
    deck_index: int
    cargo: dict[str, int] = field(default_factory=dict)

    @property
    def loaded(self) -> int:
        return sum(self.cargo.values())

    @property
    def free_slots(self) -> int:
        return self.slots - self.loaded


@dataclass
class LazyJack:
    """Lazy Jack this round (MB5, MB14): his hirer, the worker he came with, where he stands."""

    player: str
    worker: str  # "big" or "little"
    at: int | str  # a stop index, or a pub while he has not moved


@dataclass
class Pending:
    """The question the engine waits on (MB15): a player must load or unload `count` barrels."""

    player: str
    stop: int
    action: str  # "load" or "unload"
    count: int


# A position on the board: a stop index 0..2W-1 on the loop, or a pub (WEST_PUB, EAST_PUB).
Position = int | str


@dataclass
class MontegoBayState:
    players: list[str]
    seed: int
    warehouses: list[tuple[Room, Room]]  # west to east, (north room, south room)
    deck: list[Ship]  # still to draw, first drawn first
    deck_size: int  # ships in the deck at setup, before docks 2-4 were filled
    docks: list[Ship | str | None]  # dock 1 first; PILOT, a ship, or empty
    order: list[str]  # order tokens "ann:big", first moves first (MB4)
    positions: dict[str, Position]  # token -> where that worker stands
    points: dict[str, int]
    silver: dict[str, int]
    barrels: dict[str, int]  # in supply
    round: int = 1
    phase: str = "hire"
    hires: dict[str, str | None] = field(default_factory=dict)  # declared this round (MB5)
    jack: LazyJack | None = None
    # Cards chosen this round and not yet revealed: secret (MB6). Read only by build_view.
    hidden_cards: dict[str, dict[str, int]] = field(default_factory=dict)
    round_cards: dict[str, dict[str, int]] = field(default_factory=dict)  # revealed (MB6)
    resolve_queue: list[int] = field(default_factory=list)  # stops still to resolve (MB15)
    pending: Pending | None = None
    drew_from_last_ships: bool = False  # MB11/MB17, this round
    events: list[dict] = field(default_factory=list)  # what happened since the last reveal
    winners: list[str] = field(default_factory=list)

    @property
    def warehouse_count(self) -> int:
        return len(self.warehouses)

    def ships_at_docks(self) -> list[tuple[int, Ship]]:
        """(dock number 1-4, ship) for every cargo ship at the docks, dock 1 first."""
        return [(i + 1, d) for i, d in enumerate(self.docks) if isinstance(d, Ship)]

    def aboard(self, player: str) -> int:
        return sum(ship.cargo.get(player, 0) for _, ship in self.ships_at_docks())

    def free_slots(self) -> int:
        return sum(ship.free_slots for _, ship in self.ships_at_docks())


def token(player: str, kind: str) -> str:
    return f"{player}:{kind}"


def token_owner(worker_token: str) -> tuple[str, str]:
    """("ann", "big") for "ann:big"."""
    player, _, kind = worker_token.rpartition(":")
    return player, kind
