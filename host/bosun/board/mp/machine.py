"""Virtual `machine` for the MicroPython unix port: the ESP32's pins, registers, IRQs, WDT.

Shadows the port's own `machine` (whose PinBase and Signal it re-exports from `umachine`);
every pin is a `PinBase` subclass whose level comes from the virtual board (vboard). The
constants have the ESP32 port's values.
"""

import os

import umachine
from vboard import GPIO_IN1_REG, GPIO_IN_REG, board

PinBase = umachine.PinBase
Signal = umachine.Signal
time_pulse_us = umachine.time_pulse_us

PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5


class Pin(PinBase):
    """A GPIO of the virtual ESP32; its role (SCK, a DOUT, the piezo...) is the board's wiring."""

    IN = 1
    OUT = 3
    OPEN_DRAIN = 7
    PULL_DOWN = 1
    PULL_UP = 2
    IRQ_RISING = 1
    IRQ_FALLING = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        if not isinstance(id, int) or not 0 <= id <= 39:
            raise ValueError(f"invalid pin {id!r}")
        self.id = id
        self._mode = mode
        self.kind, self.index = board.role(id)
        if mode == self.OUT and id >= 34:
            raise ValueError(f"GPIO{id} is input-only")
        if value is not None:
            self.value(value)

    def init(self, mode=-1, pull=-1, value=None):
        self._mode = mode
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            if self.kind == "dout":
                return board.dout(self.index)
            return board.level(self.id)
        if self.kind == "sck":
            board.sck(1 if v else 0)
        else:
            board.levels[self.id] = 1 if v else 0

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def irq(self, handler=None, trigger=3, priority=1, wake=None, hard=False):
        board.set_irq(self.id, self, handler, trigger)

    def __repr__(self):
        return f"Pin({self.id})"


class _Registers:
    """mem32: GPIO_IN_REG and GPIO_IN1_REG read the virtual pins; nothing else is modelled."""

    def __getitem__(self, address):
        if address == GPIO_IN_REG:
            return board.gpio_in()
        if address == GPIO_IN1_REG:
            return board.gpio_in(True)
        raise ValueError(f"the virtual board has no register at {address:#x}")

    def __setitem__(self, address, value):
        raise ValueError(f"the virtual board does not model writes to {address:#x}")


mem32 = _Registers()
mem16 = _Registers()
mem8 = _Registers()


def disable_irq():
    return board.disable_irq()


def enable_irq(state=0):
    board.enable_irq(state)


class WDT:
    """The hardware watchdog: once started it cannot be stopped."""

    def __init__(self, id=0, timeout=5000):
        if timeout < 1:
            raise ValueError("timeout must be positive")
        board.wdt_start(timeout)

    def feed(self):
        board.wdt_feed()


def reset():
    board.reset()


def soft_reset():
    board.reset()


def reset_cause():
    return int(os.getenv("BOSUN_BOARD_RESET_CAUSE") or PWRON_RESET)


def unique_id():
    text = os.getenv("BOSUN_BOARD_UID") or "240ac4000001"
    return bytes(int(text[i : i + 2], 16) for i in range(0, len(text), 2))


def freq(hz=None):
    return 240000000


def idle():
    board.poll()
