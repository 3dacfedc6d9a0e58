"""Home Assistant: bosun's tables as MQTT discovery devices (opt-in; `bosun run --home-assistant`).

`discovery` says what Home Assistant is told (pure: configs and state payloads), `bridge` is
the glue that watches the tables and publishes; `settings` is the `[home_assistant]` section
of bosun.toml. Nothing here decides anything about a game: it only reports.
"""
