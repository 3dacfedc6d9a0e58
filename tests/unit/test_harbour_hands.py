"""The virtual harbour's hands (bosun.demo.harbour_hands) move barrels only as the harbour's
detector can read them, whatever the table's hands and a person's hands do one after the other, and
however late the table's copy of the game arrives (over the broker, on a busy machine).

No broker and no service: the harbour's core runs on the simulated samples in the test, the
game states are written out, and what the detector says is counted dock by dock as the Montego
Bay referee counts it."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from bosun.demo.harbour import HarbourPlayers, VirtualHarbour
from bosun.demo.harbour_hands import AFTER_LIFT_MS
from bosun.demo.virtual_ship import VirtualShipNode
from bosun.sim.params import ShipParams
from bosun.tables import TableConfig, default_seats

SEED = "4/0"  # the harbour of the browser test (tests/browser/test_browser_montego.py)
PLAYERS = ["ann", "bob", "cy"]
NOWHERE = ("127.0.0.1", 9)  # nothing connects: the hands and the ship run in the test


def ship(cargo: dict[str, int], slots: int = 5) -> dict:
    """A dock's ship in the public state."""
    return {"slots": slots, "points": [1, 2, 3], "cargo": cargo}


def state(pending: dict | None, docks: list) -> dict:
    """The public state as far as the harbour's hands read it."""
    return {
        "round": 1,
        "phase": "resolve" if pending else "hire",
        "pending": pending,
        "docks": docks,
    }


def asked(player: str, room: str, count: int = 1, action: str = "load") -> dict:
    return {"player": player, "room": room, "action": action, "count": count}


class Harbour:
    """A virtual harbour whose ship runs when the test says, and what its detector felt."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.node = VirtualShipNode("h1", NOWHERE, seed=SEED, params=ShipParams.harbour(SEED))

        async def hands() -> HarbourPlayers:  # (its plumbing takes the loop it is made on)
            return HarbourPlayers("h1", self.node, "http://127.0.0.1:9", "key", NOWHERE)

        self.players = loop.run_until_complete(hands())
        self.players._game_id = "g1"
        self.players.humans.update(PLAYERS)  # people's pages: the bots decide nothing
        config = TableConfig(id="h1", game="montego-bay", players=default_seats(PLAYERS))
        self.table = VirtualHarbour(config, self.node, self.players)
        self.events: list[dict] = []
        emit = self.node.core.emit
        self.node.core.emit = lambda event: (self.events.append(dict(event)), emit(event))
        self.barrel_g = self.node.items["barrel"]

    @property
    def ship(self):  # the node's ship (a new one each game)
        return self.node.ship

    def run_ms(self, span_ms: float) -> None:
        self.node.advance_to(self.ship.now_ms + span_ms)

    def follow(self, game: dict, within_ms: float = 20_000) -> None:
        """The table's hands follow `game` as they would, a step every 12.5 ms of ship time."""
        self.players.state = game
        end = self.ship.now_ms + within_ms
        while self.players.harbour_work() or not self.ship.settled:
            assert self.ship.now_ms < end, (
                f"the hands never followed: {self.players.harbour_work()}"
            )
            if self.ship.settled:
                self.players._keep_harbour()
            self.run_ms(12.5)

    def person(self, player: str, game: dict, do: str, dock: int) -> None:
        """A person's hand, as their page sends it while the game is `game`."""
        self.table.hands(player, game, do, dock, 1)

    def felt(self) -> dict[int, int]:
        """Barrels each dock's cell counted, from the detector's events (as the referee does)."""
        felt: Counter[int] = Counter()
        for event in self.events:
            barrels = round(event.get("grams", 0.0) / self.barrel_g)
            if event["type"] == "place":
                felt[event["zone"]] += barrels
            elif event["type"] == "fall":
                assert len(event["zones"]) == 1, f"not told apart: {event}"
                felt[event["zones"][0]] -= barrels
            elif event["type"] == "shift":
                felt[event["from"]] -= barrels
                felt[event["to"]] += barrels
        return {dock: felt[dock] for dock in (1, 2, 3, 4)}

    def truth(self) -> dict[int, int]:
        return {dock: len(self.ship.aboard(dock)) for dock in (1, 2, 3, 4)}


