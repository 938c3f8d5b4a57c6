"""Real mail servers on 127.0.0.1 for tests and benchmarks.

Two server pairs with one interface (`MailServers`):

* `pip_mail_servers(tmp_path, users)`: pymap (IMAP, maildir backend, run as a
  subprocess) and aiosmtpd (SMTP, in a thread; optional AUTH PLAIN/LOGIN
  without TLS, against the same users).  The SMTP handler delivers every
  accepted message into the recipient's INBOX on the pymap server (by IMAP
  APPEND as that user), so mail sent with smtplib to bob@example.test
  appears in Bob's IMAP INBOX.  Needs only the test extras (pymap, aiosmtpd),
  which are imported lazily here.
* `debian_mail_servers(tmp_path, users)`: Dovecot (IMAP + LMTP) and Postfix
  (SMTP, delivering over LMTP) from Debian packages, started without systemd
  from a private directory by ``tests/servers/debian-mail.sh``.  Raises
  `Unavailable` with the reason when they cannot run here.

Users are email addresses (the login name is the address) with passwords.
Each yields an object with ``imap_host``, ``imap_port``, ``smtp_host``,
``smtp_port``; ``mailbox(user, folder)``, ``flags(user, folder)``,
``deliver(user, raw)``, ``reset()``, ``smtp_connections()``, and
``smtp_down()``/``smtp_up()``, ``imap_down()``/``imap_up()`` (also as the
context managers ``smtp_stopped()`` and ``imap_stopped()``).

By hand: ``python -m tests.servers.testservers pip|debian [ADDRESS:PASSWORD ...]``
starts a pair, prints its ports and runs until Ctrl-C.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

HOST = "127.0.0.1"
SCRIPT = Path(
    os.environ.get("PBEM_DEBIAN_MAIL_SCRIPT")
    or next(
        (p for p in (Path(__file__).resolve().parents[2], Path.cwd()) if (p / "tests/servers/debian-mail.sh").exists()),
        Path.cwd(),
    )
    / "tests/servers/debian-mail.sh"
)


class Unavailable(Exception):
    """This server pair cannot run here; the text says why."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def wait_for_greeting(
    port: int, timeout: float = 15.0, proc: subprocess.Popen | None = None, prefix: bytes = b""
) -> None:
    """Wait until something on ``port`` accepts a connection and greets."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise Unavailable(f"server on port {port} exited with status {proc.returncode}")
        try:
            with socket.create_connection((HOST, port), timeout=2) as sock:
                greeting = sock.recv(512)
                if greeting.startswith(prefix):
                    return
        except OSError as exc:
            last = exc
        time.sleep(0.05)
    raise Unavailable(f"nothing greeted on {HOST}:{port} within {timeout:.0f} s ({last})")


def _nodelay(client: object) -> None:
    """APPEND waits for a continuation: without TCP_NODELAY each costs a delayed ACK."""
    with suppress(Exception):
        client._imap.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # type: ignore[attr-defined]


class MailServers:
    """What both server pairs offer to tests; the subclasses start and stop the processes."""

    imap_host = HOST
    smtp_host = HOST

    def __init__(self, users: dict[str, str]) -> None:
        self.users = dict(users)
        self.imap_port = 0
        self.smtp_port = 0

    def wire_home(self, toml: Path, username: str, password_env: str, smtp_extra: str = "") -> None:
        """Point a moderator home's pbem.toml (as `pbem init` wrote it) at these servers: IMAP in, SMTP out."""
        text = toml.read_text()
        if 'transport = "maildir"' not in text:
            raise ValueError(f"{toml} does not use the maildir transport as `pbem init` writes it")
        text = text.replace('transport = "maildir"', 'transport = "imap"')
        for section, host, port in (("imap", self.imap_host, self.imap_port), ("smtp", self.smtp_host, self.smtp_port)):
            text += (
                f'\n[{section}]\nhost = "{host}"\nport = {port}\nssl = false\nstarttls = false\n'
                f'username = "{username}"\npassword_env = "{password_env}"\n'
            )
        toml.write_text(text + smtp_extra)

    def delivered(self, timeout: float = 120.0) -> float:
        """Wait until every mail the SMTP server accepted has reached its mailbox; the seconds waited.  A server
        that delivers before it answers DATA (aiosmtpd into pymap) has nothing queued."""
        return 0.0

    # -- reading and writing mailboxes over IMAP ----------------------------

    @contextmanager
    def imap(self, user: str) -> Iterator[object]:
        """An imapclient connection logged in as ``user``."""
        import imapclient

        client = imapclient.IMAPClient(self.imap_host, self.imap_port, ssl=False, timeout=15)
        _nodelay(client)  # each command's CRLF is a write of its own (imapclient): not held for a delayed ACK
        try:
            if self.users[user].isascii():
                client.login(user, self.users[user])
            else:  # LOGIN sends ASCII only
                client.plain_login(user, self.users[user])
            yield client
        finally:
            try:
                client.logout()
            except Exception:
                client.shutdown()

    def _fetch(self, user: str, folder: str, item: bytes) -> list:
        with self.imap(user) as client:
            if folder != "INBOX" and not client.folder_exists(folder):
                return []
            client.select_folder(folder, readonly=True)
            uids = sorted(client.search(["ALL"]))
            if not uids:
                return []
            data = client.fetch(uids, [b"BODY.PEEK[]" if item == b"BODY[]" else item])
            return [data[uid][item] for uid in uids if uid in data]

    def mailbox(self, user: str, folder: str = "INBOX") -> list[bytes]:
        """The raw messages in ``user``'s folder, oldest first ([] if it does not exist)."""
        return [bytes(raw) for raw in self._fetch(user, folder, b"BODY[]")]

    def flags(self, user: str, folder: str = "INBOX") -> list[tuple[bytes, ...]]:
        """The flags of each message in ``user``'s folder, oldest first."""
        return [tuple(flags) for flags in self._fetch(user, folder, b"FLAGS")]

    def folders(self, user: str) -> list[str]:
        with self.imap(user) as client:
            return sorted(name for _flags, _delim, name in client.list_folders())

    def deliver(self, user: str, raw: bytes, folder: str = "INBOX") -> None:
        """Drop a message straight into ``user``'s folder (no SMTP)."""
        with self.imap(user) as client:
            client.append(folder, raw)

    def wait_for(self, user: str, count: int, folder: str = "INBOX", timeout: float = 15.0) -> list[bytes]:
        """Poll until ``user``'s folder holds at least ``count`` messages (delivery may lag)."""
        deadline = time.monotonic() + timeout
        while True:
            messages = self.mailbox(user, folder)
            if len(messages) >= count or time.monotonic() > deadline:
                return messages
            time.sleep(0.05)

    def wait_for_count(self, user: str, count: int, folder: str = "INBOX", timeout: float = 15.0) -> int:
        """`wait_for` that only counts, on one connection (no message fetched): how many the folder holds."""
        deadline = time.monotonic() + timeout
        with self.imap(user) as client:
            while True:
                client.select_folder(folder, readonly=True)  # a fresh SELECT sees what arrived since the last
                have = len(client.search(["ALL"]))
                if have >= count or time.monotonic() > deadline:
                    return have
                time.sleep(0.05)

    def reset(self) -> None:
        """Empty every user's INBOX and delete every other folder."""
        self._reset_users(list(self.users))

    def _reset_users(self, users: list[str]) -> None:
        for user in users:
            with self.imap(user) as client:
                listing = client.list_folders()
                others = [(name, delim) for _flags, delim, name in listing if name.upper() != "INBOX"]
                depth = lambda item: item[0].count(item[1].decode() if isinstance(item[1], bytes) else (item[1] or "/"))  # noqa: E731
                for name, _delim in sorted(others, key=depth, reverse=True):
                    with suppress(Exception):
                        client.delete_folder(name)
                client.select_folder("INBOX")
                uids = client.search(["ALL"])
                if uids:
                    client.add_flags(uids, [b"\\Deleted"], silent=True)
                    client.expunge()
        self._reset_counters()

    # -- hooks for the subclasses --------------------------------------------

    def _reset_counters(self) -> None:
        pass

    def smtp_connections(self) -> int:
        """SMTP connections accepted since the last reset()."""
        raise NotImplementedError

    def smtp_down(self) -> None:
        raise NotImplementedError

    def smtp_up(self) -> None:
        raise NotImplementedError

    def imap_down(self) -> None:
        raise NotImplementedError

    def imap_up(self) -> None:
        raise NotImplementedError

    @contextmanager
    def smtp_stopped(self) -> Iterator[None]:
        self.smtp_down()
        try:
            yield
        finally:
            self.smtp_up()

    @contextmanager
    def imap_stopped(self) -> Iterator[None]:
        self.imap_down()
        try:
            yield
        finally:
            self.imap_up()

    def close(self) -> None:
        raise NotImplementedError


