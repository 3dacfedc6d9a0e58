"""Crash safety: a process killed with SIGKILL loses nothing that `append` had returned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from bosun.store import Store

SETUP = {"type": "setup", "game": "riffraff", "players": ["ann", "bob"], "captain": "ann"}

# The writer prints a line after each call returned: what it printed must survive the kill.
WRITER = r"""
import sys
from bosun.store import Store

store = Store.open(sys.argv[1])
game_id, first = sys.argv[2], int(sys.argv[3])
print("open", flush=True)
for n in range(first, first + 200000):
    if n % 3 == 0:
        rows = [
            {"table_id": "t1", "kind": "note", "payload": {"batch": n, "k": k}, "at_ms": n}
            for k in range(5)
        ]
        print("batch", n, *store.append_many(rows), flush=True)
    elif n % 3 == 1:
        event = {"type": "place", "zone": 3, "grams": 2.6}
        entry_id = store.append(
            "t1", "ship_event", event, at_ms=n, game_id=game_id, boot="b1", seq=n
        )
        print("event", n, entry_id, flush=True)
    else:
        action = {"type": "announce", "player": "ann", "pieces": 1, "n": n}
        entry_id = store.append("t1", "action", action, at_ms=n, game_id=game_id)
        print("action", n, entry_id, flush=True)
"""


def run_and_kill(url: str, game_id: str, first: int, lines_before_kill: int) -> list[list[str]]:
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, url, game_id, str(first)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    printed = []
    try:
        assert writer.stdout.readline().strip() == "open", writer.stderr.read()
        while len(printed) < lines_before_kill:
            line = writer.stdout.readline()
            assert line, writer.stderr.read()
            printed.append(line)
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=10)
        printed.extend(writer.stdout.readlines())  # what it printed before it died
    finally:
        if writer.poll() is None:
            writer.kill()
        writer.stdout.close()
        writer.stderr.close()
    assert writer.returncode == -signal.SIGKILL
    # a line cut by the kill was not fully printed: its call may not have returned
    return [line.split() for line in printed if line.endswith("\n")]


def test_everything_appended_before_a_sigkill_is_there_after_reopening(tmp_path):
    url = f"sqlite:///{tmp_path / 'bosun.db'}"
    with Store.open(url) as store:
        game_id = store.start_game("t1", "riffraff", ["ann", "bob"], SETUP, None, 0)
    confirmed = run_and_kill(url, game_id, 0, 150)
    # the service comes back and goes on, and dies again
    confirmed += run_and_kill(url, game_id, 100000, 150)

    with Store.open(url) as store:
        stored = {e.id: e for e in store.entries("t1")}
        for kind, n, *ids in confirmed:
            assert ids and all(int(i) in stored for i in ids), f"{kind} {n} lost"
            assert {stored[int(i)].at_ms for i in ids} == {int(n)}
        # a batch is all there or not there at all, even when the kill hit it
        batches: dict[int, int] = {}
        for entry in stored.values():
            if entry.kind == "note":
                batches[entry.payload["batch"]] = batches.get(entry.payload["batch"], 0) + 1
        assert set(batches.values()) == {5}
        # the unfinished game resumes from its actions, every confirmed one included
        assert [g.game_id for g in store.unfinished_games()] == [game_id]
        actions = store.game_actions(game_id)
        confirmed_actions = [int(n) for kind, n, *_ in confirmed if kind == "action"]
        assert actions[0] == SETUP
        assert set(confirmed_actions) <= {a["n"] for a in actions[1:]}
        assert len(confirmed_actions) >= 90
