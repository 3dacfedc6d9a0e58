"""What bosun's store promises on every database: scenarios run on SQLite and PostgreSQL.

Each `scenario_*` takes an open, empty Store and asserts one promise of bosun.store.
tests/unit/test_store_contract.py runs them on SQLite, tests/integration/
test_store_postgres.py on a real PostgreSQL server.
"""

from __future__ import annotations

import json
import random
import threading

import pytest
import sqlalchemy as sa

from bosun.bots.riffraff import BotPolicy, play_game
from bosun.games.match import Match, dump_log_line, replay
from bosun.store import InvalidEntry, NothingToUndo, Store, StoreError, UnknownGame

PLAYERS = ["ann", "bob", "cy"]
SETUP = {"type": "setup", "game": "riffraff", "players": PLAYERS, "captain": "ann", "settle_s": 0}
CARDS = [
    {"type": "card", "player": "bob", "value": 7},
    {"type": "card", "player": "ann", "value": 3},
    {"type": "card", "player": "cy", "value": 5},
]
T0_MS = 1_747_735_000_000


def start(store: Store, table: str = "t1", at_ms: int = T0_MS, **kw) -> str:
    seats = kw.pop("seats", {p: f"secret-{table}-{p}-{at_ms}" for p in PLAYERS})
    return store.start_game(table, "riffraff", PLAYERS, SETUP, seats, at_ms, **kw)


def final_view(actions: list[dict]) -> dict:
    match = Match()
    rejections = list(replay([dump_log_line(a) for a in actions], match))
    assert rejections == []
    return match.view()


# ------------------------------------------------------------------ the log


def scenario_appends_come_back_in_order_with_ids_increasing(store: Store) -> None:
    ids = [
        store.append("t1", "note", {"n": n}, at_ms=T0_MS + (7 - n))  # at_ms does not order
        for n in range(8)
    ]
    store.append("t2", "note", {"n": 99}, at_ms=T0_MS)
    assert ids == sorted(ids) and len(set(ids)) == 8
    got = store.entries("t1")
    assert [e.payload["n"] for e in got] == list(range(8))
    assert [e.id for e in got] == ids
    assert all(e.table_id == "t1" and e.kind == "note" and e.game_id is None for e in got)
    assert [e.payload["n"] for e in store.entries("t1", after_id=ids[4])] == [5, 6, 7]
    assert [e.payload["n"] for e in store.entries("t1", after_id=ids[1], limit=2)] == [2, 3]
    assert [e.payload["n"] for e in store.entries("t2")] == [99]


def scenario_entries_filter_by_game_and_kind(store: Store) -> None:
    game_id = start(store)
    store.append("t1", "status", {"online": True}, at_ms=T0_MS + 1, boot="b1")
    store.append("t1", "action", CARDS[0], at_ms=T0_MS + 2, game_id=game_id)
    store.append("t1", "prompt", {"led": "zone 7"}, at_ms=T0_MS + 3, game_id=game_id)
    kinds = [e.kind for e in store.entries("t1")]
    assert kinds == ["action", "status", "action", "prompt"]
    assert [e.kind for e in store.entries("t1", game_id=game_id)] == ["action", "action", "prompt"]
    actions = store.entries("t1", kinds=["action"])
    assert [e.payload["type"] for e in actions] == ["setup", "card"]
    assert store.entries("t1", kinds=[]) == []


def scenario_a_resent_ship_event_is_stored_once(store: Store) -> None:
    event = {"type": "place", "zone": 7, "grams": 11.8, "t_ms": 1000, "decided_ms": 1100}
    first = store.append("t1", "ship_event", event, at_ms=T0_MS, boot="b1", seq=1)
    again = store.append(
        "t1", "ship_event", {**event, "grams": 99}, at_ms=T0_MS + 5, boot="b1", seq=1
    )
    assert isinstance(first, int) and again is None
    # the same seq of another boot or another table is another event
    assert store.append("t1", "ship_event", event, at_ms=T0_MS, boot="b2", seq=1) is not None
    assert store.append("t2", "ship_event", event, at_ms=T0_MS, boot="b1", seq=1) is not None
    stored = store.entries("t1", kinds=["ship_event"])
    assert [(e.boot, e.seq, e.payload["grams"]) for e in stored] == [
        ("b1", 1, 11.8),
        ("b2", 1, 11.8),
    ]
    # unkeyed entries never clash with each other
    assert store.append("t1", "note", {}, at_ms=T0_MS) != store.append(
        "t1", "note", {}, at_ms=T0_MS
    )
    assert store.last_seq("t1", "b1") == 1 and store.last_seq("t1", "b9") is None


