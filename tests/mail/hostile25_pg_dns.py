"""Hostile or broken PostgreSQL and DNS servers, one behaviour at one protocol step each (costs25; the IMAP and SMTP
ones are `tests.mail.hostile25`'s, which runs these too).

* PostgreSQL: a scripted server on 127.0.0.1 speaking the protocol's start (SSLRequest, the startup message, a
  cleartext password, AuthenticationOk, the parameters SQLAlchemy reads, ReadyForQuery) that misbehaves at one step
  (`PG_STEPS`: its answer to SSLRequest, to the startup message, to the password, and to the first statement) in one
  of `PG_HOWS`: silence, an answer dripped a byte a second, an endless message (a length of 2 GiB, then bytes for
  ever), a length that lies (more announced than sent), the connection reset, garbage (no message type libpq knows),
  a FATAL error ("too many connections").  Each case: `pbem.record.db.transaction` ends by the connect timeout or the
  answer deadline (`PG_WAIT`, both set small) plus `SLACK`, in the one line a command says of a database it cannot
  use (`pbem.cli._unusable`), its memory bounded (the forked child's resident size grew less than `MOST_RSS`).
* DNS: a UDP and TCP server on 127.0.0.1 asked for a DKIM key (`pbem.trust.dkim._cached`, as a mail's check at
  arrival asks it) answering one of `DNS_HOWS`: nothing, garbage, an answer of another query's id, an answer cut
  (TC: asked again over TCP, where it is silent, dripped, endless or reset), a key of 64 KiB.  Each case: the lookup
  ends by `LOOKUP` plus `SLACK`, in no key (no traceback), its memory bounded.
"""

from __future__ import annotations

import resource
import socket
import struct
import threading
import time
from collections.abc import Callable

from tests.mail.hostile25 import SLACK, Server

PG_STEPS = ("ssl", "startup", "password", "statement")
PG_HOWS = ("silent", "drip", "endless", "length-lies", "reset", "garbage", "fatal")
PG_WAIT = 2  # seconds: the connect timeout and the answer deadline
DNS_HOWS = (
    "silent",
    "garbage",
    "other-id",
    "truncated-silent",
    "truncated-drip",
    "truncated-endless",
    "truncated-reset",
    "huge",
)
LOOKUP = 1.0  # seconds: a DKIM lookup's timeout
MOST_RSS = (
    256 * 1024 * 1024
)  # bytes the child's resident size may grow (a C library's allocations are no Python objects)


def pg_cases() -> list[str]:
    return [f"pg {step} {how}" for step in PG_STEPS for how in PG_HOWS]


def dns_cases() -> list[str]:
    return [f"dns lookup {how}" for how in DNS_HOWS]


def _msg(kind: bytes, body: bytes) -> bytes:
    return kind + struct.pack("!I", len(body) + 4) + body


_READY = (
    b"".join(
        _msg(b"S", k + b"\0" + v + b"\0")
        for k, v in (
            (b"server_version", b"16.0"),
            (b"server_encoding", b"UTF8"),
            (b"client_encoding", b"UTF8"),
            (b"standard_conforming_strings", b"on"),
            (b"integer_datetimes", b"on"),
            (b"DateStyle", b"ISO, MDY"),
            (b"TimeZone", b"UTC"),
        )
    )
    + _msg(b"K", struct.pack("!II", 4242, 2424))
    + _msg(b"Z", b"I")
)


