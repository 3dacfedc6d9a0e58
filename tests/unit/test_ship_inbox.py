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