def scenario_append_many_is_one_transaction_and_skips_duplicates(store: Store) -> None:
    game_id = start(store)
    batch = [
        {
            "table_id": "t1",
            "kind": "ship_event",
            "payload": {"s": s},
            "at_ms": T0_MS,
            "boot": "b",
            "seq": s,
        }
        for s in (1, 2, 2, 3)
    ]
    ids = store.append_many(batch)
    assert ids[2] is None and None not in (ids[0], ids[1], ids[3]) and ids[0] < ids[1] < ids[3]
    assert store.append_many(batch[:2]) == [None, None]
    # one bad entry (a game of another table) and nothing of the batch is written
    before = store.entries("t1")
    with pytest.raises(UnknownGame):
        store.append_many(
            [
                {"table_id": "t1", "kind": "note", "payload": {}, "at_ms": T0_MS},
                {
                    "table_id": "t9",
                    "kind": "note",
                    "payload": {},
                    "at_ms": T0_MS,
                    "game_id": game_id,
                },
            ]
        )
    assert store.entries("t1") == before
    assert store.append_many([]) == []


def scenario_keyed_appends_from_threads_store_each_event_once(store: Store) -> None:
    # Two receivers racing with the same QoS1 redeliveries: every (boot, seq) lands once.
    barrier = threading.Barrier(4)
    results: list[list[int | None]] = [[] for _ in range(4)]

    def receiver(slot: int) -> None:
        barrier.wait()
        for seq in range(40):
            results[slot].append(
                store.append("t1", "ship_event", {"seq": seq}, at_ms=T0_MS, boot="b1", seq=seq)
            )

    threads = [threading.Thread(target=receiver, args=(slot,)) for slot in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = store.entries("t1")
    assert sorted(e.seq for e in stored) == list(range(40))
    for seq in range(40):
        assert sum(r[seq] is not None for r in results) == 1


def scenario_bad_input_is_refused_and_writes_nothing(store: Store) -> None:
    game_id = start(store)
    before = store.entries("t1")
    bad_calls = [
        (("t1", "note", {"x": float("nan")}), {"at_ms": T0_MS}),
        (("t1", "note", {"x": object()}), {"at_ms": T0_MS}),
        (("t1", "note", ["not", "an", "object"]), {"at_ms": T0_MS}),
        (("t1", "note", {"big": "x" * 70000}), {"at_ms": T0_MS}),
        (("t1", "Not A Kind", {}), {"at_ms": T0_MS}),
        (("", "note", {}), {"at_ms": T0_MS}),
        (("t\n1", "note", {}), {"at_ms": T0_MS}),
        ((7, "note", {}), {"at_ms": T0_MS}),
        (("t1", "note", {}), {"at_ms": -1}),
        (("t1", "note", {}), {"at_ms": 1.5}),
        (("t1", "note", {}), {"at_ms": True}),
        (("t1", "ship_event", {}), {"at_ms": T0_MS, "seq": 3}),  # a seq without its boot
        (("t1", "ship_event", {}), {"at_ms": T0_MS, "boot": "b", "seq": -1}),
        (("t1", "ship_event", {}), {"at_ms": T0_MS, "boot": "b", "seq": "3"}),
    ]
    for args, kwargs in bad_calls:
        with pytest.raises(InvalidEntry):
            store.append(*args, **kwargs)
    with pytest.raises(UnknownGame, match="no such game"):
        store.append("t1", "action", CARDS[0], at_ms=T0_MS, game_id="20990101T000000000Z-000000")
    with pytest.raises(UnknownGame, match="on table 't2'"):
        store.append("t2", "action", CARDS[0], at_ms=T0_MS, game_id=game_id)
    with pytest.raises(InvalidEntry, match="entry 1"):
        store.append_many(
            [{"table_id": "t1", "kind": "note", "payload": {}, "at_ms": 1}, {"oops": 1}]
        )
    assert store.entries("t1") == before
    assert store.entries("t2") == []


def scenario_the_log_is_a_copy_of_what_was_appended(store: Store) -> None:
    payload = {"type": "place", "zones": [7], "grams": 11.8, "name": "Zoë ⚓"}
    entry_id = store.append("t1", "ship_event", payload, at_ms=T0_MS, boot="b", seq=1)
    payload["zones"].append(8)  # the caller changes its dict later: the log does not change
    (entry,) = store.entries("t1")
    assert entry.id == entry_id
    assert entry.payload == {"type": "place", "zones": [7], "grams": 11.8, "name": "Zoë ⚓"}
    assert (entry.boot, entry.seq, entry.at_ms) == ("b", 1, T0_MS)


# ------------------------------------------------------------------ games and seats


def scenario_games_start_finish_and_list(store: Store) -> None:
    g1 = start(store, "t1", T0_MS)
    g2 = start(store, "t2", T0_MS + 10)
    assert g1 != g2 and g1 < g2  # ids sort by start time
    assert [g.game_id for g in store.unfinished_games()] == [g1, g2]
    row = store.game(g1)
    assert (row.table_id, row.game, row.players, row.started_at_ms) == (
        "t1",
        "riffraff",
        tuple(PLAYERS),
        T0_MS,
    )
    assert row.running and row.winners is None and row.ended_at_ms is None
    store.finish_game(g1, ["bob"], T0_MS + 1000)
    row = store.game(g1)
    assert not row.running and row.winners == ("bob",) and row.ended_at_ms == T0_MS + 1000
    assert [g.game_id for g in store.unfinished_games()] == [g2]
    assert [g.game_id for g in store.games(running=False)] == [g1]
    assert [g.game_id for g in store.games(table_id="t2")] == [g2]
    g3 = start(store, "t1", T0_MS)  # same start ms as g1: the latest is still the newest
    assert store.latest_game("t1").game_id == g3
    assert store.latest_game("t9") is None
    assert [e.kind for e in store.entries("t1", game_id=g1)] == ["action", "finish"]
    assert store.entries("t1", game_id=g1)[-1].payload == {"winners": ["bob"]}
    with pytest.raises(StoreError, match="already finished"):
        store.finish_game(g1, ["ann"], T0_MS + 2000)
    with pytest.raises(InvalidEntry, match="do not play"):
        store.finish_game(g2, ["zed"], T0_MS + 2000)
    with pytest.raises(UnknownGame):
        store.game("nope")
    with pytest.raises(UnknownGame):
        store.finish_game("nope", [], T0_MS)


def scenario_a_table_plays_one_game_at_a_time(store: Store) -> None:
    g1 = start(store, "t1")
    with pytest.raises(StoreError, match="still playing"):
        start(store, "t1", T0_MS + 5)
    store.finish_game(g1, [], T0_MS + 6)  # abandoned
    g2 = start(store, "t1", T0_MS + 7)
    assert store.game(g1).winners == () and store.game(g2).running


def scenario_start_game_refuses_a_setup_the_rules_reject(store: Store) -> None:
    bad = [
        dict(SETUP, players=["ann"]),  # RR1: 2 to 4 players
        dict(SETUP, game="montego-bay"),
        {"type": "card", "game": "riffraff", "players": PLAYERS},
    ]
    for setup in bad:
        with pytest.raises(InvalidEntry):
            store.start_game("t1", "riffraff", PLAYERS, setup, None, T0_MS)
    with pytest.raises(InvalidEntry, match="unknown game"):
        store.start_game("t1", "chess", PLAYERS, SETUP, None, T0_MS)
    with pytest.raises(InvalidEntry, match="each of"):
        store.start_game("t1", "riffraff", PLAYERS, SETUP, {"ann": "a", "bob": "b"}, T0_MS)
    with pytest.raises(InvalidEntry, match="share a token"):
        store.start_game("t1", "riffraff", PLAYERS, SETUP, dict.fromkeys(PLAYERS, "same"), T0_MS)
    assert store.games() == [] and store.entries("t1") == []


def scenario_seat_tokens_are_secret_and_checked(store: Store) -> None:
    game_id = start(store, seats={"ann": "tok-ann-123", "bob": "tok-bob-456", "cy": "tok-cy-789"})
    assert store.seat_for_token(game_id, "tok-bob-456") == "bob"
    assert store.seat_for_token(game_id, "tok-bob-45") is None
    assert store.seat_for_token(game_id, "") is None
    assert store.seat_for_token(game_id, None) is None
    assert store.seat_for_token("another-game", "tok-bob-456") is None
    assert store.seat_tokens(game_id) == {
        "ann": "tok-ann-123",
        "bob": "tok-bob-456",
        "cy": "tok-cy-789",
    }
    # nothing public carries a token: game rows, their JSON, the log and the exported actions
    public_text = json.dumps(
        [g.public() for g in store.games()]
        + [repr(store.game(game_id))]
        + [e.payload for e in store.entries("t1")]
        + store.game_actions(game_id)
    )
    assert "tok-" not in public_text
    generated = store.seat_tokens(start(store, "t2", seats=None))
    assert len(set(generated.values())) == 3 and all(len(t) >= 20 for t in generated.values())


# ------------------------------------------------------------------ undo and the effective log


def scenario_undo_takes_back_the_last_action_then_the_one_before(store: Store) -> None:
    game_id = start(store)
    ids = [
        store.append("t1", "action", a, at_ms=T0_MS + i, game_id=game_id)
        for i, a in enumerate(CARDS)
    ]
    undo = store.undo_last_action(game_id, "cy's card was misread", "referee", T0_MS + 10)
    assert undo.kind == "undo" and undo.game_id == game_id and undo.table_id == "t1"
    assert undo.payload == {
        "undoes": ids[2],
        "action": CARDS[2],
        "reason": "cy's card was misread",
        "by": "referee",
    }
    assert store.game_actions(game_id) == [SETUP, CARDS[0], CARDS[1]]
    store.undo_last_action(game_id, "ann's too", "ann", T0_MS + 11)
    assert store.game_actions(game_id) == [SETUP, CARDS[0]]
    redo = dict(CARDS[1], value=4)
    store.append("t1", "action", redo, at_ms=T0_MS + 12, game_id=game_id)
    assert store.game_actions(game_id) == [SETUP, CARDS[0], redo]
    store.undo_last_action(game_id, "again", "referee", T0_MS + 13)
    assert store.game_actions(game_id) == [SETUP, CARDS[0]]
    # append-only: every action ever appended is still in the log, undos beside them
    kinds = [e.kind for e in store.entries("t1", game_id=game_id)]
    assert kinds == ["action"] * 4 + ["undo", "undo", "action", "undo"]


def scenario_undo_never_takes_back_the_setup_nor_a_finished_game(store: Store) -> None:
    game_id = start(store)
    with pytest.raises(NothingToUndo, match="only its setup"):
        store.undo_last_action(game_id, "oops", "referee", T0_MS)
    store.append("t1", "action", CARDS[0], at_ms=T0_MS, game_id=game_id)
    store.finish_game(game_id, [], T0_MS + 1)
    with pytest.raises(NothingToUndo, match="over"):
        store.undo_last_action(game_id, "oops", "referee", T0_MS + 2)
    with pytest.raises(InvalidEntry):
        store.undo_last_action(game_id, "", "referee", T0_MS + 2)
    with pytest.raises(UnknownGame):
        store.undo_last_action("nope", "why", "referee", T0_MS)
    assert store.game_actions(game_id) == [SETUP, CARDS[0]]


def scenario_the_effective_log_replays_to_the_same_state(store: Store) -> None:
    # A whole bot game goes into the log with mistakes the referee took back on the way.
    result = play_game(random.Random(11), PLAYERS, BotPolicy(settle_s=0))
    setup, *actions = result.log
    game_id = store.start_game("t1", "riffraff", PLAYERS, setup, None, T0_MS)
    rng = random.Random(5)
    undos = 0
    for n, action in enumerate(actions):
        if rng.random() < 0.1:
            wrong = [{"type": "note_never_played", "n": n}, {"type": "end_turn", "player": "zed"}]
            for mistake in wrong[: rng.randint(1, 2)]:
                store.append("t1", "action", mistake, at_ms=T0_MS + n, game_id=game_id)
                store.undo_last_action(game_id, "misdetected", "referee", T0_MS + n)
                undos += 1
        store.append("t1", "action", action, at_ms=T0_MS + n, game_id=game_id)
        store.append("t1", "prompt", {"n": n}, at_ms=T0_MS + n, game_id=game_id)
    store.finish_game(game_id, result.winners, T0_MS + len(actions))
    assert undos > 3
    effective = store.game_actions(game_id)
    assert effective == result.log
    state = final_view(effective)
    assert state["winners"] == result.winners and state["phase"] == "over"
    assert state == final_view(result.log)


def scenario_reads_inside_reading_share_one_connection_in_their_thread(store: Store) -> None:
    # a table rebuilt from its log makes several reads: on one connection, not one apiece
    game_id = start(store)
    store.append_many(
        [{"table_id": "t1", "game_id": game_id, "kind": "input", "payload": {}, "at_ms": T0_MS}]
    )
    checkouts: list[int] = []
    listener = lambda *_args: checkouts.append(threading.get_ident())  # noqa: E731
    sa.event.listen(store._engine, "checkout", listener)  # noqa: SLF001
    try:
        with store.reading():
            running = store.games("t1", running=True)
            actions = store.game_actions(game_id)
            tokens = store.seat_tokens(game_id)
            inputs = store.entries("t1", game_id=game_id, kinds=["input"])
            elsewhere: list[int] = []  # another thread's read is its own, at once
            other = threading.Thread(target=lambda: elsewhere.append(len(store.games())))
            other.start()
            other.join()
        assert len(checkouts) == 2 and checkouts[0] != checkouts[1]
        assert [g.game_id for g in running] == [game_id] and actions[0]["type"] == "setup"
        assert sorted(tokens) == sorted(PLAYERS) and len(inputs) == 1 and elsewhere == [1]
        assert store.games("t1", running=True) == running  # and after it, one apiece again
        assert len(checkouts) == 3
    finally:
        sa.event.remove(store._engine, "checkout", listener)  # noqa: SLF001


SCENARIOS = [value for name, value in sorted(globals().items()) if name.startswith("scenario_")]
