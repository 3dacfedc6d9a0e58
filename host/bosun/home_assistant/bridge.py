"""The glue between bosun's tables and Home Assistant: watch, throttle, publish.

It has its own MQTT connection (Home Assistant's broker may not be the ships'), with a last
will that marks every entity unavailable when bosun goes away. On every connect, and when
Home Assistant says it came online (`<prefix>/status` = "online", as its documentation asks
integrations to watch), the retained configs and states are sent again. It sees a table only
through its `TableView` (state, ship link, weights) and the ship events the service hands
it after the table's link checked and ordered them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

import paho.mqtt.client as mqtt

from bosun.bus.access import BrokerAccess
from bosun.bus.mqtt import ClientThread, parse_broker_url, send_without_delay
from bosun.games import registry
from bosun.home_assistant import discovery as ha
from bosun.home_assistant.settings import HomeAssistantSettings
from shipsense import protocol, ship_messages

if TYPE_CHECKING:
    from bosun.referee.view import TableView

log = logging.getLogger(__name__)

RESEND_MIN_S = 5.0  # Home Assistant's "online" again within this: one resend at its end
MAX_QUEUED = 2000  # messages paho keeps while the broker is away (configs are ~20 a table)
KEEPALIVE_S = 15


class TableEntities:
    """One table's entities: what was last published, so only changes go out."""

    def __init__(
        self, view: TableView, device: ha.TableDevice, changed: Callable[[TableEntities], None]
    ) -> None:
        self.view = view
        self.device = device
        self.on_change = lambda: changed(self)  # what the table's view calls on every change
        self.online: bool | None = None
        self.game: dict[str, Any] | None = None
        self.grams: dict[str, float | None] | None = None
        self.grams_sent_s = float("-inf")
        self.grams_timer: asyncio.TimerHandle | None = None
        self.bad_weights = False  # said once in the log, not at every message


