"""What every part of the web app shares: the tables, the store, the operator key, errors."""

from __future__ import annotations

import json
import math
import secrets
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import Request
from starlette.requests import ClientDisconnect

from bosun.referee.view import TableView

MAX_BODY_BYTES = 16 * 1024
# A seat token is URL-safe base64 (secrets.token_urlsafe); anything else is no seat's and is
# never compared (secrets.compare_digest raises on non-ASCII text).
SEAT_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "-_")
MAX_SEAT_TOKEN = 64


def token_shaped(token: object) -> bool:
    """True if `token` could be a seat token: only such strings reach a comparison."""
    return (
        isinstance(token, str)
        and 0 < len(token) <= MAX_SEAT_TOKEN
        and SEAT_TOKEN_CHARS.issuperset(token)
    )


class ApiError(Exception):
    """A request refused with an HTTP status and a sentence for the person who sent it."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class WebContext:
    """The service as the web app sees it: its tables' views, its store (for past games),
    the operator key, where configured tables keep their calibration."""

    tables: dict[str, TableView]
    operator_key: str
    store: Any
    tables_file: Path | None = None

    def table(self, table_id: str) -> TableView:
        view = self.tables.get(table_id)
        if view is None:
            raise ApiError(404, f"no table {table_id[:40]!r}")
        return view

    def given_key(self, request: Request) -> str:
        return request.headers.get("x-bosun-key") or request.query_params.get("key") or ""

    def is_operator(self, request: Request) -> bool:
        given = self.given_key(request)
        return bool(given) and secrets.compare_digest(given.encode(), self.operator_key.encode())

    def require_operator(self, request: Request) -> None:
        if not self.is_operator(request):
            raise ApiError(403, "this needs the operator key printed by `bosun run`")


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (at most MAX_BODY_BYTES), or ApiError saying what is wrong."""
    try:
        body = await request.body()
    except ClientDisconnect:  # (a bot stopped, a page closed): nothing done, nothing logged
        raise ApiError(400, "the client went away before its request arrived") from None
    if len(body) > MAX_BODY_BYTES:
        raise ApiError(413, f"request body over {MAX_BODY_BYTES} bytes")
    try:
        value = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        raise ApiError(400, "the request body is not JSON") from None
    if not isinstance(value, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return value


def number(value: Any, name: str, low: float, high: float) -> float:
    """`value` as a finite number within [low, high], or ApiError(400) naming `name`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ApiError(400, f"{name} must be a number")
    if not low <= value <= high:
        raise ApiError(400, f"{name} must be from {low:g} to {high:g}, not {value:g}")
    return float(value)


def whole(value: Any, name: str, low: int, high: int) -> int:
    """`value` as an integer within [low, high], or ApiError(400) naming `name`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{name} must be a whole number from {low} to {high}")
    if not low <= value <= high:
        raise ApiError(400, f"{name} must be from {low} to {high}, not {value}")
    return value
