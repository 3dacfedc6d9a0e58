"""Who is at a table and the decision timer (referee/presence.py): a seat's page open is
presence, a waiting decision has a start, the timer and the operator hand a decision to the
seat's bot (a normal action of that seat in the game log), never a move made by hand."""

from __future__ import annotations

import json

import pytest

from bosun.games import Rejected
from bosun.referee.runtime import TableRuntime
from bosun.referee.view import TableView
from bosun.store import Store
from bosun.tables import TableConfig, default_seats


class Clock:
    """A table clock moved by hand; timers fire when the test says."""

    scale = 1.0

    def __init__(self) -> None:
        self.t_ms = 1_000_000
        self.timers: list[list] = []

    def now_ms(self) -> int:
        return self.t_ms

    def call_at_ms(self, deadline_ms, callback):
        timer = [deadline_ms, callback, False]
        self.timers.append(timer)

        class Handle:
            def cancel(self) -> None:
                timer[2] = True

        return Handle()

    def advance(self, ms: int) -> None:
        self.t_ms += ms
        while due := [t for t in self.timers if not t[2] and t[0] <= self.t_ms]:
            for timer in due:
                timer[2] = True
                timer[1]()


class Wire:
    def publish(self, topic, payload, qos=0, retain=False) -> None:
        pass


@pytest.fixture
def table(tmp_path):
    with Store.open(f"sqlite:///{tmp_path / 'bosun.db'}") as store:
        config = TableConfig(id="t1", players=default_seats(["ann", "bob", "cy"]))
        runtime = TableRuntime(config, store, Wire(), Clock())
        view = TableView(runtime)
        runtime.start_game()
        view.clock = runtime.clock
        view.store = store
        yield view
        runtime.close()


def seats(table) -> dict:
    return table.snapshot()["presence"]["seats"]


def test_a_seat_is_present_while_its_page_is_open_and_waits_from_when_it_was_asked(table):
    start = table.now_ms()
    assert seats(table)["ann"] == {
        "online": False,
        "left_ms": None,
        "waiting_since_ms": start,  # RR4: every player chooses a card
        "deadline_ms": None,  # no timer at a real table unless set
        "bot": False,
    }
    table.seat_page_opened("ann")
    table.seat_page_opened("ann")  # a second tab
    table.seat_page_closed("ann")
    assert seats(table)["ann"]["online"]
    table.clock.advance(5000)
    table.player_input(table.seat_tokens()["ann"], {"type": "card", "value": 7})
    table.seat_page_closed("ann")
    ann, bob = seats(table)["ann"], seats(table)["bob"]
    assert not ann["online"] and ann["left_ms"] == start + 5000
    assert ann["waiting_since_ms"] is None and bob["waiting_since_ms"] == start
    assert "token" not in json.dumps(table.snapshot()["presence"])


def test_rr4_the_decision_timer_lets_the_seats_bot_choose_a_normal_card(table):
    table.set_decision_timer(30)
    table.player_input(table.seat_tokens()["ann"], {"type": "card", "value": 7})
    deadline = seats(table)["bob"]["deadline_ms"]
    assert deadline == table.now_ms() + 30_000 and seats(table)["ann"]["deadline_ms"] is None
    table.clock.advance(29_999)
    assert table.state()["players"]["bob"]["chosen"] is False
    table.clock.advance(1)
    state = table.state()
    assert state["phase"] in ("turn", "decide")  # bob's and cy's bots chose: cards revealed
    log = table.store.game_actions(table.game_id)
    assert [a["type"] for a in log[1:4]] == ["card", "card", "card"]
    assert {a["player"] for a in log[1:4]} == {"ann", "bob", "cy"}
    assert all(set(a) == {"type", "player", "value"} for a in log[1:4])  # the contract's form
    texts = [line["text"] for line in table.snapshot()["feed"]]
    assert any("a bot decided for bob: no answer in 30 s" in t for t in texts)


def test_rr9_a_bot_announces_but_never_loads_a_piece_by_hand(table):
    tokens = table.seat_tokens()
    for player, card in (("ann", 9), ("bob", 5), ("cy", 3)):
        table.player_input(tokens[player], {"type": "card", "value": card})
    assert table.state()["turn"] == "ann"
    assert table.decide_for("ann") == "announce"  # the operator skipped her wait
    with pytest.raises(Rejected, match="by hand on the ship"):
        table.decide_for("ann")  # now she loads pieces on the ship: no bot does that
    with pytest.raises(Rejected, match="bob has no decision"):
        table.decide_for("bob")
    with pytest.raises(Rejected, match="no seat"):
        table.decide_for("zed")


def test_a_seat_given_to_a_bot_decides_at_once_until_it_is_given_back(table):
    table.give_seat_to_bot("bob")
    assert seats(table)["bob"]["bot"]
    table.clock.advance(0)  # the bot answers just after the change that asked it
    assert table.state()["players"]["bob"]["chosen"] is True
    table.give_seat_to_bot("bob", bot=False)
    assert not seats(table)["bob"]["bot"]
    with pytest.raises(ValueError, match="from 0"):
        table.set_decision_timer(-1)
    with pytest.raises(ValueError, match="whole number"):
        table.set_decision_timer("30")
