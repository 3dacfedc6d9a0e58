"""Argument types for the commands: a bad value names itself and the range it missed."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def whole_number(low: int, high: int, high_text: str | None = None) -> Callable[[str], int]:
    """An int in [low, high]; `high_text` shows a huge bound readably (e.g. "2**63")."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{value} is not between {low} and {high_text or high}"
            )
        return value

    return parse


def number(low: float, high: float, unit: str = "") -> Callable[[str], float]:
    """A float in [low, high] (NaN and infinities refused), in `unit` if given."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            of_unit = f" of {unit}" if unit else ""
            raise argparse.ArgumentTypeError(f"{text!r} is not a number{of_unit}") from None
        if not low <= value <= high:  # also false for nan
            in_unit = f" {unit}" if unit else ""
            raise argparse.ArgumentTypeError(f"{text} is not between {low:g} and {high:g}{in_unit}")
        return value

    return parse


def broker_url(text: str) -> str:
    """An MQTT broker's URL, mqtt[s]://[user@]host[:port] (never a password: it would be on
    the command line)."""
    from bosun.bus.access import parse_broker_url

    try:
        parse_broker_url(text)
    except ValueError as why:
        raise argparse.ArgumentTypeError(str(why)) from None
    return text


def listen_address(text: str) -> tuple[str, int]:
    """ADDR:PORT (or PORT alone: every address) to listen on, e.g. 0.0.0.0:1883."""
    host, sep, port_text = text.rpartition(":")
    host = host.strip("[]") if sep else "0.0.0.0"
    port = whole_number(1, 65535)(port_text)
    if not host:
        raise argparse.ArgumentTypeError(f"{text!r} must look like ADDR:PORT, e.g. 0.0.0.0:1883")
    return host, port


def add_broker_arguments(p: argparse.ArgumentParser, default: str | None = None) -> None:
    """--mqtt URL, --mqtt-password-file FILE, --mqtt-ca FILE: any broker, never a password
    on the command line."""
    p.add_argument(
        "--mqtt",
        type=broker_url,
        default=default,
        metavar="URL",
        help="use this broker: mqtt://[user@]host:1883 or mqtts://user@host:8883",
    )
    p.add_argument(
        "--mqtt-password-file",
        metavar="FILE",
        default=None,
        help="the broker user's password, on the file's first line (else $BOSUN_MQTT_PASSWORD)",
    )
    p.add_argument(
        "--mqtt-ca", metavar="FILE", default=None, help="the CA to trust for mqtts:// (PEM)"
    )
