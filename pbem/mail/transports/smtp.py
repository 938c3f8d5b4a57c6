"""The SMTP sender: delivers the outbox through the moderator's mail server.

`SmtpSender` implements `pbem.mail.transports.seam.Sender` with smtplib.  One
connection is opened on the first `send` and reused for the whole run; if the
server dropped it in between, it is reopened once.  Where the server offers
PIPELINING (RFC 2920), MAIL, RCPT and DATA go out in one write and their
answers are read together: two round trips per message instead of four
(smtplib itself waits for each answer).  `another()` makes a sender with the
same settings for a second connection (`[smtp] connections`).  Failures are sorted for
the outbox: connection problems, failures while connecting or logging in,
and 4xx replies raise `TransientSendError` (retry on a later run); 5xx
replies about this message or its recipients raise `PermanentSendError`.
Login is by password (AUTH PLAIN/LOGIN) or OAuth2 (``AUTH XOAUTH2`` or
``OAUTHBEARER``; ``password`` is then the access token); a refusal gives the
server's answer in one line.  TLS always verifies the certificate
(`pbem.mail.transports.tls`).  Error texts never contain the password or token.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import smtplib
import socket
import ssl as ssl_module

from pbem.mail.transports import deadline, resolve, tls
from pbem.mail.transports.seam import (
    MessageDeferred,
    PermanentSendError,
    ServerUnreachable,
    TransientSendError,
    one_line,
)

log = logging.getLogger(__name__)


# RFC 5321 section 4.5.3.2: a client waits 5 minutes for the answer to MAIL and RCPT and 10 minutes for the
# answer to the final "." (a server may still be filing the message); the poll's deadline caps them all.
COMMAND_TIMEOUT = 300.0
DATA_END_TIMEOUT = 600.0


def _text(value: object) -> str:
    return one_line(value)


MAX_REPLY_LINES = 1000  # lines of one SMTP reply (an EHLO lists a few dozen)


class _Bounded(smtplib.SMTP):
    """smtplib.SMTP whose socket is under the poll's deadline from its creation (the greeting included), and
    whose replies are bounded in lines: smtplib keeps every continuation line of a reply, so a server
    answering EHLO with endless `250-` lines grew the poll by 60 MB a second until its deadline (found by the
    transport testers).  `getreply` is smtplib's own, with the bound."""

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        """smtplib's (and SMTP_SSL's), with the host name resolved within the timeout (`resolve.connect`: no socket
        timeout covers the lookup), and the socket under the poll's deadline before any TLS handshake."""
        sock = resolve.connect(host, port, timeout, self.source_address)
        if isinstance(self, smtplib.SMTP_SSL):
            sock = self.context.wrap_socket(sock, server_hostname=self._host)  # type: ignore[attr-defined]
            deadline.watch(sock)
        return sock

    def getreply(self) -> tuple[int, bytes]:
        resp: list[bytes] = []
        if self.file is None:
            self.file = self.sock.makefile("rb")  # type: ignore[union-attr]  # as smtplib: connected first
        while True:
            try:
                line = self.file.readline(smtplib._MAXLINE + 1)  # type: ignore[attr-defined]
            except OSError as e:
                self.close()
                raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed: " + str(e)) from None
            if not line:
                self.close()
                raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
            if len(line) > smtplib._MAXLINE:  # type: ignore[attr-defined]
                self.close()
                raise smtplib.SMTPResponseException(500, "Line too long.")
            if len(resp) >= MAX_REPLY_LINES:
                self.close()
                raise smtplib.SMTPResponseException(500, f"a reply of more than {MAX_REPLY_LINES} lines".encode())
            resp.append(line[4:].strip(b" \t\r\n"))
            try:
                errcode = int(line[:3])
            except ValueError:
                errcode = -1
                break
            if line[3:4] != b"-":
                break
        return errcode, b"\n".join(resp)


class _Watched(_Bounded):
    pass


class _WatchedSSL(_Bounded, smtplib.SMTP_SSL):
    pass


def _wait(conn: smtplib.SMTP, seconds: float) -> None:
    """Wait up to `seconds` for the next answers (a socket timeout is per read; the deadline is per poll)."""
    if conn.sock is not None:
        conn.sock.settimeout(seconds)


