"""The virtual ESP32 board: wiring, HX711 timing, the feed from the host side, LEDs, WiFi, WDT.

MicroPython-side half of bosun.board; the virtual `machine`, `neopixel` and `network`
modules delegate to `board` here. Two ways to drive it:
- standalone (MicroPython unit tests): `board.wire(...)`, `board.set_raw(channel, counts)`;
- fed (BOSUN_BOARD_FEED=host:port, set by bosun.board.launcher): a TCP connection to the
  CPython side, which sends the wiring and then one row of raw counts per conversion tick
  (the virtual ship's loads through the load cell model) plus control messages, and gets
  back LED frames, watchdog feeds, reset requests and how many rows were used.
Rows are consumed one per conversion tick in real time; if none is waiting the analogue
world holds still (the last row stays), which no real ship does: the host is told how many
ticks it held (b"U"). Nothing here prints to stdout: that is the ship's serial console.

Feed frames, host to board: b"S" n:u8 n*i32 impact:u8 (a row), b"J" len:u16 JSON (control:
{"wire": {...}}, {"amp": [channel, mode]}, {"wifi": bool}). Board to host: b"H" (hello),
b"R" u32 (rows used), b"L" len:u16 RGB bytes (a frame), b"W" u32 (watchdog started, ms),
b"F" (watchdog fed), b"Z" (reset requested), b"U" u32 (conversion ticks the world has held
still so far, for want of a row; sent when rows come again). All integers little-endian.
"""

import json
import os
import socket
import struct
import sys
import time

from vhx711 import POWER_DOWN_US, VirtualHX711

GPIO_IN_REG = 0x3FF4403C
GPIO_IN1_REG = 0x3FF44040
EXIT_WATCHDOG = 3
EXIT_RESET = 4
IRQ_RISING = 1
IRQ_FALLING = 2
WIFI_JOIN_MS = 50
FEED_FLUSH_MS = 100


def _warn(text):
    sys.stderr.write("virtual board: " + text + "\n")


