"""Where a cluster's tables are served now: `GET /api/cluster` (bosun run --cluster only).

Each referee of a cluster serves the pages of the tables it holds. When it gives a table up
(another referee joined) or dies, a page watching that table loses its live stream; before
it reconnects it asks its referee, or any other it knew of, where the table is now, and goes
there with the same path (a seat link's token is in its path, so the seat goes with it).
The answer is what the referee's last lease poll saw (bosun.cluster.service): it is read by
pages of other referees too, so it may be read from any origin, and it holds nothing secret
(table ids and the referees' web addresses, as the pages show them anyway).
"""

from __future__ import annotations

from typing import Any, Protocol

from fastapi import APIRouter, Response
from pydantic import BaseModel, Field


class Directory(Protocol):
    """What the pages need of a cluster's referee (bosun.cluster.service.ClusterService)."""

    def cluster_map(self) -> dict[str, Any]:
        """`ClusterMap`'s fields, as the last lease poll saw the cluster."""
        ...

    def referee_urls(self) -> list[str]:
        """Every live referee's web address (its pages may ask them where a table went)."""
        ...


class ClusterMap(BaseModel):
    """The cluster as this referee saw it at its last lease poll."""

    here: str = Field(description="this referee's web address")
    referees: list[str] = Field(description="every live referee's web address")
    tables: dict[str, str | None] = Field(
        description="each table's referee's web address; null while none holds it"
    )


def create_cluster_api(directory: Directory) -> APIRouter:
    router = APIRouter()

    @router.get("/api/cluster", response_model=ClusterMap, tags=["cluster"])
    async def cluster(response: Response) -> dict[str, Any]:
        """Which referee of the cluster serves each table's pages now."""
        response.headers["Access-Control-Allow-Origin"] = "*"  # read by the other referees' pages
        return directory.cluster_map()

    return router
