"""The WS2812 strip on the ship: what the host asks to show, and "no host" when alone.

Shows (the `led` command, see shipsense.protocol):
  off         all dark
  prompt      the active player's colour on the target zone
  countdown   the zone in the player's colour, its LEDs going out one by one over `seconds`
              (the settle window), blinking in the last second, then dark
  fall        three white-red flashes over all LEDs (0.6 s), then back to the previous show
  winner      the winner's colour chasing round the ship for 6 s, then steady
  error       red blinking at 2 Hz on `zone`, or on every LED
While the link to the host is down the ship shows "no host" on its own: every fourth LED
breathing amber, so players see at once that nobody is refereeing.
`render(now_ms)` is cheap and writes the strip only when the frame changed.
"""

import time

TYPE_CHECKING = False  # MicroPython has no typing module: the checker's imports only
if TYPE_CHECKING:
    from hardware import Strip

FALL_FLASH_MS = 600
WINNER_CHASE_MS = 6000
AMBER = (255, 120, 0)
RED = (255, 0, 0)
WHITE = (255, 255, 255)


class Leds:
    """Renders shows into a `neopixel.NeoPixel`-like strip (setitem + write)."""

    def __init__(
        self, strip: "Strip", count: int, zone_map: "dict[str, list[int]]", brightness: float
    ) -> None:
        self.strip = strip
        self.count = count
        self.zone_map: dict[int, list[int]] = {}
        for key in zone_map:
            self.zone_map[int(key)] = list(zone_map[key])
        self.brightness = brightness
        self.show: dict = {"show": "off"}
        self.started_ms = time.ticks_ms()
        self.before_fall = self.show
        self.link_up = False
        self._frame: list[tuple[int, int, int]] | None = None
        self.writes = 0

    def set_show(self, msg: dict, now_ms: int) -> None:
        """Start a show from a validated `led` command (the caller checked zone numbers)."""
        if msg["show"] == "fall" and self.show["show"] != "fall":
            self.before_fall = self.show
        self.show = msg
        self.started_ms = now_ms

    def set_brightness(self, brightness: float) -> None:
        self.brightness = brightness

    def _scaled(
        self, color: "list[int] | tuple[int, int, int]", level: float = 1.0
    ) -> "tuple[int, int, int]":
        k = self.brightness * level
        return (int(color[0] * k), int(color[1] * k), int(color[2] * k))

    def frame(self, now_ms: int) -> "list[tuple[int, int, int]]":
        """The list of (r, g, b) the strip should show at `now_ms`."""
        dark = (0, 0, 0)
        pixels: list[tuple[int, int, int]] = [dark] * self.count
        if not self.link_up:
            # Breathing amber, period 2 s.
            phase = (now_ms % 2000) / 1000.0
            level = phase if phase <= 1 else 2 - phase
            color = self._scaled(AMBER, 0.1 + 0.9 * level)
            for i in range(0, self.count, 4):
                pixels[i] = color
            return pixels
        show = self.show
        kind = show["show"]
        elapsed = time.ticks_diff(now_ms, self.started_ms)
        if kind == "prompt":
            color = self._scaled(show["color"])
            for i in self.zone_map.get(show["zone"], ()):
                pixels[i] = color
        elif kind == "countdown":
            total = int(show["seconds"] * 1000)
            left = total - elapsed
            leds = self.zone_map.get(show["zone"], ())
            if left > 0 and leds:
                lit = (len(leds) * left + total - 1) // total
                on = left > 1000 or (left // 125) % 2 == 0
                color = self._scaled(show["color"]) if on else dark
                for i in leds[:lit]:
                    pixels[i] = color
        elif kind == "fall":
            if elapsed >= FALL_FLASH_MS:
                self.show = self.before_fall
                self.started_ms = now_ms
                return self.frame(now_ms)
            color = show.get("color") or RED
            step = elapsed // 100
            flash = self._scaled(WHITE if step % 2 == 0 else color)
            pixels = [flash] * self.count
        elif kind == "winner":
            color = self._scaled(show["color"])
            if elapsed >= WINNER_CHASE_MS or not self.count:
                pixels = [color] * self.count
            else:
                head = (elapsed // 40) % self.count
                for k in range(min(6, self.count)):
                    pixels[(head - k) % self.count] = self._scaled(show["color"], 1.0 - k / 6)
        elif kind == "error" and (elapsed // 250) % 2 == 0:
            color = self._scaled(RED)
            zone = show.get("zone")
            indexes = self.zone_map.get(zone, ()) if zone else range(self.count)
            for i in indexes:
                pixels[i] = color
        return pixels

    def render(self, now_ms: int) -> bool:
        """Write the strip if the frame changed; True if it wrote."""
        pixels = self.frame(now_ms)
        if pixels == self._frame:
            return False
        strip = self.strip
        for i in range(self.count):
            strip[i] = pixels[i]
        strip.write()
        self._frame = pixels
        self.writes += 1
        return True
