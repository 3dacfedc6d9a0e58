"""The Montego Bay table referee: the players' pages drive the game, the harbour checks it.

The harbour edition of the ship has a load cell under each dock (zones 1-4). Barrels all
weigh the same, so what a dock gained or lost is a count: grams / barrel weight. While the
engine waits for a player to load or unload (MB15's `pending` question), the referee adds
up what each dock felt:

- a player who answers on their page is checked against the harbour: a difference, now or
  once the barrels have been moved (CHECK_MS), is flagged for people to confirm;
- a player who just moves the barrels needs no page: once the harbour has been still for
  QUIET_MS and it felt exactly the barrels the room allows, the referee answers for them.

Ships sailing and moving up (MB9, MB10) move whole ships with their cargo: the harbour's
readings change then by design and are not checked.
"""

from __future__ import annotations

import secrets
from collections import Counter
from typing import Any

from bosun.referee import leds
from bosun.referee.base import Flag, TableReferee
from bosun.referee.effects import Effect, feed
from bosun.tables import TableConfig

BARREL_G = 2.2  # a Montego Bay barrel, until the table's calibration says otherwise
QUIET_MS = 1500  # the harbour still for this long after barrels moved: the move is done
CHECK_MS = 5000  # after a page answer, how long the barrels may take to be moved
DOCKS = (1, 2, 3, 4)
REQUEST_FIELDS = {
    "hire": ("worker",),
    "cards": ("big", "little", "jack"),
    "load": ("ships",),
    "unload": ("ships",),
}


