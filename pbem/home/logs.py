"""Logging to stderr and optionally a file, with secrets masked.

Player codes (anything after CODE) and the configured mail passwords are
replaced by "[redacted]" in every record before it is written: its message, and
the traceback or stack it carries.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import sys
from pathlib import Path
from typing import IO, Any

_CODE = re.compile(r"(?i)(\bcode\s*+[:=]?\s*+)([A-Za-z0-9-]{4,64})")  # possessive: linear in a run of spaces


def secret_forms(secret: str) -> list[str]:
    """The forms a password takes in what a server or a library may echo back, longest first: as typed, quoted
    as IMAP's LOGIN sends it (`\\` and `"` escaped), each as a Python repr shows it (str and bytes), with its
    whitespace collapsed as one-line messages do, and in base64 as SMTP's AUTH LOGIN sends it.  Masking only
    the typed form let a password holding `"` or `\\` through when a server repeated the LOGIN line."""
    import base64

    quoted = secret.replace("\\", "\\\\").replace('"', '\\"')
    forms = {secret, quoted}
    for f in list(forms):
        forms |= {repr(f)[1:-1], repr(f.encode("utf-8"))[2:-1], " ".join(f.split())}
    for f in list(forms):  # inside a longer repr, either quote may be escaped too
        forms |= {f.replace("'", "\\'"), f.replace('"', '\\"')}
    forms.add(base64.b64encode(secret.encode("utf-8")).decode("ascii"))
    return sorted((f for f in forms if len(f) >= 3), key=len, reverse=True)


def login_forms(user: str, password: str) -> list[str]:
    """What a SASL PLAIN login sends for `user` and `password` (IMAP AUTHENTICATE PLAIN, SMTP AUTH PLAIN): base64 of
    NUL user NUL password, with and without the authorization identity.  The password's own base64 is not a part
    of it (the user's bytes come first and shift it), so a server echoing that line is masked only by these."""
    import base64

    if not user or not password:
        return []
    return [base64.b64encode(f"{authz}\0{user}\0{password}".encode()).decode("ascii") for authz in ("", user)]


def mask(text: str, secrets: list[str], by: str = "[redacted]") -> str:
    """`text` with every form of each secret (`secret_forms`) replaced by `by`."""
    for secret in secrets:
        if len(secret) >= 3:
            for form in secret_forms(secret):
                text = text.replace(form, by)
    return text


# Control characters shown as escapes, as `pbem.render.sanitize.visible` does (home may not import render):
# no escape sequence in a logged subject or server answer reaches the moderator's terminal (issue 26).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    n = ord(m.group())
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


class RedactFilter(logging.Filter):
    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s and len(s) >= 3]

    def clean(self, text: str) -> str:
        return mask(_CONTROL.sub(_escape, _CODE.sub(r"\1[redacted]", text)), self.secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        clean = self.clean(msg)
        if clean != msg:
            record.msg, record.args = clean, ()
        # A traceback (`log.exception`, `exc_info=True`) and a stack (`stack_info=True`) are written after the
        # message: an exception's text may quote a mail's line or a server's answer, so they are masked too.
        # The formatter uses `exc_text` as it is once set.
        if record.exc_info and not record.exc_text:
            record.exc_text = _PLAIN.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.clean(record.exc_text)
        if record.stack_info:
            record.stack_info = self.clean(record.stack_info)
        return True


_PLAIN = logging.Formatter()


WRITE_WAIT = 2.0  # seconds one line may take to reach `[log] file` before the run goes on without its log
MAX_QUEUED = 1 << 20  # characters of lines waiting for a slow log file; past it, lines are dropped
WAIT_BUDGET = 10.0  # seconds a run waits for its log file in all: a file slow on every line (a network file
# system) held the run `WRITE_WAIT` s a line less a little, each line, however many (a poll: past its deadline)


class _LogFile(logging.Handler):
    """The `[log] file` handler: each line is handed to a writer thread of its own and waited for, `WRITE_WAIT` s
    at most, so that a write that blocks (a FIFO whose reader stopped reading, a file system that stopped
    answering) holds the run that long and no longer: the lines after it are dropped while that write still hangs,
    and the moderator is told on stderr, once (`_tell`); a line that could not be written (a full disk) is told
    the same way.  Such a write was bounded by the run's own deadline before, by nothing else (judges3).  A run
    waits `WAIT_BUDGET` s in all for its lines: past it they are queued without waiting, told once (costs6).
    Closing waits `WRITE_WAIT` s at most for the lines still queued."""

    def __init__(self, stream: IO[str], path: Path, wait: float | None = None) -> None:
        import collections
        import threading

        super().__init__()
        self.stream, self.path = stream, path
        self.wait = WRITE_WAIT if wait is None else wait
        self.budget = self.total = WAIT_BUDGET  # seconds of waiting left to the run, of its whole
        self.dropped = 0  # lines the file did not take in time, or refused
        self._told = False
        self._queue: collections.deque[str] = collections.deque()
        self._queued = 0  # characters in `_queue`
        self._sent = self._written = 0  # lines queued, lines the writer is done with
        self._busy: float | None = None  # when the line being written was started (monotonic)
        self._closing = False
        self._cv = threading.Condition()
        self._writer = threading.Thread(target=self._run, name="pbem-log", daemon=True)
        self._writer.start()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + "\n"
        except Exception:
            self.handleError(record)
            return
        import time

        with self._cv:
            hung = self._busy is not None and time.monotonic() - self._busy > self.wait
            if not (hung or self._closing or self._queued + len(line) > MAX_QUEUED):
                self._queue.append(line)
                self._queued += len(line)
                self._sent += 1
                mine = self._sent
                self._cv.notify_all()
                # written when emit returns, as a plain handler's is (a command's trail line is in the file when
                # it ends), unless the file has hung on a line for `wait` s, or the run has waited `WAIT_BUDGET` s
                # for its lines in all: then the run goes on
                start, had = time.monotonic(), self.budget > 0
                until = start + min(self.wait, max(self.budget, 0.0))
                while self._written < mine and (left := until - time.monotonic()) > 0:
                    self._cv.wait(left)
                late = self._written < mine
                self.budget -= time.monotonic() - start
                first, why = False, ""  # told once: a line not taken in `wait` s, or the run's budget spent
                if had and self.budget <= 0:
                    first, why = self._first(), self._slow()
                elif late and had:
                    first = self._first()
            else:
                self.dropped += 1
                first, why = self._first(), ""
        if first:
            self._tell(why)

    def _slow(self) -> str:
        return f"took {self.total:g} s in all for this run's lines (a slow disk or network file system?)"

    def _run(self) -> None:
        import time

        while True:
            with self._cv:
                while not self._queue and not self._closing:
                    self._cv.wait()
                if not self._queue:
                    return
                line = self._queue.popleft()
                self._queued -= len(line)
                self._busy = time.monotonic()
            why = ""
            try:
                self.stream.write(line)
                self.stream.flush()
            except (OSError, ValueError) as exc:  # a full disk, a pipe whose reader went away: the line is lost
                why = f"could not be written: {getattr(exc, 'strerror', None) or exc}"
            with self._cv:
                self._busy = None
                self._written += 1
                self._cv.notify_all()
                self.dropped += bool(why)
                first = bool(why) and self._first()
            if first:
                self._tell(why)

    def _tell(self, why: str = "") -> None:
        import sys

        why = why or (f"took no line for {self.wait:g} s (a FIFO no process reads, a disk that stopped answering?)")
        print(  # noqa: T201 (the moderator's terminal or cron's mail: the log itself is what does not answer)
            f"pbem: note: [log] file {self.path} {why}: the run goes on, without the lines it could not log",
            file=sys.stderr,
        )

    def flush(self) -> None:
        """Wait for the queued lines, `WRITE_WAIT` s at most; those the file has not taken by then are dropped."""
        import time

        until = time.monotonic() + self.wait
        with self._cv:
            while (self._queue or self._busy is not None) and (left := until - time.monotonic()) > 0:
                if self._busy is not None and time.monotonic() - self._busy > self.wait:
                    break  # a write that hangs already: waiting again for it would only add to the run
                self._cv.wait(left)
            late = len(self._queue) + (self._busy is not None)
            self._queue.clear()
            self._queued = 0
            self.dropped += late
            first = late > 0 and self._first()
        if first:
            self._tell()

    def _first(self) -> bool:
        """Whether the file failed a line for the first time (under the lock): the moderator is told once."""
        first, self._told = not self._told, True
        return first

    def close(self) -> None:
        try:
            self.flush()
            with self._cv:
                self._closing = True
                self._cv.notify_all()
                busy = self._busy is not None
            if not busy:  # a writer stuck in a write keeps its stream (closing it would wait as the write does)
                self._writer.join(self.wait)
                with contextlib.suppress(OSError):  # what a failed write left buffered, to a pipe gone: lost
                    self.stream.close()
        finally:
            super().close()


LEASE_WAIT = 2.0  # seconds a log file another process holds a lease on is waited for (told, a holder lets go)
KEEP_BYTES = 8 << 20  # a `[log] file` past this is started anew by the next run, the older kept as FILE.1

#: Why opening `[log] file` may fail for a while and then work with nothing changed (the next run carries on:
#: exit 3, as for a database that is locked), as against a setting that names no file pbem can write (a folder,
#: a FIFO no process reads, a file it may not write: exit 2, the setting or the file must change).
PASSING = frozenset(
    {
        errno.EAGAIN,  # a lease another process holds (a Samba oplock, an NFS delegation, a backup tool)
        errno.EWOULDBLOCK,
        errno.EINTR,
        errno.EBUSY,
        errno.ETXTBSY,
        errno.ENOSPC,  # a full disk, a quota: freed, the next run logs
        errno.EDQUOT,
        errno.EIO,
        errno.ESTALE,  # an NFS handle gone stale: the next open gets a new one
        errno.ETIMEDOUT,
        errno.ENOLCK,
        errno.EROFS,  # a file system remounted read-only after an error, until it is mounted again
    }
)


def passing(exc: OSError) -> bool:
    """Whether opening the log file failed for a reason that passes by itself (`PASSING`)."""
    return exc.errno in PASSING


def _open_log(file: Path, lease_wait: float | None = None) -> IO[str]:
    """`file` opened to append (made mode 0644 if missing).  Opened without blocking: a FIFO that no process
    reads fails at once (OSError, "no process reads it") where `logging.FileHandler`'s open waited for a reader
    without end, before any deadline of the run (tests/reliability/test_costs4_files.py).  A file another
    process holds a lease on fails at once too (EAGAIN; the kernel tells the holder to let go): it is tried again
    for `lease_wait` seconds, then fails saying so (`passing`: the poll exits 3, the next run carries on); the
    command's deadline bounds the wait as it bounds every other (tests/reliability/test_log_file.py)."""
    import time

    lease_wait = LEASE_WAIT if lease_wait is None else lease_wait
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    until = time.monotonic() + lease_wait
    while True:
        try:
            fd = os.open(file, flags, 0o644)
            break
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise OSError(errno.ENXIO, "it is a FIFO that no process reads", str(file)) from None
            if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK):
                raise
            if time.monotonic() >= until:
                why = f"another process holds a lease on it and did not let it go within {lease_wait:g} s"
                raise OSError(errno.EAGAIN, why, str(file)) from None
            time.sleep(0.05)
    os.set_blocking(fd, True)
    if _turned(file, fd):  # past KEEP_BYTES: kept as FILE.1, and this run writes a new FILE
        os.close(fd)
        return _open_log(file, lease_wait)
    return open(fd, "a", encoding="utf-8")  # the handler holds it


