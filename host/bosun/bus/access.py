"""How a client reaches a broker: address, user, password, TLS (`mqtt://` or `mqtts://`).

A URL names the broker and at most the user (`mqtt://user@host:1883`); the password never
travels on a command line or into a log: it comes from a file, `$BOSUN_MQTT_PASSWORD`, or
bosun's own credentials file. A URL holding a password is refused, without repeating it.
"""

from __future__ import annotations

import os
import socket
import ssl
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

PASSWORD_ENV = "BOSUN_MQTT_PASSWORD"
SCHEMES = {"mqtt": (False, 1883), "tcp": (False, 1883), "mqtts": (True, 8883), "ssl": (True, 8883)}
MAX_PASSWORD = 256


def shown_url(url: str) -> str:
    """`url` as it may be printed: anything between `:` and `@` (a password) blanked."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url[:80]
    netloc, slash, path = rest.partition("/")
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        netloc = f"{userinfo}@{hostport}"
    return f"{scheme}://{netloc}{slash}{path}"[:120]


@dataclass(frozen=True)
class BrokerAccess:
    """Where a broker is and how to log in; its repr and `url` never show the password."""

    host: str
    port: int
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: bool = False
    ca_file: str | None = None

    @property
    def url(self) -> str:
        """The URL people may see: scheme, user, host and port; never the password."""
        scheme = "mqtts" if self.tls else "mqtt"
        user = f"{self.user}@" if self.user else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{user}{host}:{self.port}"

    def with_login(self, user: str | None, password: str | None) -> BrokerAccess:
        return replace(self, user=user, password=password)

    def configure(self, client) -> None:
        """Give a paho client the credentials and TLS (before it connects)."""
        if self.user:
            client.username_pw_set(self.user, self.password)
        if self.tls:
            context = ssl.create_default_context(cafile=self.ca_file)
            client.tls_set_context(context)


def as_access(broker: BrokerAccess | tuple[str, int]) -> BrokerAccess:
    """A BrokerAccess from itself or from a bare (host, port): an open broker."""
    return broker if isinstance(broker, BrokerAccess) else BrokerAccess(broker[0], broker[1])


def parse_broker_url(url: str, allow_password: bool = False) -> BrokerAccess:
    """The broker of `mqtt[s]://[user@]host[:port]` (no password yet); ValueError saying what
    is wrong, without the password if the URL held one. A password in the URL is refused
    (command lines end up in `ps` and shell histories) unless `allow_password` (a file
    that says so, like bosun.toml's Home Assistant broker): then it is taken."""
    if not isinstance(url, str):
        raise ValueError("broker URL must be text like mqtt://host:1883")
    try:
        parsed = urlsplit(url)
        port = parsed.port
    except ValueError:
        raise ValueError(f"broker URL {shown_url(url)!r} has a bad port (1-65535)") from None
    if parsed.password is not None and not allow_password:
        raise ValueError(
            f"broker URL {shown_url(url)!r} must not hold a password: give it in a file "
            f"(--mqtt-password-file) or in ${PASSWORD_ENV}"
        )
    if parsed.scheme not in SCHEMES or not parsed.hostname:
        raise ValueError(
            f"broker URL {shown_url(url)!r} must look like mqtt://host:1883 or "
            "mqtts://user@host:8883"
        )
    if parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        raise ValueError(f"broker URL {shown_url(url)!r} must have nothing after host:port")
    tls, default_port = SCHEMES[parsed.scheme]
    user = unquote(parsed.username) if parsed.username else None
    password = unquote(parsed.password) if parsed.password is not None else None
    return BrokerAccess(parsed.hostname, port or default_port, user, password, tls)


def read_password_file(path: str | Path, service: str = "MQTT") -> str:
    """The password in `path`'s first line; ValueError naming the file if unusable."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as why:
        raise ValueError(f"cannot read the {service} password file {path}: {why}") from None
    password = text.splitlines()[0] if text else ""
    if not password or len(password) > MAX_PASSWORD:
        raise ValueError(
            f"the {service} password file {path} must hold the password on its first line"
        )
    return password


def broker_access(
    url: str,
    password_file: str | Path | None = None,
    ca_file: str | Path | None = None,
    environ: dict | None = None,
) -> BrokerAccess:
    """`url` with the password from `password_file`, else `$BOSUN_MQTT_PASSWORD` (only when
    the URL names a user), and the CA to trust for mqtts (else the system's)."""
    access = parse_broker_url(url)
    environ = os.environ if environ is None else environ
    password = None
    if password_file is not None:
        password = read_password_file(password_file)
    elif access.user and environ.get(PASSWORD_ENV):
        password = environ[PASSWORD_ENV]
    if password is not None and not access.user:
        raise ValueError("a password needs a user: mqtt://USER@host:port")
    if ca_file is not None:
        if not access.tls:
            raise ValueError("--mqtt-ca needs an mqtts:// broker URL")
        if not Path(ca_file).is_file():
            raise ValueError(f"the CA file {ca_file} does not exist")
        access = replace(access, ca_file=str(ca_file))
    return replace(access, password=password)


def lan_address() -> str | None:
    """This computer's address on the network its default route leads to (no packet is
    sent: a UDP socket only picks its source address)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere real
            return probe.getsockname()[0]
        except OSError:
            return None
