"""The firmware as a ROMFS image: built with mpremote, put on an ESP32 (`make flash ROMFS=1`).

A ROMFS partition holds the compiled modules read-only in flash; MicroPython mounts it at
/rom and runs their bytecode in place, like frozen code, so the heap holds little more than
the modules' objects (bosun.board.heap measures it). The image is `lib/` of a
`bosun.board.flash` build, so the ship imports it from /rom/lib; main.py, config.json and
calibration.json stay on the writable filesystem.

On the board this needs MicroPython built with ROMFS (MICROPY_VFS_ROM: `vfs.VfsRom` and
`vfs.rom_ioctl`) and a partition labelled "romfs". MicroPython's ports/esp32 enables ROMFS on
no board as of 1.29, micropython.org's ESP32_GENERIC images included (their partition table
has no romfs partition either): `probe` finds out before anything is written.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from bosun.board import partitions

# ESP-IDF's app image (ESP-IDF "App Image Format"): a 24-byte header (magic 0xE9, the number
# of segments, ..., `hash_appended` in its last byte), then segments of an 8-byte header
# (load address, length) and their data, padding up to a 16-byte boundary whose last byte is
# the checksum, and the SHA-256 of all that when hash_appended is 1.
APP_IMAGE_MAGIC = 0xE9
APP_HEADER_BYTES = 24
SEGMENT_HEADER_BYTES = 8

# Runs on the board: what its MicroPython offers, and the running app's size (walked segment
# by segment through esp32.Partition, so no more than a few bytes are read).
PROBE = """
import sys, json
found = {"version": list(sys.implementation.version[:3]), "romfs": False, "rom_partitions": 0}
try:
    import vfs
    found["romfs"] = hasattr(vfs, "rom_ioctl") and hasattr(vfs, "VfsRom")
    if found["romfs"]:
        found["rom_partitions"] = vfs.rom_ioctl(1)
except ImportError:
    pass
try:
    import esp32
    app = esp32.Partition(esp32.Partition.RUNNING)
    found["app_partition"] = list(app.info()[:5])
    head = bytearray(24)
    app.readblocks(0, head, 0)
    found["app_header"] = bytes(head).hex()
    lengths = []
    at = 24
    segment = bytearray(8)
    for _ in range(head[1] if head[0] == 0xE9 else 0):
        app.readblocks(0, segment, at)
        n = segment[4] | segment[5] << 8 | segment[6] << 16 | segment[7] << 24
        lengths.append(n)
        at += 8 + n
    found["app_segments"] = lengths
except ImportError:
    pass
print(json.dumps(found))
"""


class RomfsError(RuntimeError):
    """The board or the build cannot take a ROMFS deployment; the message says why."""


def app_image_bytes(header: bytes, segment_lengths: list[int]) -> int:
    """How many bytes of flash an ESP32 app image takes, from its header and segment sizes."""
    if len(header) < APP_HEADER_BYTES or header[0] != APP_IMAGE_MAGIC:
        raise RomfsError("the running partition does not start with an ESP32 app image")
    if len(segment_lengths) != header[1]:
        raise RomfsError(
            f"the app image has {header[1]} segments, {len(segment_lengths)} were read"
        )
    end = APP_HEADER_BYTES + sum(SEGMENT_HEADER_BYTES + n for n in segment_lengths)
    end += 16 - end % 16  # padding, its last byte the checksum
    return end + (32 if header[APP_HEADER_BYTES - 1] == 1 else 0)


def build_image(build_dir: Path, image: Path, mpremote: str) -> int:
    """Write the ROMFS image of a firmware build's lib/ (mpremote's format); returns its size."""
    lib = build_dir / "lib"
    if not any(lib.rglob("*.mpy")):
        raise RomfsError(f"no compiled modules in {lib}: run `python -m bosun.board.flash build`")
    with tempfile.TemporaryDirectory(prefix="bosun-romfs-") as tmp:
        shutil.copytree(lib, Path(tmp) / "lib")
        done = subprocess.run(
            [mpremote, "romfs", "--no-mpy", "--output", str(image), "build", tmp],
            capture_output=True,
            text=True,
        )
    if done.returncode != 0 or not image.exists():
        raise RomfsError(f"mpremote romfs build failed:\n{done.stdout}{done.stderr}".strip())
    size = image.stat().st_size
    if size > partitions.ROMFS_BYTES:
        raise RomfsError(
            f"the ROMFS image is {size} bytes, more than the {partitions.ROMFS_BYTES} bytes "
            "of the romfs partition"
        )
    return size


def check_probe(found: dict) -> bool:
    """Whether the board needs the ROMFS partition table; RomfsError if it cannot run ROMFS."""
    if not found.get("romfs"):
        version = ".".join(str(n) for n in found.get("version", [])) or "?"
        raise RomfsError(
            f"this board's MicroPython ({version}) was built without ROMFS (no vfs.VfsRom): "
            "micropython.org's ESP32 images do not enable it. Flash an image built with "
            "MICROPY_VFS_ROM (README: Firmware), or the frozen image and `make flash FROZEN=1`"
        )
    return int(found.get("rom_partitions", 0)) < 1


def table_with_romfs(current: bytes, found: dict) -> bytes:
    """The table to write at 0x8000, from the board's own (stock) table and its running app."""
    rows = partitions.decode(current)
    new_rows = partitions.with_romfs(rows)
    factory = next(row for row in new_rows if row.label == "factory")
    header = bytes.fromhex(found.get("app_header", ""))
    app_bytes = app_image_bytes(header, list(found.get("app_segments", [])))
    if app_bytes > factory.size:
        raise RomfsError(
            f"this MicroPython app takes {app_bytes} bytes, more than the {factory.size} bytes "
            "the factory partition keeps next to the romfs partition"
        )
    return partitions.encode(new_rows)


def read_table(esptool: str, port: str, workdir: Path) -> bytes:
    out = workdir / "partitions-read.bin"
    _run(
        [
            esptool,
            "--port",
            port,
            "read-flash",
            hex(partitions.TABLE_OFFSET),
            hex(partitions.TABLE_BYTES),
            str(out),
        ],
        "reading the partition table",
    )
    return out.read_bytes()


def write_table(esptool: str, port: str, table: bytes, workdir: Path) -> None:
    path = workdir / "partitions-romfs.bin"
    path.write_bytes(table)
    _run(
        [esptool, "--port", port, "write-flash", hex(partitions.TABLE_OFFSET), str(path)],
        "writing the partition table",
    )


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RomfsError(f"{what} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}".strip())


def parse_probe(output: str) -> dict:
    for line in reversed(output.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RomfsError(f"the board did not answer the probe:\n{output}")
