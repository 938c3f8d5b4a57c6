"""The IMAP inbox: reads the moderator's mailbox and files recorded messages.

`ImapInbox` implements `pbem.mail.transports.seam.Inbox` with imapclient.  It
connects (implicit TLS, STARTTLS or plain), logs in, makes sure the processed
and rejected folders exist, selects the inbox folder and remembers its
UIDVALIDITY.  `fetch` streams every message of the folder, oldest UID first,
in batches fetched with ``BODY.PEEK[]`` (so nothing is marked seen), the
next batch fetched while the poll handles one (at most two are held in
memory); each batch's sizes are asked first, with INTERNALDATE (when the
server says each arrived: `arrivals`, read by `pbem.app.arrivals`).  `settle` files a message in the
processed or rejected folder: MOVE where the server has it, otherwise COPY,
STORE ``\\Deleted`` and (UID) EXPUNGE.  Messages settled while `fetch` is
streaming are filed together, one command per folder, once their batch is
done (and at `close`): a message recorded but not yet filed when a run dies
is simply fetched again and recognised as already handled.

A message is copied at most once, whatever part of the filing the server
refuses (`pbem.mail.transports.imapfiling`): one copied but kept in the inbox
is neither fetched nor copied again.

Login is by password (LOGIN) or OAuth2 (``AUTHENTICATE XOAUTH2`` or
``OAUTHBEARER``, where the server offers it); ``password`` is then the
access token.  TLS always verifies the certificate (`pbem.mail.transports.tls`).

Every connection, login or protocol failure becomes a `TransportError` whose
text is one line and never contains the password or token.
"""

from __future__ import annotations

import email.utils
import logging
import re
import socket
import ssl as ssl_module
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, suppress
from datetime import datetime
from email.parser import BytesHeaderParser
from functools import lru_cache
from typing import Any, TypeVar

from pbem.mail.transports import deadline, resolve, tls
from pbem.mail.transports.imapfiling import Filing
from pbem.mail.transports.seam import Arrivals, Incoming, TransportError, one_line

log = logging.getLogger(__name__)
R = TypeVar("R")


def _one_line(exc: BaseException, secret: str | None) -> str:
    """The exception as one short line, with the password (if any) masked."""
    return one_line(str(exc) or type(exc).__name__, secret)


HEAD_BYTES = 65536  # of a message, the most `_message_id` reads for its header
_EMPTY_LINE = re.compile(rb"\n\n|\n\r|\r\r")  # a line end, then a line of nothing (CRLF, LF or CR ends it)


def _header_block(head: bytes) -> bytes:
    """`head` up to and with its first empty line (lines end as the email parser ends them: CRLF, LF or CR), where
    the header ends at the latest; all of it if it has none."""
    if head[:1] in (b"\r", b"\n"):
        start = 0
    elif found := _EMPTY_LINE.search(head):
        start = found.start() + 1
    else:
        return head
    return head[: start + (2 if head[start : start + 2] == b"\r\n" else 1)]


def _message_id(raw: bytes) -> str | None:
    """The message's Message-ID, as the header parser reads it from its first `HEAD_BYTES`.  Only the header block
    is handed to the parser (`_header_block`: the parser stops at its empty line or before): with the whole 64 KB it
    went on to split the body into lines it never looked at, a third of the IMAP thread's CPU (perf37)."""
    head = _header_block(raw[:HEAD_BYTES])
    try:
        headers = BytesHeaderParser().parsebytes(head)
        value = headers.get("Message-ID")
    except Exception:  # malformed headers: no lookup by Message-ID possible
        return None
    value = " ".join(str(value).split()) if value else ""
    return value or None


