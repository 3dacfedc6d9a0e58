"""`bosun ship --gpio CONFIG`: this Raspberry Pi is the ship (HX711s on its GPIO)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading


def add_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    parser.add_argument(
        "--gpio",
        required=required,
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
    parser.add_argument(
        "--realtime",
        action="store_true",
        help="sample under SCHED_FIFO (root or CAP_SYS_NICE): far fewer clock pulses "
        "stretched by the scheduler",
    )


def run(args: argparse.Namespace) -> int:
    from bosun.pi import run_gpio_ship  # the Pi's own code only when this machine is a ship
    from bosun.pi.config import ConfigError

    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        run_gpio_ship(
            args.gpio,
            chip=args.chip,
            stop=stop,
            log=lambda text: print(text, flush=True),
            realtime=args.realtime,
        )
    except (ConfigError, RuntimeError) as error:
        print(f"bosun ship: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # the chip is missing or its lines are taken
        print(f"bosun ship: cannot use {args.chip}: {error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        stop.set()
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0
