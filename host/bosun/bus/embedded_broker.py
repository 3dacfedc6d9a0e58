"""An in-process MQTT broker (amqtt) for machines without mosquitto.

Only a fallback: MQTT 3.1.1, no shared subscriptions, slower, and Home Assistant dropped
its embedded broker for memory leaks. `bosun run` says so when it has to use it.
"""

from __future__ import annotations

from amqtt.broker import Broker

from bosun.bus.broker import free_port


class EmbeddedBroker:
    """amqtt on 127.0.0.1 and a free port, running on the caller's asyncio loop."""

    def __init__(self, port: int | None = None) -> None:
        self.host = "127.0.0.1"
        self.port = port or free_port(self.host)
        self._broker = Broker(
            {
                "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
                "plugins": {
                    "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}
                },
            }
        )

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    async def start(self) -> EmbeddedBroker:
        await self._broker.start()
        return self

    async def stop(self) -> None:
        await self._broker.shutdown()
