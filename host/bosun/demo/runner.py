"""Add virtual tables to a running service: a virtual ship and bot players for each.

A Riff Raff table gets the virtual ship; a Montego Bay table the same load cells as a
harbour (`bosun.demo.harbour`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bosun.demo.harbour import HarbourPlayers, HarbourStyle, VirtualHarbour
from bosun.demo.players import BotStyle, GameTally, VirtualTablePlayers
from bosun.demo.ship_node import VirtualShipNode
from bosun.service import Service
from bosun.sim.params import ShipParams
from bosun.tables import TableConfig, default_seats

SEATS = (("ann", "bob", "cy"), ("dee", "eve", "finn"), ("gus", "hal", "ivy", "jo"), ("kim", "lou"))
NEXT_GAME_AFTER_S = 4.0
SETTLE_S = 3  # RR14's three-second rule, so a tipping piece is still its loader's


@dataclass
class VirtualTable:
    """One simulated table: its configuration, its ship on the broker, its bot players."""

    config: TableConfig
    node: VirtualShipNode
    players: VirtualTablePlayers

    @property
    def finished(self) -> list[GameTally]:
        return self.players.finished

    async def stop(self) -> None:
        await self.players.stop()
        await self.node.stop()

    # -- people at a virtual table (their page stands in for their hands) -----------------

    def claim(self, player: str, human: bool) -> None:
        """A person takes over a seat from its bot (or hands it back)."""
        if human:
            self.players.humans.add(player)
        else:
            self.players.humans.discard(player)

    def place(self, player: str, item: str, zone: int) -> str:
        """The seat's person puts a piece of `item` on `zone` of the virtual ship."""
        if player not in self.players.humans:
            raise ValueError("join the seat first: a bot is playing it")
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
        if player not in self.players.humans:
            raise ValueError("join the seat first: a bot is playing it")
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
) -> list[VirtualTable | VirtualHarbour]:
    """Start `count` virtual tables of `game` (demo-<first>, demo-<first + 1>, ...);
    `games` per table, or forever."""
    if game == "montego-bay":
        return [
            await add_virtual_harbour(service, index, seed, games, style)
            for index in range(first - 1, first - 1 + count)
        ]
    tables = []
    for index in range(first - 1, first - 1 + count):
        table_id = f"demo-{index + 1}"
        node = VirtualShipNode(
            table_id, service.broker_address, seed=f"{seed}/{index}", scale=service.clock.scale
        )
        config = TableConfig(
            id=table_id,
            players=default_seats(list(SEATS[index % len(SEATS)])),
            settle_s=SETTLE_S,
            table_sensor="both",
            items=node.items,
            demo=True,
        )
        runtime = service.add_table(config, fresh=True)
        node.start()  # after the table exists, so its birth message is not a stranger's
        runtime.next_game_after_s = NEXT_GAME_AFTER_S
        runtime.games_left = None if games is None else games - 1
        players = VirtualTablePlayers(
            table_id,
            node,
            service.http_url,
            service.options.operator_key,
            service.broker_address,
            seed=f"{seed}/{index}",
            style=style,
        )
        players.start()
        table = VirtualTable(config, node, players)
        runtime.virtual = table
        tables.append(table)
    return tables


async def add_virtual_harbour(
    service: Service,
    index: int,
    seed: int = 0,
    games: int | None = None,
    style: HarbourStyle | None = None,
) -> VirtualHarbour:
    """One virtual Montego Bay table, demo-<index + 1>: a harbour and its bot players."""
    table_id = f"demo-{index + 1}"
    node_seed = f"{seed}/{index}"
    node = VirtualShipNode(
        table_id,
        service.broker_address,
        seed=node_seed,
        scale=service.clock.scale,
        params=ShipParams.harbour(node_seed),
    )
    config = TableConfig(
        id=table_id,
        game="montego-bay",
        players=default_seats(list(SEATS[index % len(SEATS)])),
        table_sensor="none",
        items=node.items,
        demo=True,
    )
    runtime = service.add_table(config, fresh=True)
    node.start()  # after the table exists, so its birth message is not a stranger's
    runtime.next_game_after_s = NEXT_GAME_AFTER_S
    runtime.games_left = None if games is None else games - 1
    players = HarbourPlayers(
        table_id,
        node,
        service.http_url,
        service.options.operator_key,
        service.broker_address,
        seed=node_seed,
        style=style,
    )
    players.hands_off = lambda: runtime.calibrating
    players.start()
    table = VirtualHarbour(config, node, players)
    runtime.virtual = table
    return table
