"""`bosun export TABLE_OR_GAME`: write a stored game's effective log, which `bosun replay` plays."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from bosun.games.match import dump_log_line
from bosun.store import GameRow, Store, StoreError, UnknownGame, default_db_url


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "export",
        help="write a stored game's log (JSONL) for bosun replay",
        description="Write the game log of a game id, or of a table's latest game, one action "
        "a line (undone actions left out), as DESIGN.md's game log: `bosun replay` on it "
        "reproduces the game's state.",
    )
    p.add_argument("target", metavar="TABLE_OR_GAME", help="a game id or a table id")
    p.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="database URL or SQLite file (default: $BOSUN_DB, else sqlite:///bosun.db)",
    )
    p.add_argument(
        "--output", "-o", type=Path, metavar="FILE", help="write to FILE instead of stdout"
    )
    p.set_defaults(run=run)


def _find_game(store: Store, target: str) -> GameRow | None:
    try:
        return store.game(target)
    except UnknownGame:
        pass
    try:
        return store.latest_game(target)
    except StoreError:  # not even a possible table id
        return None


def _write_atomically(path: Path, text: str) -> None:
    """A reader never sees half a log: write beside the target, then rename over it."""
    folder = path.parent if str(path.parent) else Path(".")
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def run(args: argparse.Namespace) -> int:
    url = args.db or default_db_url()
    try:
        store = Store.open(url, create=False)
    except StoreError as err:
        print(f"bosun export: {err}", file=sys.stderr)
        return 2
    with store:
        try:
            row = _find_game(store, args.target)
            if row is None:
                print(
                    f"bosun export: no game and no table with games is named {args.target!r} "
                    f"in {store.url}",
                    file=sys.stderr,
                )
                return 2
            actions = store.game_actions(row.game_id)
        except StoreError as err:
            print(f"bosun export: {err}", file=sys.stderr)
            return 2
    text = "".join(dump_log_line(action) + "\n" for action in actions)
    if args.output is None:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `bosun export t1 | head`: the reader has had enough
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    try:
        _write_atomically(args.output, text)
    except OSError as err:
        print(f"bosun export: cannot write {args.output}: {err.strerror or err}", file=sys.stderr)
        return 2
    state = "running" if row.running else "finished"
    print(
        f"exported game {row.game_id} (table {row.table_id}, {state}, "
        f"{len(actions)} actions) to {args.output}",
        file=sys.stderr,
    )
    return 0