# --------------------------------------------------------------------------
# pymap + aiosmtpd


class _Delivery:
    """aiosmtpd handler: accept known recipients, APPEND each message to their INBOX."""

    def __init__(self, servers: PipMailServers) -> None:
        self.servers = servers
        self._clients: dict[str, object] = {}

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() not in self.servers.lower_users:
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):  # pragma: no cover - decode_data is off
            raw = raw.encode("utf-8", "surrogateescape")
        for rcpt in envelope.rcpt_tos:
            user = self.servers.lower_users[rcpt.lower()]
            if not self._append(user, raw):
                return "451 4.3.0 Mailbox temporarily unavailable"
        return "250 2.0.0 OK delivered"

    def _append(self, user: str, raw: bytes) -> bool:
        import imapclient

        for _attempt in (1, 2):
            client = self._clients.get(user)
            try:
                if client is None:
                    client = imapclient.IMAPClient(HOST, self.servers.imap_port, ssl=False, timeout=10)
                    _nodelay(client)
                    client.login(user, self.servers.users[user])
                    self._clients[user] = client
                client.append("INBOX", raw)
                return True
            except Exception:
                self._clients.pop(user, None)
                with suppress(Exception):
                    client.shutdown()  # type: ignore[union-attr]
        return False

    def close(self) -> None:
        for client in self._clients.values():
            with suppress(Exception):
                client.logout()  # type: ignore[attr-defined]
        self._clients.clear()


