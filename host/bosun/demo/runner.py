"""Add virtual tables to a running service: a virtual ship and bot players for each.

A Riff Raff table gets the virtual ship; a Montego Bay table the same load cells as a
harbour (`bosun.demo.harbour`).
"""

from __future__ import annotations

import asyncio

from bosun.demo.board_node import BoardShipNode
from bosun.demo.harbour import HarbourPlayers, HarbourStyle, VirtualHarbour
from bosun.demo.players import BotStyle, VirtualTablePlayers
from bosun.demo.ship_node import VirtualShipNode
from bosun.demo.table_bots import VirtualTableBase
from bosun.service import Service
from bosun.sim.params import ShipParams
from bosun.tables import TableConfig, default_seats

SEATS = (("ann", "bob", "cy"), ("dee", "eve", "finn"), ("gus", "hal", "ivy", "jo"), ("kim", "lou"))
NEXT_GAME_AFTER_S = 4.0
SETTLE_S = 3  # RR14's three-second rule, so a tipping piece is still its loader's


class VirtualTable(VirtualTableBase):
    """One simulated Riff Raff table: its configuration, its ship on the broker, its bot
    players."""

    players: VirtualTablePlayers

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


async def add_virtual_tables(
    service: Service,
    count: int,
    seed: int = 0,
    games: int | None = None,
    style: BotStyle | HarbourStyle | None = None,
    game: str = "riffraff",
    first: int = 1,
    firmware: int = 0,
) -> list[VirtualTable | VirtualHarbour]:
    """Start `count` virtual tables of `game` (demo-<first>, demo-<first + 1>, ...);
    `games` per table, or forever. The first `firmware` Riff Raff tables run the real
    firmware on the virtual board (`board_node.py`; real time only)."""
    tables: list[VirtualTable | VirtualHarbour] = []
    try:
        for n, index in enumerate(range(first - 1, first - 1 + count)):
            table = await add_virtual_table(
                service, index, seed, games, style, game, firmware=n < firmware
            )
            tables.append(table)
    except BaseException:  # one did not start (no MicroPython, say): stop those that did
        for table in tables:
            await table.stop()
        raise
    return tables


async def add_virtual_table(
    service: Service,
    index: int,
    seed: int = 0,
    games: int | None = None,
    style: BotStyle | HarbourStyle | None = None,
    game: str = "riffraff",
    firmware: bool = False,
) -> VirtualTable | VirtualHarbour:
    """One virtual table, demo-<index + 1>: a ship (a harbour for Montego Bay) on the
    broker, the table in the service, and its bot players; with `firmware`, the ship is
    the real firmware on the virtual board."""
    table_id = f"demo-{index + 1}"
    node_seed = f"{seed}/{index}"
    harbour = game == "montego-bay"
    if firmware:
        if harbour or service.clock.scale != 1:
            raise ValueError("a firmware table is a Riff Raff ship at speed 1 (real time)")
        node = BoardShipNode(table_id, service.broker_address, seed=node_seed)
    else:
        node = VirtualShipNode(
            table_id,
            service.broker_address,
            seed=node_seed,
            scale=service.clock.scale,
            params=ShipParams.harbour(node_seed) if harbour else None,
        )
    seats = default_seats(list(SEATS[index % len(SEATS)]))
    if harbour:
        config = TableConfig(
            id=table_id, game=game, players=seats, table_sensor="none", items=node.items, demo=True
        )
    else:
        config = TableConfig(
            id=table_id,
            players=seats,
            settle_s=SETTLE_S,
            table_sensor="both",
            items=node.items,
            demo=True,
        )
    runtime = service.add_table(config, fresh=True)
    # after the table exists, so its birth message is not a stranger's
    if firmware:  # MicroPython boots in a second or two: not on the event loop
        await asyncio.get_running_loop().run_in_executor(None, node.start)
    else:
        node.start()
    runtime.next_game_after_s = NEXT_GAME_AFTER_S
    runtime.games_left = None if games is None else games - 1
    bots = HarbourPlayers if harbour else VirtualTablePlayers
    players = bots(
        table_id,
        node,
        service.http_url,
        service.options.operator_key,
        service.broker_address,
        seed=node_seed,
        style=style,
    )
    if harbour:
        players.hands_off = lambda: runtime.calibrating
    players.start()
    table = (VirtualHarbour if harbour else VirtualTable)(config, node, players)
    runtime.virtual = table
    return table
