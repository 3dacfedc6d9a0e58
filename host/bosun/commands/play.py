"""`bosun play riffraff`: a terminal referee for a table without sensors.

Players type what happened; the engine rules on it. Cards are typed without echo (RR4), every
accepted action is appended to the game log at once, so Ctrl-C or a crash loses nothing.
"""

from __future__ import annotations

import argparse
import getpass
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console

from bosun.games import Rejected
from bosun.games.match import Match, dump_log_line
from bosun.games.riffraff import ITEMS

Ask = Callable[[str], str]


class Quit(Exception):
    """The players left the game (end of input)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "play",
        help="referee a game in the terminal, without sensors",
        description="A terminal referee: each player types their card unseen, the referee "
        "runs the turns, and the game log is written as the game goes.",
    )
    p.add_argument("game", choices=["riffraff"])
    p.add_argument("--players", help="2-4 comma-separated names, oldest first (RR3)")
    p.add_argument("--settle", type=int, choices=(0, 3), default=0, help="settle window (RR14)")
    p.add_argument("--log", type=Path, help="where to write the game log (JSONL)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    log_path = args.log or Path("games") / time.strftime("riffraff-%Y%m%d-%H%M%S.jsonl")
    referee = TerminalReferee(console=console, ask=_ask_visible, ask_secret=_ask_hidden)
    try:
        players = referee.read_players(args.players)
    except Quit:
        return 1
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("a", encoding="utf-8") as log:
        referee.log = log
        console.print(f"Game log: [bold]{log_path}[/]")
        try:
            referee.play(players, settle_s=args.settle)
        except (Quit, KeyboardInterrupt):
            console.print(f"\nGame stopped. Everything so far is in {log_path}")
            return 130
    console.print(f"Game log saved to {log_path}")
    return 0


def _ask_visible(prompt: str) -> str:
    try:
        return input(prompt)
    except EOFError:
        raise Quit from None


def _ask_hidden(prompt: str) -> str:
    try:
        return getpass.getpass(prompt)
    except EOFError:
        raise Quit from None


def _zone_name(zone: int) -> str:
    if zone <= 4:
        return f"zone {zone}, a hull quarter"
    yard = {5: "lowest", 7: "middle", 9: "top"}[zone - (zone + 1) % 2]
    return f"zone {zone}, on the {yard} yard"


def _piece(word: str) -> str | dict[str, Any]:
    """`rat@9` as the game log names that piece (RR13a); a bare `rat` as it is."""
    item, at, zone = word.partition("@")
    if at and zone.isdigit():
        return {"item": item, "zone": int(zone)}
    return word


def draw_ship(ship: dict[str, list[str]]) -> str:
    """The ship as text: three yards above the hull, each zone with its cargo."""

    def cell(zone: int) -> str:
        return f"{zone:>2}: {', '.join(ship[str(zone)]) or '-'}"

    rows = [
        f"  top yard     {cell(9):<28}{cell(10)}",
        f"  middle yard  {cell(7):<28}{cell(8)}",
        f"  lowest yard  {cell(5):<28}{cell(6)}",
        f"  hull         {cell(1):<28}{cell(2)}",
        f"               {cell(3):<28}{cell(4)}",
    ]
    return "\n".join(rows)


class TerminalReferee:
    """Runs a Riff Raff game from typed answers; `ask`/`ask_secret` read one line each."""

    def __init__(self, console: Console, ask: Ask, ask_secret: Ask) -> None:
        self.console = console
        self.ask = ask
        self.ask_secret = ask_secret
        self.match = Match()
        self.log: TextIO | None = None

    # -- plumbing ------------------------------------------------------------------------

    def submit(self, action: dict[str, Any]) -> bool:
        """Apply an action; on success append it to the log, else say why."""
        try:
            self.match.submit(action)
        except Rejected as reason:
            self.console.print(f"[red]Not allowed:[/] {reason}")
            return False
        if self.log is not None:
            self.log.write(dump_log_line(action) + "\n")
            self.log.flush()
        return True

    def say(self, text: str) -> None:
        self.console.print(text)

    def choose(self, prompt: str, options: list[str]) -> str:
        """Ask until the answer names one option (case-insensitive, unique prefixes accepted)."""
        while True:
            answer = self.ask(prompt).strip().lower()
            exact = [o for o in options if o.lower() == answer]
            matches = exact or [o for o in options if answer and o.lower().startswith(answer)]
            if len(matches) == 1:
                return matches[0]
            self.say(f"[red]Please answer one of:[/] {', '.join(options)}")

    def yes(self, prompt: str) -> bool:
        return self.choose(f"{prompt} [y/n] ", ["yes", "no"]) == "yes"

    # -- the game ------------------------------------------------------------------------

    def read_players(self, given: str | None) -> list[str]:
        while True:
            text = given if given is not None else self.ask("Players, oldest first (a,b,c): ")
            given = None
            players = [name.strip() for name in text.split(",") if name.strip()]
            if 2 <= len(players) <= 4 and len(set(players)) == len(players):
                return players
            self.say("[red]Give 2 to 4 different names separated by commas.[/]")

    def play(self, players: list[str], settle_s: int) -> None:
        setup = {
            "type": "setup",
            "game": "riffraff",
            "players": players,
            "captain": players[0],
            "settle_s": settle_s,
        }
        if not self.submit(setup):
            raise Quit
        self.say(f"Riff Raff for {', '.join(players)}. {players[0]} is the first captain (RR3).")
        while not self.match.is_over:
            phase = self.match.view()["phase"]
            {"choose": self.choose_cards, "decide": self.decide, "turn": self.turn}[phase]()
        view = self.match.view()
        self.show_table(view)
        self.say(f"[bold green]Game over: {' and '.join(view['winners'])} won![/]")

    def choose_cards(self) -> None:
        view = self.match.view()
        self.say(f"\n[bold]Round {view['round']}[/]: everyone chooses a card in secret.")
        if view["round"] > 1 and self.ask("Press Enter when ready (or type 'fall'): ") == "fall":
            self.record_fall(view["last_turn"])
            return
        for player in view["players"]:
            played = self.match.view(player)["players"][player]["played"]  # RR7: their own
            remaining = [str(v) for v in range(1, 11) if v not in played]
            while True:
                answer = self.ask_secret(f"{player}, your card ({' '.join(remaining)}), unseen: ")
                value = int(answer) if answer.strip().isdigit() else answer.strip()
                if self.submit({"type": "card", "player": player, "value": value}):
                    break
        view = self.match.view()
        cards = " · ".join(f"{p} {info['card']}" for p, info in view["players"].items())
        self.say(f"Cards: {cards}")

    def decide(self) -> None:
        pending = self.match.view()["pending"]
        what = (
            "the new captain (RR5)" if pending["decision"] == "captain" else "who goes next (RR6)"
        )
        player = self.choose(
            f"{pending['by']}, choose {what} among {', '.join(pending['among'])}: ",
            pending["among"],
        )
        self.submit({"type": pending["decision"], "by": pending["by"], "player": player})

    def turn(self) -> None:
        view = self.match.view()
        player, zone = view["turn"], view["target_zone"]
        self.show_table(view)
        self.say(f"\n[bold]{player}[/] (captain {view['captain']}): load onto {_zone_name(zone)}.")
        legal = self.match.game.legal_actions(self.match.state, player)
        if any(a["type"] == "announce" and a["pieces"] == 2 for a in legal):
            pieces = self.choose(f"{player}, one or two pieces this turn? [1/2] ", ["1", "2"])
            self.submit({"type": "announce", "player": player, "pieces": int(pieces)})
        while self.match.view()["turn"] == player:
            view = self.match.view()
            to_load = (view["pieces_announced"] or 1) - view["pieces_loaded"]
            if to_load > 0 and view["players"][player]["supply"]:
                if not self.load_one(player, zone):
                    continue
                if self.yes("Did any cargo fall off the ship?"):
                    self.record_fall(player)
                    continue
            if settle_s := view["settle_s"]:
                self.say(f"Wait {settle_s} seconds for the ship to settle (RR14).")
                if self.yes(f"Did any cargo fall in those {settle_s} seconds?"):
                    self.record_fall(player)
                    continue
            self.submit({"type": "end_turn", "player": player})

    def load_one(self, player: str, zone: int) -> bool:
        supply = self.match.view()["players"][player]["items"]
        in_hand = [item for item in ITEMS if supply[item]]
        item = self.choose(
            f"{player}, which piece goes on zone {zone}? ({', '.join(in_hand)}) ", in_hand
        )
        return self.submit({"type": "load", "player": player, "zone": zone, "item": item})

    def record_fall(self, player: str) -> None:
        """RR11-RR13: which pieces reached the table and which the player caught."""
        self.say("Name each piece by its kind and the zone it left, e.g. rat@9 (RR13a).")
        while True:
            fallen = self.ask("Pieces that reached the table (space-separated, Enter for none): ")
            caught = self.ask(f"Pieces {player} caught (space-separated, Enter for none): ")
            action = {
                "type": "fall",
                "player": player,
                "fallen": [_piece(word) for word in fallen.lower().split()],
                "caught": [_piece(word) for word in caught.lower().split()],
            }
            if self.submit(action):
                return

    def show_table(self, view: dict[str, Any]) -> None:
        self.say(draw_ship(view["ship"]))
        left = " · ".join(f"{p} {info['supply']} left" for p, info in view["players"].items())
        self.say(f"  {left} · boxed {view['boxed']}")