def _run_pymap() -> None:
    """Entry point of the pymap subprocess, with one upstream bug patched.

    pymap 0.36.7's maildir COPY builds the copy from the message *metadata*
    (``get_message_metadata``), so the copied file is empty.  MOVE is fine.
    The COPY + EXPUNGE fallback of `ImapInbox` needs a working COPY.
    """
    from mailbox import MaildirMessage

    from pymap.backend.maildir import mailbox as mb
    from pymap.main import main

    async def copy(self, uid, destination, *, recent=False):  # mirrors MailboxData.copy
        dest_maildir = destination._maildir
        try:
            async with mb.UidList.with_read(self._path) as uidl:
                record = uidl.get(uid)
            async with self.messages_lock.read_lock():
                maildir_msg = self._maildir.get_message(record.key)  # the fix: contents too
        except KeyError:
            return None
        copy_msg = MaildirMessage(maildir_msg)
        copy_msg.set_subdir("new" if recent else "cur")
        async with destination.messages_lock.write_lock():
            dest_key = dest_maildir.add(copy_msg)
            dest_filename = dest_key + ":" + copy_msg.get_info()
        async with mb.UidList.with_write(destination._path) as uidl:
            new_rec = mb.Record(uidl.next_uid, record.fields, dest_filename)
            uidl.next_uid += 1
            uidl.set(new_rec)
        return new_rec.uid

    mb.MailboxData.copy = copy
    sys.argv[0] = "pymap"
    sys.exit(main())


