"""A private mosquitto broker with a generated configuration.

The tests start an open one on a free loopback port per test, so that they never share state
or depend on the machine's own broker. `bosun run` (when no broker URL is given) starts a
closed one (`BrokerSecurity`): the host's listener on loopback, a listener for the ships on
the LAN (optionally TLS), no anonymous access, a user a ship and an ACL. Either way the
broker dies with the process that started it, also after a `kill -9` of it (Linux's
parent-death signal), so it never outlives bosun and its ports are free for the next start.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bosun.bus.credentials import BrokerCredentials, Credential, write_private

SEARCH_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class BrokerError(RuntimeError):
    """The broker could not be started."""


def find_mosquitto() -> str | None:
    return shutil.which("mosquitto") or shutil.which("mosquitto", path=SEARCH_PATH)


def port_is_free(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True


EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST_FREE_PICK = 10000  # below this, ports that well-known services are registered on
_handed_out: set[int] = set()  # this process's picks: never the same port twice
_picker = random.SystemRandom()  # apart from `random`, which a test may seed alike in every worker
HANDED_OUT_KEPT = 4096


def ephemeral_ports() -> tuple[int, int]:
    """The kernel's range of source ports for outgoing connections (Linux's default if it
    cannot be read)."""
    try:
        low, high = (int(word) for word in EPHEMERAL_RANGE.read_text().split())
    except (OSError, ValueError):
        return 32768, 60999
    return low, high


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing is bound to, picked at random below the ephemeral range and never one
    of this process's last HANDED_OUT_KEPT picks. A port from bind(0) would come from the
    ephemeral range, which every outgoing connection on the machine also draws its source
    port from: one of them could take it between this probe and the server's own bind."""
    low, _high = ephemeral_ports()
    if low - LOWEST_FREE_PICK >= 1000:
        if len(_handed_out) >= HANDED_OUT_KEPT:
            _handed_out.clear()
        for _ in range(100):
            port = _picker.randrange(LOWEST_FREE_PICK, low)
            if port not in _handed_out and port_is_free(host, port):
                _handed_out.add(port)
                return port
    with socket.socket() as probe:  # no room below the range, or all taken: the kernel's pick
        probe.bind((host, 0))
        return probe.getsockname()[1]


def wait_for_port(
    host: str, port: int, timeout_s: float, process: subprocess.Popen | None = None
) -> bool:
    """True once something accepts TCP connections on (host, port); False if `process` dies."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            return False
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.2):
            return True
        time.sleep(0.01)  # polling a port that is not open yet: nothing to wait on instead
    return False


def wait_for_free_port(host: str, port: int, timeout_s: float) -> bool:
    """True once (host, port) can be bound: the broker of a bosun that was just killed gets
    its parent-death signal at once, but takes a moment to close its listeners."""
    deadline = time.monotonic() + timeout_s
    while not port_is_free(host, port):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)  # nothing to wait on but the port itself
    return True


def mqtt_login(
    host: str,
    port: int,
    user: str | None,
    password: str | None,
    ca_file: str | Path | None = None,
    client_id: str | None = None,
) -> int | None:
    """The CONNACK code a MQTT 3.1.1 login gets (0 = accepted, 5 = not authorised), None if
    nothing answered; over TLS verified against `ca_file` if given. A few bytes by hand: no
    client thread for a one-shot check."""

    def text(value: str) -> bytes:
        data = value.encode()
        return len(data).to_bytes(2, "big") + data

    flags = 0x02 | (0x80 if user else 0) | (0x40 if password else 0)
    body = text("MQTT") + bytes([4, flags]) + (5).to_bytes(2, "big")
    body += text(client_id or f"bosun-probe-{os.getpid()}-{time.monotonic_ns() % 10**9}")
    body += (text(user) if user else b"") + (text(password) if password else b"")
    length = len(body)
    encoded = bytearray()
    while True:
        byte, length = length % 128, length // 128
        encoded.append(byte | (0x80 if length else 0))
        if not length:
            break
    try:
        with contextlib.ExitStack() as stack:
            sock = stack.enter_context(socket.create_connection((host, port), timeout=2.0))
            if ca_file is not None:
                context = ssl.create_default_context(cafile=str(ca_file))
                sock = stack.enter_context(context.wrap_socket(sock, server_hostname=host))
            sock.sendall(bytes([0x10]) + bytes(encoded) + body)
            answer = b""
            while len(answer) < 4:
                chunk = sock.recv(4 - len(answer))
                if not chunk:
                    return None
                answer += chunk
            with contextlib.suppress(OSError):
                sock.sendall(b"\xe0\x00")  # DISCONNECT: no last will, no warning in the log
    except OSError:
        return None
    return answer[3] if answer[0] == 0x20 else None


@dataclass
class TlsFiles:
    """The ship listener's TLS: the CA bosun made, and the broker's certificate and key."""

    ca_file: Path
    cert_file: Path
    key_file: Path


@dataclass
class BrokerSecurity:
    """A closed broker: who may log in and what each may do (`credentials`), and where the
    ships' listener is (`ships_host`, `ships_port`; with `tls`, mqtts)."""

    credentials: BrokerCredentials
    ships_host: str = "0.0.0.0"
    ships_port: int = 1883
    tls: TlsFiles | None = None


