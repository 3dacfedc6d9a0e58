"""The web app against an attacker on the café's network: malformed seat tokens, another
seat's undo, cross-site and non-JSON writes, too many live streams; and its security headers
on every kind of answer."""

from __future__ import annotations

import socket

import pytest
from support.polling import until
from support.service import RunningService, online_ship, service_options

from bosun.tables import TableConfig, default_seats
from bosun.web.guard import CONTENT_SECURITY_POLICY, MAX_STREAMS_PER_CLIENT

PLAYERS = ["ann", "bob", "cy"]


@pytest.fixture
def service(mosquitto, tmp_path):
    table = TableConfig(id="t1", players=default_seats(PLAYERS), settle_s=0)
    with RunningService(service_options(mosquitto.url, tmp_path, [table])) as running:
        yield running


@pytest.fixture
def ship(service, mosquitto):
    with online_ship(service, mosquitto) as test_ship:
        yield test_ship


# Each is no seat's token; '%C3%9C' (Ü) once made secrets.compare_digest raise: a 500.
BAD_TOKENS = [
    "%C3%9C",
    "%E2%82%AC" * 3,
    "a%00b",
    "a%20b",
    "x" * 65,
    "%F0%9F%98%80",
    "tok.en",
    "%27%3B--",
]


@pytest.mark.parametrize("token", BAD_TOKENS)
def test_a_token_of_the_wrong_shape_is_an_unknown_seat_never_a_server_error(service, token):
    for method, path in [
        ("GET", f"/seat/{token}"),
        ("GET", f"/api/seat/{token}"),
        ("GET", f"/api/seat/{token}/next"),
        ("GET", f"/api/seat/{token}/stream"),
        ("GET", f"/qr/seat/{token}.svg"),
        ("POST", f"/api/seat/{token}"),
        ("POST", f"/api/seat/{token}/claim"),
        ("POST", f"/api/seat/{token}/virtual"),
    ]:
        response = service.http.request(method, path, json={"type": "undo", "reason": "x"})
        assert response.status_code == 404, (method, path, response.status_code, response.text)
    assert service.http.get("/api/health").json()["ok"] is True


def test_only_the_player_who_acted_or_the_operator_takes_an_action_back(service, ship):
    seats = service.seats("t1")
    service.play(seats["ann"], type="card", value=9)
    # bob cannot take ann's card back, however often he asks
    for _ in range(3):
        refused = service.act(seats["bob"], type="undo", reason="I did not like it")
        assert refused.status_code == 409
        assert "only ann" in refused.json()["error"], refused.text
    # nor can he claim to be the operator in the request itself
    forged = service.act(seats["bob"], type="undo", reason="operator says", operator=True)
    assert forged.status_code == 409
    assert service.table("t1")["state"]["players"]["ann"]["chosen"] is True
    # ann can
    service.play(seats["ann"], type="undo", reason="wrong card")
    assert service.table("t1")["state"]["players"]["ann"]["chosen"] is False
    # the operator can take back anyone's, through a seat's request with the key or the table's
    service.play(seats["bob"], type="card", value=5)
    with_key = service.http.post(
        f"/api/seat/{seats['cy']}",
        json={"type": "undo", "reason": "bob asked me"},
        headers={"x-bosun-key": service.key},
    )
    assert with_key.status_code == 200, with_key.text
    service.play(seats["cy"], type="card", value=3)
    keyless = service.http.post("/api/tables/t1/undo", json={"reason": "cy misclicked"})
    assert keyless.status_code == 403
    by_operator = service.http.post(
        "/api/tables/t1/undo", json={"reason": "cy misclicked"}, params={"key": service.key}
    )
    assert by_operator.status_code == 200, by_operator.text
    players = by_operator.json()["state"]["players"]
    assert not any(players[p]["chosen"] for p in PLAYERS)
    feed = [line["text"] for line in service.table("t1")["feed"]]
    assert any(text.startswith("the operator undid card (cy misclicked)") for text in feed)
    assert any(text.startswith("ann undid card (wrong card)") for text in feed)


