"""Anything a ship (or anyone on the broker) sends goes through the real link, table and
store without an exception, stores nothing it should not, and the service answers on.

Messages are handed to the running service's router on its loop, exactly as its MQTT inbox
hands them on (the inbox and the broker are proven by test_ship_flood.py). The clock runs
at 1000x so that the per-table rates admit the thousands of cases (each case is a second of
ship time apart at most a few ms of real time); the rates themselves are test_ship_flood's.
"""

from __future__ import annotations

import json
import logging
import math
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.service import RunningService, service_options

from bosun.bus.mqtt import ShipMessage
from bosun.tables import TableConfig, default_seats
from shipsense import protocol, ship_messages

TABLE = "t1"
FUZZ_CASES = 2000
RESPONSE_LIMIT_S = 1.0  # a busy 2-core machine; the flood test holds the real target
SNAPSHOT_LIMIT_BYTES = 64 * 1024

BOOTS = st.one_of(
    st.sampled_from(["b1", "b2"]),
    st.text(alphabet="0123456789abcdef", min_size=0, max_size=70),  # 33-64 included
    st.integers(),
    st.none(),
)
SEQS = st.one_of(
    st.integers(min_value=-2, max_value=3000),
    st.sampled_from([0, 2**53 - 1, 2**53, 2**53 + 1, 2**64]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=4),
    st.none(),
)
NUMBERS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1.0e11, 1e300, -1e300]),
)
# Values JSON cannot say but a careless (or hostile) sender writes anyway: patched in as text.
BAD_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"]
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=20)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=12,
)


@st.composite
def events(draw):
    kind = draw(st.sampled_from(["place", "fall", "shift", "land", "leaving", "touch", "x" * 40]))
    message = {
        "type": kind,
        "t_ms": draw(st.one_of(NUMBERS, JSON_VALUES)),
        "boot": draw(BOOTS),
        "seq": draw(SEQS),
    }
    for name in draw(st.sets(st.sampled_from(["zone", "grams", "zones", "from", "to", "item"]))):
        message[name] = draw(st.one_of(st.integers(-1, 12), NUMBERS, JSON_VALUES))
    if draw(st.booleans()):
        message["pieces"] = draw(
            st.lists(
                st.fixed_dictionaries(
                    {"zone": st.integers(0, 11), "grams": NUMBERS}, optional={"item": BOOTS}
                ),
                max_size=10,
            )
        )
    return message


@st.composite
def statuses(draw):
    message = {"online": draw(st.one_of(st.booleans(), JSON_VALUES)), "boot": draw(BOOTS)}
    if draw(st.booleans()):
        message["seq"] = draw(SEQS)
    for name in draw(st.sets(st.sampled_from(["fw", "problems", "config", "loop", "junk"]))):
        message[name] = draw(JSON_VALUES)
    return message


@st.composite
def weights(draw):
    return {
        "boot": draw(BOOTS),
        "t_ms": draw(NUMBERS),
        "zones_g": draw(st.one_of(st.lists(NUMBERS, max_size=20), JSON_VALUES)),
        "table_g": draw(st.one_of(st.none(), NUMBERS, JSON_VALUES)),
        "faults": draw(st.one_of(st.lists(st.integers(-1, 20), max_size=20), JSON_VALUES)),
    }


@st.composite
def results(draw):
    return {
        "id": draw(st.one_of(st.text(max_size=70), st.integers(), st.none(), JSON_VALUES)),
        "cmd": draw(st.one_of(st.sampled_from(["resend", "tare", "led"]), JSON_VALUES)),
        "ok": draw(st.one_of(st.booleans(), JSON_VALUES)),
        "error": draw(st.one_of(st.none(), st.text(max_size=30))),
        "boot": draw(BOOTS),
        "missing": draw(
            st.one_of(st.lists(st.lists(SEQS, min_size=2, max_size=2), max_size=5), JSON_VALUES)
        ),
    }


@st.composite
def payloads(draw):
    """(topic name, payload bytes): a message of a ship's kind, maybe spoilt on the wire."""
    name, message = draw(
        st.one_of(
            st.tuples(st.just(protocol.EVENT), events()),
            st.tuples(st.just(protocol.STATUS), statuses()),
            st.tuples(st.just(protocol.WEIGHTS), weights()),
            st.tuples(st.just(protocol.RESULT), results()),
            st.tuples(st.just(protocol.TRACE), st.fixed_dictionaries({"boot": BOOTS})),
            st.tuples(st.sampled_from(["ship/cmd", "ship/evil", "game/state"]), JSON_VALUES),
        )
    )
    text = json.dumps(message)
    spoil = draw(st.sampled_from(["none", "none", "number", "cut", "bytes", "huge", "deep"]))
    if spoil == "number" and isinstance(message, dict) and message:
        field = draw(st.sampled_from(sorted(message)))
        text = json.dumps({**message, field: "@@"}).replace(
            '"@@"', draw(st.sampled_from(BAD_NUMBERS))
        )
    elif spoil == "cut":
        text = text[: draw(st.integers(0, max(0, len(text) - 1)))]
    elif spoil == "bytes":
        return name, draw(st.binary(max_size=64))
    elif spoil == "huge":  # a 60 KB status or event
        text = json.dumps({**(message if isinstance(message, dict) else {}), "pad": "x" * 60_000})
    elif spoil == "deep":
        text = "[" * 30_000 + "]" * 30_000
    return name, text.encode()


