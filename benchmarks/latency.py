"""A TCP proxy that delays what the server sends by a fixed time: a mail server across a network, on localhost.

    with DelayedServer("127.0.0.1", 143, delay=0.025) as proxy:  # proxy.port: connect here instead
        ...

Each chunk the server sends reaches the client `delay` seconds after it left the server (a delay line: chunks
are not delayed one after the other), so every command that waits for its answer waits one round trip of
`delay` more; what the client sends goes through at once.  Used by `poll_ab.py --imap-delay`.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from types import TracebackType


class DelayedServer:
    def __init__(self, host: str, port: int, delay: float) -> None:
        self.host, self.target, self.delay = host, port, delay
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="latency-proxy", daemon=True)

    def __enter__(self) -> DelayedServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the latency proxy did not start")
        return self

    def __exit__(self, *exc: object | TracebackType) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(self.host, self.target)
        await asyncio.gather(self._pipe(client_r, server_w, 0.0), self._pipe(server_r, client_w, self.delay))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
        line: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def release() -> None:
            while True:
                due, data = await line.get()
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
            writer.close()

        out = asyncio.ensure_future(release())
        try:
            while data := await reader.read(65536):
                line.put_nowait((time.monotonic() + delay, data))
        except ConnectionError:
            pass
        line.put_nowait((time.monotonic() + delay, b""))
        with contextlib.suppress(ConnectionError):
            await out
