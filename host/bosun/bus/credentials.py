"""Who may speak on bosun's private broker: the host and one user a ship, kept by bosun.

The credentials live in one owner-only JSON file next to `bosun.key` (`bosun.ships.json`),
with the host listener's port, so a restarted bosun opens the same ports and the ships it
paired log in again. The broker's password file (PBKDF2-SHA512 hashes, mosquitto's `$7$`
format) and ACL file are made from it at every start and reload, in the broker's own
directory. Passwords are never printed in full (`Credential.masked`) and never go in the
store, so no export can carry them.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import secrets
import stat
from pathlib import Path

from shipsense import protocol

CREDENTIALS_FILE = Path("bosun.ships.json")
HOST_USER = "bosun-host"
HOME_ASSISTANT_USER = "homeassistant"  # Home Assistant itself, when it uses bosun's broker
SHIP_USER_PREFIX = "ship-"
PASSWORD_BYTES = 18  # 144 bits, 24 characters: within the firmware's 64 for mqtt.password
# mosquitto_passwd 2.0 writes $7$ (PBKDF2-SHA512) with 101 iterations and a 12-byte salt
PBKDF2_ITERATIONS = 101
SALT_BYTES = 12
FILE_VERSION = 1


class CredentialsError(ValueError):
    """The credentials file is unreadable or not what bosun wrote; the text says why."""


class Credential:
    """A user name and password for the broker; its repr never shows the password."""

    __slots__ = ("user", "password")

    def __init__(self, user: str, password: str) -> None:
        self.user = user
        self.password = password

    @classmethod
    def new(cls, user: str) -> Credential:
        return cls(user, secrets.token_urlsafe(PASSWORD_BYTES))

    @property
    def masked(self) -> str:
        """The password as people may see it: its first 3 characters only."""
        return self.password[:3] + "…" if self.password else "(none)"

    def __repr__(self) -> str:
        return f"Credential({self.user!r}, {self.masked!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Credential) and (self.user, self.password) == (
            other.user,
            other.password,
        )

    __hash__ = None  # type: ignore[assignment]


def ship_user(table: str) -> str:
    return SHIP_USER_PREFIX + protocol.check_table_id(table)


def mosquitto_hash(password: str, salt: bytes | None = None) -> str:
    """A password file hash mosquitto 2.0 accepts: `$7$<iterations>$<salt>$<pbkdf2-sha512>`."""
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, PBKDF2_ITERATIONS)
    encoded = [base64.b64encode(part).decode() for part in (salt, digest)]
    return f"$7${PBKDF2_ITERATIONS}${encoded[0]}${encoded[1]}"


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` readable by its owner only, all at once (a crash leaves the old
    file whole)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o600)  # O_CREAT's mode is cut by the umask, never widened
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


class BrokerCredentials:
    """The host's and every paired ship's credentials, and the host port; `path` None keeps
    them in memory only (tests, a broker that lives as long as one run)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.host = Credential.new(HOST_USER)
        self.host_port: int | None = None
        self.ships: dict[str, Credential] = {}
        self.home_assistant: Credential | None = None
        self.home_assistant_prefix = "homeassistant"  # its discovery prefix (bosun.toml)
        # ships that live as long as this run (virtual tables): on the broker, not in the file
        self.passing: dict[str, Credential] = {}
        self._mtime_ns = 0
        if self.path is not None and self.path.exists():
            self._load()

    @classmethod
    def open(cls, path: Path | None) -> BrokerCredentials:
        credentials = cls(path)
        if credentials.path is not None and not credentials.path.exists():
            credentials.save()
        return credentials

    def _load(self) -> None:
        assert self.path is not None
        where = str(self.path)
        try:
            info = self.path.stat()
            data = json.loads(self.path.read_text())
        except (OSError, ValueError) as why:
            raise CredentialsError(f"{where}: cannot read it ({why})") from None
        if stat.S_IMODE(info.st_mode) & 0o077:
            os.chmod(self.path, 0o600)  # someone widened it: it holds passwords
        try:
            if data.get("version") != FILE_VERSION:
                raise CredentialsError(f"{where}: not a bosun credentials file (version)")
            self.host = _credential(data["host"], HOST_USER)
            port = data.get("host_port")
            if port is not None and not (isinstance(port, int) and 1 <= port <= 65535):
                raise CredentialsError(f"{where}: host_port must be 1-65535")
            self.host_port = port
            ships = data.get("ships", {})
            if not isinstance(ships, dict):
                raise CredentialsError(f"{where}: ships must be an object")
            entry = data.get("home_assistant")
            self.home_assistant = _credential(entry, HOME_ASSISTANT_USER) if entry else None
            self.ships = {}
            for table, entry in ships.items():
                protocol.check_table_id(table)
                self.ships[table] = _credential(entry, ship_user(table))
        except (KeyError, TypeError, AttributeError, protocol.ProtocolError) as why:
            raise CredentialsError(f"{where}: not what bosun wrote ({why})") from None
        self._mtime_ns = info.st_mtime_ns

    def save(self) -> None:
        if self.path is None:
            return
        data = {
            "version": FILE_VERSION,
            "host": {"user": self.host.user, "password": self.host.password},
            "host_port": self.host_port,
            "home_assistant": (
                {"user": self.home_assistant.user, "password": self.home_assistant.password}
                if self.home_assistant
                else None
            ),
            "ships": {
                table: {"user": c.user, "password": c.password}
                for table, c in sorted(self.ships.items())
            },
        }
        write_private(self.path, json.dumps(data, indent=2) + "\n")
        self._mtime_ns = self.path.stat().st_mtime_ns

    def changed_on_disk(self) -> bool:
        """True if another process (`bosun ship add`) rewrote the file since we read it."""
        if self.path is None:
            return False
        try:
            return self.path.stat().st_mtime_ns != self._mtime_ns
        except OSError:
            return False

    def reload(self) -> None:
        if self.path is not None and self.path.exists():
            self._load()

    # --- pairing -----------------------------------------------------------------------

    def for_table(self, table: str) -> Credential | None:
        return self.ships.get(table) or self.passing.get(table)

    def add(self, table: str) -> Credential:
        """The ship's credentials, made now if it has none (kept in the file)."""
        if table not in self.ships:
            self.ships[table] = Credential.new(ship_user(table))
            self.save()
        return self.ships[table]

    def rotate(self, table: str) -> Credential:
        """New credentials for the ship; the old ones stop working at the broker's reload."""
        self.ships[table] = Credential.new(ship_user(table))
        self.save()
        return self.ships[table]

    def remove(self, table: str) -> bool:
        found = self.ships.pop(table, None) is not None
        if found:
            self.save()
        return found

    def add_home_assistant(self, prefix: str = "homeassistant") -> Credential:
        """Home Assistant's own login (made once, kept in the file): it reads the discovery
        configs and bosun's states, and says when it comes online."""
        self.home_assistant_prefix = prefix
        if self.home_assistant is None:
            self.home_assistant = Credential.new(HOME_ASSISTANT_USER)
            self.save()
        return self.home_assistant

    def add_passing(self, table: str) -> Credential:
        """Credentials for a ship of this run only (a virtual table), never written down."""
        if table in self.ships:
            return self.ships[table]
        if table not in self.passing:
            self.passing[table] = Credential.new(ship_user(table))
        return self.passing[table]

    # --- the broker's files ------------------------------------------------------------

    def all_ships(self) -> dict[str, Credential]:
        return {**self.passing, **self.ships}

    def password_file_text(self) -> str:
        """The ships' listener's: every ship, and Home Assistant if it has a login."""
        users = list(self.all_ships().values())
        if self.home_assistant is not None:
            users.append(self.home_assistant)
        return "".join(f"{c.user}:{mosquitto_hash(c.password)}\n" for c in users)

    def host_password_file_text(self) -> str:
        """The loopback listener's: bosun alone logs in there."""
        return f"{self.host.user}:{mosquitto_hash(self.host.password)}\n"

    def acl_text(self) -> str:
        """The host reads and writes everything (bosun/, and Home Assistant's discovery); a
        ship writes only its own ship topics and reads only its own commands; Home Assistant
        reads its discovery configs and bosun's states and writes its status; nobody else (no
        anonymous user exists) reads or writes anything."""
        lines = [f"user {self.host.user}", "topic readwrite #", ""]
        if self.home_assistant is not None:
            prefix = self.home_assistant_prefix
            lines += [
                f"user {self.home_assistant.user}",
                f"topic read {prefix}/#",
                f"topic read {protocol.ROOT}/_ha/#",
                f"topic write {prefix}/status",
                "",
            ]
        for table, credential in sorted(self.all_ships().items()):
            lines.append(f"user {credential.user}")
            lines += [f"topic write {protocol.topic(table, name)}" for name in protocol.SHIP_TOPICS]
            lines += [f"topic read {protocol.topic(table, protocol.CMD)}", ""]
        return "\n".join(lines)


def _credential(entry: dict, user: str) -> Credential:
    if entry.get("user") != user:
        raise CredentialsError(f"user {entry.get('user')!r} should be {user!r}")
    password = entry["password"]
    if not isinstance(password, str) or not 16 <= len(password) <= 64:
        raise CredentialsError(f"{user}'s password must be 16-64 characters")
    return Credential(user, password)
