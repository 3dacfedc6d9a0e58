"""Virtual `network`: a WiFi station that joins when the virtual board says the network is up."""

from vboard import board

STA_IF = 0
AP_IF = 1
STAT_IDLE = 1000
STAT_CONNECTING = 1001
STAT_GOT_IP = 1010
STAT_NO_AP_FOUND = 201
STAT_WRONG_PASSWORD = 202
STAT_BEACON_TIMEOUT = 200
STAT_ASSOC_FAIL = 203
STAT_HANDSHAKE_TIMEOUT = 204


class WLAN:
    """The station interface; connect() returns at once, like the ESP32's."""

    def __init__(self, interface=STA_IF):
        self.interface = interface
        self._active = False

    def active(self, on=None):
        if on is None:
            return self._active
        self._active = bool(on)

    def connect(self, ssid=None, key=None):
        if not self._active:
            raise OSError("WiFi interface is not active")
        board.wifi_connect(ssid)

    def disconnect(self):
        board.wifi_wanted = None

    def isconnected(self):
        return board.wifi_status()[0]

    def status(self, param=None):
        if param == "rssi":
            return -50
        return board.wifi_status()[1]

    def ifconfig(self, config=None):
        return ("127.0.0.1", "255.0.0.0", "127.0.0.1", "127.0.0.1")

    def config(self, *args, **kwargs):
        if args == ("mac",):
            return b"\x24\x0a\xc4\x00\x00\x01"
        return None
