"""The message bus: brokers, the MQTT link of the host, and the serial bridge."""
