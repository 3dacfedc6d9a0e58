"""The ship's core, the same files on the ESP32 and the host (core.ShipCore and its parts).

config.json (settings), calibration.json (calibration), the HX711 driver (hx711), grams and
broken channels (loadcells), the host's commands (commands), the outbox (outbox).
"""
