"""Dovecot + Postfix speaking TLS and OAuth2, for the credential, TLS and `pbem check` tests.

`secure_mail_servers(tmp_path, users)` starts a private Dovecot + Postfix pair
(``tests/servers/debian-mail.sh``) with:

* certificates from a throw-away test CA made with ``trustme``: the CA file is
  ``servers.cafile``; a second, unrelated CA (``servers.other_cafile``) lets a
  test present a certificate nobody configured;
* IMAP on ``imap_port`` (plain, STARTTLS offered) and ``imaps_port`` (implicit
  TLS); SMTP on ``smtp_port`` (plain relay for 127.0.0.1), ``submission_port``
  (STARTTLS required before AUTH) and ``smtps_port`` (implicit TLS);
* XOAUTH2 and OAUTHBEARER checked by Dovecot's ``oauth2`` passdb against the
  small RFC 7662 introspection endpoint `Introspection` run here (Postfix asks
  Dovecot through its SASL socket, so SMTP AUTH XOAUTH2 is checked the same way).

Everything binds 127.0.0.1 on free ports.  Raises `Unavailable` with the
reason (packages missing, not root) when the pair cannot run here; install
the packages with ``tests/servers/install-debian-mail.sh``.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

HOST = "127.0.0.1"
SCRIPT = Path(__file__).resolve().parent / "debian-mail.sh"


class Unavailable(Exception):
    """The secure server pair cannot run here; the text says why."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def unavailable() -> str | None:
    """Why Dovecot + Postfix cannot run here, or None."""
    path = os.environ.get("PATH", "") + os.pathsep + "/usr/sbin" + os.pathsep + "/sbin"
    missing = [name for name in ("dovecot", "postfix") if shutil.which(name, path=path) is None]
    if missing:
        return f"{', '.join(missing)} not installed (run tests/servers/install-debian-mail.sh)"
    if not Path("/usr/lib/dovecot/lmtp").exists():
        return "dovecot-lmtpd is not installed"
    if os.geteuid() != 0:
        return "Postfix can only be started as root"
    try:
        import trustme  # noqa: F401
    except ImportError:
        return "trustme is not installed (pip install -e '.[test]')"
    return None


# -- the OAuth2 token introspection endpoint (RFC 7662) ----------------------


