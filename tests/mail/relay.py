"""An IMAP relay on 127.0.0.1 in front of a real server, for tests that make the server misbehave.

A subclass says what it does to each direction (`_down`: the server's lines to pbem; `_up`: pbem's commands to
the server), each run on its own thread per connection with a lock shared by the two.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from collections.abc import Callable


class _Closing(socket.socket):
    """A relayed connection's socket whose `close` shuts it first: closed by one direction's thread while the other
    still reads it through a `makefile` (whose reference keeps the descriptor open), the other's read ends too."""

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.shutdown(socket.SHUT_RDWR)
        super().close()


class Relay:
    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self._socks: list[socket.socket] = []
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        self._spawn(self._accept)

    def _spawn(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = _Closing(fileno=socket.create_connection(self.upstream).detach())
            client = _Closing(fileno=client.detach())
            self._socks += [client, server]
            # a relay writes each line as it comes: with Nagle's algorithm a small write waits for the peer's
            # delayed ACK (40 ms on Linux), which made most of a relayed poll's time
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            lock = threading.Lock()
            self._spawn(self._down, server, client, lock)
            self._spawn(self._up, client, server, lock)

    def _down(self, server: socket.socket, client: socket.socket, lock: threading.Lock) -> None:
        raise NotImplementedError

    def _up(self, client: socket.socket, server: socket.socket, lock: threading.Lock) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """The relay and every connection it made end with it (costs27: `close` only closed the listener, whose
        `accept` then waited for ever, and a stalled connection's threads read on, holding the real server's
        connection: 60 to 100 such threads were alive in the worker after test_costs14_waits.py, through every
        later file, `PBEM_WORKER_STATE`'s report).  A thread that outlives it fails the test."""
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept (a close alone does not, on Linux)
        self.listener.close()
        for sock in list(self._socks):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in list(self._threads):
            if thread is not threading.current_thread():
                thread.join(5)
        for sock in list(self._socks):
            sock.close()
        alive = [t.name for t in self._threads if t.is_alive() and t is not threading.current_thread()]
        if sys.exc_info()[1] is None:  # (not said over a failure of the test itself)
            assert not alive, f"the relay's threads {alive} outlive it"
