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

All DOUT lines are read on every pulse: on the ESP32 from the GPIO input registers
(GPIO_IN_REG holds GPIO0-31, GPIO_IN1_REG GPIO32-39 in its bits 0-7), one read a register
and pulse however many channels it holds, so the eleven DOUTs of the reference wiring (all
below GPIO32) cost one read a pulse and DOUTs spread over both registers two; elsewhere pin
by pin. The readings are transposed into one value a channel after the train, outside the
timed part. The ESP32 has no GPIO28-31, so a register word stays below 2**30: a small int,
whose reading allocates nothing.
"""

import time

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from collections.abc import Sequence

    from hardware import Memory, MicrosecondClock, Pin

try:
    import machine
except ImportError:  # CPython: a Raspberry Pi's GPIO (bosun.pi), or only the constants
    machine = None

GPIO_IN_REG = 0x3FF4403C  # ESP32 GPIO_IN_REG: input levels of GPIO0-31
GPIO_IN1_REG = 0x3FF44040  # ESP32 GPIO_IN1_REG: input levels of GPIO32-39 (bits 0-7)
RAW_MIN = -0x800000
RAW_MAX = 0x7FFFFF
GAIN_PULSES = {128: 25, 32: 26, 64: 27}
MAX_HIGH_US = 50
POWER_DOWN_US = 60
SETTLE_READINGS = 4


def _no_irq_off() -> int:
    return 0


def _no_irq_on(state: int) -> None:
    return None


class HX711Bus:
    """Several HX711 sharing SCK; `read()` fills `values` (raw counts, one a channel)."""

    def __init__(
        self,
        sck: "Pin",
        douts: "Sequence[Pin]",
        gain: int = 128,
        gpios: "list[int] | None" = None,
        mem: "Memory | None" = None,
        reg: int = GPIO_IN_REG,
        reg1: int = GPIO_IN1_REG,
        clock: "MicrosecondClock | None" = None,
    ) -> None:
        """`clock`: what times the pulses (ticks_us, ticks_diff); MicroPython's `time` unless
        given (CPython has no ticks: bosun.pi gives its own)."""
        if gain not in GAIN_PULSES:
            raise ValueError(f"HX711 gain must be 128, 64 or 32, not {gain!r}")
        clock = time if clock is None else clock
        self._ticks_us = clock.ticks_us
        self._ticks_diff = clock.ticks_diff
        self.sck = sck
        self.douts = list(douts)
        self.channels = len(self.douts)
        self.extra_pulses = GAIN_PULSES[gain] - 24
        self.values = [0] * self.channels
        # One word a register and pulse: bit `bits[ch]` of the word of register `banks[ch]`
        # (0: GPIO_IN_REG, 1: GPIO_IN1_REG) is channel ch's DOUT level.
        self._words = [0] * 24
        self._words1 = [0] * 24
        self.mem = mem
        self.reg = reg
        self.reg1 = reg1
        self.banks = [0] * self.channels
        if mem is not None:
            if gpios is None or len(gpios) != self.channels:
                raise ValueError("register reads need the GPIO number of every DOUT")
            for gpio in gpios:
                if not 0 <= gpio <= 39:
                    raise ValueError(f"GPIO{gpio} is not in GPIO_IN_REG or GPIO_IN1_REG (0-39)")
            self.banks = [1 if gpio >= 32 else 0 for gpio in gpios]
            self.bits = [1 << (gpio & 31) for gpio in gpios]
        else:
            self.bits = [1 << ch for ch in range(self.channels)]
        # Per register: every channel's bits, and those of the channels ready() waits for.
        self._all = [0, 0]
        for ch in range(self.channels):
            self._all[self.banks[ch]] |= self.bits[ch]
        self._active0 = self._all[0]
        self._active1 = self._all[1]
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

    @property
    def registers(self) -> int:
        """How many input registers a clock pulse reads (0 when reading pin by pin)."""
        if self.mem is None:
            return 0
        return (1 if self._all[0] else 0) + (1 if self._all[1] else 0)

    # --- the DOUT lines -----------------------------------------------------------------

    def _pin_word(self) -> int:
        word = 0
        douts = self.douts
        bits = self.bits
        for ch in range(self.channels):
            if douts[ch].value():
                word |= bits[ch]
        return word

    def set_active(self, channel_mask: int) -> None:
        """Channels (bit ch of `channel_mask`) that `ready()` waits for; faulted ones are not."""
        active = [0, 0]
        for ch in range(self.channels):
            if channel_mask & (1 << ch):
                active[self.banks[ch]] |= self.bits[ch]
        self._active0 = active[0]
        self._active1 = active[1]

    def ready(self) -> bool:
        """True when every active channel has a conversion ready (all their DOUT low)."""
        mem = self.mem
        if mem is None:
            return self._pin_word() & self._active0 == 0
        if mem[self.reg] & self._active0:
            return False
        return not self._active1 or mem[self.reg1] & self._active1 == 0

    def not_ready(self) -> int:
        """Bit ch set for every channel whose DOUT is high now."""
        mem = self.mem
        if mem is None:
            word0 = self._pin_word()
            word1 = 0
        else:
            word0 = mem[self.reg] if self._all[0] else 0
            word1 = mem[self.reg1] if self._all[1] else 0
        mask = 0
        banks = self.banks
        bits = self.bits
        for ch in range(self.channels):
            if (word1 if banks[ch] else word0) & bits[ch]:
                mask |= 1 << ch
        return mask

    # --- the pulse train ----------------------------------------------------------------

    def read(self) -> bool:
        """Clock out one conversion of every channel; False if a pulse was too long.

        After a False, `powered_down` says whether the pulse was long enough (over 60 us)
        to have reset every chip, which then need SETTLE_READINGS to settle.

        Channels that were not ready shift nothing (their DOUT stays high) and read as -1;
        the caller knows which they were from `not_ready()` before the call.
        """
        sck = self.sck.value
        ticks_us = self._ticks_us  # locals: the timed loop below looks them up 50 times
        ticks_diff = self._ticks_diff
        words = self._words
        words1 = self._words1
        mem = self.mem
        reg = self.reg
        reg1 = self.reg1
        read0 = self._all[0] != 0
        read1 = self._all[1] != 0
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
                    # DOUT is valid from 0.1 us after the rising edge until the next one;
                    # the reads come after the falling edge so they never stretch the pulse.
                    if read0:
                        words[i] = mem[reg]
                    if read1:
                        words1[i] = mem[reg1]
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
        banks = self.banks
        for ch in range(self.channels):
            bit = bits[ch]
            bank_words = words1 if banks[ch] else words
            value = 0
            for i in range(24):
                value <<= 1
                if bank_words[i] & bit:
                    value |= 1
            # 24-bit two's complement: 0x800000 is -8388608, 0xFFFFFF is -1.
            if value & 0x800000:
                value -= 0x1000000
            values[ch] = value
        return True

    def power_down(self) -> None:
        """SCK high: every chip on the bus powers down after 60 us."""
        self.sck.value(1)

    def power_up(self) -> None:
        """SCK low: the chips reset (gain 128) and need SETTLE_READINGS to settle."""
        self.sck.value(0)
