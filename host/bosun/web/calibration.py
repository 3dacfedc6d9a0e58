"""The table setup and calibration wizard: tare, a known weight on each zone, each item weighed.

What the wizard measures is the game's (its kit's `calibration`): Riff Raff's ship has ten
zones and eight pieces; Montego Bay's harbour is the same load cells, one under each dock
(zones 1-4), and its only piece is the barrel.

The wizard sends the ship's own commands (`tare`, `calibrate`, `weigh`; shipsense.protocol)
and shows their results and the live readings. While it runs the table's ship events are
logged but not refereed (`TableView.set_calibrating`), and at a virtual table the bots keep
their hands off. Finishing stores the measured item weights with the table: in the tables
file for a configured table (`bosun.tables.save_table_items`), in memory for a virtual one,
and in both cases in the table's configuration and the running referee (`item_grams`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import APIRouter, Request
from sse_starlette.sse import EventSourceResponse

from bosun.games.registry import Calibration
from bosun.referee.view import TableView
from bosun.tables import MAX_ITEM_G, TableConfigError, save_table_items
from bosun.web.api import stream
from bosun.web.context import ApiError, WebContext, json_body, number, whole
from shipsense import protocol

log = logging.getLogger(__name__)

COMMAND_TIMEOUT_S = 10.0  # real seconds for the ship to answer a measuring command
MAX_KNOWN_G = 5000.0
MAX_PIECES_WEIGHED = 4
MIN_ITEM_G = 0.2  # and at most tables.MAX_ITEM_G, which bosun.toml accepts back


class CalibrationSession:
    """One table's wizard: what has been measured, what the ship is measuring now."""

    def __init__(self, ctx: WebContext, table: TableView) -> None:
        self.ctx = ctx
        self.table = table
        self.active = False
        self.tared: dict[str, Any] | None = None
        self.calibrated: dict[str, dict[str, Any]] = {}  # zone -> its known weight result
        self.items: dict[str, float] = {}
        self.pending: dict[str, Any] | None = None
        self.message: dict[str, str] | None = None
        self.saved: dict[str, Any] | None = None
        self.answers = 0  # measuring commands the ship has answered (or that timed out)
        self._held_humans: set[str] | None = None
        self._timeout: asyncio.TimerHandle | None = None

    @property
    def has_mat(self) -> bool:
        return self.table.config.table_sensor in ("mat", "both")

    @property
    def plan(self) -> Calibration:
        """What this table's game measures: its load cells and its pieces."""
        return self.table.kit.calibration

    @property
    def zones(self) -> tuple[int, ...]:
        """The zones with load cells the game uses (a harbour's docks, or the ship's ten)."""
        return self.plan.zones

    @property
    def items_to_weigh(self) -> tuple[str, ...]:
        return self.plan.items

    def table_items(self) -> dict[str, float]:
        """The piece weights the referee uses now."""
        return self.table.item_grams()

    def public(self) -> dict[str, Any]:
        virtual = self.table.virtual
        state = self.table.state()
        return {
            "table": self.table.id,
            "game": self.table.game,
            "active": self.active,
            "virtual": virtual is not None,
            "has_mat": self.has_mat,
            "zones_to_calibrate": [str(z) for z in self.zones] + (["mat"] if self.has_mat else []),
            "items_to_weigh": list(self.items_to_weigh),
            "tared": self.tared,
            "zones": self.calibrated,
            "items": self.items,
            "table_items": self.table_items(),
            "pending": self.pending,
            "answers": self.answers,
            "message": self.message,
            "saved": self.saved,
            "hands": virtual.wizard_loads() if virtual is not None else None,
            "game_running": bool(state and state["phase"] != "over"),
            "ship": {
                "online": self.table.ship_online,
                "weights": self.table.ship_weights,
            },
        }

    # -- the wizard's steps ------------------------------------------------------------------

    def start(self) -> None:
        table = self.table
        if self.active:
            return
        self.active = True
        self.tared, self.calibrated, self.items, self.saved = None, {}, {}, None
        self.message = {"level": "info", "text": "calibrating: the referee ignores the ship"}
        virtual = table.virtual
        if virtual is not None:  # the bots keep their hands off the ship meanwhile
            self._held_humans = virtual.humans
            for name in table.config.player_names:
                virtual.claim(name, True)
        table.watch(self._on_change)
        table.set_calibrating(True)

    def _require_active(self) -> None:
        if not self.active:
            raise ApiError(409, "start the calibration first")

    def _send(self, command: dict[str, Any], label: str) -> dict[str, Any]:
        self._require_active()
        if not self.table.ship_online:
            raise ApiError(409, "the ship is offline: it cannot measure")
        if self.pending is not None:
            raise ApiError(409, f"the ship is still measuring ({self.pending['label']}); wait")
        try:
            command_id = self.table.send_command(command)
        except protocol.CommandError as why:
            raise ApiError(400, str(why)) from None
        self.pending = {"id": command_id, "cmd": command["cmd"], "label": label, **command}
        self.message = {"level": "info", "text": f"measuring: {label} ..."}
        loop = asyncio.get_running_loop()
        self._timeout = loop.call_later(COMMAND_TIMEOUT_S, self._timed_out, command_id)
        self.table.changed()
        return self.public()

    def tare(self) -> dict[str, Any]:
        return self._send({"cmd": "tare"}, "taring the empty ship")

    def calibrate_zone(self, zone: int | str, grams: float) -> dict[str, Any]:
        where = "the mat" if zone == "mat" else f"zone {zone}"
        return self._send(
            {"cmd": "calibrate", "zone": zone, "grams": grams}, f"{grams:g} g on {where}"
        )

    def weigh_item(self, item: str, zone: int, count: int) -> dict[str, Any]:
        pieces = f"{count} {item} pieces" if count > 1 else f"a {item}"
        command = {"cmd": "weigh", "item": item, "zone": zone}
        if count > 1:
            command["count"] = count
        return self._send(command, f"weighing {pieces} on zone {zone}")

    def _on_change(self) -> None:
        pending = self.pending
        if pending is None:
            return
        result = self.table.result(pending["id"])
        if result is None:
            return
        self.pending = None
        self.answers += 1
        if self._timeout is not None:
            self._timeout.cancel()
            self._timeout = None
        if not result["ok"]:
            self.message = {"level": "error", "text": f"the ship refused: {result.get('error')}"}
            return
        if pending["cmd"] == "tare":
            self.tared = {"at_ms": self.table.now_ms(), "counts": result.get("tare")}
            self.message = {"level": "ok", "text": "tared: every zone reads 0 g when empty"}
        elif pending["cmd"] == "calibrate":
            zone = str(pending["zone"])
            self.calibrated[zone] = {
                "grams": pending["grams"],
                "counts_per_g": result.get("counts_per_g"),
                "shares": shares_of(result.get("shares")),
                "at_ms": self.table.now_ms(),
            }
            where = "the mat" if zone == "mat" else f"zone {zone}"
            self.message = {"level": "ok", "text": f"{where} calibrated"}
        elif pending["cmd"] == "weigh":
            grams = result.get("grams")
            if type(grams) not in (int, float) or not MIN_ITEM_G <= grams <= MAX_ITEM_G:
                self.message = {"level": "error", "text": f"the ship weighed {grams!r}: not kept"}
                return
            self.items[pending["item"]] = round(float(grams), 2)
            self.message = {"level": "ok", "text": f"{pending['item']}: {grams:.2f} g"}

    def _timed_out(self, command_id: str) -> None:
        if self.pending is not None and self.pending["id"] == command_id:
            self.pending = None
            self.answers += 1
            self.message = {
                "level": "error",
                "text": f"the ship did not answer within {COMMAND_TIMEOUT_S:g} s: is it online?",
            }
            self.table.changed()

    # -- the virtual ship's hands --------------------------------------------------------------

    def hands(self, body: dict[str, Any]) -> dict[str, Any]:
        self._require_active()
        virtual = self.table.virtual
        if virtual is None:
            raise ApiError(409, "this table has a real ship: use your hands")
        do = body.get("do")
        try:
            if do == "clear":
                virtual.clear_ship()
            elif do == "weight":
                virtual.put_weight(
                    zone_of(body.get("zone"), self.plan),
                    number(body.get("grams"), "grams", 1, MAX_KNOWN_G),
                )
            elif do == "piece":
                item = item_of(body.get("item"), self.plan)
                count = whole(body.get("count", 1), "count", 1, MAX_PIECES_WEIGHED)
                virtual.put_piece(zone_of(body.get("zone"), self.plan, mat=False), item, count)
            elif do == "take":
                virtual.take_off(zone_of(body.get("zone"), self.plan))
            else:
                raise ApiError(400, "do must be 'clear', 'weight', 'piece' or 'take'")
        except ValueError as why:
            raise ApiError(409, str(why)) from None
        self.table.changed()
        return self.public()

    # -- the end -------------------------------------------------------------------------------

    def finish(self, save: bool, new_game: bool) -> dict[str, Any]:
        self._require_active()
        if self.pending is not None:
            raise ApiError(409, "the ship is still measuring; wait for it")
        if save and self.items:
            self.saved = self._store_items(dict(self.items))
        self._end()
        if new_game:
            self.table.start_game()
        return self.public()

    def cancel(self) -> dict[str, Any]:
        self._require_active()
        self.message = {"level": "info", "text": "calibration cancelled: nothing was stored"}
        self._end()
        return self.public()

    def _end(self) -> None:
        table = self.table
        self.active = False
        self.pending = None
        if self._timeout is not None:
            self._timeout.cancel()
            self._timeout = None
        table.unwatch(self._on_change)
        if table.virtual is not None and self._held_humans is not None:
            for name in table.config.player_names:
                table.virtual.claim(name, name in self._held_humans)
        self._held_humans = None
        table.set_calibrating(False)

    def _store_items(self, measured: dict[str, float]) -> dict[str, Any]:
        """Item weights into the table's configuration, the referee and (if any) the file."""
        table = self.table
        merged = table.use_item_grams(measured)
        where, problem = "this service's memory (a virtual table)", None
        path = self.ctx.tables_file
        if not table.config.demo:
            if path is None:
                where = "this service's memory: it was started without a tables file"
            else:
                try:
                    save_table_items(path, table.id, merged)
                    where = f"the tables file {path}"
                except (TableConfigError, OSError) as why:
                    problem = f"could not write {path}: {why}"
                    log.warning("table %s: %s", table.id, problem)
        text = f"item weights stored in {where}; the referee uses them now"
        self.message = {"level": "error" if problem else "ok", "text": problem or text}
        return {"items": merged, "where": where, "problem": problem}


