"""A table's ship link: checked, once, in order in; checked and numbered out (bus/ship_link.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bosun.bus.ship_link import COUNT_ASKS, RATES, ShipLink
from shipsense import protocol


class Clock:
    """Time the test moves by hand; timers fire when it passes their deadline."""

    def __init__(self) -> None:
        self.t_ms = 1_000_000
        self.timers: list[list] = []

    def now_ms(self) -> int:
        return self.t_ms

    def call_at_ms(self, deadline_ms: int, callback):
        timer = [deadline_ms, callback, False]
        self.timers.append(timer)

        class Handle:
            def cancel(self) -> None:
                timer[2] = True

        return Handle()

    def advance(self, ms: int) -> None:
        self.t_ms += ms
        for timer in sorted(self.timers, key=lambda t: t[0]):
            if timer[0] <= self.t_ms and not timer[2]:
                timer[2] = True
                timer[1]()


class Table:
    """What the link delivers to, written down."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.statuses: list[tuple[dict, bool]] = []
        self.results: list[dict] = []
        self.refused: list[tuple[str, str]] = []
        self.traces: list[dict] = []
        self.changes = 0

    def ship_event(self, event):
        self.events.append(event)

    def ship_status(self, status, birth):
        self.statuses.append((status, birth))

    def ship_trace(self, batch):
        if batch["rows"] == ["bad"]:
            raise protocol.ProtocolError("row 0 is not a sample")
        self.traces.append(batch)

    def ship_result(self, result):
        self.results.append(result)

    def ship_changed(self):
        self.changes += 1

    def ship_refused(self, kind, why):
        self.refused.append((kind, why))


class Wire:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None:
        self.sent.append((topic, json.loads(payload)))


@pytest.fixture
def link():
    clock, table, wire = Clock(), Table(), Wire()
    stored = {"old": 3}
    ship_link = ShipLink("t1", wire, clock, table, stored_seq=stored.get)
    ship_link.clock_, ship_link.table_, ship_link.wire_ = clock, table, wire
    return ship_link


def born(link: ShipLink, boot: str = "b1", seq: int | None = None) -> None:
    """The ship's status announces `boot` (and, with `seq`, how many events it numbered)."""
    status = {"online": True, "boot": boot, **({} if seq is None else {"seq": seq})}
    link.receive(protocol.STATUS, json.dumps(status).encode())


def event(seq: int, boot: str = "b1", **fields: Any) -> bytes:
    message = {"type": "touch", "t_ms": 10.0 * (seq % 10**6), "boot": boot, "seq": seq, **fields}
    return json.dumps(message).encode()


def seqs(table: Table) -> list[int]:
    return [e["seq"] for e in table.events]


def test_each_event_goes_up_once_and_in_the_ships_order(link):
    born(link)
    for seq in (1, 2, 2, 1, 3):
        link.receive(protocol.EVENT, event(seq))
    assert seqs(link.table_) == [1, 2, 3]


def test_an_event_after_a_gap_waits_and_the_gap_is_asked_for_again(link):
    born(link)
    link.receive(protocol.EVENT, event(1))
    link.receive(protocol.EVENT, event(4))
    assert seqs(link.table_) == [1]  # 4 waits behind 2-3
    link.clock_.advance(1500)  # past the grace period: the ship's ring is asked
    [(topic, resend)] = link.wire_.sent
    assert topic == "bosun/t1/ship/cmd"
    assert (resend["cmd"], resend["boot"], resend["from"], resend["to"]) == ("resend", "b1", 2, 3)
    link.receive(protocol.EVENT, event(3))
    link.receive(protocol.EVENT, event(2))
    assert seqs(link.table_) == [1, 2, 3, 4]


def test_a_gap_the_ship_no_longer_has_is_given_up_and_the_rest_flows(link):
    born(link)
    link.receive(protocol.EVENT, event(1))
    link.receive(protocol.EVENT, event(3))
    link.clock_.advance(1500)
    [(_, resend)] = link.wire_.sent
    answer = {"id": resend["id"], "cmd": "resend", "ok": True, "error": None, "boot": "b1"}
    link.receive(protocol.RESULT, json.dumps({**answer, "missing": [[2, 2]]}).encode())
    assert seqs(link.table_) == [1, 3]
    assert link.dedup.lost == [("b1", 2, 2)]
    assert link.result(resend["id"])["missing"] == [[2, 2]]


