"""The HTTP API: public table views, seat pages' requests, live streams (server-sent events).

A seat acts only through its own secret token; every response built for the public or for a
seat comes from `TableRuntime.snapshot`/`player_snapshot`, which never hold another seat's
card or any token. Operator calls (new game, seat links) need the service's operator key.
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sse_starlette.sse import EventSourceResponse

from bosun.games import Rejected
from bosun.referee.runtime import TableRuntime
from bosun.web.context import MAX_BODY_BYTES, ApiError, json_body
from bosun.web.streams import LiveStreams, stream

# Ship milliseconds a hand-placed piece may take to be refereed before another may follow.
PLACE_WATCH_MS = 6000.0

__all__ = ["MAX_BODY_BYTES", "ApiError", "create_api", "stream", "summary"]


def create_api(tables: dict[str, TableRuntime], operator_key: str) -> FastAPI:
    app = FastAPI(title="bosun", docs_url="/api/docs", openapi_url="/api/openapi.json")
    app.state.streams = LiveStreams()

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, err: ApiError) -> JSONResponse:
        return JSONResponse({"error": err.message}, status_code=err.status)

    def table(table_id: str) -> TableRuntime:
        runtime = tables.get(table_id)
        if runtime is None:
            raise ApiError(404, f"no table {table_id!r}")
        return runtime

    def seat(token: str) -> tuple[TableRuntime, str]:
        if len(token) > 64:
            raise ApiError(404, "unknown seat link")
        for runtime in tables.values():
            player = runtime.seat_of(token)
            if player is not None:
                return runtime, player
        raise ApiError(404, "unknown seat link: the game may have ended; ask for a new link")

    placing: dict[tuple[str, str], tuple] = {}  # (table, player) -> (game, loaded, ship ms)

    def require_operator(request: Request) -> None:
        given = request.headers.get("x-bosun-key") or request.query_params.get("key") or ""
        if not secrets.compare_digest(given.encode(), operator_key.encode()):
            raise ApiError(403, "this needs the operator key printed by `bosun run`")

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True, "tables": len(tables)}

    @app.get("/api/tables")
    async def list_tables() -> list[dict[str, Any]]:
        return [summary(runtime) for runtime in tables.values()]

    @app.get("/api/tables/{table_id}")
    async def table_view(table_id: str) -> dict[str, Any]:
        return table(table_id).snapshot()

    @app.get("/api/tables/{table_id}/stream")
    async def table_stream(table_id: str, request: Request) -> EventSourceResponse:
        runtime = table(table_id)
        return EventSourceResponse(stream(runtime, request, runtime.snapshot), ping=15)

    @app.get("/api/tables/{table_id}/seats")
    async def seat_links(table_id: str, request: Request) -> dict[str, Any]:
        require_operator(request)
        runtime = table(table_id)
        return {"game_id": runtime.game_id, "seats": dict(runtime.seats)}

    @app.post("/api/tables/{table_id}/games")
    async def new_game(table_id: str, request: Request) -> dict[str, Any]:
        require_operator(request)
        runtime = table(table_id)
        body = await json_body(request)
        players = body.get("players")
        if players is not None and not (
            isinstance(players, list) and all(isinstance(p, str) for p in players)
        ):
            raise ApiError(400, "players must be a list of names")
        options = game_options(runtime.config.game, body)
        try:
            game_id = runtime.start_game(players=players, **options)
        except (Rejected, ValueError) as why:
            raise ApiError(400, str(why)) from None
        return {"game_id": game_id, "seats": dict(runtime.seats)}

    @app.get("/api/seat/{token}")
    async def seat_view(token: str) -> dict[str, Any]:
        runtime, player = seat(token)
        return runtime.player_snapshot(player)

    @app.post("/api/seat/{token}")
    async def seat_act(token: str, request: Request) -> dict[str, Any]:
        runtime, _ = seat(token)
        body = await json_body(request)
        try:
            return runtime.player_input(token, body)
        except Rejected as why:
            raise ApiError(409, str(why)) from None

    @app.post("/api/seat/{token}/claim")
    async def seat_claim(token: str, request: Request) -> dict[str, Any]:
        """At a virtual table, a person takes the seat from its bot (or gives it back)."""
        runtime, player = seat(token)
        if runtime.virtual is None:
            raise ApiError(409, "only virtual tables have bots to take seats from")
        body = await json_body(request)
        human = body.get("human", True)
        if not isinstance(human, bool):
            raise ApiError(400, "human must be true or false")
        runtime.virtual.claim(player, human)
        runtime.notify()
        return runtime.player_snapshot(player)

    @app.post("/api/seat/{token}/virtual")
    async def seat_virtual_hands(token: str, request: Request) -> dict[str, Any]:
        """At a virtual table, a person's hands: place a piece, or let the newest one fall."""
        runtime, player = seat(token)
        if runtime.virtual is None:
            raise ApiError(409, "this table has a real ship: use your hands")
        body = await json_body(request)
        state = runtime.referee.view if runtime.referee else None
        if runtime.config.game == "montego-bay":
            try:  # the harbour: barrels put on a dock or taken off it (MB15)
                runtime.virtual.hands(
                    player, state, body.get("do"), body.get("dock"), body.get("count", 1)
                )
            except ValueError as why:
                raise ApiError(409, str(why)) from None
            return runtime.player_snapshot(player)
        try:
            if body.get("do") == "place":
                item, zone = body.get("item"), body.get("zone", state and state["target_zone"])
                if not isinstance(item, str) or not isinstance(zone, int) or not 1 <= zone <= 10:
                    raise ValueError("place needs an item and a zone 1-10")
                ship = runtime.virtual.node.ship
                watching = placing.get((runtime.config.id, player))
                loaded = state["pieces_loaded"] if state and state["turn"] == player else None
                if (
                    watching is not None
                    and loaded is not None
                    and watching[:2] == (runtime.game_id, loaded)
                    and ship.now_ms - watching[2] < PLACE_WATCH_MS
                ):  # a second tap before the first piece is refereed would load two
                    raise ValueError("the referee is still watching your last piece settle")
                runtime.virtual.place(player, item, zone)
                placing[(runtime.config.id, player)] = (runtime.game_id, loaded, ship.now_ms)
            elif body.get("do") == "tip":
                outcome = body.get("outcome", "landed")
                if outcome not in ("landed", "caught", "bounced"):
                    raise ValueError("outcome is landed, caught or bounced")
                runtime.virtual.tip(player, outcome)
            else:
                raise ValueError("do must be 'place' or 'tip'")
        except ValueError as why:
            raise ApiError(409, str(why)) from None
        return runtime.player_snapshot(player)

    @app.get("/api/seat/{token}/stream")
    async def seat_stream(token: str, request: Request) -> EventSourceResponse:
        runtime, player = seat(token)
        return EventSourceResponse(
            stream(
                runtime,
                request,
                lambda: runtime.player_snapshot(player),
                # a new game gives new seat links: this one no longer opens the seat
                valid=lambda: runtime.seat_of(token) == player,
            ),
            ping=15,
        )

    return app


