"""The hands at a virtual Montego Bay harbour, a bot's or a person's: they set barrels down on
the docks and lift them off only as the harbour's detector can read them.

The harbour's detector reads one move at a time. A lifted barrel is at rest the moment it
leaves, but the detector decides that it went ~0.3 s later; barrels moved on another dock
before then are weighed into that lift, or read with it as a shift between the docks. So
after any hand's move every hand waits until what moved came to rest, and longer after a lift
(AFTER_LIFT_MS). Also here: the pending question and an answer's barrels, as the hands read
them from the public state.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from bosun.demo.virtual_ship import VirtualShipNode
from shipsense.geometry import HARBOUR_DOCKS

# The detector takes weight leaving a zone within 1.5 s of deciding a place there for the
# hand that set the piece down (shipsense's FRESH_MS: a `stay`), and it decides a place up
# to ~1.5 s after the piece came to rest: barrels are taken off a dock only this long after
# the last ones set down on it came to rest.
TAKE_AFTER_PUT_MS = 3500.0
# The detector decides that barrels left a dock ~0.3 s after they went (a `fall`'s decided_ms
# less its t_ms), and only then weighs what went. Barrels set down (or lifted) on another
# dock before that are weighed into the fall or read with it as a shift between the docks:
# a barrel counts on a neighbouring dock. A barrel caught by a hand is at rest the moment it
# leaves (busy_until), so every hand, the table's and a person's, waits this long after a
# lift before it moves barrels again.
AFTER_LIFT_MS = 600.0


class HarbourHands:
    """Every hand at one virtual harbour, and when they may move barrels next."""

    def __init__(self, node: VirtualShipNode, put_rest_ms: float) -> None:
        self.node = node
        self.put_rest_ms = put_rest_ms  # no hand moves for this long after barrels set down
        self.reset()

    @property
    def ship(self):  # the node's ship (a new one each game)
        return self.node.ship

    def reset(self) -> None:
        """A new game: a new ship, with its own clock."""
        self._free_ms = 0.0  # no hand moves barrels before then (after any hand's move)
        self._put_done_ms: dict[int, float] = {}  # dock -> when barrels set there came to rest

    def barrels(self) -> Counter[int]:
        """Barrels lying on each dock (or being set down there)."""
        return Counter({dock: len(self.ship.aboard(dock)) for dock in HARBOUR_DOCKS})

    def free(self) -> bool:
        """Whether a hand may move barrels now: the harbour is still, the last move read."""
        return self.ship.settled and self.ship.now_ms >= self._free_ms

    def put(self, dock: int, count: int) -> None:
        """`count` barrels set down on `dock` together (one hand, or one ship moved up); no
        hand moves again until `put_rest_ms` after they came to rest."""
        at_ms = max(self.ship.now_ms, self.ship.busy_until_ms)
        for _ in range(count):
            placed = self.ship.place(dock, "barrel", at_ms=at_ms)
            self._put_done_ms[dock] = max(self._put_done_ms.get(dock, 0.0), placed.done_ms)
        self._rest(self.put_rest_ms)

    def may_take(self, dock: int) -> bool:
        """Whether barrels set down on `dock` have rested long enough to be taken off."""
        return self.ship.now_ms >= self._put_done_ms.get(dock, 0.0) + TAKE_AFTER_PUT_MS

    def take(self, dock: int, count: int) -> None:
        """`count` barrels lifted off `dock` together, back to their owners' hands."""
        pieces = sorted(self.ship.aboard(dock), key=lambda p: p.ready_us)[-count:]
        at_ms = max(self.ship.now_ms, self.ship.busy_until_ms)
        self.ship.fall([p.id for p in pieces], "caught", at_ms=at_ms)
        self._rest(AFTER_LIFT_MS)

    def _rest(self, wait_ms: float) -> None:
        """No hand moves barrels until what moved came to rest and `wait_ms` more passed."""
        self._free_ms = max(self._free_ms, self.ship.busy_until_ms + wait_ms)


def question_key(game_id: str | None, state: dict[str, Any] | None) -> tuple | None:
    """The pending load/unload question of `state`, as a key (None when nobody is asked)."""
    pending = state and state.get("pending")
    if not pending:
        return None
    return (game_id, state["round"], pending["room"], pending["action"], pending["player"])


def signed(action: str, ships: dict[str, int]) -> Counter[int]:
    """A load's or an unload's barrels by dock: put on positive, taken off negative."""
    sign = 1 if action == "load" else -1
    return Counter({int(dock): sign * n for dock, n in ships.items() if n})
