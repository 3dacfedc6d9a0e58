"""Every HTTP request's guard: security headers, JSON-only writes from bosun's own pages, and
a cap on each client's live streams.

It is plain ASGI middleware (no BaseHTTPMiddleware), so a live stream passes through it for
its whole life: the stream is counted when it opens and uncounted when its response ends,
however it ends.

Writes (POST, PUT, PATCH, DELETE) must be JSON: a body needs `Content-Type: application/json`
(a form post or a `text/plain` fetch is refused, and such a body from another site would
need a CORS preflight bosun never answers). A write that carries an `Origin` must come from
bosun's own origin. A write with no `Origin` is let through: browsers send one with every
POST, so its absence means a program (bosun's own bots, `curl`, the tests), and every write
needs a secret anyway (a seat token in its path, or the operator key).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Seat colours are painted through style attributes (`style="--c: #e63946"`, in templates and
# in the pages' scripts); <style> elements and every script outside /static stay refused.
# Browsers without `style-src-elem` fall back to `style-src` and still run the pages.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "style-src-elem 'self'",
        "img-src 'self' data:",  # data: for the Swagger UI stylesheet's icons
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
MAX_ORIGIN_CHARS = 300


def plain_origin(text: str) -> bool:
    """`http(s)://host[:port]` and nothing more: a cluster's referee lets its pages ask the
    other referees where their table went (bosun.web.cluster), and what the leases table says
    of them must not end the policy's directive or add a source of its own."""
    if len(text) > MAX_ORIGIN_CHARS or not (text.isascii() and text.isprintable()):
        return False
    if any(c in text for c in " ;,'\"\\"):
        return False
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port that is none
    except ValueError:
        return False
    plain = not (parts.path or parts.query or parts.fragment or parts.username)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and plain


SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",  # seat links hold tokens: never tell another site
    "cross-origin-opener-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
}
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# A page holds one stream (a table, a seat or the calibration wizard). A TV, a laptop with a
# few tabs and a phone may share an address behind a café's router; 300 streams made
# /api/tables 35 times slower, so one address gets a few tabs' worth and everyone together
# a bounded number.
MAX_STREAMS_PER_CLIENT = 16
MAX_STREAMS_TOTAL = 256
STREAM_SUFFIX = "/stream"


def is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json"


def own_origin(scope: Scope, headers: Headers) -> str:
    return f"{scope.get('scheme', 'http')}://{headers.get('host', '')}".lower()


class RequestGuard:
    """ASGI middleware: security headers on every answer, writes checked, streams counted."""

    def __init__(
        self,
        app: ASGIApp,
        per_client: int = MAX_STREAMS_PER_CLIENT,
        total: int = MAX_STREAMS_TOTAL,
        connect_origins: Callable[[], list[str]] | None = None,
    ) -> None:
        self.app = app
        self.connect_origins = connect_origins
        self.per_client = per_client
        self.total = total
        self.streams: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
                if self.connect_origins is not None:
                    headers["content-security-policy"] = self.policy(self.connect_origins)
            await send(message)

        headers = Headers(scope=scope)
        method = scope["method"]
        if method in WRITE_METHODS:
            refusal = self.check_write(scope, headers)
            if refusal is not None:
                await refuse(send_with_headers, *refusal)
                return
        if method == "GET" and scope["path"].endswith(STREAM_SUFFIX):
            await self.serve_stream(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    @staticmethod
    def policy(connect_origins: Callable[[], list[str]]) -> str:
        """The content security policy, the cluster's referees allowed in `connect-src`."""
        origins = [o for o in connect_origins() if plain_origin(o)]
        return CONTENT_SECURITY_POLICY.replace(
            "connect-src 'self'", " ".join(["connect-src 'self'", *origins])
        )

    def check_write(self, scope: Scope, headers: Headers) -> tuple[int, str] | None:
        """(status, why) when a write must be refused, else None."""
        origin = headers.get("origin")
        if origin is not None and origin.lower() != own_origin(scope, headers):
            return 403, f"writes come from bosun's own pages, not from {origin[:80]!r}"
        if origin is None and headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            return 403, "writes come from bosun's own pages, not from another site"
        content_type = headers.get("content-type")
        if content_type is None:
            has_body = headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
            if has_body:
                return 415, "send the request body as JSON (Content-Type: application/json)"
            return None  # an empty body: the same as {}
        if not is_json(content_type):
            return 415, f"send JSON (Content-Type: application/json), not {content_type[:60]!r}"
        return None

    async def serve_stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = (scope.get("client") or ("unknown", 0))[0]
        if self.streams[client] >= self.per_client:
            why = f"too many live streams from {client} (at most {self.per_client}): close a tab"
            await refuse(send, 429, why)
            return
        if sum(self.streams.values()) >= self.total:
            await refuse(send, 429, f"too many live streams (at most {self.total} in all)")
            return
        self.streams[client] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.streams[client] -= 1
            if self.streams[client] <= 0:
                del self.streams[client]


async def refuse(send: Send, status: int, why: str) -> None:
    """Answer with `{"error": why}` at once; the request's body is never read."""
    body = json.dumps({"error": why}).encode()
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if status == 429:
        headers.append((b"retry-after", b"10"))
    start: dict[str, Any] = {"type": "http.response.start", "status": status, "headers": headers}
    await send(start)
    await send({"type": "http.response.body", "body": body})
