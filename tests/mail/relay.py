"""An IMAP relay on 127.0.0.1 in front of a real server, for tests that make the server misbehave.

A subclass says what it does to each direction (`_down`: the server's lines to pbem; `_up`: pbem's commands to
the server), each run on its own thread per connection with a lock shared by the two.
"""

from __future__ import annotations

import socket
import threading


class Relay:
    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]

    def start(self) -> None:
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            # a relay writes each line as it comes: with Nagle's algorithm a small write waits for the peer's
            # delayed ACK (40 ms on Linux), which made most of a relayed poll's time
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            lock = threading.Lock()
            threading.Thread(target=self._down, args=(server, client, lock), daemon=True).start()
            threading.Thread(target=self._up, args=(client, server, lock), daemon=True).start()

    def _down(self, server: socket.socket, client: socket.socket, lock: threading.Lock) -> None:
        raise NotImplementedError

    def _up(self, client: socket.socket, server: socket.socket, lock: threading.Lock) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.listener.close()