class PipMailServers(MailServers):
    def __init__(self, root: Path, users: dict[str, str]) -> None:
        super().__init__(users)
        self.root = Path(root)
        self.lower_users = {user.lower(): user for user in users}
        self._imap_proc: subprocess.Popen | None = None
        self._controller = None
        self._handler: _Delivery | None = None
        self._connections = 0
        self._lock = threading.Lock()

    def start(self) -> PipMailServers:
        self._write_users()
        self.imap_port = free_port()
        self.imap_up()
        self.smtp_port = free_port()
        self.smtp_up()
        return self

    def reset(self) -> None:
        """Empty every user's INBOX and delete every other folder: over IMAP, as before, for each user whose Maildir
        holds anything but pymap's empty INBOX (a message, a folder, any other file).  A user whose Maildir is empty
        or not made yet has nothing to delete, and logging in as each of the nine users cost 0.8 s before every
        test, most of which touch two or three mailboxes."""
        self._reset_users([user for index, user in enumerate(self.users) if self._holds_anything(index)])

    def _holds_anything(self, index: int) -> bool:
        home = self.root / "pymap" / "mail" / f"u{index}"  # the user's Maildir (`_write_users`)
        if not home.exists():
            return False
        for entry in home.iterdir():
            if entry.name in ("cur", "new", "tmp") and entry.is_dir():
                if any(entry.iterdir()):
                    return True
            elif entry.name != "dovecot-uidlist":  # pymap's UID list, there from the first login on
                return True
        return False

    def _write_users(self) -> None:
        from pysasl.hashing import BuiltinHash

        base = self.root / "pymap"
        base.mkdir(parents=True, exist_ok=True)
        hasher = BuiltinHash(rounds=1000)  # pbkdf2; few rounds keep LOGIN fast
        passwd, shadow = [], []
        for index, (user, password) in enumerate(self.users.items()):
            passwd.append(f"{user}:x::::mail/u{index}:\r\n")
            shadow.append(f"{user}:{hasher.hash(password)}:::::::\r\n")
        (base / "pymap-etc-passwd").write_text("".join(passwd))
        (base / "pymap-etc-shadow").write_text("".join(shadow))
        (base / "mail").mkdir(exist_ok=True)

    # IMAP side: a pymap subprocess ------------------------------------------

    def imap_up(self) -> None:
        if self._imap_proc is not None:
            return
        log = open(self.root / "pymap.log", "ab")  # noqa: SIM115 - the server writes to it for its whole life
        code = "from tests.servers.testservers import _run_pymap; _run_pymap()"
        repo = str(Path(__file__).resolve().parents[2])
        env = {
            **os.environ,
            "FQDN": "localhost",
            "PYTHONPATH": os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")])),
        }
        self._imap_proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                code,
                "--no-tls",
                "--host",
                HOST,
                "--port",
                str(self.imap_port),
                "maildir",
                str(self.root / "pymap"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        log.close()
        try:
            wait_for_greeting(self.imap_port, proc=self._imap_proc, prefix=b"* OK")
        except Unavailable as exc:
            tail = (self.root / "pymap.log").read_text(errors="replace")[-2000:]
            self.imap_down()
            raise Unavailable(f"pymap did not start: {exc}\n{tail}") from None

    def imap_down(self) -> None:
        proc, self._imap_proc = self._imap_proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

    # SMTP side: aiosmtpd in a thread -----------------------------------------

    def smtp_up(self) -> None:
        if self._controller is not None:
            return
        from aiosmtpd.controller import Controller

        servers = self

        class CountingController(Controller):
            def factory(self):
                with servers._lock:
                    servers._connections += 1
                return super().factory()

        from aiosmtpd.smtp import AuthResult

        def authenticator(server, session, envelope, mechanism, auth_data):
            login = getattr(auth_data, "login", b"") or b""
            password = getattr(auth_data, "password", b"") or b""
            user = servers.lower_users.get(login.decode("utf-8", "replace").lower())
            ok = user is not None and servers.users[user].encode() == password
            return AuthResult(success=ok, handled=False, auth_data=auth_data)

        self._handler = _Delivery(self)
        controller = CountingController(
            self._handler,
            hostname=HOST,
            port=self.smtp_port,
            server_hostname="mail.example.test",
            ready_timeout=10,
            authenticator=authenticator,
            auth_require_tls=False,
            auth_required=False,
        )
        controller.start()
        self._controller = controller
        with self._lock:
            self._connections -= 1  # the controller's own readiness probe

    def smtp_down(self) -> None:
        controller, self._controller = self._controller, None
        if controller is not None:
            controller.stop()
        if self._handler is not None:
            self._handler.close()
            self._handler = None

    def smtp_connections(self) -> int:
        with self._lock:
            return self._connections

    def _reset_counters(self) -> None:
        with self._lock:
            self._connections = 0

    def close(self) -> None:
        self.smtp_down()
        self.imap_down()


@contextmanager
def pip_mail_servers(tmp_path: Path, users: dict[str, str]) -> Iterator[PipMailServers]:
    """pymap + aiosmtpd on free ports of 127.0.0.1 (see the module docstring)."""
    try:
        import aiosmtpd  # noqa: F401
        import pymap  # noqa: F401
    except ImportError as exc:
        raise Unavailable(f"the test extras are missing ({exc}); pip install -e '.[test]'") from None
    servers = PipMailServers(Path(tmp_path), users)
    try:
        servers.start()
        yield servers
    finally:
        servers.close()


# --------------------------------------------------------------------------
# Dovecot + Postfix


def _sbin(name: str) -> str | None:
    path = os.environ.get("PATH", "") + os.pathsep + "/usr/sbin" + os.pathsep + "/sbin"
    return shutil.which(name, path=path)


def _private_dir(tmp_path: Path) -> Path:
    """A directory whose every parent is o+x (Postfix and Dovecot drop privileges)."""
    path = Path(tmp_path).resolve()
    if all(os.stat(parent).st_mode & 0o001 for parent in [path, *path.parents]):
        return path
    return Path(tempfile.mkdtemp(prefix="pbem-mail-", dir="/tmp"))


POSTFIX_QUEUES = ("maildrop", "incoming", "active", "deferred", "hold")


class DebianMailServers(MailServers):
    def __init__(self, root: Path, users: dict[str, str]) -> None:
        super().__init__(users)
        self.root = root
        self._baseline = 0
        self._env = dict(os.environ)
        self._running = {"smtp": False, "imap": False}

    def _run(self, *args: str, timeout: float = 60) -> None:
        result = subprocess.run(
            ["bash", str(SCRIPT), *args, str(self.root)],
            env=self._env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if result.returncode != 0:
            raise Unavailable(
                f"debian-mail.sh {' '.join(args)} failed ({result.returncode}): "
                f"{(result.stderr or result.stdout).strip()[-1500:]}"
            )

    def start(self) -> DebianMailServers:
        self.imap_port, self.smtp_port, lmtp_port = free_port(), free_port(), free_port()
        self._env.update(IMAP_PORT=str(self.imap_port), SMTP_PORT=str(self.smtp_port), LMTP_PORT=str(lmtp_port))
        self._env["PATH"] = self._env.get("PATH", "") + ":/usr/sbin:/sbin"
        (self.root / "users").write_text("".join(f"{user}:{password}\n" for user, password in self.users.items()))
        self._run("start", timeout=120)
        self._running = {"smtp": True, "imap": True}
        return self

    def _log_connects(self) -> int:
        try:
            text = (self.root / "log" / "postfix.log").read_text(errors="replace")
        except FileNotFoundError:
            return 0
        return sum(1 for line in text.splitlines() if "/smtpd[" in line and ": connect from " in line)

    def smtp_connections(self) -> int:
        # postlogd writes asynchronously: wait until the count is stable
        last, stable_since = -1, time.monotonic()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            count = self._log_connects()
            if count != last:
                last, stable_since = count, time.monotonic()
            elif time.monotonic() - stable_since > 0.3:
                break
            time.sleep(0.05)
        return last - self._baseline

    def _reset_counters(self) -> None:
        self._baseline = self._log_connects()

    def reset(self) -> None:
        """Empty every user's INBOX and delete every other folder: over IMAP, as before, for each user whose Maildir
        holds a message (in cur, new or tmp) or a folder (a ".NAME" directory), the only things the IMAP reset
        removes; Dovecot's index and list files are its own.  Nine logins cost 0.2 s before every test."""
        self._reset_users([user for user in self.users if self._holds_anything(self.root / "mail" / user / "Maildir")])

    @staticmethod
    def _holds_anything(maildir: Path) -> bool:
        if not maildir.exists():
            return False
        for entry in maildir.iterdir():
            if entry.name in ("cur", "new", "tmp") and entry.is_dir():
                if any(entry.iterdir()):
                    return True
            elif entry.name.startswith(".") and entry.is_dir():
                return True
        return False

    def smtp_down(self) -> None:
        if self._running["smtp"]:
            # What Postfix accepted is delivered first: stopped in the middle of a delivery, it delivers that mail
            # again once started (seen: "orders 1" twice in a mailbox after a test's restart).  A test's outage
            # is of the SMTP service pbem talks to, never a duplicate made by the server's own queue.
            self.delivered(timeout=30.0)
            self._run("stop-smtp")
            self._running["smtp"] = False

    def smtp_up(self) -> None:
        if not self._running["smtp"]:
            self._run("start-smtp")
            self._running["smtp"] = True

    def imap_down(self) -> None:
        if self._running["imap"]:
            self._run("stop-imap")
            self._running["imap"] = False

    def imap_up(self) -> None:
        if not self._running["imap"]:
            self._run("start-imap")
            self._running["imap"] = True

    def close(self) -> None:
        with suppress(Unavailable):
            self._run("stop")
        self._running = {"smtp": False, "imap": False}

    def queued(self) -> int:
        """Mails in Postfix's queue (accepted, not yet delivered over LMTP): files under its queue folders."""
        queue = self.root / "postfix" / "queue"
        return sum(len(files) for sub in POSTFIX_QUEUES for _, _, files in os.walk(queue / sub))

    def delivered(self, timeout: float = 120.0) -> float:
        """Postfix delivers after it answered DATA: a benchmark that times the next run waits here first, or the
        deliveries of the run before are done on its time (seen: one baseline 9.8 s, the next 19.1 s)."""
        t0 = time.monotonic()
        while self.queued() and time.monotonic() - t0 < timeout:
            time.sleep(0.05)
        return time.monotonic() - t0


def debian_unavailable() -> str | None:
    """Why the Dovecot + Postfix pair cannot run here, or None."""
    missing = [name for name in ("dovecot", "postfix", "postconf") if _sbin(name) is None]
    if missing:
        return (
            f"{', '.join(missing)} not installed (run tests/servers/install-debian-mail.sh: "
            "apt packages dovecot-imapd dovecot-lmtpd postfix)"
        )
    if not Path("/usr/lib/dovecot/lmtp").exists():
        return "dovecot-lmtpd is not installed"
    if os.geteuid() != 0:
        return "Postfix can only be started as root"
    if not SCRIPT.exists():
        return f"{SCRIPT} is missing"
    return None


@contextmanager
def debian_mail_servers(tmp_path: Path, users: dict[str, str]) -> Iterator[DebianMailServers]:
    """Dovecot + Postfix from a private directory (see the module docstring)."""
    reason = debian_unavailable()
    if reason:
        raise Unavailable(reason)
    Path(tmp_path).mkdir(parents=True, exist_ok=True)
    root = _private_dir(Path(tmp_path))
    os.chmod(root, 0o755)
    servers = DebianMailServers(root, users)
    try:
        servers.start()
        yield servers
    finally:
        servers.close()
        if root != Path(tmp_path).resolve():
            shutil.rmtree(root, ignore_errors=True)


def _main(argv: list[str]) -> int:
    kind = argv[0] if argv else "pip"
    pairs = [arg.split(":", 1) for arg in argv[1:]] or [
        ["moderator@example.test", "moderator"],
        ["alice@example.test", "alice"],
        ["bob@example.test", "bob"],
    ]
    starter = {"pip": pip_mail_servers, "debian": debian_mail_servers}.get(kind)
    if starter is None:
        print("usage: python -m tests.servers.testservers pip|debian [ADDRESS:PASSWORD ...]", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="pbem-mail-"))
    try:
        with starter(root, dict(pairs)) as servers:
            print(
                f"IMAP {servers.imap_host}:{servers.imap_port}  SMTP {servers.smtp_host}:{servers.smtp_port}  "
                f"users: {', '.join(servers.users)}  (Ctrl-C stops)",
                flush=True,
            )
            while True:
                time.sleep(3600)
    except Unavailable as exc:
        print(f"unavailable: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
