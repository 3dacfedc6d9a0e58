"""The HTTP API: public table views, seat pages' requests, live streams (server-sent events).

A seat acts only through its own secret token; every response built for the public or for a
seat comes from `TableView.snapshot`/`player_snapshot`, which never hold another seat's
card or any token. Operator calls (new game, seat links) need the service's operator key.
The API sees each table only through its `TableView` (bosun.referee.view).
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sse_starlette.sse import EventSourceResponse

from bosun import bosun_version
from bosun.games import Rejected
from bosun.referee.view import TableView
from bosun.web.context import MAX_BODY_BYTES, ApiError, json_body, token_shaped
from bosun.web.streams import LiveStreams, stream

__all__ = ["MAX_BODY_BYTES", "ApiError", "create_api", "stream"]


def create_api(tables: dict[str, TableView], operator_key: str) -> FastAPI:
    # The docs page is served with the vendored Swagger UI (web/app.py), never from a CDN.
    app = FastAPI(
        title="bosun",
        version=bosun_version(),
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.streams = LiveStreams()

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, err: ApiError) -> JSONResponse:
        return JSONResponse({"error": err.message}, status_code=err.status)

    def table(table_id: str) -> TableView:
        view = tables.get(table_id)
        if view is None:
            raise ApiError(404, f"no table {table_id!r}")
        return view

    def seat(token: str) -> tuple[TableView, str]:
        if not token_shaped(token):
            raise ApiError(404, "unknown seat link")
        for view in tables.values():
            player = view.seat_of(token)
            if player is not None:
                return view, player
        raise ApiError(404, "unknown seat link: the game may have ended; ask for a new link")

    def is_operator(request: Request) -> bool:
        given = request.headers.get("x-bosun-key") or request.query_params.get("key") or ""
        return secrets.compare_digest(given.encode(), operator_key.encode())

    def require_operator(request: Request) -> None:
        if not is_operator(request):
            raise ApiError(403, "this needs the operator key printed by `bosun run`")

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True, "tables": len(tables)}

    @app.get("/api/tables")
    async def list_tables() -> list[dict[str, Any]]:
        return [view.summary() for view in tables.values()]

    @app.get("/api/tables/{table_id}")
    async def table_view(table_id: str) -> dict[str, Any]:
        return table(table_id).snapshot()

    @app.get("/api/tables/{table_id}/stream")
    async def table_stream(table_id: str, request: Request) -> EventSourceResponse:
        view = table(table_id)
        grams = request.app.state.web.is_operator(request)  # players see pieces, not grams
        return EventSourceResponse(stream(view, request, lambda: view.snapshot(grams)), ping=15)

    @app.get("/api/tables/{table_id}/seats")
    async def seat_links(table_id: str, request: Request) -> dict[str, Any]:
        require_operator(request)
        view = table(table_id)
        return {"game_id": view.game_id, "seats": view.seat_tokens()}

    @app.post("/api/tables/{table_id}/games")
    async def new_game(table_id: str, request: Request) -> dict[str, Any]:
        require_operator(request)
        view = table(table_id)
        body = await json_body(request)
        players = body.pop("players", None)
        if players is not None and not (
            isinstance(players, list) and all(isinstance(p, str) for p in players)
        ):
            raise ApiError(400, "players must be a list of names")
        try:  # the game's own options (Riff Raff: captain, settle_s; Montego Bay: seed)
            game_id = view.new_game(players, body)
        except (Rejected, ValueError) as why:
            raise ApiError(400, str(why)) from None
        return {"game_id": game_id, "seats": view.seat_tokens()}

    @app.get("/api/seat/{token}")
    async def seat_view(token: str) -> dict[str, Any]:
        view, player = seat(token)
        return view.player_snapshot(player)

    @app.post("/api/tables/{table_id}/undo")
    async def operator_undo(table_id: str, request: Request) -> dict[str, Any]:
        """The operator takes back the game's last action, whoever made it (a reason needed)."""
        require_operator(request)
        view = table(table_id)
        body = await json_body(request)
        seats = view.seat_tokens()
        if not seats:
            raise ApiError(409, "there is no game at this table")
        undo = {"type": "undo", "reason": body.get("reason"), "operator": True}
        try:  # through a seat: every input of a game is a seat's, the stored flag says whose
            view.player_input(next(iter(seats.values())), undo)
        except Rejected as why:
            raise ApiError(409, str(why)) from None
        return view.snapshot()

    @app.post("/api/seat/{token}")
    async def seat_act(token: str, request: Request) -> dict[str, Any]:
        view, _ = seat(token)
        body = await json_body(request)
        body.pop("operator", None)  # only the operator key makes a request the operator's
        if body.get("type") == "undo" and is_operator(request):
            body["operator"] = True
        try:
            return view.player_input(token, body)
        except Rejected as why:
            raise ApiError(409, str(why)) from None

    @app.post("/api/seat/{token}/claim")
    async def seat_claim(token: str, request: Request) -> dict[str, Any]:
        """At a virtual table, a person takes the seat from its bot (or gives it back)."""
        view, player = seat(token)
        if view.virtual is None:
            raise ApiError(409, "only virtual tables have bots to take seats from")
        body = await json_body(request)
        human = body.get("human", True)
        if not isinstance(human, bool):
            raise ApiError(400, "human must be true or false")
        view.virtual.claim(player, human)
        view.changed()
        return view.player_snapshot(player)

    @app.post("/api/seat/{token}/virtual")
    async def seat_virtual_hands(token: str, request: Request) -> dict[str, Any]:
        """At a virtual table, a person's hands: place a piece, or let the newest one fall."""
        view, player = seat(token)
        if view.virtual is None:
            raise ApiError(409, "this table has a real ship: use your hands")
        body = await json_body(request)
        try:  # Riff Raff: a piece placed or tipped off; Montego Bay: barrels moved (MB15)
            view.virtual.act(player, view.game_id, view.state(), body)
        except ValueError as why:
            raise ApiError(409, str(why)) from None
        return view.player_snapshot(player)

    @app.get("/api/seat/{token}/stream")
    async def seat_stream(token: str, request: Request) -> EventSourceResponse:
        view, player = seat(token)
        return EventSourceResponse(
            stream(
                view,
                request,
                lambda: view.player_snapshot(player, grams=False),  # pieces, not grams
                # a new game gives new seat links: this one no longer opens the seat
                valid=lambda: view.seat_of(token) == player,
                seat=player,  # while it is open the seat is present
            ),
            ping=15,
        )

    return app
