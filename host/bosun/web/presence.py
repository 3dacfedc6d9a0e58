"""The operator's hand on a table's seats: give a seat to its bot, let the bot decide now, the
decision timer. Each call needs the operator key; a seat's own link can do none of this."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from bosun.games import Rejected
from bosun.web.context import ApiError, WebContext, json_body


def create_presence_api(ctx: WebContext) -> APIRouter:
    router = APIRouter()

    def seat_of(table_id: str, player: str, request: Request):
        ctx.require_operator(request)
        view = ctx.table(table_id)
        if player not in view.seat_tokens():
            raise ApiError(404, f"no seat {player[:40]!r} at table {table_id[:40]!r}")
        return view

    @router.post("/api/tables/{table_id}/seats/{player}/bot")
    async def seat_to_bot(table_id: str, player: str, request: Request) -> dict[str, Any]:
        """(operator) The seat is played by its bot from now on; `{"bot": false}` gives a
        real table's seat back to its person."""
        view = seat_of(table_id, player, request)
        bot = (await json_body(request)).get("bot", True)
        if not isinstance(bot, bool):
            raise ApiError(400, "bot must be true or false")
        try:
            view.give_seat_to_bot(player, bot)
        except Rejected as why:
            raise ApiError(409, str(why)) from None
        return view.snapshot()

    @router.post("/api/tables/{table_id}/seats/{player}/skip")
    async def skip_decision(table_id: str, player: str, request: Request) -> dict[str, Any]:
        """(operator) The seat's bot makes the decision the table waits for, now."""
        view = seat_of(table_id, player, request)
        try:
            did = view.decide_for(player)
        except Rejected as why:
            raise ApiError(409, str(why)) from None
        return {"did": did, "table": view.snapshot()}

    @router.post("/api/tables/{table_id}/decision-timer")
    async def decision_timer(table_id: str, request: Request) -> dict[str, Any]:
        """(operator) `{"decision_s": n}`: seconds a seat may think before its bot decides
        for it (0: never)."""
        ctx.require_operator(request)
        view = ctx.table(table_id)
        seconds = (await json_body(request)).get("decision_s")
        try:
            view.set_decision_timer(seconds)
        except ValueError as why:
            raise ApiError(400, str(why)) from None
        return view.snapshot()

    return router