def test_writes_must_be_json_from_bosuns_own_origin(service, ship):
    seats = service.seats("t1")
    path = f"/api/seat/{seats['ann']}"
    card = b'{"type": "card", "value": 9}'
    own = service.service.http_url
    refusals = [
        ({"content-type": "text/plain"}, 415, "send JSON"),
        ({"content-type": "application/x-www-form-urlencoded"}, 415, "send JSON"),
        ({"content-type": "multipart/form-data; boundary=x"}, 415, "send JSON"),
        ({}, 415, "send the request body as JSON"),  # a body with no content type
        ({"content-type": "application/json", "origin": "http://evil.example"}, 403, "evil"),
        ({"content-type": "application/json", "origin": "null"}, 403, "own pages"),
        ({"content-type": "application/json", "sec-fetch-site": "cross-site"}, 403, "own pages"),
    ]
    for headers, status, why in refusals:
        response = service.http.post(path, content=card, headers=headers)
        assert response.status_code == status, (headers, response.text)
        assert why in response.json()["error"], (headers, response.text)
        assert response.headers["x-frame-options"] == "DENY"
    assert service.table("t1")["state"]["players"]["ann"]["chosen"] is False
    # the operator's writes are guarded alike
    form = service.http.post(
        "/api/tables/t1/games",
        content=b"players=eve",
        params={"key": service.key},
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 415
    # bosun's own page (same origin, JSON) and a program with no Origin are served
    page = {"content-type": "application/json; charset=utf-8", "origin": own}
    assert service.http.post(path, content=card, headers=page).status_code == 200
    bob = service.http.post(
        f"/api/seat/{seats['bob']}",
        content=b'{"type":"card","value":5}',
        headers={"content-type": "application/json"},
    )
    assert bob.status_code == 200, bob.text


def test_every_answer_carries_the_security_headers(service):
    seats = service.seats("t1")
    answers = {
        "page": service.http.get("/tables/t1"),
        "seat page": service.http.get(f"/seat/{seats['ann']}"),
        "json": service.http.get("/api/tables"),
        "not found": service.http.get("/api/tables/nope"),
        "missing page": service.http.get("/seat/nope"),
        "static": service.http.get("/static/js/common.js"),
        "docs": service.http.get("/api/docs"),
        "openapi": service.http.get("/api/openapi.json"),
        "refused": service.http.post("/api/tables/t1/games", content=b"x"),
    }
    with service.http.stream("GET", "/api/tables/t1/stream") as stream:
        answers["stream"] = stream
    for name, response in answers.items():
        headers = response.headers
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY, name
        assert headers["x-frame-options"] == "DENY", name
        assert headers["x-content-type-options"] == "nosniff", name
        assert headers["referrer-policy"] == "no-referrer", name
    policy = CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy
    assert "<script>" not in answers["docs"].text  # Swagger UI starts from a static file


def open_stream(
    port: int, path: str = "/api/tables/t1/stream", source: str = "127.0.0.1"
) -> tuple[socket.socket, int]:
    """A live stream opened as a browser does (from `source`, any loopback address); (the
    socket, left open, and its status)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "the service closed the stream before answering"
        head += chunk
    return sock, int(head.split(b" ", 2)[1])


def test_one_address_holds_a_bounded_number_of_live_streams(service):
    port = int(service.service.http_url.rsplit(":", 1)[1])
    held = []
    try:
        for _ in range(MAX_STREAMS_PER_CLIENT):
            sock, status = open_stream(port)
            held.append(sock)
            assert status == 200
        # one more, of any kind, is refused clearly, and the rest of the service answers
        for path in ("/api/tables/t1/stream", f"/api/seat/{service.seats('t1')['ann']}/stream"):
            response = service.http.get(path)
            assert response.status_code == 429, response.text
            assert "too many live streams" in response.json()["error"]
            assert response.headers["retry-after"]
        assert service.http.get("/api/tables").status_code == 200
        # another address (another phone) is not held back by this one's streams
        sock, status = open_stream(port, source="127.0.0.2")
        held.append(sock)
        assert status == 200
        # a page that goes frees its place for the next
        held.pop(0).close()  # one of 127.0.0.1's

        def reopened():
            sock, status = open_stream(port)
            if status != 200:
                sock.close()
                return None
            held.append(sock)
            return status

        until(reopened, lambda status: status == 200)
    finally:
        for sock in held:
            sock.close()


def test_a_cluster_s_pages_may_ask_its_referees_and_nothing_else():
    # bosun.web.cluster: a page asks the other referees where its table went; what the
    # leases table says of them reaches the policy only as plain origins
    from bosun.web.guard import RequestGuard

    said = [
        "http://10.0.0.7:8080",
        "http://[fd00::7]:8080",
        "http://evil; script-src *",  # would end the directive and start another
        "javascript:alert(1)",
        "https://hall-2.local:8443",
        "http://user@10.0.0.8:8080",
        "http://10.0.0.9:8080/path",
        "http://10.0.0.9:99999",
        "http://10.0.0.9\n:8080",
    ]
    policy = RequestGuard.policy(lambda: said)
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    assert directives["connect-src"] == (
        "'self' http://10.0.0.7:8080 http://[fd00::7]:8080 https://hall-2.local:8443"
    )
    assert directives["script-src"] == "'self'"
    assert policy.replace(directives["connect-src"], "'self'") == CONTENT_SECURITY_POLICY
