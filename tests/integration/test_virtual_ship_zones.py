"""Where pieces really lie, end to end on a virtual table: the simulated ship, the firmware's
detector, the broker and the referee. A piece knocked off a yard onto a lower zone moves there
in the game (RR13); a piece that falls from a zone is named by that zone (RR13a)."""

from __future__ import annotations

import pytest
from support.service import service_options, with_virtual_table

PLAYERS = ("ann", "bob", "cy")
# the boat is knocked off this long after it came to rest (ship time), so that the shift is
# told well inside the 3 s settle window its place opened
KNOCK_AFTER_REST_MS = 800


@pytest.fixture
def demo(mosquitto, tmp_path):
    options = service_options(mosquitto.url, tmp_path, time_scale=4.0)
    with with_virtual_table(options, seed=3, people=PLAYERS, baseline=True) as (running, table):
        yield running, table


def test_rr13_a_piece_knocked_onto_a_lower_zone_moves_there_and_rr13a_falls_from_it(demo):
    service, table = demo
    seats = service.seats("demo-1")
    for player, value in zip(PLAYERS, (9, 5, 3), strict=True):
        response = service.http.post(
            f"/api/seat/{seats[player]}", json={"type": "card", "value": value}
        )
        assert response.status_code == 200, response.text
    ship = table.node.ship

    def place_and_knock_the_boat_down() -> None:
        """On the loop, where the ship's time moves: ann sets the boat on yard 9 and it is
        knocked down to yard 7 a moment after it came to rest. Both at set ship times, so
        the knock falls inside ann's settle window however busy the machine (the referee's
        clock waits for the ship's)."""
        boat = table.place("ann", "boat", 9)
        ship.shift(boat, to_zone=7, at_ms=ship.busy_until_ms + KNOCK_AFTER_REST_MS)

    service.call(place_and_knock_the_boat_down)
    snapshot = service.wait_for("demo-1", lambda s: s["state"]["ship"]["7"] == ["boat"])
    assert snapshot["state"]["ship"]["9"] == [] and snapshot["state"]["turn"] == "ann"
    assert any("moved from zone 9 to zone 7" in f["text"] for f in snapshot["feed"])
    game_id = snapshot["game_id"]
    log = service.http.get(f"/api/games/{game_id}/log.jsonl", params={"key": service.key})
    assert '{"type":"shift","item":"boat","from":9,"to":7}' in log.text
    assert '{"type":"load","player":"ann","zone":9,"item":"boat"}' in log.text
    assert '"type":"fall"' not in log.text  # RR13: it has not fallen

    # the boat now falls from zone 7: named by that zone (ann's, in her window or just after)
    def knock_it_off() -> None:  # "now" read on the loop, where the ship's time moves
        ship.fall(
            [p.id for p in ship.aboard()], "landed", at_ms=max(ship.busy_until_ms, ship.now_ms)
        )

    service.call(knock_it_off)
    snapshot = service.wait_for("demo-1", lambda s: s["state"]["ship"]["7"] == [])
    log = service.http.get(f"/api/games/{game_id}/log.jsonl", params={"key": service.key})
    assert '"fallen":[{"item":"boat","zone":7}]' in log.text
