"""A virtual table's ship run by the real firmware: `firmware/main.py` in MicroPython on the
virtual board (`bosun.board`), its load cells fed by the virtual ship.

It stands in for `VirtualShipNode` (the ship core under CPython) at a demo table (`bosun run
--demo --firmware`): the same ship and bots, but every event, LED command and status goes
through the firmware's HX711 driver, detector, outbox and MQTT link. The board runs in real
time only (its MicroPython loop keeps the 80 SPS period), so a firmware table plays at speed 1."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bosun.board import ShipSource, VirtualBoard
from bosun.bus.access import as_access
from bosun.sim import ShipParams, VirtualShip

# Rows the firmware must have read after a boot before hands go near the ship: the HX711s'
# power-up readings are discarded and the detector learns the empty ship first.
READY_ROWS = 160


class LockedShip:
    """The virtual ship as the board's feeder thread shares it: every read and every action
    runs under the board's lock, between two samples."""

    def __init__(self, node: BoardShipNode) -> None:
        self._node = node

    def __getattr__(self, name: str) -> Any:
        board = self._node.board
        value = board.inject(lambda ship: getattr(ship, name))
        if not callable(value):
            return value
        return lambda *args, **kwargs: board.inject(
            lambda ship: getattr(ship, name)(*args, **kwargs)
        )

    @property
    def settled(self) -> bool:
        """Nothing moves, and the firmware is up and has learnt the empty ship."""
        return self._node.ready and self._node.board.inject(lambda ship: ship.settled)


class BoardShipNode:
    """The firmware on the virtual board, publishing to `bosun/<table>/ship/...`."""

    def __init__(
        self,
        table_id: str,
        broker: tuple[str, int],
        seed: int | str = 0,
        table_sensor: str = "both",
        level: str = "normal",
    ) -> None:
        self.table_id = table_id
        self.seed = seed
        self.games = 0
        self.params = ShipParams.draw(level, seed, rate_sps=80, table=table_sensor)
        self.source = ShipSource(VirtualShip(self.params, seed))
        self.items = self.source.ship.calibrated_item_grams()
        access = as_access(broker)  # the ship's own login on bosun's broker, as config.json has it
        login = {"user": access.user, "password": access.password, "ca": None}
        if access.tls:
            login["ca"] = Path(access.ca_file).read_text()
        self.board = VirtualBoard(
            table_id,
            f"{'mqtts' if access.tls else 'mqtt'}://{access.host}:{access.port}",
            self.source,
            config={"mqtt": login},
            drop_sensor=table_sensor,
            seed=seed,
        )  # calibration "matching": the firmware's calibration fits the cells, items included
        self.ship = LockedShip(self)
        self._boots_wanted = 1

    @property
    def ready(self) -> bool:
        board = self.board
        return board.boots >= self._boots_wanted and board.rows_used >= READY_ROWS

    def start(self) -> None:
        self.board.start()

    async def stop(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.board.stop)

    async def new_game(self) -> None:
        """Between games the players clear the ship and it starts afresh: a new boot (the
        board's reset waits for its lock: not on the loop)."""
        await asyncio.to_thread(self._new_game)

    def _new_game(self) -> None:
        self.games += 1
        ship = VirtualShip(self.params, f"{self.seed}/game{self.games}")
        self._boots_wanted = self.board.boots + 1
        self.board.reset()  # first, so the old boot never sees the pieces vanish
        self.board.inject(lambda _: setattr(self.source, "ship", ship))

    # -- the calibration wizard's hands: not at a firmware table (its calibration fits) ------

    def _no_hands(self, *_: Any, **__: Any) -> Any:
        raise ValueError(
            "this table's ship is the firmware on the virtual board: it is calibrated "
            "already, and the wizard has no hands there"
        )

    put_weight = put_piece = take_off = clear_ship = _no_hands

    def hands(self) -> dict[str, str]:
        return {}
