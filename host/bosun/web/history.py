"""Past and running games from the store: summaries, the timeline of turns, sensor moments.

A game's effective actions are replayed through a fresh `Match`, each with the wall-clock
`at_ms` of its log entry, and through its kit's timeline, to find rounds, turns, loads and
falls. Ship time (`t_ms`, what traces are indexed by) is related to wall-clock time through
the "ship_event" entries, which carry both: a load is the `place` event that caused it, a
fall the `fall` events before it.

Secrets: the log of a running game holds cards nobody may see yet (RR4) or any more (RR7).
The replay keeps them; what leaves this module goes through the game's own secret filter
(`Game.timeline_view`, in the game's view module), and the JSONL export of a running game
needs the operator key.
"""

from __future__ import annotations

import asyncio
import math
import threading
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from bosun.games import Rejected, registry
from bosun.games.match import Match, dump_log_line
from bosun.referee.riffraff_report import REPORT_FALL
from bosun.store import GameRow, StoreError, UnknownGame, effective_actions
from bosun.web.context import ApiError, WebContext, number
from shipsense import protocol
from shipsense.protocol import TRACE_COLUMNS

INPUT_KINDS = ("ship_event", "input", "tick", "status")
LOG_KINDS = (*INPUT_KINDS, "action", "undo", "flag")
# Sensor plots: this much ship time around a placement, before and after a fall.
LOAD_BEFORE_MS, LOAD_AFTER_MS = 1500.0, 1500.0
FALL_BEFORE_MS, FALL_AFTER_MS = 1000.0, 2500.0
MAX_TRACE_SPAN_MS = 30_000.0
MAX_GAMES_LISTED = 300
MAX_GAMES_KEPT = 5000  # finished games kept replayed in memory (statistics read them all)


class _NoTimeline:
    """A game without a timeline of its own: its log replays, nothing more is kept."""

    def __init__(self) -> None:
        self.turns: list = []
        self.rounds: list[dict[str, Any]] = []
        self.falls: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []

    def record(self, at_ms: int, action: dict, entry: int | None, before: dict, after: dict):
        return None

    def finish(self, running: bool) -> None:
        return None


@dataclass
class ReplayedGame:
    """A game's effective log replayed: final view, turns, rounds' cards, falls, notes.

    `turns` and `rounds` hold every card: show them through `public_timeline` only."""

    game: str
    view: dict[str, Any] | None
    turns: list  # its kit's turns (Riff Raff: bosun.games.riffraff.timeline.Turn)
    rounds: list[dict[str, Any]]
    falls: list[dict[str, Any]]  # every fall with the zones it came from
    events: list[dict[str, Any]]  # other things worth a line: decisions, undos, flags
    actions: int
    match: Match | None = None  # the engine and its final state, secrets included


def public_timeline(
    replayed: ReplayedGame, running: bool, viewer: str | None = None
) -> dict[str, Any]:
    """The rounds' cards and the turns as `viewer` (None: anyone) may see them, by the
    game's own secret filter (RR4 and RR7 for Riff Raff, MB6 for Montego Bay)."""
    timeline = {"rounds": replayed.rounds, "turns": [turn.public() for turn in replayed.turns]}
    match = replayed.match
    if match is None or match.game is None or not (timeline["rounds"] or timeline["turns"]):
        return {"rounds": [], "turns": []}  # nothing kept (a game without a timeline)
    return match.game.timeline_view(match.state, timeline, running, viewer)


def replay_game(actions: list[tuple], running: bool = True) -> ReplayedGame:
    """Replay `(at_ms, action)` or `(at_ms, action, entry id)` (the effective log, setup first)
    through a fresh `Match`, and the game's timeline (its kit's) beside it. Every card is
    kept: `public_timeline` shows what may be seen."""
    match = Match()
    game = actions[0][1].get("game", "?") if actions else "?"
    try:
        make_timeline = registry.kit(game).timeline or _NoTimeline
    except registry.UnknownGame:
        make_timeline = _NoTimeline
    timeline = make_timeline()
    for at_ms, action, *entry_id in actions:
        entry = entry_id[0] if entry_id else None
        before = match.view()
        try:
            match.submit(action)
        except Rejected as why:  # a stored log always replays; say so if it ever does not
            line = {"at_ms": at_ms, "kind": "error", "text": f"refused on replay: {why}"}
            timeline.events.append(line)
            continue
        if before is not None:
            timeline.record(at_ms, action, entry, before, match.view())
    timeline.finish(running)
    return ReplayedGame(
        game,
        match.view(),
        timeline.turns,
        timeline.rounds,
        timeline.falls,
        timeline.events,
        len(actions),
        match,
    )