class SmtpSender:
    """An SMTP submission/relay server as the moderator's outbox."""

    def __init__(
        self,
        host: str,
        port: int,
        ssl: bool = False,
        starttls: bool = False,
        username: str = "",
        password: str = "",
        timeout: float = 30,
        local_hostname: str | None = None,
        *,
        ssl_context: ssl_module.SSLContext | None = None,
        auth: str = "password",
    ) -> None:
        self.host, self.port = host, int(port)
        self.ssl, self.starttls = bool(ssl), bool(starttls)
        self.username = username
        self._password = password
        self.timeout = timeout
        self.local_hostname = local_hostname
        self._ssl_context = ssl_context
        self.auth = auth
        self._conn: smtplib.SMTP | None = None
        self.connections = 0  # opened during this run (for logs and tests)

    def another(self) -> SmtpSender:
        """A sender with the same server, login and TLS settings, for one more connection."""
        return SmtpSender(
            self.host,
            self.port,
            self.ssl,
            self.starttls,
            self.username,
            self._password,
            self.timeout,
            self.local_hostname,
            ssl_context=self._ssl_context,
            auth=self.auth,
        )

    def _reason(self, text: str) -> str:
        return f"SMTP {self.host}:{self.port}: {one_line(text, self._password)}"

    def _context(self) -> ssl_module.SSLContext:
        return self._ssl_context or tls.context()

    def open(self) -> smtplib.SMTP:
        """Connect, secure and log in now (for `pbem check`); `close` ends it.  Raises TransientSendError."""
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _login(self, conn: smtplib.SMTP) -> None:
        if self.auth == "password":
            if (self.username + self._password).isascii():
                conn.login(self.username, self._password)
            else:
                self._utf8_plain(conn)
            return
        mechanism = self.auth.upper()
        offered = (conn.esmtp_features.get("auth") or "").upper().split()
        if mechanism not in offered:
            raise ServerUnreachable(
                self._reason(
                    f"the server does not offer AUTH {mechanism} (it offers {', '.join(offered) or 'no AUTH'}"
                    + ("" if self.ssl or self.starttls else "; many servers offer AUTH only after STARTTLS")
                    + "); change [smtp] auth"
                )
            )
        if mechanism == "XOAUTH2":
            first = f"user={self.username}\x01auth=Bearer {self._password}\x01\x01"
        else:
            first = f"n,a={self.username},\x01auth=Bearer {self._password}\x01\x01"
        # on a refusal the server sends a JSON challenge and waits for an empty answer
        conn.auth(mechanism, lambda challenge=None: first if challenge is None else "", initial_response_ok=True)

    def _utf8_plain(self, conn: smtplib.SMTP) -> None:
        """AUTH PLAIN with a UTF-8 username or password (smtplib encodes its AUTH answers as ASCII: a traceback)."""
        import base64

        conn.ehlo_or_helo_if_needed()
        offered = (conn.esmtp_features.get("auth") or "").upper().split()
        if "PLAIN" not in offered:
            raise ServerUnreachable(
                self._reason(
                    "the username or password holds characters other than ASCII, which only AUTH PLAIN can send, and "
                    f"the server offers {', '.join(offered) or 'no AUTH'}; use an ASCII password"
                )
            )
        token = base64.b64encode(f"\0{self.username}\0{self._password}".encode()).decode("ascii")
        code, resp = conn.docmd("AUTH", f"PLAIN {token}")
        if code != 235:  # (a server that repeats the token would show the password: never passed on)
            raise smtplib.SMTPAuthenticationError(code, resp.replace(token.encode("ascii"), b"***"))

    def _connect(self) -> smtplib.SMTP:
        conn: smtplib.SMTP | None = None
        local = self.local_hostname or resolve.local_name(self.timeout)  # smtplib's own lookup had no deadline
        try:
            if self.ssl:
                conn = _WatchedSSL(
                    self.host,
                    self.port,
                    local_hostname=local,
                    timeout=self.timeout,
                    context=self._context(),
                )
            else:
                conn = _Watched(self.host, self.port, local_hostname=local, timeout=self.timeout)
            conn.ehlo()
            if self.starttls:
                conn.starttls(context=self._context())
                deadline.watch(conn.sock)
                conn.ehlo()
            if self.username:
                self._login(conn)
        except TransientSendError:
            self._quietly_close(conn)
            raise
        except smtplib.SMTPAuthenticationError as exc:
            self._quietly_close(conn)
            refusal = f"{exc.smtp_code} {_text(exc.smtp_error)}"
            raise ServerUnreachable(self._reason(f"login as {self.username!r} refused ({refusal})")) from None
        except ssl_module.SSLError as exc:
            self._quietly_close(conn)
            reason = tls.describe(exc, "smtp") or _text(exc)
            raise ServerUnreachable(self._reason(f"cannot connect: {reason}")) from None
        except smtplib.SMTPResponseException as exc:
            self._quietly_close(conn)
            raise ServerUnreachable(self._reason(f"connect refused: {exc.smtp_code} {_text(exc.smtp_error)}")) from None
        except (TimeoutError, smtplib.SMTPException, OSError) as exc:
            self._quietly_close(conn)
            raise ServerUnreachable(self._reason(f"cannot connect ({type(exc).__name__}: {_text(exc)})")) from None
        self.connections += 1
        return conn

    @staticmethod
    def _quietly_close(conn: smtplib.SMTP | None) -> None:
        if conn is None:
            return
        with contextlib.suppress(Exception):
            conn.close()

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        """Deliver one message to every recipient, or raise (see the module docstring)."""
        if not recipients:
            raise PermanentSendError("no recipients")
        # smtplib sends bytes as they are: SMTP wants CRLF line ends (bare LF is refused by strict servers)
        raw = crlf(raw)
        for attempt in (1, 2):
            fresh = self._conn is None
            if fresh:
                self._conn = self._connect()
            conn = self._conn
            assert conn is not None
            try:
                _wait(conn, max(self.timeout, COMMAND_TIMEOUT))
                refused = transmit(conn, sender, list(recipients), raw, max(self.timeout, DATA_END_TIMEOUT))
            except smtplib.SMTPRecipientsRefused as exc:
                self._reset()
                self._raise_refused(exc.recipients, everyone=True)
            except smtplib.SMTPSenderRefused as exc:
                self._reset()
                self._raise_code(exc.smtp_code, f"sender {sender!r} refused: {exc.smtp_code} {_text(exc.smtp_error)}")
            except smtplib.SMTPResponseException as exc:
                self._reset()
                if exc.smtp_code == -1 or exc.smtp_code == 421:
                    self._drop()
                self._raise_code(exc.smtp_code, f"message refused: {exc.smtp_code} {_text(exc.smtp_error)}")
            except (TimeoutError, smtplib.SMTPServerDisconnected, OSError) as exc:
                self._drop()
                if attempt == 1 and not fresh:
                    log.info("SMTP connection was closed by the server; reconnecting once")
                    continue
                raise TransientSendError(
                    self._reason(f"connection lost ({type(exc).__name__}: {_text(exc)})")
                ) from None
            except smtplib.SMTPException as exc:
                self._drop()
                raise TransientSendError(self._reason(f"{type(exc).__name__}: {_text(exc)}")) from None
            if refused:
                self._raise_refused(refused, everyone=False)
            return

    def _raise_code(self, code: int, text: str) -> None:
        if 500 <= code <= 599:
            raise PermanentSendError(self._reason(text)) from None
        if code in (-1, 421):  # the server closes the session: no more mail on it in this run
            raise TransientSendError(self._reason(text)) from None
        raise MessageDeferred(self._reason(text)) from None

    def _raise_refused(self, refused: dict[str, tuple[int, bytes]], everyone: bool) -> None:
        codes = {rcpt: code for rcpt, (code, _msg) in refused.items()}
        detail = "; ".join(f"{rcpt}: {code} {_text(msg)}" for rcpt, (code, msg) in sorted(refused.items()))
        what = "all recipients refused" if everyone else "some recipients refused"
        if all(500 <= code <= 599 for code in codes.values()):
            raise PermanentSendError(self._reason(f"{what}: {detail}")) from None
        if any(code == 421 for code in codes.values()):
            raise TransientSendError(self._reason(f"{what}: {detail}")) from None
        raise MessageDeferred(self._reason(f"{what}: {detail}")) from None  # 450/451/452: this recipient, later

    def _reset(self) -> None:
        """After a refused transaction, make the connection usable again (or drop it)."""
        if self._conn is None:
            return
        try:
            self._conn.rset()
        except Exception:
            self._drop()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        self._quietly_close(conn)

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.quit()
        except Exception:
            self._quietly_close(conn)

    def __enter__(self) -> SmtpSender:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def transmit(
    conn: smtplib.SMTP, sender: str, recipients: list[str], raw: bytes, data_end: float = DATA_END_TIMEOUT
) -> dict[str, tuple[int, bytes]]:
    """`conn.sendmail` for CRLF bytes, pipelined where the server offers it; raises what smtplib raises.
    The answer to the final "." is awaited up to `data_end` seconds (RFC 5321: 10 minutes): a message the
    server accepts late is accepted, never sent again."""
    plain = all(a.isascii() for a in [sender, *recipients])
    if not (plain and conn.has_extn("pipelining")):
        _wait(conn, data_end)  # smtplib awaits every answer with one timeout: the longest, the final "."'s
        return conn.sendmail(sender, recipients, raw)
    size = f" SIZE={len(raw)}" if conn.has_extn("size") else ""
    commands = [f"MAIL FROM:{quoted(sender)}{size}"]
    commands += [f"RCPT TO:{quoted(r)}" for r in recipients]
    conn.send("".join(f"{c}\r\n" for c in [*commands, "DATA"]))
    mail = conn.getreply()
    answers = [conn.getreply() for _ in recipients]
    data = conn.getreply()
    if mail[0] != 250:
        _abandon(conn, data[0])
        if mail[0] == 421:
            conn.close()
        raise smtplib.SMTPSenderRefused(mail[0], mail[1], sender)
    refused = {r: a for r, a in zip(recipients, answers, strict=True) if a[0] not in (250, 251)}
    if len(refused) == len(recipients):
        _abandon(conn, data[0])
        raise smtplib.SMTPRecipientsRefused(refused)
    if data[0] != 354:
        conn.rset()
        raise smtplib.SMTPDataError(data[0], data[1])
    body = dot_stuffed(raw)
    conn.send(body + (b"" if body.endswith(b"\r\n") else b"\r\n") + b".\r\n")
    _wait(conn, data_end)
    code, text = conn.getreply()
    if code != 250:
        conn.rset()
        raise smtplib.SMTPDataError(code, text)
    return refused


