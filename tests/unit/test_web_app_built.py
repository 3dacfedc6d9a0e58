"""The web app comes to the loop built: no request makes FastAPI build a route (signatures,
parameter models) or the OpenAPI schema, CPU work that would hold the loop."""

from __future__ import annotations

import asyncio
import inspect

import httpx

from bosun.games import registry
from bosun.service import started_threads
from bosun.store.store import Store
from bosun.web.app import create_app

# one path of each of the app's routers, pages and API, and the schema
PATHS = (
    "/",
    "/games",
    "/stats",
    "/tables/no-such-table",
    "/api/tables",
    "/api/games",
    "/api/stats",
    "/api/games/no-such-game/steps",
    "/qr/seat/abcdefabcdefabcdefabcd.svg",
    "/api/tables/no-such-table/seat-links",
    "/api/tables/no-such-table/calibration",
    "/api/tables/no-such-table/ship/pairing",
    "/api/openapi.json",
)


def test_serving_builds_no_route_and_no_schema(monkeypatch, tmp_path):
    registry.kits()  # the games' modules, loaded as the service loads them, before it serves
    store = Store.open(f"sqlite:///{tmp_path / 'bosun.db'}")
    app = create_app({}, "operator-key", store=store)
    signed = []  # building a route reads its endpoint's signature
    read_signature = inspect.signature

    def signature(call, *args, **options):
        signed.append(getattr(call, "__qualname__", repr(call)))
        return read_signature(call, *args, **options)

    monkeypatch.setattr(inspect, "signature", signature)
    schemas = []
    monkeypatch.setattr("fastapi.applications.get_openapi", lambda **_: schemas.append(1))

    workers = started_threads(2, "test-web")  # as the service's: none starts on the loop

    async def ask_all() -> list[int]:
        asyncio.get_running_loop().set_default_executor(workers)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bosun") as http:
            return [(await http.get(path)).status_code for path in PATHS]

    try:
        statuses = asyncio.run(ask_all())
    finally:
        store.close()
    assert all(status < 500 for status in statuses), dict(zip(PATHS, statuses, strict=True))
    assert statuses[-1] == 200
    assert signed == [], f"routes built while serving: {signed}"
    assert schemas == [], "the OpenAPI schema was made while serving"