class MontegoBayTable(TableReferee):
    """One table's referee for Montego Bay; every method returns the effects it decided."""

    game_requests = ("hire", "cards", "load", "unload")

    @staticmethod
    def setup_action(config: TableConfig, players: list[str], options: dict[str, Any]) -> dict:
        seed = options.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31)  # drawn here, kept in the log: replays stay exact
        return {"type": "setup", "game": "montego-bay", "players": players, "seed": seed}

    def __init__(self, config: TableConfig, setup: dict[str, Any]) -> None:
        super().__init__(config, setup)
        self.barrel_g = config.items.get("barrel", BARREL_G)
        self.sensed: Counter[int] = Counter()  # barrels each dock gained during this question
        self.question: tuple | None = self._question_key()
        self.quiet_deadline_ms: int | None = None
        self.check: dict[str, Any] | None = None  # a page answer the harbour has to bear out

    # -- what the runtime asks -------------------------------------------------------------

    def next_deadline_ms(self) -> int | None:
        if not self.online:
            return None
        deadlines = [self.quiet_deadline_ms, self.check["deadline_ms"] if self.check else None]
        return min((d for d in deadlines if d is not None), default=None)

    def referee_state(self) -> dict[str, Any]:
        return {
            **super().referee_state(),
            "barrel_g": self.barrel_g,
            "harbour_felt": {str(dock): n for dock, n in sorted(self.sensed.items()) if n},
        }

    def prompt(self, force: bool = False, now_ms: int | None = None) -> list[Effect]:
        view = self.view
        if view["phase"] == "over":
            return self.led(leds.winner(self.config.colour_of(view["winners"][0])), force)
        pending = view["pending"]
        if pending and pending["action"] == "load":
            dock = next(
                (i for i, d in enumerate(view["docks"], 1) if d and not d.get("pilot")), None
            )
            if dock is not None:
                colour = self.config.colour_of(pending["player"])
                return self.led(leds.prompt(dock, colour), force)
        return self.led(leds.off(), force)

    # -- the players' pages ----------------------------------------------------------------

    def player_action(self, seat: str, request: dict[str, Any], now_ms: int) -> list[Effect]:
        kind = request["type"]
        action: dict[str, Any] = {"type": kind, "player": seat}
        for name in REQUEST_FIELDS[kind]:
            if name in request:
                action[name] = request[name]
        question = self.view["pending"]
        out = self.submit(action, by_player=True)
        if kind in ("load", "unload"):
            out += self._check_answer(question, action, now_ms)
        return out + self._after_change(now_ms)

    def _check_answer(self, question, action: dict[str, Any], now_ms: int) -> list[Effect]:
        """Hold a page's answer against what the harbour felt (MB15). Counts are signed:
        barrels a dock gained are positive, barrels taken off it negative."""
        sign = 1 if action["type"] == "load" else -1
        declared = _nonzero({int(d): sign * n for d, n in action["ships"].items()})
        felt, self.sensed = _nonzero(self.sensed), Counter()
        if not felt:  # the barrels are still to be moved: check once they have been
            self.check = {
                "declared": declared,
                "felt": Counter(),
                "deadline_ms": now_ms + CHECK_MS,
                "action": action,
            }
            return []
        return self._compare(declared, felt, action)

    def _compare(self, declared: dict, felt: dict, action: dict[str, Any]) -> list[Effect]:
        if _nonzero(declared) == _nonzero(felt):
            return [feed(f"the harbour agrees with {action['player']}'s {action['type']}")]
        text = (
            f"{action['player']} said {_describe(declared)}, but the harbour felt "
            f"{_describe(felt) or 'nothing'} (MB15). Confirm the answer, or undo it."
        )
        return [self.flag("harbour_mismatch", text, ["confirm"], {"action": action})]

    def resolve_flag(self, flag: Flag, option: str, seat: str, now_ms: int) -> list[Effect]:
        return []  # every harbour flag is a question of fact; undo corrects the game

    # -- the harbour's load cells ----------------------------------------------------------

    def _ship_place(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        return self._felt(event.get("zone"), float(event.get("grams", 0.0)), now_ms)

    def _ship_fall(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        zones = [z for z in event.get("zones", []) if z in DOCKS]
        if len(zones) != 1:
            return [
                feed(
                    f"{event.get('grams')} g left the harbour from docks {zones}: "
                    "not told apart, not checked",
                    level="warning",
                )
            ]
        return self._felt(zones[0], -float(event.get("grams", 0.0)), now_ms)

    def _ship_shift(self, event: dict[str, Any], now_ms: int) -> list[Effect]:
        grams = float(event.get("grams", 0.0))
        return self._felt(event.get("from"), -grams, now_ms) + self._felt(
            event.get("to"), grams, now_ms
        )

    def _felt(self, dock: Any, grams: float, now_ms: int) -> list[Effect]:
        if dock not in DOCKS:
            return [feed(f"{grams:.1f} g on zone {dock}: the harbour has docks 1-4", "warning")]
        barrels = round(grams / self.barrel_g)
        off = abs(grams - barrels * self.barrel_g)
        out: list[Effect] = []
        if barrels == 0 or off > max(0.5, 0.25 * self.barrel_g):
            out.append(
                feed(
                    f"dock {dock} changed by {grams:+.1f} g, not a whole number of barrels "
                    f"({self.barrel_g:g} g each)",
                    level="warning",
                )
            )
            if barrels == 0:
                return out
        if self.check is not None:
            # barrels still owed to the last page answer are that answer's, not a new one's
            owed = self.check["declared"].get(dock, 0) - self.check["felt"][dock]
            if owed and (owed > 0) == (barrels > 0) and abs(barrels) <= abs(owed):
                self.check["felt"][dock] += barrels
                if _nonzero(self.check["felt"]) == self.check["declared"]:
                    check, self.check = self.check, None
                    out += self._compare(check["declared"], check["felt"], check["action"])
                return out
        if self.view["pending"] is None:
            return out + [
                feed(
                    f"{abs(barrels)} barrel(s) {'put on' if barrels > 0 else 'taken off'} dock "
                    f"{dock} while nobody loads or unloads (ships sailing move barrels too)",
                    level="debug",
                )
            ]
        self.sensed[dock] += barrels
        self.quiet_deadline_ms = now_ms + QUIET_MS
        return out

    # -- time ------------------------------------------------------------------------------

    def on_timer(self, now_ms: int) -> list[Effect]:
        if not self.online:
            return []
        out: list[Effect] = []
        if self.check is not None and now_ms >= self.check["deadline_ms"]:
            check, self.check = self.check, None
            out += self._compare(check["declared"], check["felt"], check["action"])
        if self.quiet_deadline_ms is not None and now_ms >= self.quiet_deadline_ms:
            self.quiet_deadline_ms = None
            out += self._answer_from_harbour(now_ms)
        return out

    def _answer_from_harbour(self, now_ms: int) -> list[Effect]:
        """The player moved the barrels without their page: answer for them (MB15)."""
        pending = self.view["pending"]
        if pending is None or not self.sensed:
            return []
        sign = 1 if pending["action"] == "load" else -1
        moved = {dock: sign * n for dock, n in self.sensed.items() if n}
        if any(n < 0 for n in moved.values()) or sum(moved.values()) != pending["count"]:
            return []  # not (yet) what the room allows: wait for more, or for the page
        action = {
            "type": pending["action"],
            "player": pending["player"],
            "ships": {str(dock): n for dock, n in sorted(moved.items())},
        }
        self.sensed = Counter()
        out = self.submit(action)
        return out + self._after_change(now_ms)

    # -- helpers ---------------------------------------------------------------------------

    def _question_key(self) -> tuple | None:
        pending = self.view["pending"]
        if pending is None:
            return None
        return (len(self.match.log), pending["player"], pending["room"], pending["action"])

    def _after_change(self, now_ms: int) -> list[Effect]:
        """A new pending question starts with a clean slate; the end says who won."""
        key = self._question_key()
        if key != self.question:
            self.question = key
            self.sensed = Counter()
            self.quiet_deadline_ms = None
        out: list[Effect] = []
        view = self.view
        if view["phase"] == "over":
            out.append(feed(f"{' and '.join(view['winners'])} won!", rule="MB10"))
        return out + self.prompt()

    def undone(self) -> None:
        self.sensed = Counter()
        self.quiet_deadline_ms = None
        self.check = None
        self.question = self._question_key()


def _nonzero(barrels_by_dock: dict[int, int]) -> dict[int, int]:
    return {dock: n for dock, n in barrels_by_dock.items() if n}


def _describe(barrels_by_dock: dict[int, int]) -> str:
    return ", ".join(
        f"{abs(n)} barrel{'s' if abs(n) != 1 else ''} {'on' if n > 0 else 'off'} dock {dock}"
        for dock, n in sorted(barrels_by_dock.items())
        if n
    )
