"""The Montego Bay table referee: the players' pages drive the game, the harbour checks it.

The harbour edition of the ship has a load cell under each dock (zones 1-4). Barrels all
weigh the same, so what a dock gained or lost is a count: grams / barrel weight. The referee
keeps a running count of the barrels each dock's load cell felt, and holds it against the
cargo the game has at that dock (MB15):

- a player who answers on their page is checked against the harbour: a difference, now or
  once the barrels have been moved (the harbour still for CHECK_MS), is flagged for people
  to confirm;
- a player who just moves the barrels needs no page: once the harbour has been still for
  QUIET_MS and it differs from the game by exactly the barrels the room allows, the referee
  answers for them.

Ships sailing and moving up (MB9, MB10) move whole ships with their cargo. The game moves
them at once and people follow with their hands; until they have, the harbour differs from
the game on those docks and no answer is read from it. Counting against the game's cargo,
rather than against what changed since a question began, is what lets people move ships
while the next player is already being asked.

A flagged difference stays until people answer it: they set the barrels as the game shows
them (or undo the answer) and confirm; the referee then counts on from the harbour as it
is. Until then it neither checks page answers nor answers from a harbour in question.
"""

from __future__ import annotations

import secrets
from collections import Counter
from typing import Any

from bosun.games.montego_bay.view import barrels_by_dock
from bosun.referee import leds
from bosun.referee.base import Flag, TableReferee
from bosun.referee.effects import Effect, feed
from bosun.tables import TableConfig
from shipsense.geometry import HARBOUR_DOCKS as DOCKS
from shipsense.pieces import BARREL_G

