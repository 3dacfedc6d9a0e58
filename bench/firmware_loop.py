"""The firmware's sample loop under real MicroPython: heap need, per-sample cost and slack.

    .venv/bin/python -m bench.firmware_loop --seconds 30 [--wasm PACKAGE_DIR]

Part 0 measures the firmware's heap need stage by stage (bosun.board.heap) on the unix port
(64-bit objects; .mpy files, frozen, and the ROMFS image of `make flash ROMFS=1` mounted
with vfs.VfsRom) and, with --wasm, on the 32-bit WebAssembly port like the ESP32's objects:
PACKAGE_DIR is the installed npm package @micropython/micropython-webassembly-pyscript
(`npm install --prefix build/wasm @micropython/micropython-webassembly-pyscript`, then
build/wasm/node_modules/@micropython/micropython-webassembly-pyscript).
Part 1 times the firmware's own code per sample under MicroPython on this machine, with
hardware that costs nothing (a pin that does nothing, a GPIO register that answers at once),
so the figures are the firmware's: the HX711 pulse train and transposition for 11 channels,
LoadCells, the detector on a virtual ship's samples, encoding an event.
Part 2 runs the unmodified firmware on the virtual board through a private mosquitto with a
random game session and reports what the ship itself publishes in its status: cost per
sample (here including the virtual board's emulation of every pin read) and slack.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import time

PART1 = """
import gc, json, time
import machine
from shipcore.hx711 import HX711Bus
from shipcore.loadcells import LoadCells
from shipcore.calibration import Calibration
from shipsense.detector import Detector
from shipsense import protocol

class NullPin(machine.PinBase):
    def value(self, v=None):
        return 0

class Register:
    def __getitem__(self, address):
        return 0x1234

N = 2000
results = {}
pins = [NullPin() for _ in range(11)]
for mode in ("register", "register2", "pins"):
    if mode == "register":  # every DOUT below GPIO32, as wired: GPIO_IN_REG only
        bus = HX711Bus(NullPin(), pins, 128, list(range(13, 24)), Register())
    elif mode == "register2":  # five DOUTs at GPIO32-39: GPIO_IN1_REG read too
        bus = HX711Bus(NullPin(), pins, 128, list(range(13, 19)) + [32, 33, 35, 36, 39], Register())
    else:
        bus = HX711Bus(NullPin(), pins, 128)
    t = time.ticks_us()
    for _ in range(N):
        bus.read()
    results["hx711_read_" + mode + "_us"] = time.ticks_diff(time.ticks_us(), t) / N

cal = Calibration(10, 420.0)
for ch in range(11):
    cal.tare[ch] = 0
cells = LoadCells(bus, cal, 10, True, 80)
t = time.ticks_us()
for i in range(N):
    cells.sample(i * 12, 0, 12)
elapsed = time.ticks_diff(time.ticks_us(), t) / N
results["loadcells_sample_us"] = elapsed - results["hx711_read_pins_us"]

det = Detector(rate_hz=80, n_zones=10, table="both", items=ITEMS)
events = 0
spent = 0
n = 0
with open(ROWS) as lines:
    for line in lines:
        zones, table_g, impact = json.loads(line)
        t = time.ticks_us()
        events += len(det.feed(n * 12.5, zones, table_g, impact))
        spent += time.ticks_diff(time.ticks_us(), t)
        n += 1
results["detector_feed_us"] = spent / n
results["detector_events"] = events

event = {"type": "place", "t_ms": 1234, "decided_ms": 1500, "zone": 7, "grams": 6.3}
t = time.ticks_us()
for seq in range(N):
    protocol.encode(protocol.event_message(event, "a1b2c3d4", seq))