def shares_of(value: Any) -> dict[str, float]:
    """The ship's {zone: share} of a calibration weight that other zones read (crosstalk):
    only zone names and shares under 1 are kept."""
    if not isinstance(value, dict):
        return {}
    return {
        str(zone): round(float(share), 3)
        for zone, share in value.items()
        if isinstance(zone, str)
        and zone.isdigit()
        and type(share) in (int, float)
        and abs(share) < 1.0
    }


def zone_of(value: Any, plan: Calibration, mat: bool = True) -> int | str:
    """A zone of `plan`'s load cells (or the mat), or ApiError naming what is wrong."""
    if mat and value == "mat":
        return "mat"
    name = "zone" if plan.zone_word == "zone" else f"zone (a {plan.zone_word} of the {plan.board})"
    zone = whole(value, name, min(plan.zones), max(plan.zones))
    if zone not in plan.zones:
        raise ApiError(400, f"{name} must be one of {', '.join(map(str, plan.zones))}")
    return zone


def item_of(value: Any, plan: Calibration) -> str:
    if value not in plan.items:
        raise ApiError(400, f"item must be one of {', '.join(plan.items)} ({plan.rule})")
    return value


class CalibrationDesk:
    """The wizard sessions of all tables (one each, made when first asked for)."""

    def __init__(self, ctx: WebContext) -> None:
        self.ctx = ctx
        self.sessions: dict[str, CalibrationSession] = {}

    def session(self, table_id: str) -> CalibrationSession:
        table = self.ctx.table(table_id)
        session = self.sessions.get(table_id)
        if session is None or session.table is not table:
            session = self.sessions[table_id] = CalibrationSession(self.ctx, table)
        return session


