"""Waiting for what a test needs: poll a value until a condition holds, with a ceiling."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
POLL_S = 0.02  # the service answers in milliseconds: polling this often costs nothing
CEILING_S = 60.0  # a wait is for an event; the ceiling only stops a hung test


def until(fetch: Callable[[], T], condition: Callable[[T], Any], timeout_s: float = CEILING_S) -> T:
    """`fetch()` again and again until `condition` holds of it; AssertionError with the last
    value fetched once `timeout_s` has passed."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = fetch()
        if condition(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout_s} s; last: {value!r:.600}")
        time.sleep(POLL_S)
