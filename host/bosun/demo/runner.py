"""Add virtual tables to a running service: a simulated ship and bot players for each.

Each game's kit names how its virtual table is built (`GameKit.virtual`, a `VirtualKind`):
Riff Raff's is the virtual ship (`bosun.demo.riffraff`), Montego Bay's the same load cells as
a harbour (`bosun.demo.harbour`).
"""

from __future__ import annotations

import asyncio
import importlib

from bosun.demo.board_node import BoardShipNode
from bosun.demo.table_bots import VirtualKind, VirtualTableBase
from bosun.demo.virtual_ship import VirtualShipNode
from bosun.games import registry
from bosun.service import Service
from bosun.tables import TableConfig, default_seats

SEATS = (("ann", "bob", "cy"), ("dee", "eve", "finn"), ("gus", "hal", "ivy", "jo"), ("kim", "lou"))
NEXT_GAME_AFTER_S = 4.0


def _load(where: str) -> VirtualKind:
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


# Every game's virtual table, imported with this module (not later, on the event loop).
KINDS: dict[str, VirtualKind] = {
    kit.name: _load(kit.virtual) for kit in registry.kits() if kit.virtual is not None
}


def virtual_kind(game: str) -> VirtualKind:
    """How a virtual table of `game` is built; ValueError if it has none."""
    kit = registry.kit(game)
    if kit.name not in KINDS:
        raise ValueError(f"{kit.title} has no virtual table")
    return KINDS[kit.name]


def virtual_games() -> list[str]:
    """The games that have a virtual table, bosun's own first."""
    return list(KINDS)


def firmware_games() -> list[str]:
    """The games whose virtual ship may be the real firmware on the virtual board."""
    return [game for game in virtual_games() if virtual_kind(game).firmware]


async def add_virtual_tables(
    service: Service,
    count: int,
    seed: int = 0,
    games: int | None = None,
    style=None,
    game: str | None = None,
    first: int = 1,
    firmware: int = 0,
) -> list[VirtualTableBase]:
    """Start `count` virtual tables of `game` (bosun's first game unless said; demo-<first>,
    demo-<first + 1>, ...); `games` per table, or forever. The first `firmware` tables run the
    real firmware on the virtual board (`board_node.py`; real time only)."""
    tables: list[VirtualTableBase] = []
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
    style=None,
    game: str | None = None,
    firmware: bool = False,
) -> VirtualTableBase:
    """One virtual table, demo-<index + 1>: its ship on the broker, the table in the service,
    and its bot players; with `firmware`, the ship is the real firmware on the virtual
    board."""
    kit = registry.kit(game or registry.default_game())
    kind = virtual_kind(kit.name)
    table_id = f"demo-{index + 1}"
    node_seed = f"{seed}/{index}"
    ship_access = service.ship_access(table_id)  # a ship: its own login, as real ones
    if firmware:
        if not kind.firmware:
            raise ValueError(f"{kit.title} has no firmware table: its ship is simulated")
        if service.clock.scale != 1:
            raise ValueError("a firmware table runs at speed 1 (real time)")
        node = BoardShipNode(table_id, ship_access, seed=node_seed)
    else:
        # (its core learns the empty ship first: ~80 samples, in a worker thread)
        node = await asyncio.to_thread(
            VirtualShipNode,
            table_id,
            ship_access,
            seed=node_seed,
            scale=service.clock.scale,
            params=kind.ship(node_seed) if kind.ship is not None else None,
        )
        service.clock.pace_with(node)  # the referee's time waits for the ship's samples
    config = TableConfig(
        id=table_id,
        game=kit.name,
        players=default_seats(list(SEATS[index % len(SEATS)])),
        items=node.items,
        demo=True,
        **kind.config,
    )
    view = service.add_table(config, fresh=True)
    if not firmware:  # nor does the referee's time pass an event on its way (busy machines)
        node.taken = view.events_taken
    await service.ship_ready(table_id)
    # after the table exists, so its birth message is not a stranger's
    if firmware:  # MicroPython boots in a second or two: not on the event loop
        await asyncio.get_running_loop().run_in_executor(None, node.start)
    else:
        node.start()
    view.play_on(NEXT_GAME_AFTER_S, games)
    players = kind.players(
        table_id,
        node,
        service.http_url,
        service.options.operator_key,
        service.host_access,  # the bots watch the game topics, which only the host may read
        seed=node_seed,
        style=style,
    )
    players.hands_off = lambda: view.calibrating
    players.start()
    table = kind.table(config, node, players)
    view.attach_virtual(table)
    return table