def test_after_a_restart_what_the_store_holds_of_a_boot_is_not_delivered_again(link):
    born(link, "old")
    for seq in (2, 3, 4):
        link.receive(protocol.EVENT, event(seq, boot="old"))
    assert seqs(link.table_) == [4]
    # no gap (1-3 are in the store); the ship is asked to count what it numbered since
    assert [cmd["cmd"] for _, cmd in link.wire_.sent] == ["status"]


def test_a_restarted_host_asks_the_ship_to_count_again_until_it_does(link):
    """An event decided but not stored when the host died is only in the ship's outbox: the
    host asks again if the ship's count does not come (a lost question must not lose it)."""
    born(link, "old")  # the retained status, from before the restart: no count in it

    def asked() -> list[str]:
        return [cmd["cmd"] for _, cmd in link.wire_.sent]

    assert asked() == ["status"]
    link.clock_.advance(1100)
    assert asked() == ["status", "status"]
    born(link, "old", seq=5)  # the ship counts: 4-5 are missing, asked for once due
    link.clock_.advance(1600)
    link.clock_.advance(1600)
    assert asked().count("status") == 2
    resend = [cmd for _, cmd in link.wire_.sent if cmd["cmd"] == "resend"]
    assert (resend[0]["from"], resend[0]["to"]) == (4, 5)
    for seq in (4, 5):
        link.receive(protocol.EVENT, event(seq, boot="old"))
    assert seqs(link.table_) == [4, 5]


def test_a_ship_that_never_counts_is_asked_a_few_times_only(link):
    born(link, "old")
    for _ in range(20):
        link.clock_.advance(1100)
    assert [cmd["cmd"] for _, cmd in link.wire_.sent] == ["status"] * COUNT_ASKS


@pytest.mark.parametrize(
    "name, payload, why",
    [
        (protocol.EVENT, b"not json", "not valid JSON"),
        (protocol.EVENT, json.dumps({"type": "place", "t_ms": 1, "boot": "b1", "seq": 1}), "zone"),
        (protocol.EVENT, json.dumps({"type": "touch", "t_ms": 1, "boot": "b1", "seq": 0}), "seq"),
        (protocol.EVENT, b'{"type":"touch","t_ms":NaN,"boot":"b1","seq":1}', "JSON"),
        (protocol.EVENT, b"{" + b" " * 5000 + b"}", "too long"),
        (protocol.STATUS, json.dumps({"online": "yes"}), "online"),
        (protocol.RESULT, json.dumps({"id": "h1", "ok": False}), "error"),
        (protocol.TRACE, json.dumps({"boot": "b1", "rows": "all"}), "rows"),
        (protocol.TRACE, json.dumps({"boot": "b1", "rows": ["bad"]}), "not a sample"),
        (protocol.CMD, json.dumps({"cmd": "tare"}), "does not send"),
    ],
)
def test_a_malformed_message_is_refused_naming_why_and_changes_nothing(link, name, payload, why):
    raw = payload if isinstance(payload, bytes) else payload.encode()
    link.receive(name, raw)
    assert link.refused == 1
    [(kind, reason)] = link.table_.refused
    assert why in reason and kind == name.rpartition("/")[2]
    table = link.table_
    assert (table.events, table.statuses, table.results, table.traces) == ([], [], [], [])
    assert link.online is False and link.wire_.sent == []


def test_a_birth_is_a_new_boot_or_coming_back_online(link):
    for status in ({"online": True, "boot": "a"}, {"online": True, "boot": "a"}):
        link.receive(protocol.STATUS, json.dumps(status).encode())
    link.receive(protocol.STATUS, protocol.LWT_PAYLOAD)
    link.receive(protocol.STATUS, json.dumps({"online": True, "boot": "a"}).encode())
    link.receive(protocol.STATUS, json.dumps({"online": True, "boot": "b"}).encode())
    assert [birth for _, birth in link.table_.statuses] == [True, False, False, True, True]
    assert link.online and link.status["boot"] == "b"


def test_every_command_is_checked_numbered_and_its_result_found_by_its_id(link):
    led = {"cmd": "led", "show": "prompt", "zone": 7, "color": [230, 57, 70]}
    first, second = link.send(led), link.send({"cmd": "tare"})
    assert first != second
    assert [cmd["id"] for _, cmd in link.wire_.sent] == [first, second]
    assert link.wire_.sent[0][1] == {**led, "id": first}
    with pytest.raises(protocol.CommandError, match="color"):
        link.send({"cmd": "led", "show": "prompt", "zone": 7, "color": [999, 0, 0]})
    assert len(link.wire_.sent) == 2  # a refused command is never sent
    answer = {"id": second, "cmd": "tare", "ok": True, "error": None, "tare": {"z1": 5}}
    link.receive(protocol.RESULT, json.dumps(answer).encode())
    assert link.result(second) == answer and link.result(first) is None


