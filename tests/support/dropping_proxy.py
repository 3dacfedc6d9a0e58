"""`python tests/support/dropping_proxy.py UPSTREAM_PORT`: a TCP proxy on loopback whose
connections can be cut, what a phone sees when its WiFi drops (open streams die, new
connections are refused). It prints the port it listens on, then obeys its standard input,
one command a line, answering each with `ok`: `drop` cuts every open connection and refuses
new ones, `restore` lets them through again. It stops at the end of its input.

It runs as a process of its own (tests/browser/browser_kit.DroppingProxy starts it): its
pumping threads, in the test's process, would compete for the interpreter lock with the
service's event loop running there, and the suite fails any callback that holds that loop
for 100 ms (tests/support/loopwatch.py).
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading


class Proxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.up = True
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return  # closed
            if not self.up:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()  # the service is away: so is the connection
                continue
            with self._lock:
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, target):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
            with self._lock:
                self._open.difference_update((source, target))

    def drop(self) -> None:
        self.up = False
        with self._lock:
            for s in list(self._open):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.drop()
        self.server.close()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1].isdigit():
        print("usage: dropping_proxy.py UPSTREAM_PORT", file=sys.stderr)
        return 2
    proxy = Proxy(int(argv[1]))
    print(proxy.port, flush=True)
    commands = {"drop": proxy.drop, "restore": proxy.restore}
    for line in sys.stdin:
        command = line.strip()
        if command not in commands:
            print(f"unknown command {command!r}: drop or restore", file=sys.stderr, flush=True)
            return 2
        commands[command]()
        print("ok", flush=True)
    proxy.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