MAX_SEED = 2**63  # bosun.games.montego_bay.actions.Setup's


def game_options(game: str, body: dict[str, Any]) -> dict[str, Any]:
    """A new game's options from a request body, as the table's game takes them: Riff
    Raff's captain and settle window, Montego Bay's seed. ApiError names what is wrong."""
    given = {
        name for name in ("captain", "settle_s", "own_catch", "seed") if body.get(name) is not None
    }
    if game == "montego-bay":
        if given - {"seed"}:
            wrong = ", ".join(sorted(given - {"seed"}))
            raise ApiError(400, f"Montego Bay has no {wrong}: a new game takes a seed")
        seed = body.get("seed")
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED
        ):
            raise ApiError(400, f"seed must be a whole number from 0 to {MAX_SEED}")
        return {"seed": seed}
    if "seed" in given:
        raise ApiError(400, "a Riff Raff game takes no seed, only a captain, settle_s, own_catch")
    own_catch = body.get("own_catch")
    if own_catch is not None and own_catch not in ("back", "box"):
        raise ApiError(400, 'own_catch must be "back" or "box" (RR12)')
    return {
        "captain": body.get("captain"),
        "settle_s": body.get("settle_s"),
        "own_catch": own_catch,
    }


def summary(runtime: TableRuntime) -> dict[str, Any]:
    state = runtime.referee.view if runtime.referee else None
    return {
        "id": runtime.config.id,
        "game": runtime.config.game,
        "players": runtime.config.player_names,
        "game_id": runtime.game_id,
        "phase": state["phase"] if state else None,
        "round": state["round"] if state else None,
        "ship_online": runtime.ship["online"],
    }
