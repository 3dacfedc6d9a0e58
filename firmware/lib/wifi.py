"""WiFi station: join the configured network and keep rejoining, without ever blocking.

`network.WLAN.connect()` returns at once and the ESP32 associates in the background, so the
sample loop only polls `isconnected()`. A failed or lost association is retried every
RETRY_MS; the status shows the last WLAN status code in words.
"""

import time

RETRY_MS = 10000

STATUS_WORDS = {
    1000: "idle",
    1001: "connecting",
    202: "wrong password",
    201: "network not found",
    203: "association failed",
    200: "beacon timeout",
    204: "handshake timeout",
    1010: "got an IP address",
}


class Wifi:
    """Keeps the station joined to `ssid`; `up` says whether it has an IP address now."""

    def __init__(self, ssid: str, password: str) -> None:
        import network

        self.network = network
        self.ssid = ssid
        self.password = password
        self.wlan = network.WLAN(network.STA_IF)
        self.wlan.active(True)
        self.next_try_ms = time.ticks_ms()
        self.up = False
        self.joins = 0
        self.last_status: str | int | None = None

    def service(self, now_ms: int) -> bool:
        """Poll the association; True if it changed state."""
        up = self.wlan.isconnected()
        if up != self.up:
            self.up = up
            if up:
                self.joins += 1
            return True
        if not up and time.ticks_diff(now_ms, self.next_try_ms) >= 0:
            self.next_try_ms = time.ticks_add(now_ms, RETRY_MS)
            status = self.wlan.status()
            self.last_status = STATUS_WORDS.get(status, status)
            if status != getattr(self.network, "STAT_CONNECTING", 1001):
                try:
                    self.wlan.connect(self.ssid, self.password)
                except OSError as error:
                    self.last_status = f"connect failed: {error}"
        return False

    def describe(self) -> str:
        if self.up:
            return f"joined {self.ssid}"
        return f"not joined to {self.ssid} ({self.last_status})"
