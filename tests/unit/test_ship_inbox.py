"""The bounded queue from the MQTT thread to the loop (bus/mqtt.py ShipInbox)."""

from __future__ import annotations

import asyncio
import threading

from bosun.bus.mqtt import INBOX_BATCH, ShipInbox, ShipMessage


def test_a_full_inbox_drops_and_counts_by_table_and_the_loop_takes_the_rest_in_turns():
    loop = asyncio.new_event_loop()
    taken: list[ShipMessage] = []
    dropped: dict[str, int] = {}
    turns = []
    inbox = ShipInbox(
        loop, taken.append, lambda table, n: dropped.__setitem__(table, n), capacity=1000
    )
    original = inbox._deliver  # noqa: SLF001

    def counted() -> None:
        turns.append(len(inbox))
        original()

    inbox._deliver = counted  # noqa: SLF001
    sender = threading.Thread(
        target=lambda: [
            inbox.put(ShipMessage("t1" if i % 2 else "t2", "ship/event", b"{}"))
            for i in range(1500)
        ]
    )
    sender.start()
    sender.join()  # the loop is not running: everything beyond the capacity is dropped
    assert len(inbox) == 1000 and inbox.dropped == 500
    loop.run_until_complete(asyncio.sleep(0.05))
    loop.close()
    assert len(taken) == 1000 and inbox.delivered == 1000
    assert dropped == {"t1": 250, "t2": 250}
    assert len(turns) >= 1000 // INBOX_BATCH  # a turn at a time, pages' requests between
    assert max(turns) <= 1000


def test_a_held_inbox_keeps_what_comes_bounded_until_released_then_delivers_it_in_order():
    """The service holds its inbox while it makes its tables: a ship's retained status that
    arrives first must wait for its table, not be ignored as a stranger's."""
    loop = asyncio.new_event_loop()
    taken: list[bytes] = []
    inbox = ShipInbox(loop, lambda m: taken.append(m.payload), capacity=5, held=True)
    for i in range(7):
        inbox.put(ShipMessage("t1", "ship/status", str(i).encode()))
    loop.run_until_complete(asyncio.sleep(0.02))
    assert taken == [] and len(inbox) == 5 and inbox.dropped == 2  # bounded while held
    loop.call_soon(inbox.release)
    loop.run_until_complete(asyncio.sleep(0.02))
    assert taken == [b"0", b"1", b"2", b"3", b"4"]
    inbox.put(ShipMessage("t1", "ship/status", b"after"))  # as it arrives from now on
    loop.run_until_complete(asyncio.sleep(0.02))
    loop.close()
    assert taken[-1] == b"after" and len(taken) == 6
