"""`bosun ship --gpio CONFIG`: this Raspberry Pi is the ship (HX711s on its GPIO)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from bosun.pi.config import ConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--gpio",
        required=True,
        metavar="CONFIG",
        help="the ship's config.json (the ESP32's format; pins are the Pi's BCM GPIO numbers); "
        "calibration.json is kept beside it",
    )
    parser.add_argument(
        "--chip",
        default="/dev/gpiochip0",
        metavar="PATH",
        help="the GPIO character device of the header's pins (default /dev/gpiochip0)",
    )


def run(args: argparse.Namespace) -> int:
    from bosun.pi import run_gpio_ship

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        run_gpio_ship(args.gpio, chip=args.chip, stop=stop, log=lambda t: print(t, flush=True))
    except (ConfigError, RuntimeError) as error:
        print(f"bosun ship: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # the chip is missing or its lines are taken
        print(f"bosun ship: cannot use {args.chip}: {error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        stop.set()
    return 0