def create_calibration_api(ctx: WebContext, desk: CalibrationDesk) -> APIRouter:
    router = APIRouter(prefix="/api/tables/{table_id}/calibration")

    def session(table_id: str, request: Request) -> CalibrationSession:
        ctx.require_operator(request)
        return desk.session(table_id)

    @router.get("")
    async def calibration_state(table_id: str, request: Request) -> dict[str, Any]:
        return session(table_id, request).public()

    @router.get("/stream")
    async def calibration_stream(table_id: str, request: Request) -> EventSourceResponse:
        wizard = session(table_id, request)
        return EventSourceResponse(stream(wizard.table, request, wizard.public), ping=15)

    @router.post("/start")
    async def calibration_start(table_id: str, request: Request) -> dict[str, Any]:
        wizard = session(table_id, request)
        wizard.start()
        return wizard.public()

    @router.post("/tare")
    async def calibration_tare(table_id: str, request: Request) -> dict[str, Any]:
        wizard = session(table_id, request)
        await json_body(request)
        return wizard.tare()

    @router.post("/zone")
    async def calibration_zone(table_id: str, request: Request) -> dict[str, Any]:
        wizard = session(table_id, request)
        body = await json_body(request)
        zone = zone_of(body.get("zone"), wizard.plan, mat=wizard.has_mat)
        grams = number(body.get("grams"), "grams (the known weight)", 1, MAX_KNOWN_G)
        return wizard.calibrate_zone(zone, grams)

    @router.post("/item")
    async def calibration_item(table_id: str, request: Request) -> dict[str, Any]:
        wizard = session(table_id, request)
        body = await json_body(request)
        item = item_of(body.get("item"), wizard.plan)
        zone = zone_of(body.get("zone", 1), wizard.plan, mat=False)
        count = whole(body.get("count", 1), "count", 1, MAX_PIECES_WEIGHED)
        return wizard.weigh_item(item, zone, count)

    @router.post("/hands")
    async def calibration_hands(table_id: str, request: Request) -> dict[str, Any]:
        wizard = session(table_id, request)
        return wizard.hands(await json_body(request))

    @router.post("/finish")
    async def calibration_finish(table_id: str, request: Request) -> dict[str, Any]:
        wizard = session(table_id, request)
        body = await json_body(request)
        save, new_game = body.get("save", True), body.get("new_game", False)
        if not isinstance(save, bool) or not isinstance(new_game, bool):
            raise ApiError(400, "save and new_game must be true or false")
        return wizard.finish(save, new_game)

    @router.post("/cancel")
    async def calibration_cancel(table_id: str, request: Request) -> dict[str, Any]:
        return session(table_id, request).cancel()

    return router