# -- reading the store -----------------------------------------------------------------------


def timed_actions(store, row: GameRow) -> tuple[list[tuple[int, dict, int]], list]:
    """The game's effective actions as (at_ms, action, entry id), and all its log entries."""
    entries = store.entries(row.table_id, game_id=row.game_id, kinds=LOG_KINDS)
    at_by_id = {e.id: e.at_ms for e in entries}
    rows = ((e.id, e.kind, e.payload) for e in entries if e.kind in ("action", "undo"))
    return [(at_by_id[i], payload, i) for i, payload in effective_actions(rows)], entries


def summarise(row: GameRow, replayed: ReplayedGame) -> dict[str, Any]:
    view = replayed.view or {}
    end_ms = row.ended_at_ms
    return {
        **row.public(),
        "winners": None if row.winners is None else list(row.winners),
        "abandoned": row.winners is not None and not row.winners,
        "length_ms": None if end_ms is None else end_ms - row.started_at_ms,
        "rounds": view.get("round"),
        "phase": view.get("phase"),
        "falls": len(replayed.falls),
        "pieces_fallen": sum(len(f["fallen"]) + len(f["caught"]) for f in replayed.falls),
        "turns": len(replayed.turns),
    }


class GameArchive:
    """Replays games from the store on demand; finished games are kept, they never change."""

    def __init__(self, ctx: WebContext) -> None:
        self.ctx = ctx
        self._finished: dict[str, tuple[ReplayedGame, list]] = {}
        self._lock = threading.Lock()  # requests replay in several worker threads at once

    def replayed(self, row: GameRow) -> tuple[ReplayedGame, list]:
        with self._lock:
            cached = self._finished.get(row.game_id)
        if cached is not None:
            return cached
        actions, entries = timed_actions(self.ctx.store, row)
        result = (replay_game(actions, running=row.running), entries)
        if not row.running:
            with self._lock:
                self._finished[row.game_id] = result
                while len(self._finished) > MAX_GAMES_KEPT:
                    self._finished.pop(next(iter(self._finished)))
        return result

    def row(self, game_id: str) -> GameRow:
        if not isinstance(game_id, str) or not 1 <= len(game_id) <= 64:
            raise ApiError(404, "no such game")
        try:
            return self.ctx.store.game(game_id)
        except UnknownGame:
            raise ApiError(404, f"no game {game_id[:64]!r}") from None

    def rows(self, table_id: str | None = None, limit: int | None = MAX_GAMES_LISTED) -> list:
        """The table's (or every) game, newest first; at most `limit` (None: all)."""
        if table_id is not None:
            try:
                protocol.check_table_id(table_id)
            except protocol.ProtocolError as why:
                raise ApiError(400, f"table: {why}") from None
        try:
            rows = self.ctx.store.games(table_id=table_id)
        except StoreError as why:
            raise ApiError(400, str(why)) from None
        return (rows if limit is None else rows[-limit:])[::-1]

    def summaries(self, table_id: str | None = None) -> list[dict[str, Any]]:
        return [summarise(row, self.replayed(row)[0]) for row in self.rows(table_id)]

    def detail(self, game_id: str) -> dict[str, Any]:
        row = self.row(game_id)
        replayed, entries = self.replayed(row)
        timeline = public_timeline(replayed, running=row.running)
        moments = sensor_moments(timeline["turns"], replayed.falls, entries)
        return {
            "game": summarise(row, replayed),
            "state": replayed.view,
            "rounds": timeline["rounds"],
            "turns": timeline["turns"],
            "falls": replayed.falls,
            "events": replayed.events + referee_lines(entries),
            "moments": moments,
        }