class HomeAssistant:
    """Publishes bosun's tables to Home Assistant by MQTT discovery (see the module)."""

    def __init__(
        self,
        settings: HomeAssistantSettings,
        broker_url: str,
        loop: asyncio.AbstractEventLoop,
        access: BrokerAccess | None = None,
    ) -> None:
        self.settings = settings
        self.url = broker_url
        self._loop = loop
        self._tables: dict[str, TableEntities] = {}
        self._status_topic = f"{settings.discovery_prefix}/status"
        self._resend_asked = threading.Event()  # paho's thread to the loop: at most one call
        self._resend_timer: asyncio.TimerHandle | None = None
        self._last_resend_s = float("-inf")
        self.resends = 0  # how often everything was sent again (tests, the log)
        self._closing = False
        host, port = parse_broker_url(broker_url)
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"bosun-home-assistant-{id(self):x}",
            protocol=mqtt.MQTTv311,
        )
        if access is None:  # bosun.toml's broker URL may carry the login
            parsed = urlparse(broker_url)
            if parsed.username:
                client.username_pw_set(unquote(parsed.username), unquote(parsed.password or ""))
            access = BrokerAccess(host, port)
        client.will_set(ha.BRIDGE_STATUS, ha.OFFLINE, qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_message = self._on_message
        client.on_disconnect = self._on_disconnect
        client.reconnect_delay_set(min_delay=1, max_delay=30)
        client.max_queued_messages_set(MAX_QUEUED)
        self.client = client
        self._thread = ClientThread(client, access, KEEPALIVE_S)  # TLS and bosun's login
        self.connected = threading.Event()

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect in the background: Home Assistant's broker being away stops no table."""
        await asyncio.to_thread(self._thread.start)

    async def stop(self) -> None:
        """Mark bosun offline (entities unavailable; their configs stay), then disconnect."""
        self._closing = True
        for entities in self._tables.values():
            entities.view.unwatch(entities.on_change)
            if entities.grams_timer is not None:
                entities.grams_timer.cancel()
        if self._resend_timer is not None:
            self._resend_timer.cancel()
        if self.connected.is_set():
            info = self._publish(ha.BRIDGE_STATUS, ha.OFFLINE, retain=True)
            await asyncio.to_thread(_wait_published, info, 2.0)
        await asyncio.to_thread(self._thread.stop)

    # -- what the service tells it ---------------------------------------------------------

    def table_added(self, view: TableView) -> None:
        """Give `view`'s table a device and keep its entities up to date."""
        kit = registry.kit(view.game)
        device = ha.TableDevice(
            table_id=view.id,
            game_title=kit.title,
            zones=tuple(kit.calibration.zones),
            zone_word=kit.calibration.zone_word,
            board=kit.calibration.board,
            mat=view.config.table_sensor in ("mat", "both"),
        )
        entities = self._tables[view.id] = TableEntities(view, device, self._changed)
        view.watch(entities.on_change)
        if self.connected.is_set():
            self._send_table(entities)

    def ship_event(self, table_id: str, event: dict[str, Any]) -> None:
        """A ship event its table received (checked, new, in order): falls and places fire
        the table's event entity. Not retained: Home Assistant must not fire it again."""
        entities = self._tables.get(table_id)
        payload = ha.event_state(event)
        if entities is None or payload is None or self._closing:
            return
        self._publish(ha.state_topic(table_id, ha.EVENTS), ha.encode(payload))

    # -- keeping states current ------------------------------------------------------------

    def _changed(self, entities: TableEntities) -> None:
        if self._closing:
            return
        view = entities.view
        online = view.ship_online
        if online != entities.online:
            entities.online = online
            self._publish_connection(entities)
        game = ha.game_state(entities.device.game_title, view.state())
        if game != entities.game:
            entities.game = game
            self._publish(ha.state_topic(view.id, ha.GAME), ha.encode(game), retain=True)
        self._maybe_publish_grams(entities)

    def _maybe_publish_grams(self, entities: TableEntities) -> None:
        """At most once every weight_every_s, and only when a cell moved by weight_step_g;
        a change held back goes out at the end of the wait."""
        grams = self._grams(entities)
        if grams is None or not _moved(entities.grams, grams, self.settings.weight_step_g):
            return
        wait_s = entities.grams_sent_s + self.settings.weight_every_s - time.monotonic()
        if wait_s > 0:
            if entities.grams_timer is None:
                entities.grams_timer = self._loop.call_later(wait_s, self._grams_due, entities)
            return
        self._publish_grams(entities, grams)

    def _grams_due(self, entities: TableEntities) -> None:
        entities.grams_timer = None
        if not self._closing:
            self._maybe_publish_grams(entities)

    def _grams(self, entities: TableEntities) -> dict[str, float | None] | None:
        weights = entities.view.ship_weights
        if weights is None:
            return None
        try:
            ship_messages.check_weights(weights)
        except protocol.ProtocolError as why:  # a ship's bad numbers never reach the sensors
            if not entities.bad_weights:
                entities.bad_weights = True
                log.warning("table %s: not showing its weights: %s", entities.view.id, why)
            return None
        return ha.grams_state(entities.device, weights)

    def _publish_grams(self, entities: TableEntities, grams: dict[str, float | None]) -> None:
        entities.grams, entities.grams_sent_s = grams, time.monotonic()
        self._publish(ha.state_topic(entities.view.id, ha.GRAMS), ha.encode(grams), retain=True)

    def _publish_connection(self, entities: TableEntities) -> None:
        state = ha.ONLINE if entities.online else ha.OFFLINE
        self._publish(ha.state_topic(entities.view.id, ha.CONNECTION), state, retain=True)

    # -- (re)sending everything ------------------------------------------------------------

    def _send_table(self, entities: TableEntities) -> None:
        for topic, config in ha.configs(entities.device, self.settings.discovery_prefix):
            self._publish(topic, ha.encode(config), retain=True)
        entities.online = entities.game = entities.grams = None  # all states go out again
        entities.grams_sent_s = float("-inf")
        self._changed(entities)

    def _send_all(self) -> None:
        if self._resend_timer is not None:
            self._resend_timer.cancel()
        self._resend_timer = None
        if self._closing or not self.connected.is_set():
            return
        self._last_resend_s = time.monotonic()
        self.resends += 1
        self._publish(ha.BRIDGE_STATUS, ha.ONLINE, retain=True)
        for entities in self._tables.values():
            self._send_table(entities)

    def _resend_soon(self) -> None:
        """Home Assistant (re)started: everything again, but at most once every RESEND_MIN_S
        however often "online" comes (anyone on the broker may publish it)."""
        self._resend_asked.clear()
        if self._resend_timer is not None:
            return
        wait_s = self._last_resend_s + RESEND_MIN_S - time.monotonic()
        self._resend_timer = self._loop.call_later(max(0.0, wait_s), self._send_all)

    def _publish(self, topic: str, payload: bytes | str, retain: bool = False):
        return self.client.publish(topic, payload, qos=1, retain=retain)

    # -- paho's thread ---------------------------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.error("Home Assistant's broker refused bosun: %s", reason_code)
            return
        send_without_delay(client)
        client.subscribe(self._status_topic, qos=1)
        self.connected.set()
        if not self._closing:  # a (re)connect sends everything: the broker may have lost it
            self._on_loop(self._send_all)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self.connected.clear()
        if reason_code != 0 and not self._closing:
            log.warning("lost Home Assistant's broker (%s); reconnecting", reason_code)

    def _on_message(self, client, userdata, message: mqtt.MQTTMessage) -> None:
        # Anyone may publish here: only the exact "online" counts, and at most one request
        # waits on the loop at a time, so a flood of them costs the loop nothing.
        if message.topic == self._status_topic and bytes(message.payload) == b"online":
            self._ask_resend()

    def _ask_resend(self) -> None:
        if not self._resend_asked.is_set() and not self._closing:
            self._resend_asked.set()
            self._on_loop(self._resend_soon)

    def _on_loop(self, callback: Callable[[], None]) -> None:
        # RuntimeError: the loop closed while this thread was still finishing
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(callback)


def _moved(before: dict | None, after: dict, step_g: float) -> bool:
    """Did any cell change by at least `step_g` (or appear, or vanish) since `before`?"""
    if before is None or before.keys() != after.keys():
        return True
    for key, grams in after.items():
        old = before[key]
        if (old is None) != (grams is None):
            return True
        if grams is not None and grams != old and abs(grams - old) >= step_g:
            return True
    return False


def _wait_published(info: mqtt.MQTTMessageInfo, timeout_s: float) -> None:
    # RuntimeError, ValueError: the connection went meanwhile, there is nothing to wait for
    with contextlib.suppress(RuntimeError, ValueError):
        info.wait_for_publish(timeout_s)
