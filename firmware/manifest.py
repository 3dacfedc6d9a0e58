# Freezes the ship's firmware into a MicroPython image for an ESP32 without PSRAM (the
# recommended ESP32-DevKitC-32E): bytecode, constants and names then stay in flash, and only
# the modules' objects take heap. Heap need, measured stage by stage by bosun.board.heap on
# the 32-bit WebAssembly port (4-byte objects like the ESP32's; `bench/firmware_loop.py`):
#   code loaded from .mpy files ~93 KB | frozen ~14 KB; Ship() state ~18 KB; a full
#   outbox (128 events) ~26 KB. So ~136 KB as .mpy files: more than the ~109 KB heap of a
#   WROOM (111,936 bytes on MicroPython 1.22+); ~57 KB frozen: half of it.
# Build the image once (ESP-IDF 5.x, MicroPython 1.22 or newer):
#   cd micropython/ports/esp32
#   make BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/bosun/firmware/manifest.py
# flash it with esptool (README: Firmware), then `make flash PORT=... FROZEN=1` copies only
# main.py and config.json. A PSRAM board (WROVER, ESP32_GENERIC-SPIRAM image) runs the
# .mpy files of a plain `make flash` instead.
include("$(PORT_DIR)/boards/manifest.py")  # noqa: F821 (defined by MicroPython's build)
package("shipsense", base_path="lib")  # noqa: F821
package("shipcore", base_path="lib")  # noqa: F821
for name in (
    "leds",
    "loopstats",
    "mqtt_link",
    "mqttlite",
    "piezo",
    "serial_link",
    "ship",
    "watchdog",
    "wifi",
):
    module(name + ".py", base_path="lib")  # noqa: F821
