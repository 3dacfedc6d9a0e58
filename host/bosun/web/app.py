"""The web application `bosun run` serves: the API now, the pages with the dashboard."""

from __future__ import annotations

from fastapi import FastAPI

from bosun.referee.runtime import TableRuntime
from bosun.web.api import create_api


def create_app(tables: dict[str, TableRuntime], operator_key: str) -> FastAPI:
    return create_api(tables, operator_key)
