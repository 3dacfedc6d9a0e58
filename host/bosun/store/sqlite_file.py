"""The store's SQLite file: made whole and owner-only, and checked before SQLite opens it.

The file holds seat tokens and unrevealed cards: it is 0600 (its -wal and -shm take its mode)
and an old one readable by others is tightened. A new store never lies empty under its name:
it is built under a temporary name and linked in whole, so an empty file is never bosun's
own half-made store. An existing empty file is refused, not started afresh: a store that lost
its contents (a full disk, a bad copy) must not turn silently into one with no games in it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from bosun.store.records import StoreError

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


def check(path: Path, create: bool, build: Callable[[str], None]) -> None:
    """Refuse with one sentence what is not a store at `path`, tighten an old one; a missing
    file, with `create`, becomes a new store that `build(temporary_path)` migrates."""
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a database file")
    if not path.exists():
        if not create:
            raise StoreError(f"{path}: no such database file")
        _new_store(path, build)
    try:
        size = path.stat().st_size
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as err:
        raise StoreError(f"cannot open {path}: {err.strerror}") from None
    if size == 0:
        raise StoreError(
            f"{path} is empty (0 bytes): it is no store any more. Restore it from a backup, "
            "or delete it to start with no games"
        )
    if header != SQLITE_HEADER:
        raise StoreError(f"{path} is not a database (damaged, or not bosun's store)")
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        _owner_only(part)


def _new_store(path: Path, build: Callable[[str], None]) -> None:
    """A migrated, owner-only store at `path`, built under a temporary name and linked in;
    if another bosun linked its own first, that one is kept."""
    try:  # mkstemp makes the file 0600; SQLite gives its -wal and -shm the same mode
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as err:
        raise StoreError(f"cannot open {path}: {err.strerror}") from None
    os.close(descriptor)
    try:
        build(temporary)
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links (FAT): a plain rename
            if not path.exists():
                os.rename(temporary, path)
    except StoreError as err:
        raise StoreError(f"{path}: {err}") from err
    except OSError as err:
        raise StoreError(f"cannot create {path}: {err.strerror}") from None
    finally:
        for leftover in (temporary, f"{temporary}-wal", f"{temporary}-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)


def _owner_only(path: Path) -> None:
    """Take group and others' access away from an existing store file (made before 0600)."""
    try:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            os.chmod(path, mode & 0o700)
    except FileNotFoundError:
        pass
    except OSError as err:  # not ours to change: it still opens, and the owner is told
        log.warning("%s stays readable by others: %s", path, err.strerror)
