"""The web application `bosun run` serves: the API, the pages and their static assets.

Everything is served from here (no CDN): the vendored uPlot and Swagger UI (the API docs at
/api/docs), the scripts, the styles; QR codes are drawn on the server. A café's network is
often offline: every page works without one.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from bosun.referee.view import TableView
from bosun.web.api import create_api
from bosun.web.calibration import CalibrationDesk, create_calibration_api
from bosun.web.context import WebContext
from bosun.web.game_steps import create_steps_api
from bosun.web.history import GameArchive, create_history_api
from bosun.web.pages import create_pages
from bosun.web.presence import create_presence_api
from bosun.web.seats import create_seats_api
from bosun.web.stats import create_stats_api

STATIC = Path(__file__).parent / "static"
SWAGGER_UI = "/static/vendor/swagger-ui"


def create_app(
    tables: dict[str, TableView],
    operator_key: str,
    store,
    tables_file: str | Path | None = None,
) -> FastAPI:
    """The whole web app over the tables' views and the service's store; `tables_file` is
    where the calibration wizard writes item weights of configured tables (None: kept in
    memory)."""
    app = create_api(tables, operator_key)
    path = Path(tables_file) if tables_file else None
    ctx = WebContext(tables, operator_key, store=store, tables_file=path)
    archive = GameArchive(ctx)
    app.state.web = ctx
    app.state.calibration = CalibrationDesk(ctx)
    app.include_router(create_seats_api(ctx))
    app.include_router(create_presence_api(ctx))
    app.include_router(create_history_api(ctx, archive))
    app.include_router(create_steps_api(archive))
    app.include_router(create_stats_api(archive))
    app.include_router(create_calibration_api(ctx, app.state.calibration))
    app.include_router(create_pages(ctx))
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/docs", include_in_schema=False)
    async def api_docs() -> HTMLResponse:
        """The JSON API, described and tried out in the vendored Swagger UI."""
        return get_swagger_ui_html(
            openapi_url=app.openapi_url,
            title="bosun: the API",
            swagger_js_url=f"{SWAGGER_UI}/swagger-ui-bundle.js",
            swagger_css_url=f"{SWAGGER_UI}/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
            swagger_ui_parameters={"validatorUrl": None},  # no call to swagger.io's validator
        )

    return app
