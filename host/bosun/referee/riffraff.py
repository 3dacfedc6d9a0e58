"""The Riff Raff table referee: fuses ship events and player inputs with the rules engine.

Deterministic: its decisions depend only on the order of its inputs (ship events, player
inputs, timer ticks, ship status) and the times passed with them, so replaying a table's
stored inputs rebuilds exactly the same referee after a crash.

- a `place` in the target zone during a turn is a `load`, the item named by weight among the
  active player's supply (RR8); elsewhere, or outside a turn, it is flagged (RR10);
- a `leaving` flashes the ship at once and holds the settle window;
- a confirmed `fall` opens a short episode that gathers cascading falls and what lands on the
  table; it then becomes one `fall` action: the pieces named by weight among those aboard,
  fallen (landed) told from caught (never landed) by the table sensor (RR11-RR13);
- the settle window (RR14) is counted down on the LEDs, then the turn ends.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from bosun.games.riffraff import ITEMS
from bosun.referee import effects as fx
from bosun.referee import leds
from bosun.referee.base import Flag, TableReferee
from bosun.referee.effects import Effect, feed
from bosun.tables import TableConfig
from shipsense.geometry import ZONES
from shipsense.items import name_fall, name_place
from shipsense.pieces import ITEM_GRAMS

# Pieces from the top yard reach the table ~250 ms after leaving; the detector confirms a fall
# ~350 ms after it left, and weighs what landed once the mat has settled, up to ~1.2 s after
# the fall. Waiting this long after the last fall catches late landings, bounces and pieces
# that follow one another off the ship, so one tumble is one fall action (RR11).
FALL_EPISODE_MS = 1600
# A `leaving` is always followed by a fall or a shift; if neither came, stop holding the turn.
LEAVING_HOLD_MS = 2500
# Below this the mat felt nothing worth naming (its noise is a few tenths of a gram).
MAT_FELT_G = 0.5


@dataclass
class FallEpisode:
    """Everything that left the ship and reached the table in one tumble."""

    player: str | None
    started_ms: int
    deadline_ms: int
    left_g: float = 0.0
    zones: set[int] = field(default_factory=set)
    landed_g: float = 0.0
    impacts: int = 0  # land events heard
    bounces: int = 0  # land events that say a piece bounced off the mat
    struck: int | None = None  # pieces the piezo felt hit the table, when it reports them
    events: list[dict[str, Any]] = field(default_factory=list)


class RiffRaffTable(TableReferee):
    """One table's referee for Riff Raff. Every method returns the effects it decided."""

    game_requests = ("card", "announce", "captain", "next")

    @staticmethod
    def setup_action(config: TableConfig, players: list[str], options: dict[str, Any]) -> dict:
        captain = options.get("captain")  # RR3: the oldest player
        if captain is None:
            captain = config.captain if config.captain in players else players[0]
        settle_s = options.get("settle_s")
        return {
            "type": "setup",
            "game": "riffraff",
            "players": players,
            "captain": captain,
            "settle_s": config.settle_s if settle_s is None else settle_s,
        }

    def __init__(self, config: TableConfig, setup: dict[str, Any]) -> None:
        super().__init__(config, setup)
        # nominal piece weights until the table is calibrated (the wizard stores its own)
        self.item_grams = {**ITEM_GRAMS, **config.items}
        self.settle_s = self.view["settle_s"]  # RR14: chosen for this game at its setup
        self.episode: FallEpisode | None = None
        self.held_events: list[dict[str, Any]] = []
        self.settle_deadline_ms: int | None = None
        self.leaving_since_ms: int | None = None
        self.expected_removals: list[dict[str, Any]] = []

    # -- what the runtime asks -----------------------------------------------------------

    def next_deadline_ms(self) -> int | None:
        """When `on_timer` must next be called, if ever."""
        if not self.online:
            return None
        deadlines = [
            d
            for d in (
                self.episode.deadline_ms if self.episode else None,
                self.settle_deadline_ms,
                self.leaving_since_ms + LEAVING_HOLD_MS if self.leaving_since_ms else None,
            )
            if d is not None
        ]
        return min(deadlines, default=None)

    def referee_state(self) -> dict[str, Any]:
        """The referee's own public picture next to the game's: flags, countdown, pause."""
        return {
            **super().referee_state(),
            "settle_deadline_ms": self.settle_deadline_ms,
            "settle_s": self.settle_s,
            "fall_in_progress": self.episode is not None or self.leaving_since_ms is not None,
        }

    # -- ship events ---------------------------------------------------------------------

    def on_ship_event(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        kind = event.get("type")
        if kind in ("place", "shift") and self.episode is not None:
            self.held_events.append(event)  # after the tumble is settled
            return []
        return super().on_ship_event(event, now_ms)

    def _ship_place(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        view = self.view
        zone, grams = event.get("zone"), float(event.get("grams", 0.0))
        if view["phase"] != "turn":
            text = f"{grams:.1f} g put on zone {zone} with no turn open (RR10): take it off"
            return [self.flag("stray", text, ["removed"], {"zone": zone, "grams": grams})]
        player, target = view["turn"], view["target_zone"]
        if zone != target:
            text = (
                f"{player} placed {grams:.1f} g on zone {zone}, but their card is {target} "
                f"(RR10). Count it as loaded on zone {target}, or take it off?"
            )
            data = {"zone": zone, "grams": grams, "player": player}
            return [self.flag("wrong_zone", text, ["count", "removed"], data)]
        return self._load(player, target, grams, now_ms)

    def _load(self, player: str, zone: int, grams: float, now_ms: int) -> list[Effect]:
        supply = self.view["players"][player]["items"]
        candidates = {item: self.item_grams[item] for item in ITEMS if supply[item] > 0}
        if not candidates:
            return [feed(f"{player} has no pieces left to load", level="warning")]
        item, ambiguous, others = name_place(grams, candidates)
        out = self.submit({"type": "load", "player": player, "zone": zone, "item": item})
        if not any(e.kind == fx.ACTION for e in out):
            return out
        out.append(feed(f"{player} loaded a {item} ({grams:.1f} g) on zone {zone}", rule="RR8"))
        if ambiguous:
            out.append(
                self.flag(
                    "which_item",
                    f"{grams:.1f} g on zone {zone}: the referee says {item}"
                    + (f", but it could be {' or '.join(others)}" if others else "")
                    + ". Confirm or correct.",
                    ["confirm", *others],
                    {"index": len(self.match.log) - 1, "item": item},
                )
            )
        view = self.view
        if view["turn"] == player and view["pieces_loaded"] >= (view["pieces_announced"] or 1):
            out += self._start_settle(now_ms)
        return out

    def _ship_leaving(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        self.leaving_since_ms = now_ms
        grams = float(event.get("grams", 0.0))
        return [
            *self.led(leds.fall(), force=True),
            feed(f"{grams:.1f} g leaving the ship", level="warning"),
        ]

    def _ship_shift(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        self.leaving_since_ms = None
        out = [
            feed(
                f"{float(event.get('grams', 0.0)):.1f} g moved from zone {event.get('from')} to "
                f"zone {event.get('to')} and stayed aboard: not a fall",
                rule="RR13",
            )
        ]
        return out + self.prompt(force=True, now_ms=now_ms)

    def _ship_fall(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        self.leaving_since_ms = None
        if self._absorbs_removal(event):
            return [feed(f"{float(event.get('grams', 0.0)):.1f} g taken off by hand, as agreed")]
        view = self.view
        player = view["turn"] if view["phase"] == "turn" else view["last_turn"]
        if self.episode is None:
            self.episode = FallEpisode(player=player, started_ms=now_ms, deadline_ms=now_ms)
            self.settle_deadline_ms = None
        episode = self.episode
        episode.deadline_ms = now_ms + FALL_EPISODE_MS
        episode.left_g += float(event.get("grams", 0.0))
        episode.zones.update(int(z) for z in event.get("zones", []) if isinstance(z, int))
        episode.events.append(event)
        return [
            *self.led(leds.fall()),
            feed(
                f"{float(event.get('grams', 0.0)):.1f} g fell off the ship",
                level="warning",
                rule="RR11",
            ),
        ]

    def _ship_land(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        grams = event.get("grams")
        if self.episode is None:
            if self.leaving_since_ms is not None:
                self.episode = FallEpisode(
                    player=None, started_ms=now_ms, deadline_ms=now_ms + FALL_EPISODE_MS
                )
            else:
                return [feed("something landed on the table, nothing left the ship", "debug")]
        if event.get("bounced"):
            self.episode.bounces += 1  # it reached the table, then left the mat again
        elif isinstance(grams, (int, float)):
            self.episode.landed_g += float(grams)
        if isinstance(event.get("impacts"), int):
            self.episode.struck = (self.episode.struck or 0) + event["impacts"]
        self.episode.impacts += 1
        return []

    def _ship_stay(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        self.leaving_since_ms = None  # the weight came back: nothing left
        return self.prompt(force=True, now_ms=now_ms)

    def _ship_touch(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        return [
            feed(
                "a hand touched the ship (RR10: pieces aboard may not be touched)",
                level="warning",
                rule="RR10",
            )
        ]

    def _ship_knock(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        return [feed("a knock on the table; nothing left the ship", level="debug")]

    # -- time ----------------------------------------------------------------------------

    def on_timer(self, now_ms: int) -> list[Effect]:
        if not self.online:
            return []
        out: list[Effect] = []
        if self.leaving_since_ms is not None and now_ms >= self.leaving_since_ms + LEAVING_HOLD_MS:
            self.leaving_since_ms = None
            out += self.prompt(force=True, now_ms=now_ms)
        if self.episode is not None and now_ms >= self.episode.deadline_ms:
            out += self._settle_fall(now_ms)
        if (
            self.settle_deadline_ms is not None
            and now_ms >= self.settle_deadline_ms
            and self.leaving_since_ms is None
            and self.episode is None
        ):
            self.settle_deadline_ms = None
            view = self.view
            if view["phase"] == "turn":
                out += self.submit({"type": "end_turn", "player": view["turn"]})
                out += self._after_turn_change()
        return out

    def _start_settle(self, now_ms: int) -> list[Effect]:
        """RR14: the turn ends once the last piece rests and the window has passed."""
        settle_s = self.settle_s
        self.settle_deadline_ms = now_ms + settle_s * 1000
        if settle_s == 0:
            return self.on_timer(now_ms)
        view = self.view
        colour = self.config.colour_of(view["turn"])
        return self.led(leds.countdown(view["target_zone"], colour, settle_s), force=True)

    def _settle_fall(self, now_ms: int) -> list[Effect]:
        episode, self.episode = self.episode, None
        view = self.view
        player = view["turn"] if view["phase"] == "turn" else view["last_turn"]
        if player is None:
            return [feed("weight left the ship before anyone loaded: ignored", "warning")]
        pieces, ambiguous, _ = name_fall(
            episode.left_g, self.item_grams, aboard_counts=self._aboard_counts(episode.zones)
        )
        fallen, caught, how = self._split_landed(pieces, episode)
        action = {"type": "fall", "player": player, "fallen": fallen, "caught": caught}
        out = self.submit(action)
        if any(e.kind == fx.ACTION for e in out):
            out.append(feed(self._describe_fall(player, fallen, caught, how), rule="RR12"))
            if ambiguous or how == "guessed":
                out.append(
                    self.flag(
                        "which_fell",
                        f"{episode.left_g:.1f} g left the ship: the referee says "
                        f"{self._describe_fall(player, fallen, caught, how)}. Confirm, or undo and "
                        "correct it.",
                        ["confirm"],
                        {"action": action},
                    )
                )
            out += self._after_turn_change()
        for event in self.held_events:
            out += self.on_ship_event(event, now_ms)
        self.held_events = []
        return out

    def _aboard_counts(self, zones: set[int]) -> dict[str, int]:
        """Pieces aboard by item; only those on the zones that lost weight, when known."""
        ship = self.view["ship"]
        chosen = [z for z in ZONES if z in zones and ship[str(z)]] or ZONES
        return dict(Counter(item for z in chosen for item in ship[str(z)]))

    def _on_the_mat(self, pieces: list[str], landed_g: float) -> list[str]:
        """Which of the fallen pieces lie on the mat that felt `landed_g`. Only they can: when
        the mat's grams fit no set of them (a hand on the mat, a faulty cell), the set
        nearest to what it felt."""
        stayed, _, _ = name_fall(landed_g, self.item_grams, aboard_counts=Counter(pieces))
        if not Counter(stayed) - Counter(pieces):
            return stayed
        weights = {
            subset: abs(sum(self.item_grams[i] for i in subset) - landed_g)
            for size in range(len(pieces) + 1)
            for subset in combinations(sorted(pieces), size)
        }
        return list(min(weights, key=weights.get))

    def _split_landed(
        self, pieces: list[str], episode: FallEpisode
    ) -> tuple[list[str], list[str], str]:
        """Fallen (reached the table) versus caught (never landed), by what the table felt."""
        sensor = self.config.table_sensor
        if sensor in ("mat", "both"):
            stayed: list[str] = []
            if episode.landed_g > MAT_FELT_G:
                stayed = self._on_the_mat(pieces, episode.landed_g)
            rest = list(pieces)
            for item in stayed:
                rest.remove(item)
            # Pieces that struck the table but are not on the mat bounced off it: the piezo
            # counts strikes, the mat only says "something bounced". Which of the rest
            # bounced is not known from weight: the heaviest first, and people confirm.
            bounced_count = episode.bounces
            if episode.struck is not None:
                bounced_count = max(bounced_count, episode.struck - len(stayed))
            rest.sort(key=lambda i: -self.item_grams[i])
            bounced, caught = rest[:bounced_count], rest[bounced_count:]
            guessed = bool(bounced) and bool(caught)
            return sorted(stayed + bounced), sorted(caught), "guessed" if guessed else "weighed"
        if sensor == "piezo":
            if episode.impacts == 0:
                return [], list(pieces), "heard"
            if episode.impacts >= len(pieces):
                return list(pieces), [], "heard"
            heaviest = sorted(pieces, key=lambda i: -self.item_grams[i])
            return heaviest[: episode.impacts], heaviest[episode.impacts :], "guessed"
        return list(pieces), [], "guessed"

    def _describe_fall(self, player: str, fallen: list[str], caught: list[str], how: str) -> str:
        parts = []
        if fallen:
            parts.append(f"{', '.join(fallen)} reached the table (to {player}'s supply)")
        if caught:
            parts.append(f"{player} caught {', '.join(caught)}")
        return "; ".join(parts) or "nothing identified"

    # -- player inputs -------------------------------------------------------------------

    def player_action(self, seat: str, request: dict[str, Any], now_ms: int) -> list[Effect]:
        kind = request["type"]
        if kind in ("card", "announce"):
            field_name = "value" if kind == "card" else "pieces"
            action = {"type": kind, "player": seat, field_name: request.get(field_name)}
        else:  # the captain's decisions (RR5, RR6)
            action = {"type": kind, "by": seat, "player": request.get("player")}
        out = self.submit(action, by_player=True)
        return out + (self._after_turn_change() if kind != "announce" else self.prompt())

    def resolve_flag(self, flag: Flag, option: str, seat: str, now_ms: int) -> list[Effect]:
        if flag.kind == "wrong_zone" and option == "count":
            view = self.view
            if view["phase"] == "turn" and view["turn"] == flag.data["player"]:
                return self._load(
                    flag.data["player"], view["target_zone"], flag.data["grams"], now_ms
                )
        elif flag.kind in ("wrong_zone", "stray") and option == "removed":
            self.expected_removals.append({"zone": flag.data["zone"], "grams": flag.data["grams"]})
        elif flag.kind == "which_item" and option != "confirm":
            return self._correct_last_load(seat, flag, option)
        return []

    def _correct_last_load(self, seat: str, flag: Flag, item: str) -> list[Effect]:
        index = flag.data["index"]
        corrected = {**self.match.log[index], "item": item}
        return self.rewrite(seat, index, corrected, f"it was a {item}, not a {flag.data['item']}")

    # -- ship status ---------------------------------------------------------------------

    def resumed(self, now_ms: int) -> None:
        if self.settle_deadline_ms is not None:  # restart the window in full
            self.settle_deadline_ms = now_ms + self.settle_s * 1000

    def undone(self) -> None:
        self.settle_deadline_ms = None

    # -- helpers -------------------------------------------------------------------------

    def _after_turn_change(self) -> list[Effect]:
        view = self.view
        out: list[Effect] = []
        if view["phase"] == "over":
            winners = view["winners"]
            out.append(
                feed(f"{' and '.join(winners)} won!", rule="RR15" if view["round"] < 10 else "RR16")
            )
        return out + self.prompt()

    def prompt(self, force: bool = False, now_ms: int | None = None) -> list[Effect]:
        """The LED command for the game's present state, when it differs from the last one."""
        view = self.view
        if view["phase"] == "turn" and self.settle_deadline_ms is not None and now_ms is not None:
            left_s = max(0.1, (self.settle_deadline_ms - now_ms) / 1000)
            colour = self.config.colour_of(view["turn"])
            command = leds.countdown(view["target_zone"], colour, round(left_s, 1))
        elif view["phase"] == "turn":
            command = leds.prompt(view["target_zone"], self.config.colour_of(view["turn"]))
        elif view["phase"] == "over":
            command = leds.winner(self.config.colour_of(view["winners"][0]))
        else:  # cards are being chosen or the captain decides: nothing to load
            command = leds.off()
        return self.led(command, force)

    def _absorbs_removal(self, event: dict[str, Any]) -> bool:
        """A piece people agreed to take off by hand leaves without it being a fall."""
        grams = float(event.get("grams", 0.0))
        for expected in self.expected_removals:
            if abs(expected["grams"] - grams) <= max(1.0, 0.12 * expected["grams"]):
                self.expected_removals.remove(expected)
                return True
        return False