@lru_cache(maxsize=1)
def _client_class() -> Any:
    """imapclient.IMAPClient whose socket is under the poll's deadline from its creation: the greeting and
    the CAPABILITY that imaplib reads while connecting included (`pbem.mail.transports.deadline`)."""
    import imapclient
    from imapclient import imap4
    from imapclient import tls as imap_tls

    def watched(cls: Any) -> Any:
        class Watched(cls):  # type: ignore[misc]  # imapclient has no type hints
            """Also bounded in memory: imaplib keeps every untagged response of a command and reads every
            literal the server announces, whatever its size, so a server sending endless lines (or a 200 MiB
            message it said was 500 bytes) grew the poll without limit until the poll deadline; the deadline
            bounds time, these bound bytes (found by the transport testers)."""

            _held = 0  # bytes of untagged responses of the current command

            def _create_socket(self, timeout: float | None = None) -> Any:
                """imapclient's, with the host name resolved within the timeout (`resolve.connect`: no socket
                timeout covers the lookup), and the socket under the poll's deadline before any TLS handshake."""
                sock = resolve.connect(self.host, self.port, self._timeout if timeout is None else timeout)
                # imapclient writes a command's line and its CRLF apart: with Nagle's algorithm the CRLF waited for
                # the server's ACK of the line, which a server delays (40 ms on Linux) until it has a whole line
                with suppress(OSError):  # not TCP (a test's socket pair): nothing to delay
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if isinstance(self, imap_tls.IMAP4_TLS):
                    sock = imap_tls.wrap_socket(sock, self.ssl_context, self.host)
                    deadline.watch(sock)
                return sock

            def _command(self, *args: Any, **kwargs: Any) -> Any:
                self._held = 0
                return super()._command(*args, **kwargs)

            def readline(self) -> bytes:
                """imaplib's, with `MAX_LINE` for its 1,000,000 bytes: a SEARCH answer of the whole inbox was one line
                of every UID, so an inbox of some 130,000 mails failed every poll with "got more than 1000000 bytes"
                (costs20).  pbem now searches in windows (`ImapInbox._windows`, costs21): no answer to what it asks
                comes near the bound, which stays for a server that misbehaves."""
                line = bytes(self.file.readline(MAX_LINE + 1))
                if len(line) > MAX_LINE:  # the rest of the line is still on the wire: the connection is dropped
                    raise self.abort(
                        f"the server sent a line of more than {MAX_LINE} bytes (no answer to what pbem asks is so "
                        "long: see the server's log)"
                    )
                return line

            def read(self, size: int) -> bytes:
                if size > MAX_LITERAL:
                    raise self.abort(f"the server sent a literal of {size} bytes (at most {MAX_LITERAL} are read)")
                return bytes(super().read(size))

            def _append_untagged(self, typ: str, dat: Any) -> None:
                held = dat if isinstance(dat, tuple) else (dat,)
                self._held += 64 + sum(len(x) for x in held if isinstance(x, bytes | bytearray))
                if self._held > MAX_UNTAGGED:
                    raise self.abort(f"the server's answer to one command passed {MAX_UNTAGGED} bytes")
                super()._append_untagged(typ, dat)

        return Watched

    plain, secure = watched(imap4.IMAP4WithTimeout), watched(imap_tls.IMAP4_TLS)

    class Client(imapclient.IMAPClient):  # type: ignore[misc]
        def _create_IMAP4(self) -> Any:  # as imapclient's, with the watched classes (no stream mode here)
            connect_timeout = getattr(self._timeout, "connect", None)
            if self.ssl:
                return secure(self.host, self.port, self.ssl_context, connect_timeout)
            return plain(self.host, self.port, connect_timeout)

    return Client


#: what the sizes' FETCH asks besides, and the key of its answer: each message's Message-ID, which its body's must be
#: (`ImapInbox._not_its_own`)
_SAID = "BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"
_SAID_KEY = b"BODY[HEADER.FIELDS (MESSAGE-ID)]"
MAX_BATCH_BYTES = 16 * 1024 * 1024  # message bytes fetched in one command (issue 26)
MAX_MESSAGE = 4 * 1024 * 1024 + 1  # bytes fetched of one message: one more than pbem keeps of any
MAX_LITERAL = MAX_MESSAGE + 64 * 1024  # one literal read from the server: a message's bytes asked, and some slack
MAX_UNTAGGED = 2 * MAX_BATCH_BYTES  # bytes of the untagged answers to one command (a batch is at most MAX_BATCH_BYTES)
#: bytes of one line from the server (imaplib's own bound is 1,000,000).  A SEARCH answer lists the UIDs it finds on
#: one line, about 8 bytes each; read, such a line holds some 30 times its bytes at its peak (the UIDs as text, then
#: as numbers: 65 MB for 2 MiB), so the bound stays there (costs20), and pbem asks for at most `WINDOW` UIDs at once
MAX_LINE = 2 * 1024 * 1024
#: messages one SEARCH of the folder asks for (a line of some 80 KB; `ImapInbox._windows`, costs21)
WINDOW = 10_000
#: characters of a Message-ID one SEARCH asks for (`ImapInbox._by_message_id`; RFC 5322's line is 998)
MAX_ID_SEARCHED = 900
_PRINTABLE = re.compile(r"[!-~]+")  # what a SEARCH can ask for in US-ASCII: a run of printable characters
#: messages one run fetches: a folder of more (a spam run while pbem was off) is read over several runs, oldest first,
#: each well within the poll's deadline ([mail] poll_deadline, 900 s: some 20 ms a message), costs21
MOST_A_RUN = 10_000


