"""`bosun play riffraff` driven through a real pseudo-terminal, as three people would."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import pexpect
from support.polling import CEILING_S

from bosun.games.match import Match, replay

BOSUN = str(Path(sys.executable).parent / "bosun")


def start(tmp_path: Path, *args: str) -> pexpect.spawn:
    return pexpect.spawn(
        BOSUN,
        ["play", "riffraff", "--log", str(tmp_path / "game.jsonl"), *args],
        encoding="utf-8",
        timeout=CEILING_S,  # each answer comes at once; a ceiling for a busy machine
        # a terminal's Ctrl-C as a person has it: a suite started in the background (a
        # non-interactive shell's `cmd &`) passes on SIGINT ignored, and Python keeps that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        dimensions=(40, 120),
    )


def choose_card(term: pexpect.spawn, player: str, value: int) -> None:
    term.expect(f"{player}, your card .*unseen: ")
    term.sendline(str(value))
    term.expect(r"\r\n")
    assert str(value) not in term.before, "a secret card was echoed (RR4)"


def test_three_people_play_a_round_and_the_log_replays(tmp_path):
    term = start(tmp_path, "--players", "ann,bob,cy")
    term.expect("ann is the first captain")
    choose_card(term, "ann", 3)
    term.expect("bob, your card")
    term.sendline("11")  # not a card: asked again
    term.expect("cards run from 1 to 10, there is no 11")
    choose_card(term, "bob", 8)
    choose_card(term, "cy", 5)
    term.expect("Cards: ann 3 · bob 8 · cy 5")
    term.expect("bob.* load onto zone 8, on the middle yard")
    term.expect("which piece goes on zone 8")
    term.sendline("kraken")
    term.expect("Please answer one of")
    term.sendline("ra")  # a unique prefix is enough
    term.expect(r"fall off the ship\? \[y/n\]")
    term.sendline("n")
    term.expect("cy.* load onto zone 5")
    term.expect("which piece goes on zone 5")
    term.sendline("boat")
    term.expect(r"fall off the ship\? \[y/n\]")
    term.sendline("y")
    term.expect("e.g. rat@9")
    term.expect("reached the table")
    term.sendline("boat@5")  # RR13a: by the zone it left
    term.expect("cy caught")
    term.sendline("")
    term.expect("ann.* load onto zone 3, a hull quarter")
    term.expect("which piece")
    term.sendline("crate")
    term.expect(r"\[y/n\]")
    term.sendline("n")
    term.expect("Round 2")
    term.expect("Press Enter")
    term.sendline("")
    term.expect(r"ann, your card \(1 2 4 5 6 7 8 9 10\), unseen")  # her own used 3 (RR7)
    term.kill(signal.SIGINT)
    term.expect("Everything so far is in")
    term.expect(pexpect.EOF)

    lines = (tmp_path / "game.jsonl").read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == [
        "setup",
        "card",
        "card",
        "card",
        "load",
        "end_turn",
        "load",
        "fall",
        "load",
        "end_turn",
    ]
    match = Match()
    assert list(replay(lines, match)) == []
    view = match.view()
    assert view["round"] == 2 and view["captain"] == "bob"
    assert view["ship"]["8"] == ["rat"] and view["ship"]["3"] == ["crate"]
    assert view["players"]["cy"]["supply"] == 8
    assert json.loads(lines[7])["fallen"] == [{"item": "boat", "zone": 5}]


def test_players_are_asked_for_when_not_given(tmp_path):
    term = start(tmp_path)
    term.expect("Players, oldest first")
    term.sendline("solo")
    term.expect("Give 2 to 4 different names")
    term.sendline("ann, bob")
    term.expect("ann is the first captain")
    term.expect("ann, your card")
    term.sendeof()
    term.expect(pexpect.EOF)
    assert json.loads((tmp_path / "game.jsonl").read_text().splitlines()[0])["players"] == [
        "ann",
        "bob",
    ]