QUIET_MS = 1500  # the harbour still for this long after barrels moved: the move is done
# After a page answer, how long the harbour may stay still without bearing it out: every
# barrel moved meanwhile gives the people at the table that long again.
CHECK_MS = 5000
HARBOUR_FLAG = "harbour_mismatch"
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
        # Grams per piece as calibrated (the wizard updates this dict): only barrels here.
        self.item_grams = {"barrel": config.items.get("barrel", BARREL_G)}
        self.felt: Counter[int] = Counter()  # barrels each dock's load cell counted so far
        # What people confirmed is not the game's (misread barrels): `felt` minus `offset`
        # is what the harbour says the docks hold, in the game's terms.
        self.offset: Counter[int] = Counter()
        self.quiet_deadline_ms: int | None = None
        self.checks: list[dict[str, Any]] = []  # page answers the harbour has to bear out
        # Docks where the game sailed or moved up ships with barrels aboard and people have
        # not caught up with their hands yet (MB9, MB10): no answer is read meanwhile.
        self.ships_moving: set[int] = set()
        self.question: tuple | None = self._question_key()

    @property
    def barrel_g(self) -> float:
        return self.item_grams["barrel"]

    # -- what the runtime asks -------------------------------------------------------------

    def next_deadline_ms(self) -> int | None:
        if not self.online:
            return None
        deadlines = [self.quiet_deadline_ms, *(c["deadline_ms"] for c in self.checks)]
        return min((d for d in deadlines if d is not None), default=None)

    def referee_state(self) -> dict[str, Any]:
        held = self._held()
        return {
            **super().referee_state(),
            "barrel_g": self.barrel_g,
            # what the docks' load cells say they hold, and where that differs from the game
            "harbour_felt": {str(dock): held[dock] for dock in DOCKS},
            "harbour_off": {str(dock): n for dock, n in sorted(self._moved().items())},
            "harbour_checks": len(self.checks),
            "ships_moving": sorted(self.ships_moving),
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
        # A refused request is not stored, so it must leave the referee as it was (replays
        # rebuild the referee from the stored inputs alone): the engine is asked first.
        self.match.game.apply(self.match.state, action)
        # the barrels moved for this question; and whether the barrels of earlier answers or
        # of ships that moved up are still awaited, so that what was felt is not this answer's
        felt, before = self._moved(), self._expected()
        awaited = bool(self.ships_moving or self.checks)
        out = self._apply(action, by_player=True)
        if kind in ("load", "unload"):
            out += self._check_answer(action, felt, before, awaited, now_ms)
        return out + self._after_change(now_ms)

    def _check_answer(
        self, action: dict, felt: dict, before: Counter, awaited: bool, now_ms: int
    ) -> list[Effect]:
        """Hold a page's answer against what the harbour felt (MB15). Counts are signed:
        barrels a dock gained are positive, barrels taken off it negative. `awaited`: other
        barrels were still to be moved when it came, so it is checked once they have been."""
        declared = _signed(action)
        what = f"{action['player']}'s {action['type']}"
        if self._in_question():
            return [feed(f"{what} not checked: the harbour is in question (see the flag)")]
        if felt == declared:
            return [feed(f"the harbour agrees with {what}")]
        if awaited or _on_the_way(felt, declared):  # barrels still to be moved
            check = {"action": action, "declared": declared, "before": before}
            self.checks.append({**check, "deadline_ms": now_ms + CHECK_MS})
            return self._settle_checks(now_ms)
        return [self._mismatch_flag(action, declared, felt)]

    def _mismatch_flag(self, action: dict, declared: dict, felt: dict) -> Effect:
        text = (
            f"{action['player']} said {_describe(declared)}, but the harbour felt "
            f"{_describe(felt) or 'nothing'} (MB15). Set the barrels as the game shows them "
            "and confirm, or undo the answer."
        )
        data = {"action": action, "declared": _keyed(declared), "felt": _keyed(felt)}
        return self.flag(HARBOUR_FLAG, text, ["confirm"], data)

    def resolve_flag(self, flag: Flag, option: str, seat: str, now_ms: int) -> list[Effect]:
        if flag.kind != HARBOUR_FLAG:
            return []
        # People looked at the harbour and say it holds what the game says: count on from it.
        off = self._moved()
        self.offset = Counter(self.felt)
        self.offset.subtract(self._expected())
        self.ships_moving = set()
        self.checks = []
        self.quiet_deadline_ms = None
        if not off:
            return [feed("the harbour matches the game again")]
        return [
            feed(
                f"the harbour counts on as confirmed by {seat}: its cells read "
                f"{_describe(off)} against the game",
                level="warning",
            )
        ]

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
        self.felt[dock] += barrels
        for check in self.checks:  # people are still moving barrels: give them time
            check["deadline_ms"] = max(check["deadline_ms"], now_ms + CHECK_MS)
        owed = any(
            dock in check["declared"] and (check["declared"][dock] > 0) == (barrels > 0)
            for check in self.checks
        )
        out += self._settle_checks(now_ms)
        if not self.ships_moving.intersection(self._moved()):
            self.ships_moving = set()  # people have caught up with the ships that moved
        if owed:
            return out  # barrels owed to a page answer are that answer's, not a new one's
        if self.view["pending"] is None:
            verb = "put on" if barrels > 0 else "taken off"
            return out + [
                feed(
                    f"{abs(barrels)} barrel(s) {verb} dock {dock} while nobody loads or "
                    "unloads (ships sailing move barrels too)",
                    level="debug",
                )
            ]
        self.quiet_deadline_ms = now_ms + QUIET_MS
        return out

    def _settle_checks(self, now_ms: int) -> list[Effect]:
        """Close the page answers the harbour now bears out (it holds what the game says, or
        what the answer said on top of what the game had before it); flag those past their
        time."""
        out: list[Effect] = []
        in_step = not self._moved()  # the harbour holds exactly what the game says
        for check in list(self.checks):
            moved = _minus(self._held(), check["before"])
            action = check["action"]
            if in_step or moved == check["declared"]:
                self.checks.remove(check)
                out.append(feed(f"the harbour agrees with {action['player']}'s {action['type']}"))
            elif now_ms >= check["deadline_ms"]:
                self.checks.remove(check)
                out.append(self._mismatch_flag(action, check["declared"], moved))
        return out

    # -- time ------------------------------------------------------------------------------

    def on_timer(self, now_ms: int) -> list[Effect]:
        if not self.online:
            return []
        out = self._settle_checks(now_ms)
        if self.quiet_deadline_ms is not None and now_ms >= self.quiet_deadline_ms:
            self.quiet_deadline_ms = None
            out += self._answer_from_harbour(now_ms)
        return out

    def _answer_from_harbour(self, now_ms: int) -> list[Effect]:
        """The player moved the barrels without their page: answer for them (MB15)."""
        pending = self.view["pending"]
        if pending is None or self.checks or self.ships_moving or self._in_question():
            return []  # a page answer's or ships' barrels still awaited, or a flag open
        sign = 1 if pending["action"] == "load" else -1
        moved = {dock: sign * n for dock, n in self._moved().items()}
        if not moved or any(n < 0 for n in moved.values()):
            return []  # not (yet) this question's barrels
        if sum(moved.values()) != pending["count"]:
            return []  # not (yet) what the room allows: wait for more, or for the page
        action = {
            "type": pending["action"],
            "player": pending["player"],
            "ships": {str(dock): n for dock, n in sorted(moved.items())},
        }
        return self._apply(action) + self._after_change(now_ms)

    # -- helpers ---------------------------------------------------------------------------

    def _expected(self) -> Counter[int]:
        """Barrels the game has at each dock."""
        return barrels_by_dock(self.view)

    def _held(self) -> Counter[int]:
        """What the harbour says the docks hold, in the game's terms."""
        held = Counter(self.felt)
        held.subtract(self.offset)
        return held

    def _moved(self) -> dict[int, int]:
        """Barrels the harbour holds beyond (or short of) the game's, dock by dock."""
        return _minus(self._held(), self._expected())

    def _in_question(self) -> bool:
        return any(flag.kind == HARBOUR_FLAG for flag in self.flags.values())

    def _apply(self, action: dict[str, Any], by_player: bool = False) -> list[Effect]:
        """Submit `action` (a player's own is refused with a reason, the referee's becomes a
        flag); note whether the game moved barrels that people have yet to follow."""
        before, length = self._expected(), len(self.match.log)
        out = self.submit(action, by_player=by_player)
        if len(self.match.log) == length:
            return out  # refused: nothing changed
        by_ships = _minus(self._expected(), before)
        if action["type"] in ("load", "unload"):
            by_ships = _minus(by_ships, _signed(action))
        self.ships_moving.update(by_ships)
        if not self.ships_moving.intersection(self._moved()):
            self.ships_moving = set()  # nothing to follow: the harbour already matches
        return out

    def _question_key(self) -> tuple | None:
        pending = self.view["pending"]
        if pending is None:
            return None
        return (len(self.match.log), pending["player"], pending["room"], pending["action"])

    def _after_change(self, now_ms: int) -> list[Effect]:
        """A new pending question waits for new barrels; the end says who won."""
        key = self._question_key()
        if key != self.question:
            self.question = key
            self.quiet_deadline_ms = None
        out: list[Effect] = []
        view = self.view
        if view["phase"] == "over":
            out.append(feed(f"{' and '.join(view['winners'])} won!", rule="MB10"))
        return out + self.prompt()

    def undone(self) -> None:
        """The game went back a step. Barrels felt for the question open again answer it
        only once they move again: the harbour as it stands is what the undo said was wrong."""
        self.checks = []
        self.ships_moving = set()
        self.quiet_deadline_ms = None
        self.question = self._question_key()


def _signed(action: dict[str, Any]) -> dict[int, int]:
    sign = 1 if action["type"] == "load" else -1
    return _nonzero({int(d): sign * n for d, n in action["ships"].items()})


def _minus(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    return _nonzero({dock: a.get(dock, 0) - b.get(dock, 0) for dock in DOCKS})


def _on_the_way(felt: dict[int, int], declared: dict[int, int]) -> bool:
    """`felt` is part of `declared`: the same docks, the same way, no more barrels."""
    return all(
        dock in declared and (n > 0) == (declared[dock] > 0) and abs(n) <= abs(declared[dock])
        for dock, n in felt.items()
    )


def _nonzero(barrels_by_dock: dict[int, int]) -> dict[int, int]:
    return {dock: n for dock, n in barrels_by_dock.items() if n}


def _keyed(barrels_by_dock: dict[int, int]) -> dict[str, int]:
    return {str(dock): n for dock, n in sorted(barrels_by_dock.items())}


def _describe(barrels_by_dock: dict[int, int]) -> str:
    return ", ".join(
        f"{abs(n)} barrel{'s' if abs(n) != 1 else ''} {'on' if n > 0 else 'off'} dock {dock}"
        for dock, n in sorted(barrels_by_dock.items())
        if n
    )