def referee_lines(entries: list) -> list[dict[str, Any]]:
    """Undos and flags from the log, as timeline lines (their texts hold no secrets)."""
    lines = []
    for entry in entries:
        p = entry.payload
        if entry.kind == "undo":
            action = p.get("action", {})
            text = f"{p.get('by')} undid {action.get('type')} ({p.get('reason')})"
            lines.append({"at_ms": entry.at_ms, "kind": "undo", "text": text})
        elif entry.kind == "flag" and p.get("closed"):
            text = f"{p.get('by')} answered flag {p.get('id')}: {p.get('option')}"
            lines.append({"at_ms": entry.at_ms, "kind": "answer", "text": text})
        elif entry.kind == "flag":
            lines.append({"at_ms": entry.at_ms, "kind": "flag", "text": p.get("text", "")})
    return lines


def sensor_moments(
    turns: list[dict[str, Any]], falls: list[dict[str, Any]], entries: list
) -> list[dict[str, Any]]:
    """For every load of `turns` (as `public_timeline` shows them) and every fall: the
    ship-time window of the trace that shows it.

    A load's window is centred on the `place` event it was decided from (the input stored
    just before the action); a fall's spans the `leaving`/`fall` events of its tumble. A load
    whose zone is hidden (RR7) names no zone.
    """
    ship_events = [e for e in entries if e.kind == "ship_event" and isinstance(e.payload, dict)]
    inputs = [e for e in entries if e.kind in INPUT_KINDS]
    moments: list[dict[str, Any]] = []

    def cause(entry_id: int | None):
        """The input the action at `entry_id` was decided from (stored just before it)."""
        if entry_id is None:
            return None
        earlier = [e for e in inputs if e.id < entry_id]
        return earlier[-1] if earlier else None

    def tumble(at_ms: int, entry_id: int | None) -> tuple[str, float, float] | None:
        """(boot, first t_ms, last t_ms) of the leaving/fall events before a fall action."""
        chosen = [
            e
            for e in ship_events
            if (e.id < entry_id if entry_id is not None else e.at_ms <= at_ms)
            and e.payload.get("type") in ("leaving", "fall")
        ]
        if not chosen or chosen[-1].at_ms < at_ms - 10_000:
            return None
        last = first = chosen[-1]
        for e in reversed(chosen):  # one tumble: events close together, one boot
            if e.boot != last.boot or last.at_ms - e.at_ms > 5000:
                break
            first = e
        return last.boot, float(first.payload["t_ms"]), float(last.payload["t_ms"])

    for turn in turns:
        for load in turn["loads"]:
            source = cause(load.get("entry"))
            if (
                source is None
                or source.kind != "ship_event"
                or source.payload.get("type") != "place"
            ):
                continue  # loaded on a person's word (a correction): no sensor moment of its own
            t_ms = float(source.payload["t_ms"])
            zone = load["zone"]
            on_zone = f" on zone {zone}" if zone is not None else ""
            moments.append(
                {
                    "kind": "load",
                    "at_ms": load["at_ms"],
                    "round": turn["round"],
                    "player": turn["player"],
                    "text": f"{turn['player']} loaded a {load['item']}{on_zone}",
                    "zones": [zone] if zone is not None else [],
                    "boot": source.boot,
                    "t_ms": t_ms,
                    "from_t_ms": t_ms - LOAD_BEFORE_MS,
                    "to_t_ms": t_ms + LOAD_AFTER_MS,
                }
            )
    for fall in falls:
        source = cause(fall.get("entry"))
        if source is not None and source.kind == "input" and _reported(source.payload):
            continue  # a fall people reported: no sensor felt it, nothing of it to plot
        found = tumble(fall["at_ms"], fall.get("entry"))
        if found:
            boot, first, last = found
            pieces = fall["fallen"] + fall["caught"]
            whose = "after " if fall.get("late") else ""  # RR14
            moments.append(
                {
                    "kind": "fall",
                    "at_ms": fall["at_ms"],
                    "round": fall["round"],
                    "player": fall["player"],
                    "text": f"{', '.join(pieces)} left the ship ({whose}{fall['player']}'s turn)",
                    "zones": sorted(int(z) for z in fall["zones"]),
                    "boot": boot,
                    "t_ms": first,
                    "from_t_ms": first - FALL_BEFORE_MS,
                    "to_t_ms": last + FALL_AFTER_MS,
                }
            )
    moments.sort(key=lambda m: m["at_ms"])
    for number_, moment in enumerate(moments, start=1):
        moment["id"] = number_
    return moments


