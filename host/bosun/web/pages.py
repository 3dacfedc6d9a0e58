"""The HTML pages: tables, a table's live view, a player's seat, games, statistics, calibration.

Pages are templates filled with public facts only; the live content comes from the JSON API
and its event streams. A page gets the operator key only when it was opened with it, and a
seat page only its own token.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from bosun.games import registry
from bosun.referee.view import RECENT_GAMES
from bosun.web.context import WebContext
from bosun.web.seats import current_seat, follow_seat, reachable_by_phones, seat_url

HERE = Path(__file__).parent
TEMPLATES = Jinja2Templates(directory=str(HERE / "templates"))


def create_pages(ctx: WebContext) -> APIRouter:
    router = APIRouter(default_response_class=HTMLResponse)

    def page(request: Request, name: str, status: int = 200, **values: Any) -> Response:
        operator = ctx.is_operator(request)
        key = ctx.operator_key if operator else None

        def link(path: str) -> str:
            return f"{path}?key={quote(key)}" if key else path

        scale = next((view.clock_scale for view in ctx.tables.values()), 1.0)
        context = {
            "operator": operator,
            "key": key,
            "bad_key": bool(ctx.given_key(request)) and not operator,
            "link": link,
            "game_titles": registry.titles(),
            "time_scale": scale,
            **values,
        }
        response = TEMPLATES.TemplateResponse(request, name, context, status_code=status)
        response.headers["cache-control"] = "no-store"
        response.headers["referrer-policy"] = "no-referrer"  # seat links stay out of logs
        return response

    def missing(request: Request, title: str, text: str) -> Response:
        return page(request, "missing.html", status=404, title=title, text=text)

    @router.get("/")
    async def home(request: Request) -> Response:
        tables = [
            {"id": view.id, "game": view.game, "virtual": view.virtual is not None}
            for view in ctx.tables.values()
        ]
        return page(request, "home.html", title="Tables", tables=tables)

    @router.get("/tables/{table_id}")
    async def table_view(table_id: str, request: Request) -> Response:
        return table_page(table_id, request, tv=False)

    @router.get("/tables/{table_id}/tv")
    async def table_tv(table_id: str, request: Request) -> Response:
        """The table view for a screen everyone at the table sees: no menus, no grams."""
        return table_page(table_id, request, tv=True)

    def table_page(table_id: str, request: Request, tv: bool) -> Response:
        view = ctx.tables.get(table_id)
        if view is None:
            return missing(request, "No such table", f"There is no table {table_id[:40]!r} here.")
        return page(
            request,
            "table.html",
            title=f"Table {table_id}",
            table_id=table_id,
            game=view.game,
            scale=view.clock_scale,
            tv=tv,
        )

    @router.get("/tables/{table_id}/seat-cards")
    async def seat_cards(table_id: str, request: Request) -> Response:
        """A printable page: each seat's QR code and name, to lay at the table (operator)."""
        view = ctx.tables.get(table_id)
        if view is None:
            return missing(request, "No such table", f"There is no table {table_id[:40]!r} here.")
        if not ctx.is_operator(request):
            return operator_only(request, "Seat cards hold the seats' links")
        seats = [
            {
                "player": player,
                "colour": view.config.colour_of(player)
                if player in view.config.player_names
                else "#999999",
                "url": seat_url(request, token),
                "qr": f"/qr/seat/{token}.svg",
            }
            for player, token in view.seat_tokens().items()
        ]
        return page(
            request,
            "seat_cards.html",
            title=f"Seat cards of {table_id}",
            table_id=table_id,
            game=view.game,
            seats=seats,
            reachable=reachable_by_phones(request),
            recent_games=RECENT_GAMES,
        )

    def operator_only(request: Request, what: str) -> Response:
        text = f"{what}: it needs the operator link printed by `bosun run`."
        return page(request, "missing.html", status=403, title="Operator only", text=text)

    @router.get("/seat/{token}")
    async def seat_page(token: str, request: Request) -> Response:
        view, player = current_seat(ctx, token)
        if view is None:
            new = await follow_seat(ctx, token)
            if new is not None:  # the same player's seat at the table's next game
                return RedirectResponse(f"/seat/{new}", status_code=303)
            return missing(
                request,
                "This seat link has ended",
                "The game this link was for is over, or the link is wrong. "
                "Ask whoever runs the table for a new link.",
            )
        return page(
            request,
            "seat.html",
            title=f"{player} at {view.id}",
            token=token,
            player=player,
            colour=view.config.colour_of(player),
            table_id=view.id,
            game=view.game,
            scale=view.clock_scale,
        )

    @router.get("/games")
    async def games_page(request: Request) -> Response:
        return page(request, "games.html", title="Games", table_ids=list(ctx.tables))

    @router.get("/games/{game_id}")
    async def game_page(game_id: str, request: Request) -> Response:
        return page(request, "game.html", title="Game", game_id=game_id[:64])

    @router.get("/stats")
    async def stats_page(request: Request) -> Response:
        return page(request, "stats.html", title="Statistics", table_ids=list(ctx.tables))

    @router.get("/tables/{table_id}/calibrate")
    async def calibrate_page(table_id: str, request: Request) -> Response:
        view = ctx.tables.get(table_id)
        if view is None:
            return missing(request, "No such table", f"There is no table {table_id[:40]!r} here.")
        if not ctx.is_operator(request):
            return operator_only(request, "Calibrating a table")
        return page(
            request,
            "calibrate.html",
            title=f"Calibrate {table_id}",
            table_id=table_id,
            virtual=view.virtual is not None,
            has_mat=view.config.table_sensor in ("mat", "both"),
            harbour=view.kit.calibration.board == "harbour",
        )

    return router
