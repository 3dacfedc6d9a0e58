"""The pages' static assets (scripts, styles, the vendored uPlot and Swagger UI), read once
when the app is made and served from memory.

Serving a file from disk (Starlette's StaticFiles) looks it up and reads it in a worker
thread, and a worker idle for 10 s is gone: the next request starts a new thread, and
starting one waits on the event loop until the OS runs it, 200 ms and more on a busy
machine, holding every table and page meanwhile. The assets are a couple of megabytes and
never change while bosun runs, so they are read once, off the loop, with the app.
"""

from __future__ import annotations

import hashlib
import mimetypes
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, Response


class StaticAssets:
    """Every file under `folder`, by its path relative to it ('js/seat.js'), with its media
    type and an entity tag (so a browser's copy is checked, not fetched again)."""

    def __init__(self, folder: Path) -> None:
        self.files: dict[str, tuple[bytes, str, str]] = {}
        for path in sorted(folder.rglob("*")):
            if not path.is_file():
                continue
            body = path.read_bytes()
            media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            tag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
            self.files[path.relative_to(folder).as_posix()] = (body, media_type, tag)

    def response(self, path: str, if_none_match: str | None) -> Response:
        found = self.files.get(path)
        if found is None:
            return PlainTextResponse("Not Found", status_code=404)
        body, media_type, tag = found
        if if_none_match is not None and tag in if_none_match:
            return Response(status_code=304, headers={"etag": tag})
        return Response(body, media_type=media_type, headers={"etag": tag})


def serve_static(app: FastAPI, prefix: str, folder: Path) -> StaticAssets:
    """Serve the files under `folder` at `prefix`/PATH (GET and HEAD), from memory."""
    assets = StaticAssets(folder)

    async def static_file(path: str, request: Request) -> Response:
        return assets.response(path, request.headers.get("if-none-match"))

    app.add_api_route(
        f"{prefix}/{{path:path}}", static_file, methods=["GET", "HEAD"], include_in_schema=False
    )
    return assets
