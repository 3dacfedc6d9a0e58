"""HX711 amplifiers on one shared clock: one pulse train reads every channel at once.

Datasheet facts this driver keeps (Avia HX711):
- DOUT high = conversion not ready; DOUT low = data ready. SCK must idle low.
- Each rising SCK edge shifts out one bit, MSB first: 24 bits of two's complement,
  0x800000 (-8388608) .. 0x7FFFFF (8388607). The amplifier clamps to these on overload.
- The 25th pulse pulls DOUT high again; 25, 26 or 27 pulses in all select channel A gain
  128, channel B gain 32 or channel A gain 64 for the NEXT conversion.
- SCK high for more than 60 us powers the chip down (max high time in use: 50 us). The
  pulse is kept short with interrupts off, and its length is measured: a pulse that was
  stretched anyway (a stray NMI on the ESP32, a preempted process on the virtual board)
  may have reset every chip on the bus, so that reading is thrown away and the chips are
  given their settling time.
- After power-up, reset or a gain change the output needs 4 conversions to settle
  (400 ms at 10 SPS, 50 ms at 80 SPS): `SETTLE_READINGS` readings are discarded.

All DOUT lines are read on every pulse: on the ESP32 with one read of GPIO_IN_REG (every
GPIO below 32 in one word, so ten channels cost one read), elsewhere pin by pin. The
readings are transposed into one value a channel after the train, outside the timed part.
"""

import time

try:
    import machine
except ImportError:  # CPython imports this file only for its constants
    machine = None

GPIO_IN_REG = 0x3FF4403C  # ESP32 GPIO_IN_REG: input levels of GPIO0-31
RAW_MIN = -0x800000
RAW_MAX = 0x7FFFFF
GAIN_PULSES = {128: 25, 32: 26, 64: 27}
MAX_HIGH_US = 50
POWER_DOWN_US = 60
SETTLE_READINGS = 4


def _no_irq_off():
    return 0


def _no_irq_on(state):
    return None


class HX711Bus:
    """Several HX711 sharing SCK; `read()` fills `values` (raw counts, one a channel)."""

    def __init__(self, sck, douts, gain=128, gpios=None, mem=None, reg=GPIO_IN_REG):
        if gain not in GAIN_PULSES:
            raise ValueError(f"HX711 gain must be 128, 64 or 32, not {gain!r}")
        self.sck = sck
        self.douts = list(douts)
        self.channels = len(self.douts)
        self.extra_pulses = GAIN_PULSES[gain] - 24
        self.values = [0] * self.channels
        # One word a pulse: bit `self.bits[ch]` is channel ch's DOUT level.
        self._words = [0] * 24
        self.mem = mem
        self.reg = reg
        if mem is not None:
            if gpios is None or len(gpios) != self.channels:
                raise ValueError("register reads need the GPIO number of every DOUT")
            for gpio in gpios:
                if not 0 <= gpio < 32:
                    raise ValueError(f"GPIO{gpio} is not in GPIO_IN_REG (0-31)")
            self.bits = [1 << gpio for gpio in gpios]
        else:
            self.bits = [1 << ch for ch in range(self.channels)]
        self._all_bits = 0
        for bit in self.bits:
            self._all_bits |= bit
        self._active_bits = self._all_bits
        if machine is not None and hasattr(machine, "disable_irq"):
            self._irq_off = machine.disable_irq
            self._irq_on = machine.enable_irq
        else:
            self._irq_off = _no_irq_off
            self._irq_on = _no_irq_on
        self.stretched_pulses = 0
        self.longest_high_us = 0
        self.powered_down = False
        sck.value(0)

    # --- the DOUT lines -----------------------------------------------------------------

    def levels(self):
        """One word of DOUT levels, bit `bits[ch]` for channel ch (1 = not ready)."""
        if self.mem is not None:
            return self.mem[self.reg] & self._all_bits
        word = 0
        douts = self.douts
        bits = self.bits
        for ch in range(self.channels):
            if douts[ch].value():
                word |= bits[ch]
        return word

    def set_active(self, channel_mask):
        """Channels (bit ch of `channel_mask`) that `ready()` waits for; faulted ones are not."""
        active = 0
        for ch in range(self.channels):
            if channel_mask & (1 << ch):
                active |= self.bits[ch]
        self._active_bits = active

    def ready(self):
        """True when every active channel has a conversion ready (all their DOUT low)."""
        if self.mem is not None:
            return self.mem[self.reg] & self._active_bits == 0
        return self.levels() & self._active_bits == 0

    def not_ready(self):
        """Bit ch set for every channel whose DOUT is high now."""
        word = self.levels()
        mask = 0
        for ch in range(self.channels):
            if word & self.bits[ch]:
                mask |= 1 << ch
        return mask

    # --- the pulse train ----------------------------------------------------------------

    def read(self):
        """Clock out one conversion of every channel; False if a pulse was too long.

        After a False, `powered_down` says whether the pulse was long enough (over 60 us)
        to have reset every chip, which then need SETTLE_READINGS to settle.

        Channels that were not ready shift nothing (their DOUT stays high) and read as -1;
        the caller knows which they were from `not_ready()` before the call.
        """
        sck = self.sck.value
        ticks_us = time.ticks_us
        ticks_diff = time.ticks_diff
        words = self._words
        mem = self.mem
        reg = self.reg
        longest = 0
        state = self._irq_off()
        try:
            if mem is not None:
                for i in range(24):
                    t0 = ticks_us()
                    sck(1)
                    sck(0)
                    high = ticks_diff(ticks_us(), t0)
                    if high > longest:
                        longest = high
                    # DOUT is valid from 0.1 us after the rising edge until the next one.
                    words[i] = mem[reg]
            else:
                douts = self.douts
                bits = self.bits
                channels = self.channels
                for i in range(24):
                    t0 = ticks_us()
                    sck(1)
                    sck(0)
                    high = ticks_diff(ticks_us(), t0)
                    if high > longest:
                        longest = high
                    word = 0
                    for ch in range(channels):
                        if douts[ch].value():
                            word |= bits[ch]
                    words[i] = word
            for _ in range(self.extra_pulses):
                t0 = ticks_us()
                sck(1)
                sck(0)
                high = ticks_diff(ticks_us(), t0)
                if high > longest:
                    longest = high
        finally:
            self._irq_on(state)
        if longest > self.longest_high_us:
            self.longest_high_us = longest
        # Above 50 us the bits are not trustworthy; above 60 us every chip also reset.
        self.powered_down = longest > POWER_DOWN_US
        if longest > MAX_HIGH_US:
            self.stretched_pulses += 1
            return False
        values = self.values
        bits = self.bits
        for ch in range(self.channels):
            bit = bits[ch]
            value = 0
            for i in range(24):
                value <<= 1
                if words[i] & bit:
                    value |= 1
            # 24-bit two's complement: 0x800000 is -8388608, 0xFFFFFF is -1.
            if value & 0x800000:
                value -= 0x1000000
            values[ch] = value
        return True

    def power_down(self):
        """SCK high: every chip on the bus powers down after 60 us."""
        self.sck.value(1)

    def power_up(self):
        """SCK low: the chips reset (gain 128) and need SETTLE_READINGS to settle."""
        self.sck.value(0)
