"""A Raspberry Pi ship: the firmware's ship core under CPython, the HX711s on the Pi's GPIO.

`run_gpio_ship(config_path)` (ship.py) runs it; config.py reads its config.json, lines.py
drives the GPIO lines through libgpiod v2's Python bindings (`gpiod`, imported only here).
"""

from bosun.pi.ship import run_gpio_ship

__all__ = ["run_gpio_ship"]