@functools.lru_cache(maxsize=4096)
def quoted(address: str) -> str:
    """`smtplib.quoteaddr(address)`, remembered: it parses the address with `email.utils.parseaddr` (about a
    tenth of a mail's instructions in the sender, twice a mail), and a poll sends to the same few addresses
    again and again (the moderator's as sender on every mail, each seat's on each report)."""
    return smtplib.quoteaddr(address)


def crlf(raw: bytes) -> bytes:
    """Every line end as CRLF (a lone CR is left as it is): `re.sub(rb"\\r?\\n", b"\\r\\n", raw)`, by two
    replaces in C, a fourteenth of the regex's CPU on a report with its pictures (0.5 ms), which the sender
    thread spent holding the interpreter lock the poll's thread waits for."""
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def dot_stuffed(raw: bytes) -> bytes:
    """CRLF text with a "." added before every line that starts with one (RFC 5321 4.5.2), as
    `re.sub(rb"(?m)^\\.", b"..", raw)` does it on CRLF text, by a replace."""
    body = raw.replace(b"\r\n.", b"\r\n..")
    return b"." + body if body.startswith(b".") else body


def _abandon(conn: smtplib.SMTP, data_code: int) -> None:
    """The transaction failed before its content: end a DATA the server accepted anyway, then RSET."""
    if data_code == 354:
        conn.send(b".\r\n")
        conn.getreply()
    conn.rset()
