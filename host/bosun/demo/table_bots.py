"""What every virtual table's bots share, whichever game they play.

They watch the table over the broker (`game/state`, `game/event`), act through the HTTP API
with their seat tokens like people would, and keep one tally per game of what the referee
decided against what really happened. A game's bots (`players.py`, `harbour.py`) add how
they play and what they check.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import paho.mqtt.client as mqtt

from bosun.bus.mqtt import ClientThread, send_without_delay
from bosun.demo.virtual_ship import VirtualShipNode
from bosun.tables import TableConfig
from shipsense import protocol

log = logging.getLogger(__name__)


class TableBots:
    """All bot seats of one virtual table; seats in `humans` are left to people."""

    tick_s = 0.05  # real seconds between steps when nothing happens
    rng_stream = "players"  # each game's bots draw from their own stream of the seed

    def __init__(
        self,
        table_id: str,
        node: VirtualShipNode,
        http_url: str,
        operator_key: str,
        broker: tuple[str, int],
        seed: int | str,
        style: Any,
    ) -> None:
        self.table_id = table_id
        self.node = node
        self.style = style
        self.rng = random.Random(f"{seed}/{self.rng_stream}")
        self.humans: set[str] = set()
        if not http_url.startswith("http://"):
            raise ValueError(
                f"the bots play through the service's own http:// address, not {http_url!r}"
            )
        # plain HTTP on the service's own address: no TLS, so no certificate bundle loaded on
        # the loop (30-60 ms a client, a hold of the loop for every virtual table started)
        self.http = httpx.AsyncClient(base_url=http_url, timeout=10, verify=False)
        self.operator_key = operator_key
        self.finished: list[Any] = []  # the tallies of finished games
        self.state: dict[str, Any] | None = None
        self._actions: asyncio.Queue = asyncio.Queue()
        self._state_changed = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._game_id: str | None = None
        self._seats: dict[str, str] = {}
        self._tally: Any = None
        self._finished_ids: set[str] = set()
        # True while the table's hands must stay off (the calibration wizard weighs things)
        self.hands_off: Callable[[], bool] = lambda: False
        self._asked: set[tuple] = set()  # decisions already sent
        self._task: asyncio.Task | None = None
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self._network = ClientThread(self.client, broker, keepalive_s=10)

    # -- what each game's bots add -------------------------------------------------------------

    def _new_tally(self, game_id: str) -> Any:
        raise NotImplementedError

    def _reset(self) -> None:
        """Forget the last game's expectations."""

    def _close(self, tally: Any, state: dict[str, Any]) -> None:
        """Write the final state and what was never answered into the tally."""

    def _on_state(self, state: dict[str, Any]) -> None:
        """A new public state arrived (on the event loop)."""

    def _check_actions(self) -> None:
        raise NotImplementedError

    async def _step(self) -> None:
        raise NotImplementedError

    # -- plumbing ----------------------------------------------------------------------------

    def start(self) -> None:
        self._task = self._loop.create_task(self._run())

    async def stop(self) -> None:
        """Stop deciding, then hang up the broker and join paho's thread off the loop."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await asyncio.to_thread(self._network.stop)
        await self.http.aclose()

    def _on_connect(self, client, *_: object) -> None:
        send_without_delay(client)
        client.subscribe(
            [(protocol.topic(self.table_id, name), 1) for name in protocol.GAME_TOPICS]
        )

    def _on_message(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(message.payload)
        except ValueError:
            return
        name = protocol.parse_topic(message.topic)[1]
        self._loop.call_soon_threadsafe(self._deliver, name, payload)

    def _deliver(self, name: str, payload: Any) -> None:
        if name == protocol.GAME_STATE and isinstance(payload, dict):
            self.state = payload
            self._on_state(payload)
            self._state_changed.set()
        elif name == protocol.GAME_EVENT and isinstance(payload, dict):
            self._actions.put_nowait(payload)

    @property
    def ship(self):
        return self.node.ship

    @property
    def game_id(self) -> str | None:
        return self._game_id

    async def _run(self) -> None:
        await asyncio.to_thread(self._network.start)
        while True:
            # asyncio.timeout, not wait_for: Python 3.11's wait_for swallows a cancel that
            # comes as the wait ends, and stop() then waited for this loop for ever
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.tick_s):
                    await self._state_changed.wait()
            self._state_changed.clear()
            try:
                await self._step()
            except httpx.HTTPError as why:
                log.warning("%s: a bot request failed: %s", self.table_id, why)
            except Exception:  # a bot's slip must not stop the table: note it and go on
                log.exception("%s: the bots stumbled", self.table_id)
                if self._tally is not None:
                    self._tally.mismatches.append({"kind": "bot_error"})

    async def _get(self, path: str, **params: str) -> dict[str, Any]:
        response = await self.http.get(path, params=params)
        response.raise_for_status()
        return response.json()

    async def _table(self) -> dict[str, Any]:
        return await self._get(f"/api/tables/{self.table_id}")

    async def _act(self, player: str, request: dict[str, Any]) -> dict[str, Any] | None:
        """A seat's request; the answer, or None (logged) when the referee refused it."""
        response = await self.http.post(f"/api/seat/{self._seats[player]}", json=request)
        if response.status_code != 200:
            log.info("%s: %s's %s refused: %s", self.table_id, player, request, response.text)
            return None
        return response.json()

    async def _ask_once(self, key: tuple, player: str, request: dict[str, Any]) -> bool:
        """Send a decision once: while the referee refuses it (the table paused while its
        ship restarts, say) it is sent again on a later step."""
        self._asked.add(key)
        if await self._act(player, request) is None:
            self._asked.discard(key)
            return False
        return True

    # -- games come and go -----------------------------------------------------------------

    async def _follow_game(self) -> dict[str, Any] | None:
        """The state to play on, picking up a new game when the service started one; None
        when there is nothing to play."""
        if self.state is None or self._tally is None:
            snapshot = await self._table()
            self.state = snapshot["state"]
            if snapshot["game_id"] != self._game_id:
                await self._new_game(snapshot["game_id"])
        state = self.state
        if state is None or self._tally is None:
            return None
        if state["phase"] == "over":
            self._finish(state)
            return None
        return state

    async def _new_game(self, game_id: str | None) -> None:
        self._game_id = game_id
        self._tally = None
        if game_id is None or game_id in self._finished_ids:
            return
        seats = await self._get(f"/api/tables/{self.table_id}/seats", key=self.operator_key)
        self._seats = seats["seats"]
        self._tally = self._new_tally(game_id)
        if self._finished_ids:  # not the first game: the table is cleared and starts afresh
            await self.node.new_game()
        self._asked.clear()
        self._reset()

    def _finish(self, state: dict[str, Any]) -> None:
        tally = self._tally
        self._check_actions()
        tally.winners = list(state["winners"])
        tally.rounds = state["round"]
        self._close(tally, state)
        self.finished.append(tally)
        self._finished_ids.add(tally.game_id)
        self._tally = None  # the service starts the next game; pick it up then
        self.state = None

    def _bot_seat(self) -> str | None:
        """A seat a bot plays (to answer for the table), if any."""
        return next((p for p in self._seats if p not in self.humans), None)


