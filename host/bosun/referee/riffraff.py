"""The Riff Raff table referee: fuses ship events and player inputs with the rules engine.

Deterministic: its decisions depend only on the order of its inputs (ship events, player
inputs, timer ticks, ship status) and the times passed with them, so replaying a table's
stored inputs rebuilds exactly the same referee after a crash.

- a `place` in the target zone during a turn is a `load`, the item named by weight among the
  active player's supply (RR8); elsewhere, or outside a turn, it is flagged (RR10);
- a `leaving` flashes the ship at once and holds the settle window;
- a confirmed `fall` opens a short episode that gathers cascading falls and what lands on the
  table; it then becomes one `fall` action: each piece named by the zone it left and its kind
  (RR13a, `riffraff_falls`), fallen (landed) told from caught (never landed) by the table
  sensor (RR11-RR13). It is the active player's, or the previous player's when no turn is
  open or the open turn's player has loaded nothing yet (RR14: that turn goes on);
- a `shift` (a piece dropped or slid onto another zone and stayed aboard) moves that piece in
  the game (RR13);
- a `stay` naming the zone of the piece just loaded is a hand that held it down coming off:
  the load is named again by what rests (`riffraff_hand`);
- a piece that toppled off as it was let go (`riffraff_topple`): weighed as it fell from the
  open turn's empty zone, it is that player's load and then fall; a `touch` marked `toppled`
  there (pressed, weighed by no sensor) asks people which piece it was, and their answer is
  its load and fall (RR11, RR13);
- what no sensor felt is reported by people (`riffraff_report`): a fall, piece by piece,
  decided as a fall the ship felt; a load, loaded as the ship's `place` would have loaded it;
- the settle window (RR14) is counted down on the LEDs, then the turn ends.
"""

from __future__ import annotations

from typing import Any

from bosun.games import Rejected
from bosun.games.riffraff import ITEMS
from bosun.referee import effects as fx
from bosun.referee import leds
from bosun.referee import riffraff_hand as hand
from bosun.referee import riffraff_report as report
from bosun.referee import riffraff_topple as topple
from bosun.referee.base import Flag, TableReferee
from bosun.referee.effects import Effect, feed
from bosun.referee.riffraff_falls import (
    FallEpisode,
    corrected_pieces,
    describe_fall,
    describe_pieces,
    fall_action,
    name_pieces,
    split_landed,
)
from bosun.tables import TableConfig
from shipsense.items import name_place
from shipsense.pieces import ITEM_GRAMS

# Pieces from the top yard reach the table ~250 ms after leaving; the detector confirms a fall
# ~350 ms after it left, and weighs what landed once the mat has settled, up to ~1.2 s after
# the fall. Waiting this long after the last fall catches late landings, bounces and pieces
# that follow one another off the ship, so one tumble is one fall action (RR11).
FALL_EPISODE_MS = 1600
# A `leaving` is always followed by a fall or a shift; if neither came, stop holding the turn.
LEAVING_HOLD_MS = 2500