class Board:
    """The one board of this process (`board` below)."""

    def __init__(self):
        self.power_down_us = POWER_DOWN_US
        self.rate_hz = 80
        self.period_us = 12500
        self.chips = []
        self.dout_gpios = []
        self.roles = {}
        self.sck_gpio = None
        self.sck_level = 0
        self.sck_rise_us = 0
        self.rises = 0
        self.power_down_resets = 0
        self.levels = {}
        self.raw = []
        self.row = None
        self.rows = []
        self.rows_used = 0
        self.held_ticks = 0
        self.held = 0
        self.impact = 0
        self.piezo_gpio = None
        self.irq = {}
        self.irq_disabled = 0
        self.irq_pending = []
        self.led_gpio = None
        self.frames = []
        self.last_frame = None
        self.wifi_available = True
        self.wifi_ssid = None
        self.wifi_joined_ms = None
        self.wifi_wanted = None
        self.wdt_timeout_ms = None
        self.wdt_fed_ms = 0
        self.wdt_sent_ms = 0
        self.sock = None
        self._rx = b""
        now = time.ticks_us()
        self.tick_due = now
        self.next_due = now
        self.ticks = 0

    # --- wiring ---------------------------------------------------------------------------

    def wire(
        self,
        sck,
        douts,
        piezo=None,
        led=None,
        rate_hz=80,
        phases_us=None,
        wifi_ssid=None,
        power_down_us=POWER_DOWN_US,
    ):
        """Connect HX711 chips (one a DOUT GPIO, channel order) to the shared SCK, etc.

        `power_down_us` is the datasheet's 60 us; a test about something else may raise it
        so that this process being preempted mid-pulse does not power the chips down.
        """
        self.power_down_us = power_down_us
        self.rate_hz = rate_hz
        self.period_us = 1000000 // rate_hz
        self.sck_gpio = sck
        self.dout_gpios = list(douts)
        self.roles = {sck: ("sck", 0)}
        self.chips = []
        self.raw = [0] * len(douts)
        for ch, gpio in enumerate(douts):
            self.roles[gpio] = ("dout", ch)
            phase = phases_us[ch] if phases_us else 0
            self.chips.append(VirtualHX711(self, ch, rate_hz, phase))
        if piezo is not None:
            self.roles[piezo] = ("piezo", 0)
        self.piezo_gpio = piezo
        if led is not None:
            self.roles[led] = ("led", 0)
        self.led_gpio = led
        self.wifi_ssid = wifi_ssid
        now = time.ticks_us()
        self.tick_due = time.ticks_add(now, self.period_us)
        self.next_due = now

    def role(self, gpio):
        return self.roles.get(gpio, ("plain", 0))

    def set_raw(self, channel, counts):
        """Standalone mode: the analogue input of `channel` in counts (before gain)."""
        self.raw[channel] = counts

    def set_mode(self, channel, mode):
        self.chips[channel].mode = mode

    def raw_for(self, channel, gain):
        if self.row is not None and channel < len(self.row):
            value = self.row[channel]
        else:
            value = self.raw[channel]
        if gain == 64:
            return value // 2
        if gain == 32:
            return 0  # channel B: nothing is wired to it
        return value

    # --- time -----------------------------------------------------------------------------

    def poll(self):
        now = time.ticks_us()
        if time.ticks_diff(now, self.next_due) >= 0:
            self._advance(now)
        return now

    def _advance(self, now):
        if self.rises:
            self._flush_edges()
        while time.ticks_diff(now, self.tick_due) >= 0:
            self.tick_due = time.ticks_add(self.tick_due, self.period_us)
            self.ticks += 1
            self._tick()
        next_due = self.tick_due
        for chip in self.chips:
            chip.update(now)
            if time.ticks_diff(chip.due_us, next_due) < 0:
                next_due = chip.due_us
        self.next_due = next_due
        self._check_watchdog()

    def _tick(self):
        if self.sock is not None:
            self._receive()
        impact = self.impact
        if self.rows:
            if self.held:
                self.held_ticks += self.held
                self.held = 0
                self._send(b"U" + struct.pack("<I", self.held_ticks))
            self.row, impact = self.rows.pop(0)
            self.rows_used += 1
            if self.rows_used % 2 == 0:
                self._send(b"R" + struct.pack("<I", self.rows_used))
        elif self.sock is not None:
            self.held += 1  # the host is late: the world holds still, and the host is told
        if impact and not self.impact:
            self._edge(self.piezo_gpio, IRQ_RISING)
        elif self.impact and not impact:
            self._edge(self.piezo_gpio, IRQ_FALLING)
        self.impact = impact

    # --- pins -----------------------------------------------------------------------------

    def dout(self, channel):
        if self.rises:
            self._flush_edges()
        now = self.poll()
        if self.sck_level and time.ticks_diff(now, self.sck_rise_us) > self.power_down_us:
            return 1  # every chip on the bus is powered down
        return self.chips[channel].dout()

    def sck(self, level):
        # Edges are only counted here and applied to the chips at the next DOUT read, so
        # that the SCK high time the firmware measures is its own, not the model's work.
        if level:
            if not self.sck_level:
                self.sck_level = 1
                self.sck_rise_us = time.ticks_us()
                self.rises += 1
        elif self.sck_level:
            now = time.ticks_us()
            self.sck_level = 0
            if time.ticks_diff(now, self.sck_rise_us) > self.power_down_us:
                self.power_down_resets += 1
                self.rises = 0
                for chip in self.chips:
                    chip.reset(now)
                self.next_due = now

    def _flush_edges(self):
        now = time.ticks_us()
        rises = self.rises
        self.rises = 0
        for _ in range(rises):
            for chip in self.chips:
                chip.rising(now)

    def level(self, gpio):
        kind, index = self.role(gpio)
        if kind == "dout":
            return self.dout(index)
        if kind == "sck":
            return self.sck_level
        if kind == "piezo":
            self.poll()
            return self.impact
        return self.levels.get(gpio, 0)

    def gpio_in(self, high_bank=False):
        """The GPIO_IN_REG (GPIO0-31) or GPIO_IN1_REG (GPIO32-39) word."""
        if self.rises:
            self._flush_edges()
        self.poll()
        word = 0
        lo, hi = (32, 40) if high_bank else (0, 32)
        powered_down = self.sck_level and (
            time.ticks_diff(time.ticks_us(), self.sck_rise_us) > self.power_down_us
        )
        for ch, gpio in enumerate(self.dout_gpios):
            if lo <= gpio < hi and (powered_down or self.chips[ch].dout()):
                word |= 1 << (gpio - lo)
        for gpio, value in ((self.sck_gpio, self.sck_level), (self.piezo_gpio, self.impact)):
            if gpio is not None and lo <= gpio < hi and value:
                word |= 1 << (gpio - lo)
        for gpio in self.levels:
            if lo <= gpio < hi and self.levels[gpio]:
                word |= 1 << (gpio - lo)
        return word

    def set_irq(self, gpio, pin, handler, trigger):
        if handler is None:
            self.irq.pop(gpio, None)
        else:
            self.irq[gpio] = (pin, handler, trigger)

    def _edge(self, gpio, direction):
        entry = self.irq.get(gpio)
        if entry is None or not entry[2] & direction:
            return
        if self.irq_disabled:
            if entry not in self.irq_pending:
                self.irq_pending.append(entry)  # latched until interrupts are on again
            return
        entry[1](entry[0])

    def disable_irq(self):
        self.irq_disabled += 1
        return self.irq_disabled - 1

    def enable_irq(self, state):
        self.irq_disabled = state
        if not state and self.irq_pending:
            pending = self.irq_pending
            self.irq_pending = []
            for pin, handler, _trigger in pending:
                handler(pin)

    # --- LEDs, WiFi, watchdog, reset -----------------------------------------------------

    def led_write(self, rgb):
        frame = bytes(rgb)
        self.last_frame = frame
        if self.sock is not None:
            self._send(b"L" + struct.pack("<H", len(frame)) + frame)
        else:
            self.frames.append(frame)
            if len(self.frames) > 1000:
                self.frames.pop(0)

    def wifi_connect(self, ssid):
        self.wifi_wanted = ssid
        self.wifi_joined_ms = time.ticks_ms()

    def wifi_status(self):
        """(connected, ESP32 WLAN status code)."""
        self.poll()
        if self.wifi_wanted is None:
            return False, 1000
        if self.wifi_ssid is not None and self.wifi_wanted != self.wifi_ssid:
            return False, 201  # STAT_NO_AP_FOUND
        if not self.wifi_available:
            return False, 200  # STAT_BEACON_TIMEOUT: the network went away
        if self.wifi_joined_ms is None:
            return False, 1000
        if time.ticks_diff(time.ticks_ms(), self.wifi_joined_ms) < WIFI_JOIN_MS:
            return False, 1001
        return True, 1010

    def wdt_start(self, timeout_ms):
        self.wdt_timeout_ms = timeout_ms
        self.wdt_fed_ms = time.ticks_ms()
        self._send(b"W" + struct.pack("<I", timeout_ms))

    def wdt_feed(self):
        now = time.ticks_ms()
        self.wdt_fed_ms = now
        if time.ticks_diff(now, self.wdt_sent_ms) >= FEED_FLUSH_MS:
            self.wdt_sent_ms = now
            self._send(b"F")

    def _check_watchdog(self):
        # Fed mode: the launcher watches (it can also catch a hung process). Standalone:
        # checked here whenever the firmware touches a pin.
        if self.wdt_timeout_ms is None or self.sock is not None:
            return
        if time.ticks_diff(time.ticks_ms(), self.wdt_fed_ms) > self.wdt_timeout_ms:
            _warn("watchdog reset")
            sys.exit(EXIT_WATCHDOG)

    def reset(self):
        _warn("reset requested")
        self._send(b"Z")
        sys.exit(EXIT_RESET)

    # --- the feed -------------------------------------------------------------------------

    def connect_feed(self, address, timeout_s=10):
        host, _, port = address.rpartition(":")
        sock = socket.socket()
        sock.connect(socket.getaddrinfo(host, int(port))[0][-1])
        sock.settimeout(timeout_s)
        self.sock = sock
        self._send(b"H")
        # Block until the wiring and the first row are here: the firmware must not start
        # sampling an unwired board.
        while not (self.chips and self.rows):
            data = sock.recv(4096)
            if not data:
                raise OSError("the launcher closed the feed")
            self._rx += data
            self._parse()
        sock.setblocking(False)

    def _receive(self):
        while True:
            try:
                data = self.sock.recv(4096)
            except OSError:
                break  # EAGAIN: nothing more for now
            if not data:
                _warn("the launcher closed the feed")
                self.sock = None
                sys.exit(EXIT_RESET)
            self._rx += data
            if len(data) < 4096:
                break
        self._parse()

    def _parse(self):
        buf = self._rx
        pos = 0
        while pos < len(buf):
            kind = buf[pos]
            if kind == 0x53:  # "S": a row
                if pos + 2 > len(buf):
                    break
                n = buf[pos + 1]
                end = pos + 2 + 4 * n + 1
                if end > len(buf):
                    break
                counts = list(struct.unpack_from("<" + str(n) + "i", buf, pos + 2))
                self.rows.append((counts, buf[end - 1]))
                pos = end
            elif kind == 0x4A:  # "J": control
                if pos + 3 > len(buf):
                    break
                (length,) = struct.unpack_from("<H", buf, pos + 1)
                end = pos + 3 + length
                if end > len(buf):
                    break
                self._control(json.loads(buf[pos + 3 : end]))
                pos = end
            else:
                _warn(f"bad feed frame {kind}")
                pos = len(buf)
        self._rx = buf[pos:]

    def _control(self, msg):
        if "wire" in msg:
            w = msg["wire"]
            self.wire(
                w["sck"],
                w["douts"],
                w.get("piezo"),
                w.get("led"),
                w.get("rate_hz", 80),
                w.get("phases_us"),
                w.get("wifi_ssid"),
            )
        if "amp" in msg:
            channel, mode = msg["amp"]
            self.set_mode(channel, mode)
        if "wifi" in msg:
            available = bool(msg["wifi"])
            if available and not self.wifi_available and self.wifi_wanted is not None:
                # Like the ESP32's WiFi driver: it rejoins by itself when the network is back.
                self.wifi_joined_ms = time.ticks_ms()
            self.wifi_available = available

    def _send(self, data):
        if self.sock is None:
            return
        view = memoryview(data)
        deadline = time.ticks_add(time.ticks_ms(), 1000)
        while view:
            try:
                n = self.sock.send(view)
            except OSError:
                n = 0
                if time.ticks_diff(time.ticks_ms(), deadline) > 0:
                    _warn("the launcher stopped reading; a message was dropped")
                    return
            view = view[n:]


board = Board()
_feed = os.getenv("BOSUN_BOARD_FEED")
if _feed:
    board.connect_feed(_feed)
