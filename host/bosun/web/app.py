"""The web application `bosun run` serves: the API, the pages and their static assets.

Everything is served from here (no CDN): the vendored uPlot and Swagger UI (the API docs at
/api/docs), the scripts, the styles; QR codes are drawn on the server. A café's network is
often offline: every page works without one.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from bosun.referee.view import TableView
from bosun.web.api import create_api
from bosun.web.calibration import CalibrationDesk, create_calibration_api
from bosun.web.cluster import Directory, create_cluster_api
from bosun.web.context import WebContext
from bosun.web.game_steps import create_steps_api
from bosun.web.guard import RequestGuard
from bosun.web.history import GameArchive, create_history_api
from bosun.web.pages import create_pages
from bosun.web.pairing import Pairing, create_pairing_api
from bosun.web.presence import create_presence_api
from bosun.web.seats import create_seats_api
from bosun.web.static_files import serve_static
from bosun.web.stats import create_stats_api

STATIC = Path(__file__).parent / "static"
SWAGGER_UI = "/static/vendor/swagger-ui"
# FastAPI's own docs page starts Swagger UI from an inline script, which the pages' Content
# Security Policy refuses: this one starts it from /static/js/api-docs.js.
API_DOCS_HTML = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>bosun: the API</title>
<link rel="stylesheet" href="{SWAGGER_UI}/swagger-ui.css">
<link rel="icon" href="/static/favicon.svg">
</head>
<body>
<div id="swagger-ui" data-openapi="/api/openapi.json"></div>
<script src="{SWAGGER_UI}/swagger-ui-bundle.js"></script>
<script src="/static/js/api-docs.js"></script>
</body>
</html>
"""


def create_app(
    tables: dict[str, TableView],
    operator_key: str,
    store,
    tables_file: str | Path | None = None,
    pairing: Pairing | None = None,
    cluster: Directory | None = None,
) -> FastAPI:
    """The whole web app over the tables' views and the service's store; `tables_file` is
    where the calibration wizard writes item weights of configured tables (None: kept in
    memory); `pairing` is the service that pairs real tables' ships (None: nobody does);
    `cluster` says where a cluster's tables are served (None: one process, no cluster)."""
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
    app.include_router(create_pairing_api(ctx, pairing))
    if cluster is not None:
        app.include_router(create_cluster_api(cluster))
    app.include_router(create_pages(ctx))
    serve_static(app, "/static", STATIC)  # from memory: no worker thread a request

    @app.get("/api/docs", include_in_schema=False)
    async def api_docs() -> HTMLResponse:
        """The JSON API, described and tried out in the vendored Swagger UI."""
        return HTMLResponse(API_DOCS_HTML)

    # outermost: its headers go on every answer, also on errors and static files
    if cluster is None:
        app.add_middleware(RequestGuard)
    else:
        app.add_middleware(RequestGuard, connect_origins=cluster.referee_urls)
    build_routes(app)
    return app


def build_routes(app: FastAPI) -> None:
    """Build every route and the OpenAPI schema now, in the caller's thread (the services
    create the app in a worker thread). FastAPI builds an included router's routes (their
    signatures, their parameter models) at the router's first request, and the schema at the
    first /api/openapi.json: on the loop, 2-75 ms of CPU each, longer on a busy machine.
    Making the schema builds every route on the way."""
    app.openapi()
