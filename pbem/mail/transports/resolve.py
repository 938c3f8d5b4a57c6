"""Host names resolved with a deadline: the IMAP and SMTP servers' names, and this machine's for EHLO.

`socket.create_connection` resolves the name first (`getaddrinfo`), and no socket timeout covers that: a resolver
that never answers held `pbem check`, a `pbem poll` until its backstop (its deadline and 60 s more), and any other
connection without end.  Here the name is resolved in a daemon thread joined for at most the connection's
timeout (and what is left of the poll's deadline); past it the connection fails with one line naming the host,
and the thread, still waiting on the resolver, is left to end with the process.  Each address found is then
tried as `create_connection` tries them.  A numeric address needs no resolver and is used as it is.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from pbem.mail.transports import deadline

DEFAULT = 30.0  # seconds for a name when the connection has no timeout


def within(seconds: float | None) -> float:
    """The seconds a name may take: the connection's timeout, no more than what is left of the poll's deadline."""
    limit = DEFAULT if seconds is None or seconds <= 0 else float(seconds)
    dog = deadline.current()
    return min(limit, dog.remaining()) if dog is not None else limit


def _in_thread(work: Any, seconds: float, what: str) -> Any:
    """`work()`'s value (or its exception) if it ends within `seconds`; TimeoutError naming `what` if not."""
    box: list[Any] = [None, None]

    def run() -> None:
        try:
            box[0] = work()
        except BaseException as exc:  # handed to the caller
            box[1] = exc

    thread = threading.Thread(target=run, name=f"pbem-resolve {what}", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        said = f"{seconds:.1f}".removesuffix(".0")
        raise TimeoutError(f"the name {what} was not resolved within {said} s (the DNS resolver did not answer)")
    if box[1] is not None:
        raise box[1]
    return box[0]


def addresses(host: str, port: int, seconds: float | None = None) -> list[tuple[Any, ...]]:
    """`getaddrinfo(host, port)` for a TCP connection, within `within(seconds)`."""
    try:
        return socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)  # no resolver
    except (socket.gaierror, UnicodeError, ValueError):
        pass
    limit = within(seconds)
    return list(_in_thread(lambda: socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM), limit, repr(host)))


def connect(host: str, port: int, timeout: float | None, source_address: Any = None) -> socket.socket:
    """`socket.create_connection((host, port), timeout, source_address)` whose name lookup has a deadline."""
    error: OSError | None = None
    for family, kind, proto, _, where in addresses(host, port, timeout):
        sock = socket.socket(family, kind, proto)
        try:
            if timeout is not None:
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            deadline.watch(sock)  # the connect itself under the poll's deadline too
            sock.connect(where)
            return sock
        except OSError as exc:
            error = exc
            sock.close()
    raise error if error is not None else OSError(f"no address found for {host!r}")


_LOCAL: list[str] = []  # this machine's EHLO name, once found


def _ehlo_name() -> str:
    """smtplib's own choice (`smtplib.SMTP.__init__`): the FQDN, else the host's address in brackets."""
    fqdn = socket.getfqdn()
    if "." in fqdn:
        return fqdn
    try:
        return f"[{socket.gethostbyname(socket.gethostname())}]"
    except OSError:
        return "[127.0.0.1]"


def local_name(seconds: float | None = None) -> str:
    """This machine's name for SMTP's EHLO as smtplib finds it (a reverse lookup), within `within(seconds)`;
    `[127.0.0.1]` when the resolver does not answer.  Found once a process."""
    if not _LOCAL:
        try:
            _LOCAL.append(str(_in_thread(_ehlo_name, within(seconds), "of this machine")))
        except TimeoutError:
            return "[127.0.0.1]"  # asked again at the next connection
    return _LOCAL[0]
