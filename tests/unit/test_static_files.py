"""The pages' static assets are served from memory: the right bytes and media type, a
browser's copy checked by its entity tag, nothing outside the folder, and no worker thread
(starting one waits on the event loop: a loop hold on a busy machine)."""

from __future__ import annotations

import asyncio

import anyio.to_thread
import httpx
import pytest

from bosun.web.app import STATIC, create_app


class Client:
    """Requests to the service's whole web app (no tables), as `bosun run` serves it."""

    def __init__(self) -> None:
        self.app = create_app({}, "operator-key", store=None)

    def request(self, method: str, path: str, **options) -> httpx.Response:
        async def ask() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bosun") as http:
                return await http.request(method, path, **options)

        return asyncio.run(ask())

    def get(self, path: str, **options) -> httpx.Response:
        return self.request("GET", path, **options)

    def head(self, path: str, **options) -> httpx.Response:
        return self.request("HEAD", path, **options)


@pytest.fixture
def client():
    return Client()


def test_every_asset_is_served_as_on_disk_with_its_media_type(client):
    files = [p for p in STATIC.rglob("*") if p.is_file()]
    assert len(files) >= 10
    for path in files:
        answer = client.get(f"/static/{path.relative_to(STATIC).as_posix()}")
        assert answer.status_code == 200 and answer.content == path.read_bytes(), path
    assert client.get("/static/js/seat.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/app.css").headers["content-type"].startswith("text/css")
    assert client.get("/static/favicon.svg").headers["content-type"] == "image/svg+xml"


def test_a_browser_copy_is_checked_by_its_tag_and_head_sends_no_body(client):
    first = client.get("/static/app.css")
    tag = first.headers["etag"]
    again = client.get("/static/app.css", headers={"if-none-match": tag})
    assert again.status_code == 304 and again.content == b""
    stale = client.get("/static/app.css", headers={"if-none-match": '"old"'})
    assert stale.status_code == 200 and stale.content == first.content
    head = client.head("/static/app.css")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(first.content))


@pytest.mark.parametrize(
    "path", ["/static/nope.js", "/static/", "/static/../app.py", "/static/%2e%2e/app.py"]
)
def test_nothing_else_is_served(client, path):
    assert client.get(path).status_code == 404


def test_no_worker_thread_serves_an_asset(client, monkeypatch):
    async def refused(*_args, **_kwargs):
        raise AssertionError("a worker thread was asked for")

    monkeypatch.setattr(anyio.to_thread, "run_sync", refused)
    assert client.get("/static/vendor/uplot/uPlot.iife.min.js").status_code == 200