def _reported(payload: Any) -> bool:
    """Whether a stored seat input is people's report of a fall (riffraff_report)."""
    request = payload.get("request") if isinstance(payload, dict) else None
    return isinstance(request, dict) and request.get("type") == REPORT_FALL


def trace_window(store, row: GameRow, boot: str, from_t_ms: float, to_t_ms: float) -> dict:
    """The raw samples of a window, column by column (ready for a plot)."""
    rows = store.trace(row.table_id, from_t_ms, to_t_ms, boot=boot)
    columns: dict[str, list] = {name: [] for name in TRACE_COLUMNS}
    for sample in rows:
        for name, value in zip(TRACE_COLUMNS, sample, strict=True):
            columns[name].append(
                None if value is None or (isinstance(value, float) and math.isnan(value)) else value
            )
    return {"boot": boot, "from_t_ms": from_t_ms, "to_t_ms": to_t_ms, "columns": columns}


def create_history_api(ctx: WebContext, archive: GameArchive) -> APIRouter:
    """The games' history. Its handlers read the store and replay games: that work runs in
    the service's worker threads (`asyncio.to_thread`), never on the event loop."""
    router = APIRouter()

    @router.get("/api/games")
    async def list_games(table: str | None = None) -> list[dict[str, Any]]:
        return await asyncio.to_thread(archive.summaries, table)

    @router.get("/api/games/{game_id}")
    async def game_detail(game_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(archive.detail, game_id)

    @router.get("/api/games/{game_id}/trace")
    async def game_trace(game_id: str, request: Request) -> dict[str, Any]:
        row = await asyncio.to_thread(archive.row, game_id)
        q = request.query_params
        boot = q.get("boot", "")
        if not 1 <= len(boot) <= protocol.MAX_BOOT_ID:
            raise ApiError(400, "boot must name the ship boot of the window (1-32 characters)")
        try:
            low = float(q.get("from_t_ms", ""))
            high = float(q.get("to_t_ms", ""))
        except ValueError:
            raise ApiError(
                400, "from_t_ms and to_t_ms must be numbers (ship milliseconds)"
            ) from None
        number(low, "from_t_ms", -1e12, 1e12)
        number(high, "to_t_ms", -1e12, 1e12)
        if not 0 < high - low <= MAX_TRACE_SPAN_MS:
            raise ApiError(
                400, f"to_t_ms must be after from_t_ms, at most {MAX_TRACE_SPAN_MS:g} ms later"
            )
        return await asyncio.to_thread(trace_window, ctx.store, row, boot, low, high)

    @router.get("/api/games/{game_id}/log.jsonl")
    async def export_log(game_id: str, request: Request) -> PlainTextResponse:
        row = await asyncio.to_thread(archive.row, game_id)
        if row.running and not ctx.is_operator(request):
            raise ApiError(
                403,
                "the game is still running and its log holds cards not yet revealed: export "
                "it when it is over (or with the operator key)",
            )
        actions = await asyncio.to_thread(ctx.store.game_actions, game_id)
        text = "".join(dump_log_line(action) + "\n" for action in actions)
        return PlainTextResponse(
            text,
            media_type="application/x-ndjson",
            headers={"content-disposition": f'attachment; filename="{game_id}.jsonl"'},
        )

    @router.get("/api/games/{game_id}/trace.csv")
    async def export_trace(game_id: str) -> PlainTextResponse:
        row = await asyncio.to_thread(archive.row, game_id)
        text = await asyncio.to_thread(ctx.store.trace_csv, row.table_id, game_id)
        return PlainTextResponse(
            text,
            media_type="text/csv",
            headers={"content-disposition": f'attachment; filename="{game_id}-trace.csv"'},
        )

    return router
