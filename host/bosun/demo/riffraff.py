"""A virtual Riff Raff table: the virtual ship, its bot players, and a person's hands on it."""

from __future__ import annotations

from typing import Any

from bosun.demo.players import VirtualTablePlayers
from bosun.demo.table_bots import VirtualKind, VirtualTableBase
from shipsense.geometry import check_zone

SETTLE_S = 3  # RR14's three-second rule, so a tipping piece is still its loader's
# Ship milliseconds a hand-placed piece may take to be refereed before another may follow.
PLACE_WATCH_MS = 6000.0
OUTCOMES = ("landed", "caught", "bounced")


class VirtualTable(VirtualTableBase):
    """One simulated Riff Raff table: its configuration, its ship on the broker, its bot
    players; a person's page lends them hands to place pieces and tip them off."""

    players: VirtualTablePlayers

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._placing: dict[str, tuple] = {}  # player -> (game, pieces loaded, ship ms)

    def act(
        self, player: str, game_id: str | None, state: dict | None, request: dict[str, Any]
    ) -> None:
        """`place` a piece (on the target zone unless `zone` says), or `tip` the newest one
        off (`outcome`: landed, caught or bounced); ValueError says why not."""
        do = request.get("do")
        if do == "place":
            item = request.get("item")
            zone = request.get("zone", state and state["target_zone"])
            if not isinstance(item, str):
                raise ValueError("place needs an item and a zone 1-10")
            try:
                check_zone(zone)
            except ValueError:
                raise ValueError("place needs an item and a zone 1-10") from None
            ship = self.node.ship
            loaded = state["pieces_loaded"] if state and state["turn"] == player else None
            watching = self._placing.get(player)
            if (
                watching is not None
                and loaded is not None
                and watching[:2] == (game_id, loaded)
                and ship.now_ms - watching[2] < PLACE_WATCH_MS
            ):  # a second tap before the first piece is refereed would load two
                raise ValueError("the referee is still watching your last piece settle")
            self.place(player, item, zone)
            self._placing[player] = (game_id, loaded, ship.now_ms)
        elif do == "tip":
            outcome = request.get("outcome", "landed")
            if outcome not in OUTCOMES:
                raise ValueError("outcome is landed, caught or bounced")
            self.tip(player, outcome)
        else:
            raise ValueError("do must be 'place' or 'tip'")

    def place(self, player: str, item: str, zone: int) -> str:
        """The seat's person puts a piece of `item` on `zone` of the virtual ship."""
        self._person(player)
        ship = self.node.ship
        if not ship.settled:
            raise ValueError("the ship is still moving; wait a moment")
        if not ship.supply(item):
            raise ValueError(f"no {item} is left off the ship")
        if ship.on_mat():
            ship.collect()  # tidy the table first, as people do
        # the hand goes down now, or once what is still moving has come to rest
        placement = ship.place(zone, item, at_ms=max(ship.busy_until_ms, ship.now_ms))
        return placement.piece

    def tip(self, player: str, outcome: str) -> list[str]:
        """The newest piece aboard falls off: `landed` on the mat, `caught`, or `bounced`."""
        self._person(player)
        ship = self.node.ship
        aboard = ship.aboard()
        if not aboard:
            raise ValueError("nothing is aboard to fall")
        if not ship.settled:
            raise ValueError("the ship is still moving; wait a moment")
        newest = max(aboard, key=lambda piece: piece.ready_us)
        ship.fall([newest.id], outcome)
        return [newest.item]


RIFF_RAFF = VirtualKind(
    table=VirtualTable,
    players=VirtualTablePlayers,
    config={"settle_s": SETTLE_S, "table_sensor": "both"},
    firmware=True,
)