def in_harbour(test):
    """Run `test(harbour)`; the hands' plumbing is made on a loop that is not running while
    the ship and the hands run in the test (no asyncio callback holds it)."""
    loop = asyncio.new_event_loop()
    try:
        harbour = Harbour(loop)
        try:
            test(harbour)
        finally:
            loop.run_until_complete(harbour.players.http.aclose())
    finally:
        loop.close()


def test_no_hand_sets_a_barrel_down_while_the_barrels_just_lifted_are_still_being_weighed():
    """A ship full of barrels at dock 2 sailed (MB9): the table's hands take them off, and the
    next player loads dock 1 with their own hand. Lifted barrels are at rest the instant they
    leave, but the detector weighs them ~0.3 s later: a barrel set on the neighbouring dock
    before then was read on dock 2 (the CI failure 'game 5 on dock 1, felt 4 there and 1 on
    dock 2'). The person's hand waits AFTER_LIFT_MS, then the detector counts every dock."""

    def play(harbour: Harbour) -> None:
        bob_loaded = state(asked("ann", "N3"), [{"pilot": True}, ship({"bob": 4}), None, None])
        harbour.follow(bob_loaded)  # bob answered on his page: the table sets his 4 barrels down
        harbour.run_ms(5000)
        sailed = state(asked("ann", "N3"), [{"pilot": True}, ship({}), None, None])
        harbour.follow(sailed)  # his ship filled and sailed: its barrels go back
        lifted_ms = harbour.ship.now_ms
        with pytest.raises(ValueError, match="wait"):
            harbour.person("ann", sailed, "put", 1)
        for _ in range(400):  # 5 s of ship time at most
            harbour.run_ms(12.5)
            try:
                harbour.person("ann", sailed, "put", 1)
                break
            except ValueError as why:
                assert "wait" in str(why)
        else:
            pytest.fail("ann's hand was refused for 5 s after the lift")
        assert harbour.ship.now_ms - lifted_ms >= AFTER_LIFT_MS
        harbour.run_ms(5000)
        assert harbour.felt() == harbour.truth() == {1: 1, 2: 0, 3: 0, 4: 0}, harbour.events

    in_harbour(play)


def test_a_person_waits_for_the_table_to_catch_up_with_the_game_before_moving_barrels():
    """bob answered on his page (1 barrel on dock 3) and ann is asked next; the table's hands
    still have the game as it was before bob's answer (their copy comes over the broker, late
    on a busy machine). ann's barrel set down then would come before bob's, the referee would
    take it for bob's answer, and the table's hands would set bob's barrel down right after
    ann's. Her hand waits until the table has followed bob's answer."""

    def play(harbour: Harbour) -> None:
        before = state(asked("bob", "N2"), [{"pilot": True}, ship({}), ship({}), None])
        harbour.follow(before)
        harbour.run_ms(3000)
        answered = state(asked("ann", "N3"), [{"pilot": True}, ship({}), ship({"bob": 1}), None])
        with pytest.raises(ValueError, match="catching up.*wait"):
            harbour.person("ann", answered, "put", 2)
        assert harbour.truth() == {1: 0, 2: 0, 3: 0, 4: 0}
        harbour.follow(answered)  # the table's copy arrives: bob's barrel goes on dock 3
        harbour.run_ms(2000)
        harbour.person("ann", answered, "put", 2)
        harbour.run_ms(5000)
        assert harbour.felt() == harbour.truth() == {1: 0, 2: 1, 3: 1, 4: 0}, harbour.events

    in_harbour(play)