results["encode_event_us"] = time.ticks_diff(time.ticks_us(), t) / N
gc.collect()
results["heap_after_setup_bytes"] = gc.mem_alloc()
print(json.dumps(results))
"""


def part1(seconds: float) -> dict:
    import tempfile
    from pathlib import Path

    from bosun.board.micropython import run_micropython_json
    from bosun.sim import ShipParams, VirtualShip, random_session

    ship = VirtualShip(ShipParams.draw("normal", seed=5, rate_sps=80, table="both"), seed=5)
    rows = [
        [list(s.zones_g), s.table_g, s.impact] for s in random_session(ship, "normal", seconds, 5)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.json"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        code = f"ROWS = {str(path)!r}\nITEMS = {ship.calibrated_item_grams()!r}\n" + PART1
        figures = run_micropython_json(code, timeout_s=600)
    figures["detector_samples"] = len(rows)
    return figures


def part2(seconds: float) -> list[dict]:
    import paho.mqtt.client as mqtt

    from bosun.board import ShipSource, VirtualBoard
    from bosun.bus.broker import MosquittoBroker
    from bosun.sim import ShipParams, VirtualShip
    from bosun.sim.session import RandomHands

    statuses: queue.Queue = queue.Queue()
    with MosquittoBroker() as broker:
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        client.on_message = lambda _c, _u, m: statuses.put(json.loads(m.payload))
        client.connect(broker.host, broker.port)
        client.subscribe("bosun/bench/ship/status", qos=1)
        client.loop_start()
        ship = VirtualShip(ShipParams.draw("normal", seed=9, rate_sps=80, table="both"), seed=9)
        from bosun.sim.params import LEVELS

        hands = RandomHands(ship, LEVELS["normal"], 9, seconds + 60)

        class Busy(ShipSource):
            def next_sample(self):
                hands.step()
                return super().next_sample()

        config = {"status_interval_s": 5}
        with VirtualBoard("bench", broker.url, Busy(ship), config=config):
            deadline = time.monotonic() + seconds
            windows = []
            while time.monotonic() < deadline:
                try:
                    status = statuses.get(timeout=1)
                except queue.Empty:
                    continue
                if status.get("loop", {}).get("samples", 0) > 100:
                    windows.append(status)
                    print(f"  window: {json.dumps(status['loop'])}", file=sys.stderr)
        client.loop_stop()
    return windows


def part0(wasm: str | None) -> None:
    from bosun.board.heap import WROOM_HEAP_BYTES, measure_unix, measure_wasm

    runs = [("unix port, 64-bit objects", measure_unix)]
    if wasm:
        runs.append(("WebAssembly port, 32-bit objects", lambda: measure_wasm(wasm)))
    for label, measure in runs:
        figures = measure()
        kb = lambda n: f"{n / 1024:.1f} KB"  # noqa: E731
        print(f"  {label}:")
        romfs = "no vfs.VfsRom" if figures.code_romfs is None else kb(figures.code_romfs)
        print(
            f"    code as .mpy files: {kb(figures.code_mpy)}, frozen: {kb(figures.code_frozen)}, "
            f"ROMFS: {romfs}"
        )
        print(f"    Ship() state: {kb(figures.state)}")
        print(
            f"    full outbox ({figures.outbox_events} events, "
            f"{figures.outbox_payload_bytes // figures.outbox_events} B of JSON each): "
            f"{kb(figures.outbox)} ({figures.outbox // figures.outbox_events} B an event)"
        )
        need_romfs = "" if figures.need_romfs is None else f", {kb(figures.need_romfs)} ROMFS"
        print(
            f"    need: {kb(figures.need_mpy)} as .mpy, {kb(figures.need_frozen)} frozen"
            f"{need_romfs} (WROOM heap {kb(WROOM_HEAP_BYTES)})"
        )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.firmware_loop")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--wasm", help="folder of the npm package @micropython/micropython-webassembly-pyscript"
    )
    parser.add_argument("--heap-only", action="store_true", help="part 0 only")
    args = parser.parse_args()
    print("part 0: the firmware's heap need under MicroPython")
    part0(args.wasm)
    if args.heap_only:
        return 0
    print("part 1: the firmware's code per sample under MicroPython (free hardware)")
    for key, value in part1(min(args.seconds, 60)).items():
        print(f"  {key}: {value:.1f}" if isinstance(value, float) else f"  {key}: {value}")
    print(f"part 2: the firmware on the virtual board, {args.seconds:g} s of random play")
    windows = part2(args.seconds)
    if not windows:
        print("  no status windows seen")
        return 1
    loops = [w["loop"] for w in windows]
    print(f"  windows: {len(loops)} of ~5 s, {sum(x['samples'] for x in loops)} samples")
    print(f"  period mean: {sum(x['period_ms_mean'] for x in loops) / len(loops):.3f} ms")
    print(f"  sample cost mean: {sum(x['sample_cost_us_mean'] for x in loops) / len(loops):.0f} us")
    print(f"  sample cost max: {max(x['sample_cost_us_max'] for x in loops)} us")
    print(f"  slack mean: {sum(x['slack_ms_mean'] for x in loops) / len(loops):.2f} ms")
    print(f"  slack min: {min(x['slack_ms_min'] for x in loops):.2f} ms")
    print(f"  missed conversions: {sum(x['missed_conversions'] for x in loops)}")
    hx = windows[-1]["hx711"]
    print(
        f"  trains discarded (stretched SCK): {hx['discarded_trains']}, "
        f"longest SCK high {hx['longest_sck_high_us']} us"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