class Postgres(Server):
    def __init__(self, step: str, how: str) -> None:
        self.step, self.how = step, how
        super().__init__()

    def _read(self, conn: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            got = conn.recv(n - len(data))
            if not got:
                raise OSError("the client went")
            data += got
        return data

    def _untyped(self, conn: socket.socket) -> bytes:
        (n,) = struct.unpack("!I", self._read(conn, 4))
        return self._read(conn, n - 4)

    def _typed(self, conn: socket.socket) -> bytes:
        kind = self._read(conn, 1)
        (n,) = struct.unpack("!I", self._read(conn, 4))
        self._read(conn, n - 4)
        return kind

    def handle(self, conn: socket.socket) -> None:
        first = self._untyped(conn)
        if first[:4] in (struct.pack("!I", 80877103), struct.pack("!I", 80877104)):  # SSLRequest, GSSENCRequest
            if self._answer(conn, "ssl", b"N"):
                return
            first = self._untyped(conn)
        if self._answer(conn, "startup", _msg(b"R", struct.pack("!I", 3))):  # a cleartext password, please
            return
        self._typed(conn)  # the password
        if self._answer(conn, "password", _msg(b"R", struct.pack("!I", 0)) + _READY):
            return
        self._typed(conn)  # the first statement (its Parse or Query; the rest of it waits in the socket)
        error = _msg(b"E", b"SERROR\0C42601\0Mno statements here\0\0") + _msg(b"Z", b"I")
        if self._answer(conn, "statement", error):
            return
        self.silent(conn)

    def _answer(self, conn: socket.socket, step: str, answer: bytes) -> bool:
        """The answer, or the fault where it is `step`'s; True when the connection is done with."""
        if step != self.step:
            conn.sendall(answer)
            return False
        self.met()
        how = self.how
        if how == "silent":
            self.silent(conn)
        elif how == "drip":
            self.drip(conn, answer)
        elif how == "endless":
            self.endless(conn, b"E" + struct.pack("!I", 0x7FFFFFFF) + b"SERROR\0M")
        elif how == "length-lies":
            conn.sendall(answer[:1] + struct.pack("!I", 100_000) + answer[5:])
            self.silent(conn)
        elif how == "reset":
            self.reset(conn, answer)
        elif how == "garbage":
            conn.sendall(b"\x07garbage\r\n" * 100)
            self.silent(conn)
        elif how == "fatal":
            conn.sendall(_msg(b"E", b"SFATAL\0C53300\0Msorry, too many clients already\0\0"))
        return True


def _in_child(run: Callable[[], str]) -> str:
    """`run()` in a forked child with `PG_WAIT * 4 + SLACK + 10` seconds: what it found wrong, its resident size's
    growth checked against `MOST_RSS`."""
    from tests.growth import _in_child as child

    def measured() -> str:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        why = run()
        grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
        if grew > MOST_RSS:
            why = f"{why}; resident size grew {grew:,} bytes".lstrip("; ")
        return why

    got = child(measured, PG_WAIT * 4 + SLACK + 10)
    if got is None:
        return "the run did not end (the child was stopped)"
    ok, value = got
    return str(value) if ok else f"a traceback: {str(value).strip().splitlines()[-1][:300]}"


def check_pg(case: str) -> str:
    _, step, how = case.split(" ")
    server = Postgres(step, how)
    try:

        def run() -> str:
            from pbem.cli import _unusable
            from pbem.record import db

            db.PG_CONNECT_TIMEOUT = PG_WAIT
            db.PG_ANSWER_DEADLINE = float(PG_WAIT)
            db.engine_for.cache_clear()
            t0 = time.monotonic()
            try:
                with db.transaction(f"postgresql+psycopg://pbem:hostile-pw@127.0.0.1:{server.port}/pbem"):
                    pass
            except Exception as exc:  # what `pbem.cli.main` makes of it: one line, or a traceback (None)
                line = _unusable(exc)
                if line is None:
                    return f"a traceback: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
                spent = time.monotonic() - t0
                problems = []
                if spent > 2 * PG_WAIT + SLACK:  # (the connect timeout, then the answer deadline at most)
                    problems.append(f"ended after {spent:.1f} s")
                if not line or "\n" in line or "hostile-pw" in line:
                    problems.append(f"not one line: {line!r} ({str(exc)[:200]!r})")
                return "; ".join(problems)
            return "no error from a server that never let a statement run"

        why = _in_child(run)
        if not server.faulted.is_set() and "never met" not in why:
            why = f"{why}; the fault was never met".lstrip("; ")
        return why
    finally:
        server.close()


# ---- DNS --------------------------------------------------------------------------------------------------------


class Dns(Server):
    """UDP and TCP on the same port; the TCP side is `Server`'s."""

    def __init__(self, how: str) -> None:
        self.how = how
        super().__init__()
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.udp.settimeout(0.1)
        threading.Thread(target=self._serve_udp, daemon=True).start()

    def _reply(self, query: bytes, *, tc: bool = False, txt: bytes = b"v=DKIM1; p=") -> bytes:
        import dns.message
        import dns.rrset

        q = dns.message.from_wire(query)
        r = dns.message.make_response(q)
        if tc:
            r.flags |= 0x0200
        else:
            strings = " ".join(f'"{txt[i : i + 255].decode()}"' for i in range(0, len(txt), 255))
            r.answer.append(dns.rrset.from_text(q.question[0].name, 60, "IN", "TXT", strings))
        return r.to_wire(max_size=65535)

    def _serve_udp(self) -> None:
        while not self.stop.is_set():
            try:
                data, peer = self.udp.recvfrom(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            self.met()
            how = self.how
            if how == "silent":
                continue
            if how == "garbage":
                self.udp.sendto(data[:2] + b"\xff" * 40, peer)
            elif how == "other-id":
                reply = self._reply(data)
                self.udp.sendto(bytes([reply[0] ^ 0x55]) + reply[1:], peer)
            elif how.startswith("truncated") or how == "huge":
                self.udp.sendto(self._reply(data, tc=True), peer)

    def handle(self, conn: socket.socket) -> None:
        (n,) = struct.unpack("!H", conn.recv(2))
        query = conn.recv(n)
        how = self.how
        if how == "truncated-silent":
            self.silent(conn)
        elif how == "truncated-drip":
            reply = self._reply(query)
            self.drip(conn, struct.pack("!H", len(reply)) + reply)
        elif how == "truncated-endless":
            self.endless(conn, struct.pack("!H", 65535))
        elif how == "truncated-reset":
            reply = self._reply(query)
            self.reset(conn, struct.pack("!H", len(reply)) + reply)
        elif how == "huge":
            reply = self._reply(query, txt=b"A" * 60_000)
            conn.sendall(struct.pack("!H", len(reply)) + reply)

    def close(self) -> None:
        super().close()
        self.udp.close()


def check_dns(case: str) -> str:
    how = case.split(" ")[2]
    server = Dns(how)
    try:

        def run() -> str:
            from collections import deque

            import dns.resolver

            from pbem.trust import dkim

            res = dns.resolver.Resolver(configure=False)
            res.nameservers = ["127.0.0.1"]
            res.port = server.port
            dns.resolver.default_resolver = res
            dkim.resolver = dkim.provider_dns
            dkim._cache.clear()
            dkim._waits = deque()
            dkim.LOOKUP_TIMEOUT = LOOKUP
            t0 = time.monotonic()
            got = dkim._cached(b"s1._domainkey.own.example.")
            spent = time.monotonic() - t0
            problems = []
            if spent > LOOKUP + SLACK:
                problems.append(f"ended after {spent:.1f} s")
            if got is not None and len(got) > 65535:  # (one over `MAX_KEY` is refused by `capture`, unused)
                problems.append(f"a record of {len(got):,} bytes, more than one DNS answer holds")
            return "; ".join(problems)

        why = _in_child(run)
        if not server.faulted.is_set():
            why = f"{why}; the server was never asked".lstrip("; ")
        return why
    finally:
        server.close()
