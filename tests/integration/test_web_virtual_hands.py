"""A person's hands at a virtual table, through the seat API: one piece at a time."""

from __future__ import annotations

import asyncio

import pytest
from support.service import RunningService

from bosun.demo.runner import add_virtual_tables
from bosun.service import ServiceOptions

PLAYERS = ("ann", "bob", "cy")


@pytest.fixture
def demo(mosquitto, tmp_path):
    options = ServiceOptions(
        tables=[],
        db_url=f"sqlite:///{tmp_path / 'bosun.db'}",
        mqtt_url=mosquitto.url,
        http_port=0,
        time_scale=4.0,
    )
    with RunningService(options) as running:

        async def start():
            tables = await add_virtual_tables(running.service, 1, seed=1)
            for player in PLAYERS:  # people hold every seat: no bot moves
                tables[0].claim(player, True)
            return tables

        tables = asyncio.run_coroutine_threadsafe(start(), running.loop).result(30)
        # the detector learns the empty ship's baseline first (a piece in its first half
        # second reads as weight leaving): people sit down a while after it boots
        running.wait_for("demo-1", lambda s: (s["ship"]["weights"] or {}).get("t_ms", 0) > 2000)
        yield running
        for table in tables:
            asyncio.run_coroutine_threadsafe(table.stop(), running.loop).result(10)


def test_a_second_tap_waits_until_the_first_piece_is_refereed(demo):
    seats = demo.seats("demo-1")
    for player, value in zip(PLAYERS, (9, 5, 3), strict=True):
        response = demo.http.post(
            f"/api/seat/{seats[player]}", json={"type": "card", "value": value}
        )
        assert response.status_code == 200
    hands = f"/api/seat/{seats['ann']}/virtual"
    # RR8: ann loads on zone 9; the ship has been still for a while (the hand starts now)
    first = demo.http.post(hands, json={"do": "place", "item": "boat", "zone": 9})
    assert first.status_code == 200, first.text
    again = demo.http.post(hands, json={"do": "place", "item": "rat", "zone": 9})
    assert again.status_code == 409 and "still watching" in again.json()["error"]
    state = demo.wait_for("demo-1", lambda s: s["state"]["ship"]["9"] == ["boat"])["state"]
    assert state["players"]["ann"]["items"]["boat"] == 0
    bad = demo.http.post(hands, json={"do": "place", "item": "boat", "zone": 11})
    assert bad.status_code == 409 and "zone 1-10" in bad.json()["error"]
