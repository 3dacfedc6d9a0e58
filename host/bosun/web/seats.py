"""Seat links: their QR codes (SVG, made here), the operator's list, and the next game's seat.

A seat link (`/seat/<token>`) opens one seat of one game. When that game is over and the
table's next game seats the same player, the old link leads to the new seat (the same
person sits on): `follow_seat`. Nobody gets a token they did not already hold, except the
operator.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

import qrcode
import qrcode.image.svg
from fastapi import APIRouter, Request
from fastapi.responses import Response

from bosun.web.context import ApiError, WebContext, token_shaped


def seat_url(request: Request, token: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/seat/{token}"


def reachable_by_phones(request: Request) -> bool:
    """False when the page was opened on a loopback address: a QR code of it leads nowhere."""
    host = request.url.hostname or ""
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


def qr_svg(text: str) -> bytes:
    image = qrcode.make(
        text,
        image_factory=qrcode.image.svg.SvgPathFillImage,
        box_size=10,
        border=2,
        error_correction=qrcode.constants.ERROR_CORRECT_M,
    )
    return image.to_string()


def current_seat(ctx: WebContext, token: str):
    """(table view, player) of a seat token of a running game, or (None, None)."""
    if not token_shaped(token):
        return None, None
    for view in ctx.tables.values():
        player = view.seat_of(token)
        if player is not None:
            return view, player
    return None, None


async def follow_seat(ctx: WebContext, token: str) -> str | None:
    """The token of the same player's seat in the table's present game, if `token` was theirs
    in one of its recent finished games (or is still valid); else None. The store is read in
    a worker thread; the tables are looked at on the loop, where they live."""
    view, _ = current_seat(ctx, token)
    if view is not None:
        return token
    if not token_shaped(token):
        return None
    for view in list(ctx.tables.values()):
        present, seats = view.game_id, view.seat_tokens()
        if present is None:
            continue
        player = await asyncio.to_thread(view.earlier_player, token, present)
        if player is not None and player in seats:
            return seats[player]
    return None


def create_seats_api(ctx: WebContext) -> APIRouter:
    router = APIRouter()

    @router.get("/qr/seat/{token}.svg")
    async def seat_qr(token: str, request: Request) -> Response:
        view, _ = current_seat(ctx, token)
        if view is None:
            raise ApiError(404, "unknown seat link")
        return Response(
            await asyncio.to_thread(qr_svg, seat_url(request, token)),  # ~tens of ms of CPU
            media_type="image/svg+xml",
            headers={"cache-control": "no-store"},
        )

    @router.get("/api/seat/{token}/next")
    async def next_seat(token: str) -> dict[str, Any]:
        new = await follow_seat(ctx, token)
        if new is None:
            raise ApiError(
                404, "this seat link does not lead to a game any more: ask for a new one"
            )
        return {"token": new, "url": f"/seat/{new}"}

    @router.get("/api/tables/{table_id}/seat-links")
    async def seat_links(table_id: str, request: Request) -> dict[str, Any]:
        ctx.require_operator(request)
        view = ctx.table(table_id)
        humans = view.virtual.humans if view.virtual else set()
        config = view.config
        return {
            "game_id": view.game_id,
            "reachable_by_phones": reachable_by_phones(request),
            "seats": [
                {
                    "player": player,
                    "colour": config.colour_of(player)
                    if player in config.player_names
                    else "#999999",
                    "url": seat_url(request, token),
                    "path": f"/seat/{token}",
                    "qr": f"/qr/seat/{token}.svg",
                    "human": player in humans,
                }
                for player, token in view.seat_tokens().items()
            ],
        }

    return router
