"""Compile the firmware with mpy-cross and put it on an ESP32 with mpremote (`make flash`).

    python -m bosun.board.flash build build/firmware
    python -m bosun.board.flash flash --port /dev/ttyUSB0 --build build/firmware [--frozen|--romfs]

`build` compiles every module under firmware/lib that the ship imports (not HOST_ONLY's) to
bytecode-only .mpy (version 6: loads on MicroPython 1.19 and newer, so on every ESP32 1.2x
image) and copies main.py (run as source at boot) and config.json. `flash`:
1. interrupts the running firmware and leaves a `maintenance` file, then resets: main.py
   sees it and does not start the loop, so its watchdog cannot reset the board mid-copy;
2. removes the old lib/ (a stale .py would shadow its new .mpy), copies the build;
3. removes `maintenance` and resets: the ship starts. calibration.json is left alone.
With `--frozen` (MicroPython built with firmware/manifest.py, the firmware is in the image)
step 2 removes lib/ and copies only main.py and config.json. With `--romfs` (bosun.board.romfs)
the compiled lib/ goes into a ROMFS image first; step 2 asks the board whether its MicroPython
runs ROMFS (and stops there, changing nothing, if not), gives a stock partition table its
romfs partition with esptool if it has none, deploys the image with `mpremote romfs deploy`,
removes lib/ and copies main.py and config.json.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bosun.board import romfs
from bosun.board.micropython import FIRMWARE, firmware_path

REMOVE_LIB = """
import os
def rm(path):
    try:
        names = os.listdir(path)
    except OSError:
        os.remove(path)
        return
    for name in names:
        rm(path + "/" + name)
    os.rmdir(path)
try:
    rm("lib")
except OSError:
    pass
"""


# Modules under firmware/lib that the ship never imports: the detector run over a trace file,
# the trace CSV reader, the checks of the messages the host receives, and the ship's geometry
# the host derives the detector's clocks from. The host and the unix port's tools use them from
# source; left out of the board's build, they take none of its flash (nor of the ROMFS image).
HOST_ONLY = frozenset(
    {
        "shipsense/events.py",
        "shipsense/geometry.py",
        "shipsense/offline.py",
        "shipsense/pieces.py",
        "shipsense/ship_messages.py",
        "shipsense/trace.py",
    }
)


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit(
            f"{name} is not installed (pip install -e '.[flash]' or pip install {name})"
        )
    return found


def build(out: Path) -> list[Path]:
    """Compile the firmware into `out`; returns the files written."""
    firmware_path()
    mpy_cross = tool("mpy-cross")
    if out.exists():
        shutil.rmtree(out)
    written = []
    for source in sorted((FIRMWARE / "lib").rglob("*.py")):
        if source.relative_to(FIRMWARE / "lib").as_posix() in HOST_ONLY:
            continue
        relative = source.relative_to(FIRMWARE)
        target = out / relative.with_suffix(".mpy")
        target.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [mpy_cross, "-o", str(target), "-s", str(relative), str(source)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SystemExit(f"mpy-cross failed on {relative}:\n{done.stderr.strip()}")
        written.append(target)
    for name in ("main.py", "config.json"):
        shutil.copy(FIRMWARE / name, out / name)
        written.append(out / name)
    return written


def mpremote(port: str, *args: str, tries: int = 3) -> str:
    command = [tool("mpremote"), "connect", port, *args]
    for attempt in range(tries):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout
        if attempt + 1 < tries:
            time.sleep(1.5)  # the board is still rebooting: its port answers again shortly
    raise SystemExit(f"mpremote {' '.join(args[:2])} failed:\n{done.stderr.strip()}")


def restart_ship(port: str) -> None:
    mpremote(port, "fs", "rm", ":maintenance", "+", "reset")


def deploy_romfs(port: str, image: Path, esptool: str) -> None:
    """Step 2 of `--romfs`: check the board, give it a romfs partition if needed, deploy."""
    try:
        found = romfs.parse_probe(mpremote(port, "exec", romfs.PROBE))
        needs_table = romfs.check_probe(found)
        if needs_table:
            with tempfile.TemporaryDirectory(prefix="bosun-flash-") as tmp:
                print("flash: reading the partition table (esptool)")
                current = romfs.read_table(esptool, port, Path(tmp))
                table = romfs.table_with_romfs(current, found)
                print("flash: writing the table with a 128 KB romfs partition at 0x1e0000")
                romfs.write_table(esptool, port, table, Path(tmp))
            time.sleep(2)  # esptool resets the board: it boots, still in maintenance mode
            found = romfs.parse_probe(mpremote(port, "exec", romfs.PROBE))
            if romfs.check_probe(found):
                raise romfs.RomfsError("the board sees no romfs partition after the new table")
    except (romfs.RomfsError, ValueError) as error:
        restart_ship(port)
        raise SystemExit(f"flash: {error}") from None
    print(f"flash: deploying the ROMFS image ({image.stat().st_size} bytes)")
    mpremote(port, "romfs", "deploy", str(image))


def flash(port: str, build_dir: Path, frozen: bool = False, use_romfs: bool = False) -> None:
    if not (build_dir / "main.py").exists():
        raise SystemExit(f"no build in {build_dir}: run `python -m bosun.board.flash build` first")
    image = build_dir / "firmware.romfs"
    if use_romfs:
        esptool = tool("esptool")  # before the ship is stopped: a missing tool changes nothing
        try:
            romfs.build_image(build_dir, image, tool("mpremote"))
        except romfs.RomfsError as error:
            raise SystemExit(f"flash: {error}") from None
    print(f"flash: stopping the ship on {port} (maintenance mode)")
    mpremote(port, "exec", "open('maintenance', 'w').close()", "+", "reset")
    time.sleep(2)
    if use_romfs:
        deploy_romfs(port, image, esptool)
    mpremote(port, "exec", REMOVE_LIB)
    if frozen or use_romfs:
        where = "in the ROMFS partition" if use_romfs else "frozen in the image"
        print(f"flash: the firmware is {where}; copying main.py and config.json")
    else:
        print("flash: copying the firmware")
        mpremote(port, "fs", "cp", "-r", str(build_dir / "lib"), ":")
    mpremote(port, "fs", "cp", str(build_dir / "main.py"), ":main.py")
    mpremote(port, "fs", "cp", str(build_dir / "config.json"), ":config.json")
    restart_ship(port)
    print("flash: done; the ship is starting (its status appears on ship/status)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bosun.board.flash")
    sub = parser.add_subparsers(dest="step", required=True)
    b = sub.add_parser("build", help="compile the firmware with mpy-cross")
    b.add_argument("out", type=Path)
    f = sub.add_parser("flash", help="copy a build to the ESP32 with mpremote and reset it")
    f.add_argument("--port", required=True)
    f.add_argument("--build", type=Path, default=Path("build/firmware"))
    where = f.add_mutually_exclusive_group()
    where.add_argument(
        "--frozen",
        action="store_true",
        help="MicroPython was built with firmware/manifest.py: copy only main.py and config.json",
    )
    where.add_argument(
        "--romfs",
        action="store_true",
        help="deploy the modules as a ROMFS image (MicroPython with ROMFS, README: Firmware)",
    )
    args = parser.parse_args(argv)
    if args.step == "build":
        files = build(args.out)
        print(f"firmware: {len(files)} files compiled into {args.out} (mpy v6, MicroPython 1.19+)")
    else:
        flash(args.port, args.build, args.frozen, args.romfs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
