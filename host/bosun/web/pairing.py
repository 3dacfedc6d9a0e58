"""Pairing a real table's ship from the calibration wizard, as `bosun ship add|rotate` does.

The credentials are made (or replaced) by the running service through the same code as the
command (`BrokerCredentials.add`/`rotate`, `commands.ship.ship_config`), and its broker takes
them before the answer leaves. The answer is the ship's config.json itself, as a download:
its password is in that one answer only (never stored elsewhere, logged or shown again:
`Cache-Control: no-store`); the wizard then shows the user and the masked password, as
`bosun ship list` does. A virtual table's ship pairs itself, so it has nothing here.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Protocol

from fastapi import APIRouter, Request, Response

from bosun.bus.access import lan_address
from bosun.bus.credentials import Credential
from bosun.commands.ship import broker_url, ship_config
from bosun.web.context import ApiError, WebContext, json_body

UNSPECIFIED = ("", "0.0.0.0", "::")  # a listener on every address: the ships dial the LAN's


class Pairing(Protocol):
    """What the wizard needs of the service (bosun.service.Service)."""

    credentials: Any

    def ships_listener(self) -> tuple[str, int, str | None] | None: ...

    async def pair_ship(self, table_id: str, rotate: bool) -> Credential: ...


def _paired(pairing: Pairing, table_id: str) -> Credential | None:
    return pairing.credentials.ships.get(table_id) if pairing.credentials is not None else None


async def _broker(pairing: Pairing) -> tuple[str, str | None]:
    """The URL a ship dials and the CA's path (TLS), or ApiError(409) saying why there is none."""
    listener = pairing.ships_listener()
    if listener is None:
        raise ApiError(409, "bosun uses another broker (--mqtt): pair the ship with that broker")
    host, port, ca_file = listener
    if host in UNSPECIFIED:
        host = await asyncio.to_thread(lan_address)
        if host is None:
            raise ApiError(
                409, "cannot tell this computer's LAN address: start bosun with --ships ADDR:PORT"
            )
    return broker_url(host, ca_file is not None, port), ca_file


def create_pairing_api(ctx: WebContext, pairing: Pairing | None) -> APIRouter:
    router = APIRouter(prefix="/api/tables/{table_id}/ship/pairing")

    def real_table(table_id: str, request: Request) -> Pairing:
        ctx.require_operator(request)
        view = ctx.table(table_id)
        if view.virtual is not None:
            raise ApiError(409, f"{view.id} is a virtual table: its ship pairs itself")
        if pairing is None:
            raise ApiError(409, "this service pairs no ships")
        return pairing

    @router.get("")
    async def pairing_state(table_id: str, request: Request) -> dict[str, Any]:
        """Whether the table's ship is paired: its user and masked password, never the
        password; where it dials the broker."""
        service = real_table(table_id, request)
        try:
            url, _ca = await _broker(service)
        except ApiError as why:
            return {"table": table_id, "available": False, "why": why.message, "paired": False}
        credential = _paired(service, table_id)
        return {
            "table": table_id,
            "available": True,
            "why": None,
            "paired": credential is not None,
            "user": credential.user if credential else None,
            "password": credential.masked if credential else None,
            "broker": url,
            "tls": url.startswith("mqtts:"),
        }

    @router.post(
        "",
        responses={
            200: {
                "description": "the ship's config.json, as a download (its only copy of the "
                "password)",
                "content": {"application/json": {}},
            }
        },
    )
    async def pair_ship(table_id: str, request: Request) -> Response:
        """Make the ship's credentials (`{"rotate": true}`: replace them; the old password
        stops working) and download its config.json for `make flash`."""
        service = real_table(table_id, request)
        body = await json_body(request)
        rotate = body.get("rotate", False)
        if not isinstance(rotate, bool):
            raise ApiError(400, "rotate must be true or false")
        url, ca_file = await _broker(service)
        if _paired(service, table_id) is not None and not rotate:
            raise ApiError(
                409,
                f"{table_id}'s ship is paired: rotate its credentials for a new "
                "config.json (the old password then stops working)",
            )
        try:
            credential = await service.pair_ship(table_id, rotate)
        except (RuntimeError, OSError, ValueError) as why:
            raise ApiError(503, f"the ship could not be paired: {why}") from None
        ca = await asyncio.to_thread(_read, ca_file) if ca_file else None
        base = {"version": 1, "wifi": {"ssid": "", "password": ""}}  # the WiFi: yours to add
        config = ship_config(base, table_id, url, credential, ca)
        return Response(
            json.dumps(config, indent=2) + "\n",
            media_type="application/json",
            headers={
                "cache-control": "no-store",
                "content-disposition": f'attachment; filename="{table_id}.config.json"',
            },
        )

    return router


def _read(path: str) -> str:
    with open(path) as file:
        return file.read()