class RiffRaffTable(TableReferee):
    """One table's referee for Riff Raff. Every method returns the effects it decided."""

    game_requests = ("card", "announce", "captain", "next")

    @staticmethod
    def setup_action(config: TableConfig, players: list[str], options: dict[str, Any]) -> dict:
        captain = options.get("captain")  # RR3: the oldest player
        if captain is None:
            captain = config.captain if config.captain in players else players[0]
        settle_s = options.get("settle_s")
        own_catch = options.get("own_catch")  # RR12: the table's unless the new game says
        return {
            "type": "setup",
            "game": "riffraff",
            "players": players,
            "captain": captain,
            "settle_s": config.settle_s if settle_s is None else settle_s,
            "own_catch": config.own_catch if own_catch is None else own_catch,
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
        self.fresh_load: hand.FreshLoad | None = None  # the latest load the ship placed

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
                f"{player} placed {grams:.1f} g on zone {zone}, not on the zone of their card "
                "(RR10). Count it as their load, or take it off?"
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
        self.fresh_load = hand.FreshLoad(len(self.match.log) - 1, self.match.log[-1], grams)
        # No zone in the line: the zone is the card (RR8), face down after the round (RR7)
        out.append(feed(f"{player} loaded a {item} ({grams:.1f} g)", rule="RR8"))
        if ambiguous:
            said = f"{player} loaded {grams:.1f} g: the referee says {item}"
            out.append(self.which_item(said, item, others, len(self.match.log) - 1))
        view = self.view
        if view["turn"] == player and view["pieces_loaded"] >= (view["pieces_announced"] or 1):
            out += self.start_settle(now_ms)
        return out

    def which_item(self, said: str, item: str, others: list[str], index: int) -> Effect:
        """A question for people: the piece the log names `item` at `index` (the referee
        `said` so) may be one of `others` (a close call by weight, RR8)."""
        text = said + (f", but it could be {' or '.join(others)}" if others else "")
        data = {"index": index, "item": item}
        return self.flag("which_item", text + ". Confirm or correct.", ["confirm", *others], data)

    def _ship_leaving(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        self.leaving_since_ms = now_ms
        grams = float(event.get("grams", 0.0))
        return [
            *self.led(self._fall_flash(), force=True),
            feed(f"{grams:.1f} g leaving the ship", level="warning"),
        ]

    def _fall_flash(self) -> dict[str, Any]:
        """The LEDs' fall flash: in the previous player's colour when it would be a late fall
        (RR14: theirs, and the open turn goes on)."""
        view = self.view
        if view["fall_ends_turn"] or view["falls_to"] is None:
            return leds.fall()
        return leds.fall(self.config.colour_of(view["falls_to"]))

    def _ship_shift(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        """RR13: a piece dropped or slid onto another zone and stayed aboard; the game moves
        exactly that piece (named among the game's pieces on the zone it left)."""
        self.leaving_since_ms = None
        start, end = event["from"], event["to"]
        grams = float(event.get("grams", 0.0))
        here = self.view["ship"][str(start)]
        out: list[Effect] = []
        if not here or start == end:
            text = (
                f"{grams:.1f} g moved from zone {start} to zone {end}, but the game has nothing "
                f"on zone {start}: check the ship against the table view"
            )
            out.append(self.flag("unknown_shift", text, ["acknowledge"], {"event": event}))
            return out + self.prompt(force=True, now_ms=now_ms)
        hint = event.get("item")
        if hint in here:
            item, ambiguous, others = hint, False, []
        else:
            kinds = {k: self.item_grams[k] for k in set(here)}
            item, ambiguous, others = name_place(grams, kinds)
        out += self.submit({"type": "shift", "item": item, "from": start, "to": end})
        if any(e.kind == fx.ACTION for e in out):
            out.append(
                feed(
                    f"a {item} ({grams:.1f} g) moved from zone {start} to zone {end} and stayed "
                    "aboard: not a fall",
                    rule="RR13",
                )
            )
            if ambiguous:
                said = f"{grams:.1f} g moved from zone {start} to zone {end}: the referee says"
                said += f" a {item}"
                out.append(self.which_item(said, item, others, len(self.match.log) - 1))
        return out + self.prompt(force=True, now_ms=now_ms)

    def _ship_fall(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        self.leaving_since_ms = None
        if self._absorbs_removal(event):
            return [feed(f"{float(event.get('grams', 0.0)):.1f} g taken off by hand, as agreed")]
        view = self.view
        if self.episode is None:
            late = not view["fall_ends_turn"]
            self.episode = FallEpisode(
                player=view["falls_to"], started_ms=now_ms, deadline_ms=now_ms, late=late
            )
            if not late:
                self.settle_deadline_ms = None  # RR11: the fall ends the turn
        episode = self.episode
        episode.deadline_ms = now_ms + FALL_EPISODE_MS
        episode.left_g += float(event.get("grams", 0.0))
        episode.zones.update(int(z) for z in event.get("zones", []) if isinstance(z, int))
        episode.events.append(event)
        grams = float(event.get("grams", 0.0))
        zones = sorted(int(z) for z in event.get("zones", []) if isinstance(z, int))
        where = f" from zone{'s' if len(zones) > 1 else ''} {', '.join(map(str, zones))}"
        if episode.late and episode.player is not None:
            # RR14: it is the previous player's; the LEDs flash in their colour
            text = f"{grams:.1f} g fell off the ship{where if zones else ''} after "
            text += f"{episode.player}'s turn: theirs"
            return [*self.led(self._fall_flash()), feed(text, level="warning", rule="RR14")]
        text = f"{grams:.1f} g fell off the ship{where if zones else ''}"
        return [*self.led(self._fall_flash()), feed(text, level="warning", rule="RR11")]

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
        out = hand.lifted(self, event, now_ms)  # or a hand came off the piece just loaded
        if any(effect.kind == fx.LED for effect in out):
            return out  # its load named again, the LEDs show the game as it stands
        return out + self.prompt(force=True, now_ms=now_ms)

    def _ship_touch(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        question = topple.ask(self, event)
        if question is not None:
            return [question]
        return [feed(report.touch_text(self, event), level="warning", rule="RR10")]

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
                out += self.after_turn_change()
        return out

    def start_settle(self, now_ms: int) -> list[Effect]:
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
        out = topple.fell_unrested(self, episode)
        view = self.view
        player = view["falls_to"]
        if player is None:
            out.append(feed("weight left the ship before anyone loaded: ignored", "warning"))
        else:
            out += self._decide_fall(player, episode)
        for event in self.held_events:
            out += self.on_ship_event(event, now_ms)
        self.held_events = []
        return out

    def _decide_fall(self, player: str, episode: FallEpisode) -> list[Effect]:
        view = self.view
        late = not view["fall_ends_turn"]
        pieces, ambiguous = name_pieces(episode, view["ship"], self.item_grams)
        fallen, caught, how = split_landed(
            pieces, episode, self.config.table_sensor, self.item_grams
        )
        action = fall_action(player, fallen, caught)
        boxed_before = view["boxed"]
        out = self.submit(action)
        if not any(e.kind == fx.ACTION for e in out):
            return out
        after = self.view
        open_turn = after["turn"] if late else None
        text = describe_fall(action, after["boxed"] - boxed_before, late, open_turn)
        out.append(feed(text, rule="RR14" if late else "RR12"))
        if ambiguous or how == "guessed":
            index = len(self.match.log) - 1
            out.append(
                self.flag(
                    "which_fell",
                    f"{episode.left_g:.1f} g left the ship: the referee says {text}. Confirm, or "
                    "correct it piece by piece.",
                    ["confirm", "correct"],
                    {"index": index, "action": action},
                    detail={
                        "fallen": action["fallen"],
                        "caught": action["caught"],
                        "aboard": after["ship"],
                    },
                )
            )
        return out + self.after_turn_change()

    # -- player inputs -------------------------------------------------------------------

    def on_input(self, seat: str, request: dict[str, Any], now_ms: int) -> list[Effect]:
        if request.get("type") in report.REQUESTS:  # not the engine's: any seat, any phase
            if not self.online:
                raise Rejected("the table is paused: the ship is offline")
            return report.report(self, seat, request, now_ms)
        return super().on_input(seat, request, now_ms)

    def player_action(self, seat: str, request: dict[str, Any], now_ms: int) -> list[Effect]:
        kind = request["type"]
        if kind in ("card", "announce"):
            field_name = "value" if kind == "card" else "pieces"
            action = {"type": kind, "player": seat, field_name: request.get(field_name)}
        else:  # the captain's decisions (RR5, RR6)
            action = {"type": kind, "by": seat, "player": request.get("player")}
        out = self.submit(action, by_player=True)
        return out + (self.after_turn_change() if kind != "announce" else self.prompt())

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
            return self._correct_item(seat, flag, option, now_ms)
        elif flag.kind == "toppled" and option != "nothing fell":
            return topple.answer(self, flag, option, seat)
        return []

    def _correct_item(self, seat: str, flag: Flag, item: str, now_ms: int) -> list[Effect]:
        """A load (or a shift) named the wrong kind of piece: the log is rewritten."""
        index = flag.data["index"]
        corrected = {**self.match.log[index], "item": item}
        reason = f"it was a {item}, not a {flag.data['item']}"
        return self.rewrite(seat, index, corrected, reason, now_ms)

    def correct_flag(
        self, flag: Flag, request: dict[str, Any], seat: str, now_ms: int
    ) -> list[Effect]:
        """A fall the referee was unsure of, corrected piece by piece with zones (RR13a): the
        pieces that reached the table and those caught; none at all: nothing fell."""
        if flag.kind != "which_fell":
            raise Rejected("this question takes no correction")
        fallen = corrected_pieces(request, "fallen")
        caught = corrected_pieces(request, "caught")
        index, action = flag.data["index"], flag.data["action"]
        if index >= len(self.match.log) or self.match.log[index] != action:
            raise Rejected("that fall has been undone or corrected since")
        if not fallen and not caught:
            return self.rewrite(seat, index, None, "nothing fell off the ship", now_ms)
        corrected = {**action, "fallen": fallen, "caught": caught}
        parts = [f"{describe_pieces(fallen)} reached the table"] if fallen else []
        parts += [f"{describe_pieces(caught)} caught"] if caught else []
        return self.rewrite(seat, index, corrected, "; ".join(parts), now_ms)

    # -- ship status ---------------------------------------------------------------------

    def resumed(self, now_ms: int) -> None:
        if self.settle_deadline_ms is not None:  # restart the window in full
            self.settle_deadline_ms = now_ms + self.settle_s * 1000

    def undone(self) -> None:
        self.settle_deadline_ms = None

    # -- helpers -------------------------------------------------------------------------

    def after_turn_change(self) -> list[Effect]:
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
