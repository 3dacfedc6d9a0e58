"""The `[home_assistant]` section of bosun.toml: whether and where bosun talks to Home Assistant.

```toml
[home_assistant]
enabled = true                       # or `bosun run --home-assistant`
broker = "mqtt://user:secret@homeassistant.local:1883"   # default: bosun's own broker
discovery_prefix = "homeassistant"   # Home Assistant's default
weight_every_s = 2                   # a zone's weight at most this often ...
weight_step_g = 1                    # ... and only when it moved by at least this much
```
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StringConstraints

from bosun.bus.mqtt import parse_broker_url


def _broker_url(url: str) -> str:
    parse_broker_url(url)  # ValueError naming what is wrong
    return url


class HomeAssistantSettings(BaseModel):
    """Home Assistant's MQTT discovery: off unless `enabled` (or --home-assistant)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    enabled: StrictBool = False  # true or false, not "yes" (bosun.toml's flags are strict)
    broker: Annotated[str, AfterValidator(_broker_url)] | None = None
    # Home Assistant's `discovery_prefix`: 1-4 topic levels of ASCII letters, digits, _ and -
    discovery_prefix: Annotated[
        str, StringConstraints(pattern=r"^[0-9A-Za-z_-]{1,64}(/[0-9A-Za-z_-]{1,64}){0,3}$")
    ] = "homeassistant"
    weight_every_s: float = Field(default=2.0, ge=0.5, le=3600)
    weight_step_g: float = Field(default=1.0, ge=0, le=10_000)
