# Freezes the ship's firmware into a MicroPython image, so its code runs from flash instead
# of the heap. Loaded as .mpy files, code and state take ~150 KB of heap on the 64-bit
# unix port (less on the 32-bit ESP32, but a WROOM without PSRAM has only ~110 KB in all).
# Use it when the board has no PSRAM:
#   cd micropython/ports/esp32
#   make BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/bosun/firmware/manifest.py
# then flash that image with esptool and copy only main.py and config.json (not lib/).
# Boards with PSRAM run the stock ESP32_GENERIC-SPIRAM image and `make flash` as they are.
include("$(PORT_DIR)/boards/manifest.py")  # noqa: F821 (defined by MicroPython's build)
package("shipsense", base_path="lib")  # noqa: F821
for name in (
    "calibration",
    "commands",
    "hx711",
    "leds",
    "loadcells",
    "loopstats",
    "mqtt_link",
    "mqttlite",
    "outbox",
    "piezo",
    "serial_link",
    "settings",
    "ship",
    "watchdog",
    "wifi",
):
    module(name + ".py", base_path="lib")  # noqa: F821
