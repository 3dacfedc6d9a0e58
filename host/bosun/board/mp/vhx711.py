"""A virtual HX711, bit by bit as its datasheet describes it (MicroPython, virtual board).

What it models:
- conversions at the configured rate (10 or 80 SPS), each chip on its own phase;
- DOUT high while no conversion is waiting, low when one is (the ready signal);
- each rising SCK edge shifts out one bit, MSB first, of 24-bit two's complement
  (0x800000..0x7FFFFF, clamped there like the real ADC);
- the 25th pulse pulls DOUT high; 25/26/27 pulses select A-128 / B-32 / A-64 for the next
  conversion; a gain or channel change, like a power-up, leaves the next SETTLE_CONVERSIONS
  conversions unsettled (they ramp towards the true value);
- SCK high for more than POWER_DOWN_US powers the chip down (DOUT high, no conversions);
  SCK low again resets it: gain A-128, a fresh conversion one period later, settling.
Assumptions where the datasheet is silent: pulses to a chip with no conversion waiting shift
nothing (DOUT stays high); a conversion finishing in the middle of a readout is lost; a
readout cut short is abandoned when a conversion finishes half a period after its last
pulse.
Fault modes for tests: "silent" (no power or DOUT wire: never ready), "stuck" (DOUT stuck
low: always "ready", reads 0), "saturated" (overload: reads 0x7FFFFF).
"""

import time

RAW_MIN = -0x800000
RAW_MAX = 0x7FFFFF
POWER_DOWN_US = 60
SETTLE_CONVERSIONS = 4
MODES = ("ok", "silent", "stuck", "saturated")


class VirtualHX711:
    """One amplifier; `board.raw_for(channel, gain)` supplies its analogue input as counts."""

    def __init__(self, board, channel, rate_hz=80, phase_us=0):
        self.board = board
        self.channel = channel
        self.period_us = 1000000 // rate_hz
        self.phase_us = phase_us
        self.mode = "ok"
        self.conversions = 0
        self.readouts = 0
        self.power_downs = 0
        self.reset(time.ticks_us(), first=True)

    def reset(self, now_us, first=False):
        """Power-up or the reset after a power-down: gain A-128, settling, no data yet."""
        if not first:
            self.power_downs += 1
        self.gain = 128
        self.next_gain = 128
        self.ready = False
        self.pulses = 0
        self.word = 0
        self.level = 1
        self.data = 0
        self.settle_left = SETTLE_CONVERSIONS
        self.last_pulse_us = now_us
        self.due_us = time.ticks_add(now_us, self.period_us + self.phase_us)

    def update(self, now_us):
        """Finish every conversion that is due by `now_us`."""
        while time.ticks_diff(now_us, self.due_us) >= 0:
            self.due_us = time.ticks_add(self.due_us, self.period_us)
            self._convert(now_us)

    def _convert(self, now_us):
        if self.mode == "silent":
            return
        if self.pulses:
            if self.pulses >= 25:
                self.pulses = 0  # the readout is complete: the chosen gain takes effect
                if self.next_gain != self.gain:
                    self.gain = self.next_gain
                    self.settle_left = SETTLE_CONVERSIONS
            elif time.ticks_diff(now_us, self.last_pulse_us) > self.period_us // 2:
                self.pulses = 0  # a readout cut short long ago: abandoned
            else:
                return  # finished in the middle of a readout: this result is lost
        value = self.board.raw_for(self.channel, self.gain)
        if self.mode == "saturated":
            value = RAW_MAX
        if self.settle_left:
            # The digital filter is still filling: a ramp towards the true value.
            step = SETTLE_CONVERSIONS + 1 - self.settle_left
            value = value * step // (SETTLE_CONVERSIONS + 1)
            self.settle_left -= 1
        if value > RAW_MAX:
            value = RAW_MAX
        elif value < RAW_MIN:
            value = RAW_MIN
        self.data = value
        self.ready = True
        self.conversions += 1

    def dout(self):
        if self.mode == "stuck":
            return 0
        if self.mode == "silent":
            return 1
        if self.pulses:
            return self.level
        return 0 if self.ready else 1

    def rising(self, now_us):
        """A rising SCK edge (the board has already updated conversions to `now_us`)."""
        if self.mode in ("silent", "stuck"):
            return
        if not self.pulses:
            if not self.ready:
                return
            self.word = self.data & 0xFFFFFF
            self.ready = False
            self.readouts += 1
        self.pulses += 1
        self.last_pulse_us = now_us
        n = self.pulses
        if n <= 24:
            self.level = (self.word >> (24 - n)) & 1
        elif n == 25:
            self.level = 1
            self.next_gain = 128
        elif n == 26:
            self.next_gain = 32
        elif n == 27:
            self.next_gain = 64