def _by_size(uids: list[int], sizes: dict[int, int], max_message: int) -> Iterator[list[int]]:
    """`uids` in order, in groups of at most `MAX_BATCH_BYTES` fetched bytes (one message always fits)."""
    group: list[int] = []
    total = 0
    for uid in uids:
        n = min(sizes.get(uid, 0), max_message)
        if group and total + n > MAX_BATCH_BYTES:
            yield group
            group, total = [], 0
        group.append(uid)
        total += n
    if group:
        yield group


class ImapInbox(Filing):
    """An IMAP folder as the moderator's inbox (see the module docstring); filing in `Filing`.

    ``use_move=None`` uses MOVE when the server announces it; ``False``
    forces the COPY + STORE + EXPUNGE fallback (tests use it).
    """

    def __init__(
        self,
        host: str,
        port: int,
        ssl: bool = False,
        starttls: bool = False,
        username: str = "",
        password: str = "",
        folder: str = "INBOX",
        processed_folder: str = "pbem/processed",
        rejected_folder: str = "pbem/rejected",
        batch: int = 50,
        timeout: float = 30,
        *,
        use_move: bool | None = None,
        ssl_context: ssl_module.SSLContext | None = None,
        auth: str = "password",
        connect: bool = True,
        max_message: int = MAX_MESSAGE,
        window: int | None = None,
        most: int | None = None,
    ) -> None:
        window, most = window or WINDOW, most or MOST_A_RUN  # read when made: a test may set the module's
        if batch < 1 or window < 1 or most < 1:
            raise ValueError("batch, window and most must be at least 1")
        self.host, self.port = host, int(port)
        self.ssl, self.starttls = bool(ssl), bool(starttls)
        self.username = username
        self._password = password
        self.folder = folder
        self.batch = batch
        self.max_message = max_message
        self._filing_state()
        self.timeout = timeout
        self.use_move = use_move
        self._ssl_context = ssl_context
        self.auth = auth
        self._names = {"processed": processed_folder, "rejected": rejected_folder}
        self._targets: dict[bool, str] = {}
        self._message_ids: dict[str, str] = {}
        self._pending: dict[bool, list[int]] = {True: [], False: []}  # settled during fetch, not yet filed
        self._wire: ThreadPoolExecutor | None = None  # the connection's thread while `fetch` streams
        self._wire_thread: int | None = None  # its ident, once started
        self._client: Any = None  # an IMAPClient once connected (imapclient has no type hints)
        self.uidvalidity: int | None = None
        self.uidnext: int | None = None  # at the last SELECT: every message below it is fetched by `fetch`
        self.exists = 0  # the messages in the folder at the last SELECT
        self.window, self.most = window, most
        self.more = False  # the last `fetch` left mail unread: `most` messages were read (`pbem.app.budgets`)
        self.arrivals = Arrivals()  # the server's arrival dates of what `fetch` saw (`pbem.app.arrivals`)
        if connect:
            self._connect()

    # -- connection ----------------------------------------------------------

    def _where(self) -> str:
        return f"IMAP {self.host}:{self.port}"

    @contextmanager
    def _errors(self, action: str, refusals: bool = False) -> Iterator[None]:
        """`refusals`: a tagged NO/BAD passes through (the caller deals with it), the rest becomes TransportError."""
        import imaplib

        import imapclient.exceptions as imap_exc

        try:
            yield
        except TransportError:
            raise
        except imaplib.IMAP4.error as exc:
            if refusals and not isinstance(exc, imaplib.IMAP4.abort):
                raise
            reason = _one_line(exc, self._password)
            if isinstance(exc, imap_exc.LoginError):
                raise TransportError(f"{self._where()}: login as {self.username!r} refused ({reason})") from None
            raise TransportError(f"{self._where()}: {action} failed ({reason})") from None
        except imap_exc.LoginError as exc:
            reason = _one_line(exc, self._password)
            raise TransportError(f"{self._where()}: login as {self.username!r} refused ({reason})") from None
        except ssl_module.SSLError as exc:
            reason = tls.describe(exc, "imap") or _one_line(exc, self._password)
            raise TransportError(f"{self._where()}: {action} failed: {reason}") from None
        except (TimeoutError, imap_exc.IMAPClientError, OSError, EOFError) as exc:
            reason = _one_line(exc, self._password)
            raise TransportError(f"{self._where()}: {action} failed ({reason})") from None

    def open(self) -> Any:
        """Connect, secure and log in (no folder work); returns the imapclient client (also for `pbem check`)."""
        context = self._ssl_context
        if (self.ssl or self.starttls) and context is None:
            context = tls.context()
        with self._errors("connect"):
            client = _client_class()(
                self.host,
                port=self.port,
                use_uid=True,
                ssl=self.ssl,
                ssl_context=context if self.ssl else None,
                timeout=self.timeout,
            )
        self._client = client
        client.normalise_times = False  # INTERNALDATE with the server's zone (not this machine's, which DST moves)
        deadline.watch(client.socket())  # a trickling server cannot hold the poll past its deadline
        try:
            with self._errors("STARTTLS"):
                if self.starttls:
                    client.starttls(context)
                    deadline.watch(client.socket())
            with self._errors("login"):
                self._login(client)
        except TransportError:
            self._drop()
            raise
        return client

    def _login(self, client: Any) -> None:
        if self.auth == "password":
            if (self.username + self._password).isascii():
                client.login(self.username, self._password)
                return
            # LOGIN sends ASCII only (imaplib raised UnicodeEncodeError: a traceback); AUTHENTICATE PLAIN is UTF-8
            offered = [c.decode().upper()[5:] for c in client.capabilities() if c.upper().startswith(b"AUTH=")]
            if "PLAIN" not in offered:
                raise TransportError(
                    f"{self._where()}: the username or password holds characters other than ASCII, which IMAP LOGIN "
                    "cannot send, and the server offers no AUTH=PLAIN; use an ASCII password"
                )
            client.plain_login(self.username, self._password)
            return
        mechanism = self.auth.upper()
        offered = [c.decode()[5:] for c in client.capabilities() if c.upper().startswith(b"AUTH=")]
        if mechanism not in offered:
            raise TransportError(
                f"{self._where()}: the server does not offer AUTH={mechanism} (it offers {', '.join(offered) or 'no SASL'}); "
                "change [imap] auth"
            )
        if mechanism == "XOAUTH2":
            client.oauth2_login(self.username, self._password)
        else:
            client.oauthbearer_login(self.username, self._password)

    def _connect(self) -> None:
        client = self.open()
        try:
            with self._errors("folder setup"):
                self._targets = {
                    True: self._ensure(self._names["processed"]),
                    False: self._ensure(self._names["rejected"]),
                }
            with self._errors(f"select {self.folder!r}"):
                self.selected(client.select_folder(self.folder))
        except TransportError:
            self._drop()
            raise

    def selected(self, status: dict[bytes, Any]) -> None:
        """What a SELECT (or EXAMINE) of the folder said: its UIDVALIDITY, UIDNEXT and EXISTS (`_windows`)."""
        self.uidvalidity = int(status[b"UIDVALIDITY"])
        self.uidnext = int(status[b"UIDNEXT"]) if b"UIDNEXT" in status else None
        self.exists = int(status[b"EXISTS"]) if b"EXISTS" in status else sys.maxsize  # unsaid: every window asked

    def flagged(self) -> int:
        """How many messages of the selected folder are flagged \\Deleted (`pbem check`), window by window."""
        return len(self._flagged_now())

    def mark(self) -> str | None:
        """The folder's UIDVALIDITY:UIDNEXT when it was selected (the idle check compares it with `status_mark`)."""
        return f"{self.uidvalidity}:{self.uidnext}" if self.uidvalidity and self.uidnext else None

    def status_mark(self) -> str:
        """The folder's UIDVALIDITY:UIDNEXT now, with one STATUS command (no SELECT, no folder setup)."""
        client = self._client or self.open()
        with self._errors(f"status {self.folder!r}"):
            status = client.folder_status(self.folder, [b"UIDVALIDITY", b"UIDNEXT"])
        return f"{int(status[b'UIDVALIDITY'])}:{int(status[b'UIDNEXT'])}"

    def filed_marks(self) -> dict[str, str]:
        """The processed and rejected folders' UIDVALIDITY:UIDNEXT now, one STATUS command each (a folder the
        server does not have, or will not tell of, is left out): what the record keeps of the mail it filed
        (`pbem.app.witness`)."""
        import imaplib

        client = self._client or self.open()
        found: dict[str, str] = {}
        for role, name in self._names.items():
            real = self._server_name(name)
            try:
                with self._errors(f"status {real!r}", refusals=True):
                    status = client.folder_status(real, [b"UIDVALIDITY", b"UIDNEXT"])
            except imaplib.IMAP4.error:  # no such folder (deleted by hand): nothing to say of it
                continue
            found[role] = f"{int(status[b'UIDVALIDITY'])}:{int(status[b'UIDNEXT'])}"
        return found

    def filed_since(self, role: str, uidnext: int, most: int) -> list[tuple[bytes, Any]]:
        """The Message-ID header and arrival date (INTERNALDATE) of the newest `most` messages of the processed or
        rejected folder (`role`) whose UID is `uidnext` or more, read only (EXAMINE, BODY.PEEK): at most `most`
        small answers, whatever the folder holds."""
        client = self._client or self.open()
        real = self._server_name(self._names[role])
        with self._errors(f"examine {real!r}"):
            top = int(client.select_folder(real, readonly=True).get(b"UIDNEXT", 0))
            low = max(uidnext, top - most, 1)
            if low >= top:
                return []
            answer = client.fetch(list(range(low, top)), ["BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]", "INTERNALDATE"])
        return [
            (bytes(v.get(b"BODY[HEADER.FIELDS (MESSAGE-ID)]") or b""), v.get(b"INTERNALDATE"))
            for uid, v in sorted(answer.items())
            if low <= uid < top
        ]

    # -- the witness of mails sent (`pbem.app.sent_witness`) ----------------------------------------------

    def witness_folder(self) -> str:
        """pbem's folder of what it sent, beside the processed folder (`pbem/sent-ids` by default)."""
        name = self._names["processed"]
        return f"{name.rsplit('/', 1)[0]}/sent-ids" if "/" in name else "pbem-sent-ids"

    def witness(self, text: bytes, when: datetime) -> str:
        """APPEND one message whose text is `text` to the witness folder (made if missing; on the poll's
        connection, which stays on its folder); the folder's UIDVALIDITY:UIDNEXT after it."""
        client = self._client or self.open()
        stamp = email.utils.format_datetime(when)
        head = f"From: pbem\r\nSubject: pbem sent-ids\r\nDate: {stamp}\r\nContent-Type: text/plain\r\n\r\n"
        with self._errors("append to the witness folder"):
            real = self._ensure(self.witness_folder())
            if text:
                client.append(real, head.encode() + text, flags=(b"\\Seen",), msg_time=when)
            status = client.folder_status(real, [b"UIDVALIDITY", b"UIDNEXT"])
        return f"{int(status[b'UIDVALIDITY'])}:{int(status[b'UIDNEXT'])}"

    def witness_mark(self) -> str | None:
        """The witness folder's UIDVALIDITY:UIDNEXT now (one STATUS; None: no such folder)."""
        import imaplib

        client = self._client or self.open()
        real = self._server_name(self.witness_folder())
        try:
            with self._errors(f"status {real!r}", refusals=True):
                status = client.folder_status(real, [b"UIDVALIDITY", b"UIDNEXT"])
        except imaplib.IMAP4.error:
            return None
        return f"{int(status[b'UIDVALIDITY'])}:{int(status[b'UIDNEXT'])}"

    def witnessed(self, since: datetime, most: int) -> tuple[str, list[bytes] | None] | None:
        """The witness folder's UIDVALIDITY and the texts of its messages that arrived on or after `since`'s day
        (None for the texts: more than `most`), read only; None: there is no such folder."""
        client = self._client or self.open()
        real = self._server_name(self.witness_folder())
        with self._errors(f"examine {real!r}"):
            if not client.folder_exists(real):
                return None
            validity = str(int(client.select_folder(real, readonly=True)[b"UIDVALIDITY"]))
            uids = sorted(client.search(["SINCE", since.date()]))
            if len(uids) > most:
                return validity, None
            texts: list[bytes] = []
            for start in range(0, len(uids), 200):
                answer = client.fetch(uids[start : start + 200], ["BODY.PEEK[TEXT]"])
                texts += [bytes(v.get(b"BODY[TEXT]") or b"") for _, v in sorted(answer.items())]
        return validity, texts

    def forget_witnessed(self, before: datetime) -> int:
        """Delete the witness folder's messages that arrived before `before`'s day (on a connection that is not
        the poll's: it selects that folder); how many."""
        client = self._client or self.open()
        real = self._server_name(self.witness_folder())
        with self._errors(f"expunge {real!r}"):
            if not client.folder_exists(real):
                return 0
            client.select_folder(real)
            uids = client.search(["BEFORE", before.date()])
            if uids:
                client.delete_messages(uids)
                client.expunge()
        return len(uids)

    def _server_name(self, name: str) -> str:
        """Translate a configured ``a/b`` name to the server's hierarchy delimiter."""
        if "/" not in name:
            return name
        delimiter = b"/"
        try:
            listing = self._client.list_folders("", "")
            if listing and listing[0][1]:
                delimiter = listing[0][1]
        except Exception:  # a server without a delimiter answer: keep "/"
            pass
        delim = delimiter.decode() if isinstance(delimiter, bytes) else str(delimiter)
        return name.replace("/", delim)

    def _ensure(self, name: str) -> str:
        """Create ``name`` (and its parents) unless it exists; never CREATE twice.  A CREATE refused because the
        folder exists after all (another client made it between the look and the CREATE, or the server's list was
        behind: seen once with Dovecot in the suite) is the folder pbem wanted: asked again, not an error."""
        from imapclient.exceptions import IMAPClientError

        real = self._server_name(name)
        if not self._client.folder_exists(real):
            try:
                self._client.create_folder(real)
            except IMAPClientError:
                if not self._client.folder_exists(real):
                    raise
                log.info("IMAP folder %s exists after all (made meanwhile)", real)
                return real
            log.info("created IMAP folder %s", real)
        return real

    def _drop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with suppress(Exception):
                client.shutdown()

    # -- Inbox ---------------------------------------------------------------

    def fetch(self) -> Iterator[Incoming]:
        """Every message in the folder, oldest UID first, one batch at a time.

        Sizes first (RFC822.SIZE): a batch holds at most `MAX_BATCH_BYTES`, and of a message larger than
        `max_message` only its first `max_message` bytes are fetched (enough for pbem to refuse it for its
        size, which it is: every limit is below it).  Memory per poll does not depend on any one mail.

        Read ahead (issue 27): while the poll handles one batch, the connection's own thread (``pbem-imap``)
        fetches the next and files the one before, so the poll's thread does not wait for the server's
        round trips (three a batch; over a remote server, most of a poll's waiting).  At most two batches
        are held, the one handled and the one fetched.  While `fetch` streams, only that thread talks to
        the server (`_on_wire`)."""
        if self._client is None:
            self._connect()
        self.more = False
        batches = self._batches(self.uidvalidity)
        wire = ThreadPoolExecutor(1, thread_name_prefix="pbem-imap", initializer=self._wire_started)
        self._wire = wire  # while it is set, `fetch` streams
        try:
            ahead = wire.submit(next, batches, None)
            filing: Future[None] | None = None
            while (items := ahead.result()) is not None:
                ahead = wire.submit(next, batches, None)  # the next batch, while this one is handled
                items.reverse()
                while items:
                    yield items.pop()  # each message let go once handled
                if filing is not None:
                    filing.result()  # the batch before: filed (a lost connection is raised here)
                filing = wire.submit(self._file, self._take_pending())  # this batch: every message settled
            if filing is not None:
                filing.result()
        finally:
            self._wire = None
            wire.shutdown(wait=True, cancel_futures=True)  # a stopped poll: what is in flight ends (or times out)
            batches.close()
        self._keep()

    def _batches(self, validity: int | None) -> Generator[list[Incoming], None, None]:
        """The folder's messages in batches, at most `most` messages a run (each `next` runs on the connection's
        thread, `fetch`)."""
        left = self.most
        self._recall_start()
        for window in self._windows():
            uids = self._unfiled_in(*window)  # filed by an earlier run, kept in the inbox: not fetched or copied again
            for chunk in self._chunks(uids[:left]):
                yield from self._sized(chunk, validity)
            if len(uids) > left:  # the run's budget is spent: the rest waits for the next run
                self.more = True
                log.info(
                    "%d messages read, the most one run reads: the rest of the inbox (UID %d and after) is read by "
                    "the next runs",
                    self.most,
                    uids[left],
                )
                return
            left -= len(uids)

    def _chunks(self, uids: list[int]) -> Iterator[list[int]]:
        for start in range(0, len(uids), self.batch):
            yield uids[start : start + self.batch]

    def _windows(
        self, criteria: tuple[str, ...] = ("NOT", "DELETED"), *, follow: bool = True
    ) -> Iterator[tuple[int, int, list[int]]]:
        """The folder's UIDs not flagged \\Deleted, below the UIDNEXT of its SELECT (what arrived since is read
        by the next run: the idle check sees it), oldest first, one window of UIDs at a time: (first, last, the
        UIDs found).  A SEARCH answer lists every UID it finds on one line, so one SEARCH of the whole folder
        grew with the folder, and past `MAX_LINE` stopped every poll (costs20).  Each SEARCH here asks for the
        UIDs up to that of the message `window` sequence numbers on (one FETCH of its UID, the sequence number
        followed down by the expunges the server told of: `_shifted`): `window` messages when asked, so its line
        is bounded however large the folder (costs21).  A folder of at most `window`
        messages at the SELECT costs one SEARCH, as before.  `criteria`: what else the SEARCH asks.  `follow`:
        False for a walk inside `fetch`'s (`_by_message_id`), which leaves the expunges told to `fetch`'s."""
        shifted = self._shifted if follow else (lambda n: n)
        top = self.uidnext - 1 if self.uidnext else None  # None: the server said no UIDNEXT (up to "*")
        first, n = 1, shifted(0) + self.window  # n: the sequence number of the window's last message
        while top is None or first <= top:
            last = self._uid_at(n) if n < self.exists else None  # past EXISTS: no message below `top` is there
            if last is None or (top is not None and last >= top):
                last = top
            with self._errors("search"):
                found = self._client.search(["UID", f"{first}:{'*' if last is None else last}", *criteria])
            end = sys.maxsize if last is None else last
            yield first, end, sorted(u for u in found if first <= u <= end)
            if last is None or last == top:
                return
            first, n = last + 1, shifted(n) + self.window  # (what the run filed meanwhile moved it down)

    def _shifted(self, n: int) -> int:
        """Sequence number `n` now: each expunge the server told of since (`* k EXPUNGE`, at the end of the run's
        own MOVE or EXPUNGE, or of another client's) moved every message after k down by one.  Without it each
        window held what the run filed since the one before as well, and grew with the folder (costs21)."""
        told = self._client._imap.untagged_responses.pop("EXPUNGE", [])  # (also let go: they were kept all run)
        for k in told:
            k = k.decode("ascii", "replace") if isinstance(k, bytes) else str(k)
            k = k.strip()
            if k.isascii() and k.isdigit() and len(k) <= 18 and int(k) <= n:  # (5,000 digits: int() refuses them)
                n -= 1
        self.exists -= len(told)
        return n

    def _uid_at(self, n: int) -> int | None:
        """The UID of the message at sequence number `n` now (None: the folder holds fewer, or the server would
        not say)."""
        import imaplib

        client = self._client
        try:
            client.use_uid = False
            with self._errors("fetch a UID", refusals=True):
                answer = client.fetch([n], ["UID"])
        except imaplib.IMAP4.error:  # a sequence number past the folder's end (expunged meanwhile): refused
            return None
        finally:
            client.use_uid = True
        uid = answer.get(n, {}).get(b"UID")
        return int(uid) if isinstance(uid, int) else None

    def _sized(self, chunk: list[int], validity: int | None) -> Iterator[list[Incoming]]:
        """One chunk's messages, in groups of at most `MAX_BATCH_BYTES`."""
        if chunk:
            with self._errors("fetch sizes"):  # and when each arrived, by the server's clock (`Arrivals`)
                answer = self._client.fetch(chunk, ["RFC822.SIZE", "INTERNALDATE", _SAID])
            sizes = {u: int(v.get(b"RFC822.SIZE", 0)) for u, v in answer.items()}
            said = {u: _message_id(bytes(x)) for u, v in answer.items() if isinstance(x := v.get(_SAID_KEY), bytes)}
            for u, v in answer.items():
                self.arrivals.saw(u, v.get(b"INTERNALDATE"))
            for group in _by_size([u for u in chunk if u in sizes], sizes, self.max_message):
                yield list(self._fetch_group(group, sizes, validity, said))

    def _take_pending(self) -> dict[bool, list[int]]:
        taken, self._pending = self._pending, {True: [], False: []}
        return taken

    def _file(self, pending: dict[bool, list[int]]) -> None:
        for accepted in (True, False):
            if pending[accepted]:
                self._move(pending[accepted], accepted)

    def _wire_started(self) -> None:
        self._wire_thread = threading.get_ident()

    def _on_wire(self, fn: Callable[[], R]) -> R:
        """Run `fn` (which talks to the server) on the connection's thread while `fetch` streams, else here."""
        wire = self._wire
        if wire is None or threading.get_ident() == self._wire_thread:
            return fn()
        return wire.submit(fn).result()

    def _fetch_group(
        self, group: list[int], sizes: dict[int, int], validity: int | None, said: dict[int, str | None]
    ) -> Iterator[Incoming]:
        cut = [u for u in group if sizes[u] > self.max_message]
        data: dict[int, Any] = {}
        with self._errors("fetch"):
            if cut:
                log.info("%d message(s) over %d bytes: fetching only their start", len(cut), self.max_message)
            # every message asked as its first max_message bytes: a server whose RFC822.SIZE understated a
            # message still sends no more (and one that sends more anyway is cut off: `MAX_LITERAL`)
            data.update(self._client.fetch(group, [f"BODY.PEEK[]<0.{self.max_message}>"]))
        for uid in group:
            item = data.pop(uid, None)
            if not item:
                continue  # expunged meanwhile (settled by a concurrent run)
            raw = item.get(b"BODY[]<0>")
            if raw is None:
                continue
            key = f"{validity}:{uid}"
            message_id = _message_id(raw)
            if message_id and said.get(uid) and said[uid] != message_id:
                self._not_its_own(uid)
                continue
            if message_id:
                self._message_ids[key] = message_id
            yield Incoming(key, bytes(raw))

    def _not_its_own(self, uid: int) -> None:
        """The server's answer for `uid` holds another message than its sizes' answer said (a FETCH answered under
        other UIDs than asked, or under none, keyed by its sequence number: costs25).  Read, it would be recorded
        under `uid` and the message `uid` really is filed unread: it stays in the inbox, for the next run."""
        self.mismatched.append(uid)
        log.warning(
            "IMAP %s:%s answered a FETCH of UID %d with another message (its Message-ID is not the one the server "
            "gave for that UID): left in the inbox, read again by the next run; if this repeats, the server "
            "misnumbers its answers (see its log)",
            self.host,
            self.port,
            uid,
        )

    def settle(self, key: str, accepted: bool) -> None:
        """File the message named by ``key`` in the processed or rejected folder (during `fetch`: with its batch)."""
        try:
            validity, uid = (int(part) for part in key.split(":", 1))
        except ValueError:
            raise ValueError(f"not an IMAP inbox key: {key!r}") from None
        if self._client is None:
            self._connect()
        message_id = self._message_ids.pop(key, None)
        if validity != self.uidvalidity:
            if not message_id:
                log.warning("UIDVALIDITY changed and no Message-ID known for %s; left in the inbox", key)
                return
            with self._errors("search by Message-ID"):
                again = self._on_wire(lambda: self._by_message_id(message_id))
            if again is None:
                return
            uids = [again]
        else:
            uids = [uid]
        if self._wire is not None and validity == self.uidvalidity:  # streaming
            self._pending[bool(accepted)].extend(uids)  # filed with the rest of its batch
            return
        self._on_wire(lambda: self._move(uids, bool(accepted)))

    def _by_message_id(self, message_id: str) -> int | None:
        """The UID of the oldest message whose Message-ID is `message_id`, after a UIDVALIDITY change (`settle`).

        A SEARCH HEADER matches any header holding the text (RFC 3501), so the one SEARCH of the whole folder
        pbem asked listed every message whose Message-ID held it, on one line: a short Message-ID a stranger chose
        (``<a>``, ``@``) listed the whole inbox, past `MAX_LINE` failed the run, and the oldest message it named,
        another's, was filed in its place; one not in ASCII raised from imapclient (a traceback).  Now the folder
        is searched window by window (`_windows`; this walk follows no expunges, which `fetch`'s own windows
        count), for the message's longest run of printable ASCII, and each UID found is compared by its own
        Message-ID, at most `most` of them: past that the message stays in the inbox, said in the log, and is
        read again by the next run, which recognises it (costs22)."""
        term = max(_PRINTABLE.findall(message_id), key=len, default="")[:MAX_ID_SEARCHED]
        if not term:
            log.warning("UIDVALIDITY changed and the Message-ID holds nothing to search for; left in the inbox")
            return None
        compared = 0
        for _first, _last, found in self._windows(("HEADER", "Message-ID", term), follow=False):
            for chunk in self._chunks(found[: self.most - compared]):
                with self._errors("fetch Message-IDs"):
                    answer = self._client.fetch(chunk, ["BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"])
                for uid in chunk:
                    said = answer.get(uid, {}).get(b"BODY[HEADER.FIELDS (MESSAGE-ID)]")
                    if said and _message_id(bytes(said)) == message_id:
                        return uid
            compared += len(found)
            if compared >= self.most:
                log.warning(
                    "UIDVALIDITY changed: %d messages hold the Message-ID's text and none compared is it, the most "
                    "one message compares; left in the inbox (the next run reads it again)",
                    self.most,
                )
                return None
        return None

    def _file_pending(self) -> None:
        self._file(self._take_pending())

    def close(self) -> None:
        wire, self._wire = self._wire, None
        if wire is not None:  # a poll that failed mid-stream left `fetch` suspended: its thread stops first
            wire.shutdown(wait=True, cancel_futures=True)
        if self._client is not None and any(self._pending.values()):
            try:  # the run stopped mid-batch: file what was recorded (if this fails, it is fetched again)
                self._file_pending()
            except TransportError as exc:
                log.warning("could not file recorded messages before closing: %s", exc)
        try:
            self._keep()  # what filing at close copied and could not flag
        except Exception as exc:  # the record may be why the run stops: its own error is the one to report
            log.warning("could not keep the messages left in the inbox (they may be copied once more): %s", exc)
        client, self._client = self._client, None
        if client is None:
            return
        try:
            client.logout()
        except Exception:
            with suppress(Exception):
                client.shutdown()

    def __enter__(self) -> ImapInbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
