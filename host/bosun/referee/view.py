"""What the web pages, the demo and the commands see of a table, and the few things they do.

A `TableView` stands between one table's runtime (its referee, its log, its ship link) and
everyone who shows or drives it, as a Home Assistant entity talks to its coordinator and
never to the device: pages read snapshots (the public one never holds a secret card or a
seat token; a seat's holds only its own), watch for changes, pass on seat requests and an
operator's new game, and the calibration wizard measures through it. The runtime behind it
can change shape without any page changing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from bosun.games import Rejected, registry
from bosun.referee.presence import MAX_DECISION_S, SeatWatch
from bosun.referee.runtime import TableRuntime
from bosun.tables import TableConfig
from shipsense import protocol

FEED_SHOWN = 50  # feed lines in a snapshot
RECENT_GAMES = 5  # a finished game's seat link leads on for this many games of its table


class VirtualTable(Protocol):
    """A demo's simulated table as the web sees it (bosun.demo.table_bots.VirtualTableBase):
    seats people may take from the bots, hands for them, hands for the wizard."""

    @property
    def humans(self) -> set[str]: ...

    def describe(self) -> str: ...

    async def stop(self) -> None: ...

    def claim(self, player: str, human: bool) -> None: ...

    def act(
        self, player: str, game_id: str | None, state: dict | None, request: dict[str, Any]
    ) -> None: ...

    def wizard_loads(self) -> dict[str, str]: ...

    def clear_ship(self) -> None: ...

    def put_weight(self, zone: int | str, grams: float) -> None: ...

    def put_piece(self, zone: int, item: str, count: int) -> None: ...

    def take_off(self, zone: int | str) -> None: ...


class TableView:
    """One table as pages and commands may see it and drive it."""

    def __init__(self, runtime: TableRuntime) -> None:
        self._runtime = runtime
        self._virtual: VirtualTable | None = None
        self._seats = SeatWatch(self, runtime)
        runtime.listeners.add(self._seats.refresh)  # waiting decisions and the timer follow

    # -- which table -------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self._runtime.config.id

    @property
    def config(self) -> TableConfig:
        return self._runtime.config

    @property
    def game(self) -> str:
        return self._runtime.config.game

    @property
    def kit(self) -> registry.GameKit:
        return registry.kit(self.game)

    @property
    def game_id(self) -> str | None:
        return self._runtime.game_id

    @property
    def clock_scale(self) -> float:
        return self._runtime.clock.scale

    def now_ms(self) -> int:
        return self._runtime.clock.now_ms()

    # -- what people see -----------------------------------------------------------------------

    def state(self) -> dict[str, Any] | None:
        """The game's public state (DESIGN.md), or None before the first game."""
        referee = self._runtime.referee
        return referee.view if referee else None

    @property
    def ship_online(self) -> bool:
        return self._runtime.link.online

    @property
    def ship_weights(self) -> dict[str, Any] | None:
        return self._runtime.link.weights

    @property
    def refused_messages(self) -> int:
        """Messages from the ship refused as malformed."""
        return self._runtime.link.refused

    def snapshot(self, grams: bool = True) -> dict[str, Any]:
        """The public picture of the table: never a secret card, never a seat token. Without
        `grams` the ship's readings are left out but for its faults: players see pieces, and
        their pages' streams stay quiet while only the grams move."""
        runtime, referee = self._runtime, self._runtime.referee
        config, link = runtime.config, runtime.link
        weights = link.weights
        if not grams and weights is not None:
            weights = {"faults": weights.get("faults", [])}
        return {
            "table": {
                "id": config.id,
                "game": config.game,
                "players": [s.model_dump() for s in config.players],
                "settle_s": config.settle_s,
                "table_sensor": config.table_sensor,
            },
            "game_id": runtime.game_id,
            "virtual": self._virtual is not None,
            "calibrating": runtime.calibrating,
            "humans": sorted(self._virtual.humans) if self._virtual else [],
            "state": referee.view if referee else None,
            "referee": referee.referee_state() if referee else None,
            "ship": {
                "online": link.online,
                "status": link.status,
                "weights": weights,
                # what the link refused, dropped above the rates or from a full inbox, gave up
                "health": link.health(),
            },
            "feed": list(runtime.feed)[-FEED_SHOWN:],
            "presence": self._seats.public(),
            "now_ms": runtime.clock.now_ms(),
        }

    def player_snapshot(self, player: str, grams: bool = True) -> dict[str, Any]:
        """What `player`'s own page shows: the public picture with their own view of the game
        (their cards) and what they may do now."""
        snapshot = self.snapshot(grams)
        referee = self._runtime.referee
        snapshot["you"] = player
        snapshot["state"] = referee.player_view(player) if referee else None
        snapshot["legal"] = (
            referee.match.game.legal_actions(referee.match.state, player) if referee else []
        )
        return snapshot

    def summary(self) -> dict[str, Any]:
        """A line of the tables list."""
        state = self.state()
        return {
            "id": self.id,
            "game": self.game,
            "players": self.config.player_names,
            "game_id": self.game_id,
            "phase": state.get("phase") if state else None,
            "round": state.get("round") if state else None,
            "ship_online": self.ship_online,
        }

    # -- watching ------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """Nothing more is decided here: the service stops, or (a cluster) the table moved."""
        return self._runtime.closed

    def watch(self, listener: Callable[[], None]) -> None:
        """Call `listener()` after every change of what the snapshots show."""
        self._runtime.listeners.add(listener)

    def unwatch(self, listener: Callable[[], None]) -> None:
        self._runtime.listeners.discard(listener)

    def changed(self) -> None:
        """Tell the watchers (something shown beside the game changed, e.g. who plays)."""
        self._runtime.notify()

    # -- seats and games -----------------------------------------------------------------------

    def seat_of(self, token: str) -> str | None:
        """The player whose seat `token` opens in the present game, if any."""
        return self._runtime.seat_of(token)

    def seat_tokens(self) -> dict[str, str]:
        """Every seat's secret token by player (for the operator only)."""
        return dict(self._runtime.seats)

    def earlier_player(self, token: str, present_game: str) -> str | None:
        """The player `token` seated in one of this table's recent finished games (other than
        `present_game`), if any. It reads the store: call it from a worker thread."""
        store = self._runtime.store
        for row in store.games(table_id=self.id)[-RECENT_GAMES - 1 :]:
            if row.running or row.game_id == present_game:
                continue
            player = store.seat_for_token(row.game_id, token)
            if player is not None:
                return player
        return None

    def new_game(self, players: list[str] | None, options: dict[str, Any]) -> str:
        """Start a game now (the running one is abandoned) with the game's own options, as
        a person sent them; Rejected or ValueError say what is wrong."""
        chosen = self.kit.new_game_options(options)
        decision_s = chosen.pop("decision_s", None)
        game_id = self._runtime.start_game(players=players, **chosen)
        if decision_s is not None:
            self.set_decision_timer(decision_s)
        return game_id

    def start_game(self) -> str:
        """The next game, with the table's own players and choices."""
        return self._runtime.start_game()

    def player_input(self, token: str, request: dict[str, Any]) -> dict[str, Any]:
        """A request from a seat's page; the seat's snapshot after it, or Rejected with a
        reason for the player."""
        player = self._runtime.player_input(token, request)
        return self.player_snapshot(player)

    # -- who is there: seat pages, waiting decisions, the decision timer, bots ----------------

    def seat_page_opened(self, player: str) -> None:
        """A page of `player`'s seat opened its live stream: the seat is present."""
        self._seats.page_opened(player)

    def seat_page_closed(self, player: str) -> None:
        self._seats.page_closed(player)

    def set_decision_timer(self, seconds: int) -> None:
        """How long a seat may think before its bot decides (0: never); ValueError if wrong."""
        if isinstance(seconds, bool) or not isinstance(seconds, int):
            raise ValueError("decision_s must be a whole number of seconds")
        if not 0 <= seconds <= MAX_DECISION_S:
            raise ValueError(f"decision_s must be from 0 (off) to {MAX_DECISION_S} seconds")
        if seconds != self._seats.timer_s:
            self.note(f"decision timer: {f'{seconds} s' if seconds else 'off'}")
        self._seats.decision_s = seconds
        self._seats.timer_from_ms = self.now_ms()
        self.changed()

    def give_seat_to_bot(self, player: str, bot: bool = True) -> None:
        """(operator) `player`'s seat is played by its bot from now on (or, at a real
        table, by its person again); Rejected says why not."""
        self._check_seat(player)
        self._seats.give_to_bot(player, bot)

    def decide_for(self, player: str) -> str:
        """(operator) The seat's bot takes `player`'s waiting decision now; what it did, or
        Rejected saying why it cannot (bosun.referee.presence)."""
        self._check_seat(player)
        return self._seats.stand_in(player, "the operator skipped the wait")

    def _check_seat(self, player: str) -> None:
        if player not in self._runtime.seats:
            raise Rejected(f"no seat {player[:40]!r} in this game")

    def note(self, text: str, level: str = "info") -> None:
        """A line on the table's feed (not a game action: the game log is not touched)."""
        self._runtime.feed.append({"at_ms": self.now_ms(), "level": level, "text": text})

    # -- the calibration wizard ----------------------------------------------------------------

    @property
    def calibrating(self) -> bool:
        return self._runtime.calibrating

    def set_calibrating(self, calibrating: bool) -> None:
        """While calibrating, the ship's events are kept in the log but not refereed, and the
        ship is in maintenance (it obeys tare, calibrate, ...; firmware commands.py)."""
        self._runtime.calibrating = calibrating
        self._runtime.link.send({"cmd": "maintenance", "on": calibrating})
        self._runtime.notify()

    def send_command(self, command: dict[str, Any]) -> str:
        """A command to the ship (protocol.CommandError if it is not one, or if it changes
        the ship while the game is refereed: only the calibration wizard sends those); its id."""
        name = command.get("cmd") if isinstance(command, dict) else None
        if name in protocol.MAINTENANCE_COMMANDS:
            if not self._runtime.calibrating:
                raise protocol.CommandError(
                    f"{name} only from the calibration wizard, never while a game is refereed",
                    command.get("id"),
                    name,
                )
            # again before each: the ship may have restarted, or its maintenance run out
            self._runtime.link.send({"cmd": "maintenance", "on": True})
        return self._runtime.link.send(command)

    def result(self, command_id: str) -> dict[str, Any] | None:
        """The ship's answer to the command sent under `command_id`, once it came."""
        return self._runtime.link.result(command_id)

    def item_grams(self) -> dict[str, float]:
        """The grams of each of the game's pieces the referee goes by now."""
        return self.kit.calibration.item_grams(self.config.items)

    def use_item_grams(self, measured: dict[str, float]) -> dict[str, float]:
        """Weighed pieces into the table's configuration and the running referee at once;
        the table's items as they are now."""
        runtime = self._runtime
        merged = {**runtime.config.items, **measured}
        runtime.config = runtime.config.model_copy(update={"items": merged})
        if runtime.referee is not None:
            runtime.referee.item_grams.update(measured)
        return merged

    # -- a demo's virtual table ----------------------------------------------------------------

    @property
    def virtual(self) -> VirtualTable | None:
        """The simulated table people can play on, if this is one."""
        return self._virtual

    def attach_virtual(self, table: VirtualTable) -> None:
        self._virtual = table

    def events_taken(self, boot: str) -> int:
        """The highest seq of the ship's `boot` up to which the referee has taken every event
        (a virtual ship holds the service's clock back for the rest)."""
        return self._runtime.link.dedup.highest(boot)

    def play_on(self, after_s: float, games: int | None) -> None:
        """Start each next game by itself `after_s` after one ended; `games` in all (None:
        forever)."""
        self._runtime.next_game_after_s = after_s
        self._runtime.games_left = None if games is None else games - 1

    def describe(self) -> str:
        """What plays at this table, for people."""
        return "real ship" if self._virtual is None else self._virtual.describe()
