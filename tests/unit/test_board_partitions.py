"""The ESP32 partition table `make flash ROMFS=1` writes (bosun.board.partitions, .romfs).

The reference is MicroPython's own source (ports/esp32): the stock ESP32_GENERIC image's
table is partitions-4MiBplus.csv from 1.26 on (partitions-4MiB.csv, with `vfs`, before),
and a ROMFS board's is partitions-4MiB-romfs.csv. Their rows are written out here, byte by
byte in ESP-IDF's documented entry layout, independently of the module's struct.
"""

from __future__ import annotations

import hashlib

import pytest
from esptool import bin_image

from bosun.board import partitions
from bosun.board.partitions import DATA, Partition, PartitionTableError
from bosun.board.romfs import RomfsError, app_image_bytes, check_probe, table_with_romfs

# (label, type, subtype, offset, size) as in MicroPython's CSV files.
STOCK_126 = [
    ("nvs", 1, 0x02, 0x9000, 0x6000),
    ("phy_init", 1, 0x01, 0xF000, 0x1000),
    ("factory", 0, 0x00, 0x10000, 0x1F0000),
]
STOCK_122 = STOCK_126 + [("vfs", 1, 0x81, 0x200000, 0x200000)]
ROMFS_CSV = [  # partitions-4MiB-romfs.csv, less the `vfs` row MicroPython 1.26 dropped
    ("nvs", 1, 0x02, 0x9000, 0x6000),
    ("phy_init", 1, 0x01, 0xF000, 0x1000),
    ("factory", 0, 0x00, 0x10000, 0x1D0000),
    ("romfs", 1, 0x8F, 0x1E0000, 0x20000),
]


def entry(label: str, ptype: int, subtype: int, offset: int, size: int) -> bytes:
    """One 32-byte entry, spelled out from ESP-IDF's "Partition Tables" page."""
    return (
        b"\xaa\x50"
        + bytes([ptype, subtype])
        + offset.to_bytes(4, "little")
        + size.to_bytes(4, "little")
        + label.encode().ljust(16, b"\x00")
        + bytes(4)  # flags: not encrypted, not read-only
    )


def stock_table(rows) -> bytes:
    """The 0xC00 bytes ESP-IDF writes at 0x8000 for these rows (MD5 entry, 0xFF padding)."""
    entries = b"".join(entry(*row) for row in rows)
    table = entries + b"\xeb\xeb" + b"\xff" * 14 + hashlib.md5(entries).digest()
    return table + b"\xff" * (0xC00 - len(table))


@pytest.mark.parametrize("rows", [STOCK_126, STOCK_122], ids=["1.26+", "1.22-1.25"])
def test_the_stock_tables_encode_and_parse_back_byte_for_byte(rows):
    table = stock_table(rows)
    parsed = partitions.decode(table)
    assert [(p.label, p.type, p.subtype, p.offset, p.size) for p in parsed] == rows
    assert partitions.encode(parsed) == table
    assert partitions.stock_version(parsed) in partitions.STOCK_ESP32_GENERIC


@pytest.mark.parametrize("rows", [STOCK_126, STOCK_122], ids=["1.26+", "1.22-1.25"])
def test_the_romfs_table_is_the_stock_one_with_romfs_carved_from_the_app(rows):
    stock = partitions.decode(stock_table(rows))
    table = partitions.encode(partitions.with_romfs(stock))
    assert len(table) == 0xC00
    parsed = partitions.decode(table)  # parses back, its MD5 checks out
    expected = ROMFS_CSV + rows[3:]  # the 1.22-1.25 table keeps its `vfs` row
    assert [(p.label, p.type, p.subtype, p.offset, p.size) for p in parsed] == expected
    # every other entry is byte for byte the stock image's own
    kept = [row for row in rows if row[0] != "factory"]
    for row in kept:
        assert entry(*row) in table
    # the app region shrank and romfs sits at its end: the writable filesystem (the `vfs`
    # row, or from 1.26 on the space after the last partition) still starts at 0x200000,
    # so calibration.json and config.json survive the new table
    romfs = partitions.romfs_partition(parsed)
    factory_end = 0x10000 + 0x1F0000
    assert romfs is not None and romfs.type == DATA and romfs.end == factory_end
    assert max(p.end for p in parsed if p.label != "vfs") == factory_end
    assert table[len(parsed) * 32 : len(parsed) * 32 + 16] == b"\xeb\xeb" + b"\xff" * 14
    assert set(table[(len(parsed) + 1) * 32 :]) == {0xFF}