def named_cases() -> list[tuple[str, bytes]]:
    """The cases issue 14 saw go wrong, each for sure (hypothesis adds thousands more)."""

    def event(**fields):
        base = {"type": "touch", "t_ms": 5.0, "boot": "b1", "seq": 1}
        return (protocol.EVENT, json.dumps({**base, **fields}).encode())

    status = {"online": True, "boot": "b1", "fw": "fuzz", "seq": 0}
    return [
        (protocol.STATUS, json.dumps(status).encode()),  # b1's birth: its events count
        event(seq=0),
        event(seq=2**53),
        event(seq=2**53, boot="c" * 40),
        event(boot="d" * 33),
        event(boot="e" * 64),
        event(t_ms=True),
        event(seq="7"),
        (protocol.EVENT, b'{"type":"touch","t_ms":1e999,"boot":"b1","seq":2}'),
        (protocol.EVENT, b'{"type":"touch","t_ms":NaN,"boot":"b1","seq":2}'),
        (protocol.WEIGHTS, b'{"boot":"b1","t_ms":1,"zones_g":[1e999],"table_g":null}'),
        (protocol.WEIGHTS, b'{"boot":"b1","t_ms":1,"zones_g":[NaN],"table_g":null}'),
        (protocol.STATUS, json.dumps({**status, "problems": ["x" * 60_000]}).encode()),
        (protocol.STATUS, json.dumps({**status, "seq": 2**53, "boot": "b1"}).encode()),
        event(seq=2**53 - 5),
        (protocol.STATUS, json.dumps({"online": False, "boot": "b1"}).encode()),
        (protocol.STATUS, json.dumps(status).encode()),
    ]


def stored_events(service: RunningService) -> list:
    store = service.service.store
    return [e for e in store.entries(TABLE) if e.kind == "ship_event"]


@pytest.mark.timeout(600)
def test_no_ship_message_breaks_the_link_or_stores_what_it_should_not(mosquitto, tmp_path, caplog):
    table = TableConfig(id=TABLE, players=default_seats(["ann", "bob", "cy"]), settle_s=0)
    options = service_options(mosquitto.url, tmp_path, [table], time_scale=1000)
    caplog.set_level(logging.WARNING)
    sent: list[tuple[str, bytes]] = []
    slowest_s = [0.0]
    with RunningService(options) as service:
        router = service.service._route  # noqa: SLF001 - where the MQTT inbox hands on

        def deliver(name: str, payload: bytes) -> None:
            sent.append((name, payload))
            service.call(lambda: router(ShipMessage(TABLE, name, payload)))
            if len(sent) % 250 == 0:
                started = time.monotonic()
                assert service.http.get("/api/tables").status_code == 200
                slowest_s[0] = max(slowest_s[0], time.monotonic() - started)

        for name, payload in named_cases():
            deliver(name, payload)

        @settings(
            max_examples=FUZZ_CASES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(payloads())
        def case(message):
            deliver(*message)

        case()
        snapshot = service.table(TABLE)
        stored = service.call(lambda: stored_events(service))
        feed = " ".join(line.get("text", "") for line in snapshot["feed"])
        health = snapshot["ship"]["health"]

    assert len(sent) >= FUZZ_CASES
    # no exception anywhere: not in the router, the link, the referee, the store
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures == [], [r.getMessage()[:300] for r in failures[:5]]
    assert "the referee failed" not in feed
    # what reaches the pages is plain JSON a browser parses, of bounded size
    text = json.dumps(snapshot, allow_nan=False)
    assert len(text) < SNAPSHOT_LIMIT_BYTES
    assert health["refused"] > len(sent) / 3  # most cases are broken on purpose
    # nothing stored that should not be: each stored event is a well-formed one that was
    # sent, of a boot a valid status announced, once, within the window
    announced = {
        message["boot"]
        for name, payload in sent
        if name == protocol.STATUS
        for message in [_decoded(payload)]
        if message is not None and message.get("online") is True and _valid_status(message)
    }
    sent_events = [_decoded(p) for n, p in sent if n == protocol.EVENT]
    keys = [(e.boot, e.seq) for e in stored]
    assert len(keys) == len(set(keys))
    for entry in stored:
        assert ship_messages.check_event(dict(entry.payload)) is not None
        assert entry.boot in announced
        assert entry.payload in sent_events
        assert all(math.isfinite(v) for v in _numbers(entry.payload))
    # and the service answers promptly after it all
    assert slowest_s[0] < RESPONSE_LIMIT_S


def _decoded(payload: bytes):
    try:
        return protocol.decode(payload, "message", protocol.MAX_PAYLOAD_BYTES)
    except protocol.ProtocolError:
        return None


def _valid_status(message) -> bool:
    try:
        ship_messages.check_status(message)
    except protocol.ProtocolError:
        return False
    return isinstance(message.get("boot"), str)


def _numbers(value):
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int | float):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
