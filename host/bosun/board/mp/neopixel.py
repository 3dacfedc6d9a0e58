"""Virtual `neopixel`: a WS2812 strip whose frames the virtual board captures."""

from vboard import board


class NeoPixel:
    """Same interface as the ESP32 port's: setitem/getitem (r, g, b), fill, write."""

    ORDER = (1, 0, 2, 3)  # WS2812 wants green first; the buffer is kept as the chip sees it

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for c in range(self.bpp):
            self.buf[offset + self.ORDER[c]] = v[c]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[c]] for c in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        rgb = bytearray(self.n * 3)
        for i in range(self.n):
            r, g, b = self[i][:3]
            rgb[3 * i] = r
            rgb[3 * i + 1] = g
            rgb[3 * i + 2] = b
        board.led_write(rgb)