def _turned(file: Path, fd: int) -> bool:
    """`file` (open as `fd`) renamed to FILE.1, replacing the older one, when it is a regular file past
    `KEEP_BYTES`: the log of a home polled every 5 minutes for months grew without bound (benchmarks/months.py),
    now it holds at most twice `KEEP_BYTES` and a run's lines.  Only the file `fd` is (a run that started it anew
    just now is not turned again by another starting with it), and a file that cannot be renamed is written on."""
    import stat

    held = os.fstat(fd)
    if not stat.S_ISREG(held.st_mode) or held.st_size <= KEEP_BYTES:
        return False
    try:
        now = os.stat(file)
        if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):  # another run turned it meanwhile
            return True
        os.replace(file, file.with_name(file.name + ".1"))
    except OSError:  # a folder we may not write, a full disk: the run logs to the long file, as before
        return False
    return True


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler writing to the `sys.stderr` of each line's time, not of its own making: a process running several
    commands (a test's `CliRunner`, which closes the stream it lent) logged later lines to a closed stream, each
    line a "Logging error" traceback on the real stderr."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:  # `StreamHandler.__init__` sets it: the stream is always the current one
        pass


TOLD = {"told": True}  # `extra=` of a log line whose words the command prints on stderr or stdout itself


def _untold(record: logging.LogRecord) -> bool:
    """Whether a record goes to stderr: not one the command prints itself (`TOLD`).  A poll's refusal went to stderr
    twice, once as the log's line and once as the command's own (walk8: every refusal twice in cron.log)."""
    return not getattr(record, "told", False)


def setup(level: str = "INFO", file: Path | None = None, secrets: list[str] | None = None, stderr: bool = True) -> None:
    """The `pbem` logger to stderr (unless not `stderr`: a moderator's command, which prints its own line) and to
    `file`; a handler set up before is closed (a process running several commands kept each file open)."""
    root = logging.getLogger("pbem")
    root.setLevel(level)
    root.propagate = False
    for h in list(root.handlers):
        root.removeHandler(h)
        h.close()
    fmt = logging.Formatter("%(asctime)s pbem %(levelname)s %(name)s: %(message)s")
    handlers: list[logging.Handler] = [_Stderr()] if stderr else []
    for h in handlers:  # a line the command prints itself (`TOLD`) is kept in the file only: once in cron.log (walk8)
        h.addFilter(_untold)
    if file:
        file.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(_LogFile(_open_log(file), file))
    redact = RedactFilter(secrets or [])
    for h in handlers:
        h.setFormatter(fmt)
        h.addFilter(redact)
        root.addHandler(h)