class VirtualTableBase:
    """One simulated table: its configuration, its ship on the broker, its bots; people may
    take seats over from the bots (their page stands in for their hands). A game's table
    adds `act`, what a person's hands do there."""

    what = "virtual ship"  # for people, in `bosun run`'s list of tables

    def __init__(self, config: TableConfig, node: VirtualShipNode, players: TableBots) -> None:
        self.config = config
        self.node = node
        self.players = players
        self._stopped = False

    @property
    def finished(self) -> list[Any]:
        return self.players.finished

    @property
    def humans(self) -> set[str]:
        """The seats people play (the bots leave them be)."""
        return set(self.players.humans)

    def describe(self) -> str:
        if hasattr(self.node, "board"):
            return "the firmware on a virtual board, bots until you join"
        return f"{self.what}, bots until you join"

    async def stop(self) -> None:
        """The bots first (no hand reaches for a ship that is gone), then the ship; once."""
        if self._stopped:
            return
        self._stopped = True
        await self.players.stop()
        await self.node.stop()

    def claim(self, player: str, human: bool) -> None:
        """A person takes over a seat from its bot (or hands it back)."""
        if human:
            self.players.humans.add(player)
        else:
            self.players.humans.discard(player)

    def _person(self, player: str) -> None:
        """ValueError unless a person (not a bot) plays the seat."""
        if player not in self.players.humans:
            raise ValueError("join the seat first: a bot is playing it")

    def act(
        self, player: str, game_id: str | None, state: dict | None, request: dict[str, Any]
    ) -> None:
        """What the seat's person does with their hands (`request` from their page; the
        table's game and its public view now); ValueError says why not."""
        raise ValueError("this table has no hands to lend")

    # -- the calibration wizard's hands: a known weight or pieces set on the ship ----------

    def wizard_loads(self) -> dict[str, str]:
        """What the wizard's hand has put where: {"3": "100 g weight", "mat": ...}."""
        return self.node.hands()

    def clear_ship(self) -> None:
        self.node.clear_ship()

    def put_weight(self, zone: int | str, grams: float) -> None:
        """A known calibration weight set on `zone` (or "mat"); ValueError says why not."""
        self.node.put_weight(zone, grams)

    def put_piece(self, zone: int, item: str, count: int) -> None:
        """`count` pieces of `item` from the supply set on `zone` to be weighed."""
        self.node.put_piece(zone, item, count)

    def take_off(self, zone: int | str) -> None:
        self.node.take_off(zone)


@dataclass(frozen=True)
class VirtualKind:
    """How a virtual table of one game is built (its kit's `virtual` names one of these)."""

    table: type[VirtualTableBase]
    players: type[TableBots]
    config: dict[str, Any]  # the table's configuration beyond id, game, players and items
    ship: Callable[[str], Any] | None = None  # ShipParams from the node's seed (None: a ship)
    firmware: bool = False  # its ship may be the real firmware on the virtual board
