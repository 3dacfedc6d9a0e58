"""`bosun simulate GAME --games N --seed S`: bots play whole games through the engine."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from dataclasses import replace

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bosun.bots import SEAT_NAMES, GameResult, bots_for, simulated_games
from bosun.commands.argtypes import number, whole_number


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="bots play whole games through the rules engine; prints a summary",
        description="Bots play N games through the rules engine, deterministically from the seed.",
    )
    p.add_argument("game", choices=sorted(simulated_games()))
    p.add_argument(
        "--games", type=whole_number(1, 1_000_000), default=100, help="games (default 100)"
    )
    p.add_argument(
        "--seed", type=whole_number(0, 2**63, "2**63"), default=0, help="random seed (default 0)"
    )
    p.add_argument("--players", type=whole_number(2, 4), default=3, help="2-4 players (default 3)")
    p.add_argument(
        "--fall-probability",
        type=number(0.0, 1.0),
        default=None,
        help="Riff Raff: chance that a loaded piece tips cargo off the ship",
    )
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(run=run)


def summarise(game: str, players: list[str], results: list[GameResult]) -> dict:
    wins = Counter(seat for r in results for seat in r.winner_seats)
    totals: Counter[str] = Counter()
    for r in results:
        totals.update(r.stats)
    return {
        "game": game,
        "games": len(results),
        "players": players,
        "rounds_mean": round(sum(r.rounds for r in results) / len(results), 2),
        "wins_by_seat": {f"{i + 1}:{name}": wins[i] for i, name in enumerate(players)},
        "totals": dict(totals),
    }


def run(args: argparse.Namespace) -> int:
    bots = bots_for(args.game)
    policy = bots.BotPolicy()
    if args.fall_probability is not None:
        if not hasattr(policy, "fall_probability"):
            print(f"bosun simulate: {args.game} has no falls", file=sys.stderr)
            return 2
        policy = replace(policy, fall_probability=args.fall_probability)
    players = list(SEAT_NAMES[: args.players])
    results: list[GameResult] = []
    progress = Progress(
        TextColumn(f"simulating {args.game}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with progress:
        task = progress.add_task("games", total=args.games)
        for index in range(args.games):
            rng = random.Random(f"{args.seed}/{index}")
            results.append(bots.play_game(rng, players, policy))
            progress.advance(task)
    summary = summarise(args.game, players, results)
    if args.json:
        print(json.dumps(summary))
    else:
        print_summary(summary)
    return 0


def print_summary(summary: dict) -> None:
    console = Console()
    console.print(
        f"[bold]{summary['games']}[/] games of {summary['game']} for "
        f"{len(summary['players'])} players, {summary['rounds_mean']} rounds on average"
    )
    seats = "  ".join(f"{seat} {wins}" for seat, wins in summary["wins_by_seat"].items())
    console.print(f"wins by seat: {seats}  (ties count for every winner)")
    for name, total in summary["totals"].items():
        console.print(f"{name}: {total} ({total / summary['games']:.2f} a game)")
