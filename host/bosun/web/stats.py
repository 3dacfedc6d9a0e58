"""Statistics over finished games: falls by zone and by item, win rates, turn times."""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from statistics import mean, median
from typing import Any

from fastapi import APIRouter

from bosun.games.riffraff import ITEMS, ZONES
from bosun.web.history import GameArchive, ReplayedGame


def compute_stats(games: list[tuple[list[str], list[str] | None, ReplayedGame]]) -> dict[str, Any]:
    """Stats of Riff Raff games given as (players in seat order, winners or None, replayed).

    Falls count every game, running ones too; win rates count only games that ended with a
    winner (abandoned games have none); turn times count turns that ended.
    """
    zone_pieces: Counter[int] = Counter()
    zone_falls: Counter[int] = Counter()
    item_fallen: Counter[str] = Counter()
    item_caught: Counter[str] = Counter()
    seat_games: Counter[int] = Counter()
    seat_wins: Counter[int] = Counter()
    player_games: Counter[str] = Counter()
    player_wins: Counter[str] = Counter()
    turn_ms: dict[str, list[int]] = defaultdict(list)
    finished = 0
    for players, winners, replayed in games:
        for fall in replayed.falls:
            for zone, items in fall["zones"].items():
                zone_pieces[int(zone)] += len(items)
                zone_falls[int(zone)] += 1
            item_fallen.update(fall["fallen"])
            item_caught.update(fall["caught"])
        for turn in replayed.turns:
            if turn.end_ms is not None:
                turn_ms[turn.player].append(turn.end_ms - turn.start_ms)
        if winners:  # a finished game with winners (RR15/RR16)
            finished += 1
            for seat, player in enumerate(players, start=1):
                seat_games[seat] += 1
                player_games[player] += 1
                if player in winners:
                    seat_wins[seat] += 1
                    player_wins[player] += 1
    all_turns = [ms for times in turn_ms.values() for ms in times]

    def rate(wins: int, played: int) -> float | None:
        return None if not played else round(wins / played, 3)

    return {
        "games": len(games),
        "finished": finished,
        "falls": sum(len(r.falls) for _, _, r in games),
        "falls_by_zone": [
            {"zone": z, "falls": zone_falls[z], "pieces": zone_pieces[z]} for z in ZONES
        ],
        "falls_by_item": [
            {
                "item": item,
                "fallen": item_fallen[item],
                "caught": item_caught[item],
                "total": item_fallen[item] + item_caught[item],
            }
            for item in ITEMS
        ],
        "wins_by_seat": [
            {
                "seat": seat,
                "games": seat_games[seat],
                "wins": seat_wins[seat],
                "rate": rate(seat_wins[seat], seat_games[seat]),
            }
            for seat in sorted(seat_games)
        ],
        "wins_by_player": sorted(
            (
                {
                    "player": player,
                    "games": player_games[player],
                    "wins": player_wins[player],
                    "rate": rate(player_wins[player], player_games[player]),
                }
                for player in player_games
            ),
            key=lambda row: (-(row["rate"] or 0), -row["games"], row["player"]),
        ),
        "turn_time": {
            "turns": len(all_turns),
            "mean_ms": round(mean(all_turns)) if all_turns else None,
            "median_ms": round(median(all_turns)) if all_turns else None,
            "by_player": [
                {"player": p, "turns": len(t), "mean_ms": round(mean(t))}
                for p, t in sorted(turn_ms.items())
            ],
        },
    }


def create_stats_api(archive: GameArchive) -> APIRouter:
    """Statistics replay every game: that runs in a worker thread, not on the event loop."""
    router = APIRouter()

    @router.get("/api/stats")
    async def statistics(table: str | None = None) -> dict[str, Any]:
        return await asyncio.to_thread(_statistics, archive, table)

    return router


def _statistics(archive: GameArchive, table: str | None) -> dict[str, Any]:
    games = []
    for row in archive.rows(table, limit=None):
        if row.game != "riffraff":
            continue  # Montego Bay's statistics come with its pages
        replayed, _ = archive.replayed(row)
        winners = None if row.winners is None else list(row.winners)
        games.append((list(row.players), winners, replayed))
    return {"table": table, **compute_stats(games)}