def sweep_stale_dirs() -> int:
    """Remove the folders of private brokers whose bosun is gone (killed before it could tidy
    up: they hold password hashes); how many. Folders without an owner are left alone."""
    swept = 0
    for folder in Path(tempfile.gettempdir()).glob("bosun-mosquitto-*"):
        try:
            owner = int((folder / "owner.pid").read_text())
        except (OSError, ValueError):
            continue
        if owner == os.getpid():
            continue
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
            swept += 1
        except OSError:
            continue  # alive, another user's
    return swept


def _die_with_parent() -> object:
    """A preexec_fn that makes the child get SIGTERM when its parent dies (Linux prctl
    PR_SET_PDEATHSIG), so a `kill -9` of bosun never leaves its broker behind. The signal
    follows the *thread* that forked: start the broker from a thread that lives as long as it.
    None where there is no prctl."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()
    pr_set_pdeathsig = 1

    def preexec() -> None:
        prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the line above: go now
            os._exit(1)

    return preexec


class MosquittoBroker:
    """mosquitto with no persistence, restartable in place; open on 127.0.0.1 only, or
    closed (`security`) with a loopback listener for the host and one for the ships."""

    def __init__(
        self,
        port: int | None = None,
        executable: str | None = None,
        security: BrokerSecurity | None = None,
    ) -> None:
        self.executable = executable or find_mosquitto()
        if self.executable is None:
            raise BrokerError("mosquitto is not installed (Debian: apt-get install mosquitto)")
        self.host = "127.0.0.1"
        self.port = port or free_port(self.host)
        self.security = security
        if security is not None:
            sweep_stale_dirs()
        self._dir = Path(tempfile.mkdtemp(prefix="bosun-mosquitto-"))
        (self._dir / "owner.pid").write_text(str(os.getpid()))
        self.config_path = self._dir / "mosquitto.conf"
        self.log_path = self._dir / "mosquitto.log"
        self.password_path = self._dir / "passwords"
        self.host_password_path = self._dir / "host-passwords"
        self.acl_path = self._dir / "acl"
        self._process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _listeners(self) -> list[tuple[str, int, str]]:
        """(host, port, what it is for) of every listener."""
        listeners = [(self.host, self.port, "the host")]
        if self.security is not None:
            listeners.append((self.security.ships_host, self.security.ships_port, "ships"))
        return listeners

    def _config_text(self) -> str:
        lines = [
            "persistence false",
            "max_packet_size 1048576",
            "set_tcp_nodelay true",  # small MQTT packets must not wait for delayed ACKs
            f"log_dest file {self.log_path}",
            "log_type error",
            "log_type warning",
            "log_type notice",
        ]
        with contextlib.suppress(KeyError, ImportError):
            import pwd

            # as whoever runs bosun: as root mosquitto would switch to the `mosquitto` user,
            # and a change of user clears the parent-death signal
            lines.append(f"user {pwd.getpwuid(os.geteuid()).pw_name}")
        if self.security is None:
            return (
                "\n".join([f"listener {self.port} {self.host}", "allow_anonymous true", *lines])
                + "\n"
            )
        security = self.security
        # Each listener its own logins: on loopback only bosun; on the ships' one the ships
        # (and Home Assistant), each of whose client id is its user name, so that no ship can
        # take over another's session by borrowing its client id.
        lines += [
            "per_listener_settings true",
            f"listener {self.port} {self.host}",
            "allow_anonymous false",
            f"password_file {self.host_password_path}",
            f"acl_file {self.acl_path}",
            f"listener {security.ships_port} {security.ships_host}",
            "allow_anonymous false",
            f"password_file {self.password_path}",
            f"acl_file {self.acl_path}",
            "use_username_as_clientid true",
        ]
        if security.tls is not None:
            lines += [
                f"cafile {security.tls.ca_file}",
                f"certfile {security.tls.cert_file}",
                f"keyfile {security.tls.key_file}",
                "tls_version tlsv1.2",
            ]
        return "\n".join(lines) + "\n"

    def _write_access_files(self) -> None:
        if self.security is not None:
            credentials = self.security.credentials
            write_private(self.password_path, credentials.password_file_text())
            write_private(self.host_password_path, credentials.host_password_file_text())
            write_private(self.acl_path, credentials.acl_text())

    def start(self, timeout_s: float = 10.0) -> MosquittoBroker:
        for host, port, what in self._listeners():
            if not wait_for_free_port(host, port, min(timeout_s, 5.0)):
                raise BrokerError(
                    f"port {port} on {host} (for {what}) is already in use"
                    + (" (another broker? give --ships ADDR:PORT)" if what == "ships" else "")
                )
        self._write_access_files()
        write_private(self.config_path, self._config_text())
        self._process = subprocess.Popen(
            [self.executable, "-c", str(self.config_path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # Ctrl-C stops bosun, which then stops its broker last
            preexec_fn=_die_with_parent(),  # noqa: PLW1509 - prctl only, no locks taken
        )
        for host, port, _what in self._listeners():
            probe_host = "127.0.0.1" if host in ("0.0.0.0", "") else host
            if not wait_for_port(probe_host, port, timeout_s, self._process):
                self.stop()
                raise BrokerError(f"mosquitto did not open port {port}: {self.log_tail()}")
        return self

    def reload(self, check: Credential | None = None, timeout_s: float = 5.0) -> bool:
        """Rewrite the password and ACL files from the credentials and make mosquitto read
        them again (SIGHUP); with `check`, wait until that user can log in. Blocking."""
        if self.security is None or not self.running:
            return False
        self._write_access_files()
        self._process.send_signal(signal.SIGHUP)
        if check is None:
            return True
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.login(check.user, check.password) == 0:
                return True
            time.sleep(0.02)  # mosquitto reloads on its next loop turn; nothing to wait on
        return False

    def login(self, user: str | None, password: str | None) -> int | None:
        """`mqtt_login` on the ships' listener (the host's for an open broker)."""
        if self.security is None:
            return mqtt_login(self.host, self.port, user, password)
        security = self.security
        host = "127.0.0.1" if security.ships_host in ("0.0.0.0", "", "::") else security.ships_host
        ca_file = security.tls.ca_file if security.tls is not None else None
        return mqtt_login(host, security.ships_port, user, password, ca_file)

    def stop(self) -> None:
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process.stderr:
            self._process.stderr.close()
        self._process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def log_tail(self, lines: int = 5) -> str:
        if not self.log_path.exists():
            return "(no log)"
        return " | ".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> MosquittoBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
