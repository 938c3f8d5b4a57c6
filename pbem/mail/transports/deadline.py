"""One deadline for a whole poll, over every socket it opens (issue 26, "every wait has a deadline").

A per-operation socket timeout does not bound a server that trickles its
answer (an IMAP server sending one byte every 2 s, SMTP continuation lines
forever): each read returns in time and the whole never ends.  `start` arms a
watchdog for the run; every transport calls `watch` on each socket it opens;
when the deadline passes, the watchdog shuts every watched socket down, so a
blocked read returns at once and the transport raises its one-line error.
The poll checks `expired` between messages: it files what it finished, leaves
the rest in the inbox for the next run, and the run exits non-zero.

Should a wait not end with its socket (a greeting read while connecting, a
database lock), the watchdog ends the process `GRACE` seconds later with
one line and exit status 3: every message's transaction is atomic, so this
loses nothing.

The process has one watchdog at a time (`pbem poll` is one run; `pbem check` arms one per server); with none
armed, `watch` does nothing and `expired` is False (tests).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
import time
import weakref
from typing import Any

GRACE = 60.0  # seconds after the deadline before the backstop ends the process


class Watchdog:
    """Shuts down every watched socket `seconds` after it was armed."""

    def __init__(self, seconds: float, grace: float = GRACE) -> None:
        self.seconds, self.grace = seconds, grace
        self.started = time.monotonic()
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._fired = threading.Event()
        self._cancelled = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self._fired.set()
        with self._lock:
            socks = list(self._sockets)
        for sock in socks:
            _shut(sock)
        with self._lock:  # `cancel` may run meanwhile: a cancelled watchdog never arms its backstop
            if self._cancelled:
                return
            self._timer = threading.Timer(self.grace, self._hard_stop)
            self._timer.daemon = True
            self._timer.start()

    def _hard_stop(self) -> None:
        """The backstop: a wait no socket shutdown reached (a server's greeting, a lock) ends the process.
        Safe: each message's transaction is atomic and filing follows its commit (the kill-point tests)."""
        with self._lock:
            if self._cancelled:
                return
        sys.stderr.write(
            f"pbem: the poll passed its deadline of {self.seconds:.0f} s and did not stop within "
            f"{self.grace:.0f} s more; stopped (nothing is lost: the next run carries on)\n"
        )
        sys.stderr.flush()
        os._exit(3)

    def watch(self, sock: Any) -> None:
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.add(sock)
        if self._fired.is_set():
            _shut(sock)

    @property
    def expired(self) -> bool:
        return self._fired.is_set()

    def remaining(self) -> float:
        return max(0.0, self.seconds - (time.monotonic() - self.started))

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's, also for an SSLSocket


_current: Watchdog | None = None


def start(seconds: float, grace: float | None = None) -> Watchdog:
    """Arm the run's watchdog (replacing any earlier one); `grace` before the backstop, `GRACE` by default."""
    global _current
    stop()
    _current = Watchdog(seconds, GRACE if grace is None else grace)
    return _current


def stop() -> None:
    global _current
    if _current is not None:
        _current.cancel()
    _current = None


def watch(sock: Any) -> None:
    """Put `sock` under the run's deadline (nothing without one)."""
    if _current is not None and sock is not None:
        _current.watch(sock)


def expired() -> bool:
    return _current is not None and _current.expired


def current() -> Watchdog | None:
    return _current