class Introspection:
    """Answers Dovecot's ``POST token=...`` with ``{"active": ..., "username": ...}``.

    `issue(user)` makes a token valid for ``user``; `expire(token)` makes it
    inactive, as an authorization server does when a token's hour is up.
    ``asked`` counts the introspection requests.
    """

    def __init__(self) -> None:
        self._tokens: dict[str, tuple[str, bool]] = {}
        self._lock = threading.Lock()
        self.asked = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = parse_qs(self.rfile.read(length).decode("ascii", "replace"))
                token = (form.get("token") or [""])[0]
                body = json.dumps(outer._answer(token)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:  # quiet: tokens are in the requests
                pass

        self._server = ThreadingHTTPServer((HOST, 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://{HOST}:{self._server.server_address[1]}/introspect"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _answer(self, token: str) -> dict[str, object]:
        with self._lock:
            self.asked += 1
            user, active = self._tokens.get(token, ("", False))
        return {"active": True, "username": user, "scope": "mail"} if active else {"active": False}

    def issue(self, user: str) -> str:
        token = "ya29." + secrets.token_urlsafe(24)
        with self._lock:
            self._tokens[token] = (user, True)
        return token

    def expire(self, token: str) -> None:
        with self._lock:
            user, _active = self._tokens[token]
            self._tokens[token] = (user, False)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


# -- certificates --------------------------------------------------------------


@dataclass
class TestCertificates:
    cafile: Path  # the CA that signed the servers' certificate
    other_cafile: Path  # an unrelated CA: verifying against it fails
    cert: Path
    key: Path


def make_certificates(directory: Path, names: tuple[str, ...] = (HOST,)) -> TestCertificates:
    import trustme

    directory.mkdir(parents=True, exist_ok=True)
    ca, other = trustme.CA(organization_name="pbem test CA"), trustme.CA(organization_name="unrelated CA")
    issued = ca.issue_cert(*names)
    paths = TestCertificates(
        directory / "ca.pem", directory / "other-ca.pem", directory / "server.pem", directory / "server.key"
    )
    ca.cert_pem.write_to_path(str(paths.cafile))
    other.cert_pem.write_to_path(str(paths.other_cafile))
    with open(paths.cert, "wb") as out:
        for blob in issued.cert_chain_pems:
            out.write(blob.bytes())
    issued.private_key_pem.write_to_path(str(paths.key))
    return paths


# -- the server pair -----------------------------------------------------------


class SecureMailServers:
    imap_host = smtp_host = HOST

    def __init__(self, root: Path, users: dict[str, str]) -> None:
        self.root = root
        self.users = dict(users)
        self.certs = make_certificates(root / "certs")
        self.cafile, self.other_cafile = self.certs.cafile, self.certs.other_cafile
        self.oauth = Introspection()
        self.imap_port, self.imaps_port, self.smtp_port = free_port(), free_port(), free_port()
        self.submission_port, self.smtps_port = free_port(), free_port()
        self._env = {
            **os.environ,
            "PATH": os.environ.get("PATH", "") + ":/usr/sbin:/sbin",
            "IMAP_PORT": str(self.imap_port),
            "SMTP_PORT": str(self.smtp_port),
            "LMTP_PORT": str(free_port()),
            "IMAPS_PORT": str(self.imaps_port),
            "SUBMISSION_PORT": str(self.submission_port),
            "SMTPS_PORT": str(self.smtps_port),
            "TLS_CERT": str(self.certs.cert),
            "TLS_KEY": str(self.certs.key),
            "OAUTH2_URL": self.oauth.url,
        }

    def _run(self, action: str, timeout: float = 120) -> None:
        result = subprocess.run(
            ["bash", str(SCRIPT), action, str(self.root)],
            env=self._env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if result.returncode != 0:
            detail = (result.stderr or result.stdout).strip()[-1500:]
            raise Unavailable(f"debian-mail.sh {action} failed ({result.returncode}): {detail}")

    def start(self) -> SecureMailServers:
        (self.root / "users").write_text("".join(f"{u}:{p}\n" for u, p in self.users.items()))
        self._run("start")
        return self

    def close(self) -> None:
        try:
            self._run("stop", timeout=60)
        finally:
            self.oauth.close()

    # -- reading mailboxes (plain IMAP with the user's password) -------------

    @contextmanager
    def imap(self, user: str) -> Iterator[object]:
        import imapclient

        client = imapclient.IMAPClient(HOST, self.imap_port, ssl=False, timeout=15)
        try:
            client.login(user, self.users[user])
            yield client
        finally:
            client.logout()

    def mailbox(self, user: str, folder: str = "INBOX", wait_for: int = 0, timeout: float = 15) -> list[bytes]:
        """The raw messages in ``user``'s folder; with ``wait_for``, poll until that many arrived."""
        deadline = time.monotonic() + timeout
        while True:
            with self.imap(user) as client:
                client.select_folder(folder, readonly=True)  # type: ignore[attr-defined]
                uids = sorted(client.search(["ALL"]))  # type: ignore[attr-defined]
                data = client.fetch(uids, [b"BODY.PEEK[]"]) if uids else {}  # type: ignore[attr-defined]
            messages = [bytes(data[uid][b"BODY[]"]) for uid in uids if uid in data]
            if len(messages) >= wait_for or time.monotonic() > deadline:
                return messages
            time.sleep(0.05)

    def folders(self, user: str) -> list[str]:
        with self.imap(user) as client:
            return sorted(name for _flags, _delim, name in client.list_folders())  # type: ignore[attr-defined]

    def deliver(self, user: str, raw: bytes) -> None:
        with self.imap(user) as client:
            client.append("INBOX", raw)  # type: ignore[attr-defined]

    def reset(self) -> None:
        """Empty every INBOX and delete every other folder, over IMAP for each user whose Maildir holds a message or
        a folder (`DebianMailServers.reset`: the same script lays the Maildirs out)."""
        from tests.servers.testservers import DebianMailServers

        for user in self.users:
            if not DebianMailServers._holds_anything(self.root / "mail" / user / "Maildir"):
                continue
            with self.imap(user) as client:
                c = client  # type: ignore[assignment]
                names = [name for _f, _d, name in c.list_folders() if name.upper() != "INBOX"]  # type: ignore[attr-defined]
                for name in sorted(names, key=len, reverse=True):
                    with contextlib.suppress(Exception):  # a parent that only exists through its children
                        c.delete_folder(name)  # type: ignore[attr-defined]
                c.select_folder("INBOX")  # type: ignore[attr-defined]
                uids = c.search(["ALL"])  # type: ignore[attr-defined]
                if uids:
                    c.add_flags(uids, [b"\\Deleted"], silent=True)  # type: ignore[attr-defined]
                    c.expunge()  # type: ignore[attr-defined]


@contextmanager
def secure_mail_servers(tmp_path: Path, users: dict[str, str]) -> Iterator[SecureMailServers]:
    """Dovecot + Postfix with TLS from a test CA and OAuth2 (see the module docstring)."""
    reason = unavailable()
    if reason:
        raise Unavailable(reason)
    root = Path(tempfile.mkdtemp(prefix="pbem-secure-mail-", dir="/tmp"))  # every parent o+x
    os.chmod(root, 0o755)
    servers = SecureMailServers(root, users)
    try:
        servers.start()
        yield servers
    finally:
        servers.close()
        shutil.rmtree(root, ignore_errors=True)
