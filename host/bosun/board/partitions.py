"""ESP32 partition tables in ESP-IDF's binary form, and the one with a ROMFS partition.

The binary form (ESP-IDF, "Partition Tables"; components/partition_table/gen_esp32part.py):
at flash offset 0x8000, one 32-byte entry a partition, little-endian: magic 0xAA 0x50, type,
subtype, offset (u32), size (u32), label (16 bytes, NUL-padded), flags (u32); then an entry
of 0xEB 0xEB, fourteen 0xFF and the MD5 digest of every entry before it; then 0xFF up to
0xC00 bytes (the rest of the 4 KB sector is left for a signature).

MicroPython's ESP32_GENERIC image carries the table of ports/esp32/partitions-4MiBplus.csv
(1.26 and newer: nvs, phy_init, a 0x1F0000 factory app; the filesystem `vfs` is added at
boot from the end of the last partition to the end of flash) or partitions-4MiB.csv (1.22 to
1.25: the same plus `vfs` at 0x200000). The ROMFS table is MicroPython's own
partitions-4MiB-romfs.csv: the factory app shrunk to 0x1D0000 and a 128 KB `romfs`
partition (data, subtype 0x8F; MicroPython finds it by its label) in the space freed, so the
filesystem still starts at 0x200000 and keeps calibration.json and config.json.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from dataclasses import dataclass, replace

TABLE_OFFSET = 0x8000  # where the second-stage bootloader looks for the table
TABLE_BYTES = 0xC00
ENTRY = struct.Struct("<2sBBII16sI")
ENTRY_MAGIC = b"\xaa\x50"
MD5_MAGIC = b"\xeb\xeb"
END_OF_TABLE = b"\xff" * ENTRY.size

APP = 0x00
DATA = 0x01
FACTORY = 0x00
PHY = 0x01
NVS = 0x02
FAT = 0x81
ROMFS_SUBTYPE = 0x8F  # ports/esp32/partitions-4MiB-romfs.csv
APP_ALIGN = 0x10000
DATA_ALIGN = 0x1000
FIRST_OFFSET = TABLE_OFFSET + 0x1000  # nothing may start inside the table's sector

ROMFS_LABEL = "romfs"
ROMFS_OFFSET = 0x1E0000
ROMFS_BYTES = 0x20000
FACTORY_WITH_ROMFS_BYTES = ROMFS_OFFSET - 0x10000


class PartitionTableError(ValueError):
    """A partition table that is malformed, inconsistent or not the one expected."""


@dataclass(frozen=True)
class Partition:
    """One row of the table: what a region of flash holds."""

    label: str
    type: int
    subtype: int
    offset: int
    size: int
    flags: int = 0

    @property
    def end(self) -> int:
        return self.offset + self.size

    def describe(self) -> str:
        kind = {APP: "app", DATA: "data"}.get(self.type, hex(self.type))
        return (
            f"{self.label} ({kind}/0x{self.subtype:02x}) at 0x{self.offset:06x}, "
            f"{self.size // 1024} KB"
        )


def _stock(with_vfs: bool) -> tuple[Partition, ...]:
    rows = (
        Partition("nvs", DATA, NVS, 0x9000, 0x6000),
        Partition("phy_init", DATA, PHY, 0xF000, 0x1000),
        Partition("factory", APP, FACTORY, 0x10000, 0x1F0000),
    )
    return rows + ((Partition("vfs", DATA, FAT, 0x200000, 0x200000),) if with_vfs else ())


# The tables of micropython.org's ESP32_GENERIC images, by MicroPython version.
STOCK_ESP32_GENERIC = {
    "1.26+": _stock(with_vfs=False),
    "1.22-1.25": _stock(with_vfs=True),
}


def check(partitions: Iterable[Partition]) -> tuple[Partition, ...]:
    """The rows, in order, if ESP-IDF's bootloader would accept them; else PartitionTableError."""
    rows = tuple(partitions)
    if not rows:
        raise PartitionTableError("a partition table needs at least one partition")
    labels: set[str] = set()
    for row in rows:
        try:
            encoded = row.label.encode("ascii")
        except UnicodeEncodeError:
            raise PartitionTableError(f"label {row.label!r} is not ASCII") from None
        if not 0 < len(encoded) <= 16 or b"\x00" in encoded:
            raise PartitionTableError(f"label {row.label!r} must be 1 to 16 characters")
        if row.label in labels:
            raise PartitionTableError(f"two partitions are labelled {row.label!r}")
        labels.add(row.label)
        for name, value, limit in (("type", row.type, 0xFE), ("subtype", row.subtype, 0xFE)):
            if not 0 <= value <= limit:
                raise PartitionTableError(f"{row.label}: {name} 0x{value:x} is out of range")
        align = APP_ALIGN if row.type == APP else DATA_ALIGN
        if row.offset % align or row.size <= 0 or row.size % DATA_ALIGN:
            raise PartitionTableError(
                f"{row.label}: offset 0x{row.offset:x} must be a multiple of 0x{align:x} and "
                f"size 0x{row.size:x} a positive multiple of 0x{DATA_ALIGN:x}"
            )
        if row.end > 0x1_0000_0000 or not 0 <= row.flags <= 0xFFFF_FFFF:
            raise PartitionTableError(f"{row.label}: does not fit 32-bit flash addresses")
    previous_end, previous = FIRST_OFFSET, "the partition table"
    for row in sorted(rows, key=lambda row: row.offset):
        if row.offset < previous_end:
            raise PartitionTableError(
                f"{row.label} at 0x{row.offset:x} overlaps {previous}, which ends at "
                f"0x{previous_end:x}"
            )
        previous_end, previous = row.end, row.label
    return rows