def test_a_table_that_is_not_stock_is_refused():
    ota = [
        ("nvs", 1, 0x02, 0x9000, 0x4000),
        ("otadata", 1, 0x00, 0xD000, 0x2000),
        ("phy_init", 1, 0x01, 0xF000, 0x1000),
        ("ota_0", 0, 0x10, 0x10000, 0x180000),
        ("ota_1", 0, 0x11, 0x190000, 0x180000),
    ]
    with pytest.raises(PartitionTableError, match="not the table of a stock ESP32_GENERIC"):
        partitions.with_romfs(partitions.decode(stock_table(ota)))
    # a board that already has a romfs partition is not a stock one either
    with pytest.raises(PartitionTableError):
        partitions.with_romfs(partitions.decode(stock_table(ROMFS_CSV)))


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda t: t[:40] + bytes([t[40] ^ 1]) + t[41:], "MD5 does not match"),
        (lambda t: b"\xff" * 0xC00, "erased flash"),
        (lambda t: t[:64] + b"\xff" * (0xC00 - 64), "no MD5 entry"),
        (lambda t: b"\x00" * 32 + t[32:], "not a partition entry"),
        (lambda t: t[:32] + t[64:] + b"\xff" * 32, "MD5 does not match"),
    ],
    ids=["flipped bit", "erased", "no md5", "bad magic", "entry missing"],
)
def test_a_damaged_table_is_rejected_with_what_is_wrong(damage, message):
    with pytest.raises(PartitionTableError, match=message):
        partitions.decode(damage(stock_table(STOCK_126)))


@pytest.mark.parametrize(
    "rows, message",
    [
        ([Partition("app", 0, 0, 0x18000, 0x10000)], "multiple of 0x10000"),
        ([Partition("nvs", 1, 2, 0x9000, 0x6000), Partition("x", 1, 2, 0xE000, 0x2000)], "over"),
        ([Partition("a" * 17, 1, 2, 0x9000, 0x1000)], "1 to 16 characters"),
        ([Partition("nvs", 1, 2, 0x8000, 0x1000)], "overlaps the partition table"),
        ([Partition("x", 1, 2, 0x9000, 0x1000), Partition("x", 1, 2, 0xA000, 0x1000)], "two"),
        ([], "at least one"),
    ],
)
def test_encode_refuses_what_the_bootloader_would_not_take(rows, message):
    with pytest.raises(PartitionTableError, match=message):
        partitions.encode(rows)


def esp32_app_image(segment_bytes: list[int], append_digest: bool) -> bytes:
    """A real ESP32 app image, written by esptool."""
    image = bin_image.ESP32FirmwareImage()
    image.append_digest = append_digest
    for i, n in enumerate(segment_bytes):
        image.segments.append(
            bin_image.ELFSection(f".seg{i}".encode(), 0x3FFB0000 + 0x10000 * i, bytes(n), 0)
        )
    image.entrypoint = 0x40080000
    image.flash_size_freq = 0x20
    return image.save(None)


@pytest.mark.parametrize("digest", [True, False])
@pytest.mark.parametrize("segments", [[4], [100, 8, 36], [0x1234, 0x20, 0x8000, 12]])
def test_app_image_size_from_its_header_and_segments(segments, digest):
    image = esp32_app_image(segments, digest)
    header = image[:24]
    lengths, at = [], 24
    for _ in range(header[1]):
        n = int.from_bytes(image[at + 4 : at + 8], "little")
        lengths.append(n)
        at += 8 + n
    assert app_image_bytes(header, lengths) == len(image)


def probe_of(app_bytes: int, romfs: bool = True, rom_partitions: int = 0) -> dict:
    # one segment whose size makes the image app_bytes long (no digest)
    header = bytes([0xE9, 1]) + bytes(22)
    return {
        "version": [1, 29, 0],
        "romfs": romfs,
        "rom_partitions": rom_partitions,
        "app_header": header.hex(),
        "app_segments": [app_bytes - 24 - 8 - 16],
    }


def test_a_board_without_romfs_support_is_told_what_to_do():
    with pytest.raises(RomfsError, match=r"MicroPython \(1\.29\.0\) was built without ROMFS"):
        check_probe(probe_of(0x180000, romfs=False))
    assert check_probe(probe_of(0x180000, rom_partitions=0)) is True  # needs the new table
    assert check_probe(probe_of(0x180000, rom_partitions=1)) is False  # has one already


def test_the_table_is_only_written_when_the_running_app_fits_the_smaller_factory():
    stock = stock_table(STOCK_126)
    fits = table_with_romfs(stock, probe_of(0x1D0000))
    assert partitions.romfs_partition(partitions.decode(fits)) is not None
    with pytest.raises(RomfsError, match="more than the 1900544 bytes"):
        table_with_romfs(stock, probe_of(0x1D0000 + 16))
    with pytest.raises(RomfsError, match="does not start with an ESP32 app image"):
        table_with_romfs(stock, {**probe_of(0x100000), "app_header": "00" * 24})
