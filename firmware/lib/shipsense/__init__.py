"""shipsense: the ship's detector and wire protocol, shared by the ESP32 and the host."""
