"""A request's JSON body (host/bosun/web/context.py json_body): what a client sent, checked;
a client that went away mid-request is a clear error, not an exception in the server's log
(Ctrl-C of `bosun run --demo` stops the bots while a request of theirs is being read)."""

from __future__ import annotations

import asyncio

import pytest
from starlette.requests import Request

from bosun.web.context import ApiError, json_body


def request_from(*messages: dict) -> Request:
    queue = list(messages)

    async def receive() -> dict:
        return queue.pop(0)

    scope = {"type": "http", "method": "POST", "path": "/api/seat/x", "headers": []}
    return Request(scope, receive)


def test_a_json_object_is_read():
    body = request_from({"type": "http.request", "body": b'{"type": "card"}', "more_body": False})
    assert asyncio.run(json_body(body)) == {"type": "card"}


def test_a_client_gone_before_its_body_arrived_is_a_400_naming_it():
    gone = request_from(
        {"type": "http.request", "body": b'{"ty', "more_body": True}, {"type": "http.disconnect"}
    )
    with pytest.raises(ApiError) as error:
        asyncio.run(json_body(gone))
    assert error.value.status == 400 and "went away" in error.value.message