def encode(partitions: Iterable[Partition]) -> bytes:
    """The table as the bootloader reads it at TABLE_OFFSET: entries, MD5 entry, 0xFF padding."""
    rows = check(partitions)
    entries = b"".join(
        ENTRY.pack(
            ENTRY_MAGIC, row.type, row.subtype, row.offset, row.size, row.label.encode(), row.flags
        )
        for row in rows
    )
    table = entries + MD5_MAGIC + b"\xff" * 14 + hashlib.md5(entries).digest()
    if len(table) > TABLE_BYTES:
        raise PartitionTableError(f"{len(rows)} partitions do not fit in 0x{TABLE_BYTES:x} bytes")
    return table + b"\xff" * (TABLE_BYTES - len(table))


def decode(table: bytes) -> tuple[Partition, ...]:
    """The partitions of a binary table (as read from flash at TABLE_OFFSET); checks the MD5."""
    rows = []
    seen = b""
    checked = False
    for start in range(0, min(len(table), TABLE_BYTES), ENTRY.size):
        entry = table[start : start + ENTRY.size]
        if len(entry) < ENTRY.size:
            break
        if entry == END_OF_TABLE:
            if not rows:
                raise PartitionTableError("no partition table here (erased flash)")
            if not checked:
                raise PartitionTableError("the table has no MD5 entry")
            return tuple(rows)
        if entry[:2] == MD5_MAGIC:
            if entry[16:] != hashlib.md5(seen).digest():
                raise PartitionTableError("the table's MD5 does not match its entries")
            checked = True
            continue
        if entry[:2] != ENTRY_MAGIC or checked:
            raise PartitionTableError(f"entry {start // ENTRY.size} is not a partition entry")
        _, ptype, subtype, offset, size, label, flags = ENTRY.unpack(entry)
        try:
            name = label.rstrip(b"\x00").decode("ascii")
        except UnicodeDecodeError:
            raise PartitionTableError(f"entry {start // ENTRY.size} has a garbled label") from None
        rows.append(Partition(name, ptype, subtype, offset, size, flags))
        seen += entry
    raise PartitionTableError("the table has no end (0xFF) after its entries")


def stock_version(rows: Iterable[Partition]) -> str | None:
    """Which stock ESP32_GENERIC table `rows` is ("1.26+", "1.22-1.25"), or None."""
    rows = tuple(rows)
    for version, stock in STOCK_ESP32_GENERIC.items():
        if rows == stock:
            return version
    return None


def with_romfs(stock: Iterable[Partition]) -> tuple[Partition, ...]:
    """A stock table with the ROMFS partition carved from the end of the factory app."""
    rows = tuple(stock)
    version = stock_version(rows)
    if version is None:
        raise PartitionTableError(
            "not the table of a stock ESP32_GENERIC image: "
            + "; ".join(row.describe() for row in rows)
        )
    out = []
    for row in rows:
        if row.label == "factory":
            out.append(replace(row, size=FACTORY_WITH_ROMFS_BYTES))
            out.append(Partition(ROMFS_LABEL, DATA, ROMFS_SUBTYPE, ROMFS_OFFSET, ROMFS_BYTES))
        else:
            out.append(row)
    return check(out)


def romfs_partition(rows: Iterable[Partition]) -> Partition | None:
    """The partition MicroPython mounts at /rom: a data partition labelled "romfs"."""
    for row in rows:
        if row.label == ROMFS_LABEL and row.type == DATA:
            return row
    return None
