"""A person's hands at a virtual table, through the seat API: one piece at a time."""

from __future__ import annotations

import pytest
from support.service import service_options, with_virtual_table

PLAYERS = ("ann", "bob", "cy")


@pytest.fixture
def demo(mosquitto, tmp_path):
    options = service_options(mosquitto.url, tmp_path, time_scale=4.0)
    # people hold every seat (no bot moves), sitting down once the detector knows the ship
    with with_virtual_table(options, seed=1, people=PLAYERS, baseline=True) as (running, _):
        yield running


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