def test_weights_are_kept_and_the_table_told(link):
    weights = protocol.weights_message("b1", 100.0, [0.0] * 10, None)
    link.receive(protocol.WEIGHTS, protocol.encode(weights))
    assert link.weights == weights and link.table_.changes == 1


def test_an_event_of_a_boot_the_status_never_announced_is_refused(link):
    link.receive(protocol.EVENT, event(1, boot="forged"))
    assert link.table_.events == [] and link.refused == 1
    assert "not announced" in link.table_.refused[0][1]
    born(link, "forged")  # once the ship's status names it, its events count
    link.receive(protocol.EVENT, event(1, boot="forged"))
    assert seqs(link.table_) == [1]


@pytest.mark.parametrize("seq", [2 + protocol.MAX_OUTBOX, 2**53])
def test_a_seq_beyond_the_window_is_refused_and_opens_no_gap(link, seq):
    born(link)
    link.receive(protocol.EVENT, event(1))
    link.receive(protocol.EVENT, event(seq))
    assert seqs(link.table_) == [1] and link.refused == 1
    assert "beyond the window" in link.table_.refused[0][1]
    link.clock_.advance(60_000)  # no gap was opened: nothing is asked for or given up
    assert link.wire_.sent == [] and link.dedup.lost == []
    link.receive(protocol.EVENT, event(2))
    assert seqs(link.table_) == [1, 2]


def test_a_status_counting_far_ahead_gives_up_what_the_outbox_cannot_hold(link):
    born(link)
    link.receive(protocol.EVENT, event(1))
    born(link, seq=2**53)  # cheap however far: ranges, not a walk
    assert link.dedup.lost == [("b1", 2, 2**53 - protocol.MAX_OUTBOX)]
    link.receive(protocol.EVENT, event(2**53))
    assert seqs(link.table_) == [1]  # waits behind the last MAX_OUTBOX - 1 events
    for _ in range(8):  # asked for three times, then given up
        link.clock_.advance(2_000)
    assert seqs(link.table_) == [1, 2**53]
    assert len(link.wire_.sent) <= 2 * 3  # two resend pieces of MAX_RESEND, three times


def test_a_burst_and_a_flood_are_cut_to_the_rate(link):
    rate, burst = RATES[protocol.EVENT]
    born(link)
    for seq in range(1, 1501):
        link.receive(protocol.EVENT, event(seq))
    assert seqs(link.table_) == list(range(1, burst + 1))
    assert link.rate_limited == 1500 - burst
    link.clock_.t_ms += 1000  # a second later: its rate's worth more
    for seq in range(1501, 1601):
        link.receive(protocol.EVENT, event(seq))
    admitted = 100 - (link.rate_limited - (1500 - burst))
    assert admitted == rate
    assert link.health()["rate_limited"] == link.rate_limited


def test_a_flood_of_bad_messages_writes_a_few_log_lines_not_one_each(link, caplog):
    for i in range(100):
        link.receive(protocol.EVENT, b"not json %d" % i)
        link.clock_.t_ms += 50  # 5 s in all, within the rate
    link.clock_.advance(6000)
    link.receive(protocol.EVENT, b"still not json")
    lines = [r for r in caplog.records if "rejected event message" in r.getMessage()]
    assert len(lines) == 2 and "99 more like it" in lines[1].getMessage()
    assert link.refused == 101 and link.health()["last_refused"].startswith("event:")


def test_events_waiting_behind_gaps_are_bounded(link):
    born(link)
    for seq in range(3, 3 + protocol.MAX_OUTBOX):  # 1-2 never come
        link.clock_.t_ms += 50  # within its rate
        link.receive(protocol.EVENT, event(seq))
    assert len(link._held) <= protocol.MAX_OUTBOX  # noqa: SLF001
    link.clock_.t_ms += 1000  # within its rate
    link.receive(protocol.EVENT, event(3 + protocol.MAX_OUTBOX))
    assert seqs(link.table_)[:1] == [3]  # the oldest gap was given up for them
    assert ("b1", 1, 2) in link.dedup.lost
