"""A queued mail that carries a player's code is stored sealed: the record never holds the code (issue 26).

When a mail names a secret (`Mail.secret`: a player's code), `outbox_row`
stores two copies and neither holds the code in clear:

* `keep_raw`: the same mail with the code shown as "[redacted once sent]", what
  the record keeps once the mail is sent or given up (`pbem.record.sentlog`,
  `pbem.mail.outbound.sender`), and what a reply to it is compared with;
* `raw`: the whole mail encrypted (Fernet: AES-128-CBC and HMAC-SHA256) under
  the home's outbox key, the file `outbox.key` in the moderator's home (mode
  0600), never in the database.  The sender opens it just before handing it to
  the server.

So a copy of the database, at any moment after the poll's commit, holds no
code: a stolen backup needs the home's key file too, and once a sealed mail is
sent its sealed copy is replaced by the redacted one.  A home whose key file is
lost (or a database moved to another home) sends the redacted copy instead,
logged once per mail: the player can still answer by replying to it, and the
moderator can give them a new code (`pbem game code`).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from pbem.record import private
from pbem.record.outbox_key import MARK  # what a sealed `raw` starts with (a mail never does: it starts with a header)
from pbem.record.sealing import RESTORE, Unsealable, key_file

__all__ = ["KEY_FILE", "MARK", "held", "is_sealed", "opened", "seal"]

KEY_FILE = "outbox.key"

log = logging.getLogger("pbem.sender")
_KEYS: dict[Path, Fernet] = {}
_LOCK = threading.Lock()


def _key(home: Path, create: bool) -> Fernet | None:
    path = Path(home) / KEY_FILE
    with _LOCK:
        if path in _KEYS:
            return _KEYS[path]
        found = key_file(path)  # Unsealable for a file that is no key file (a FIFO waited without end)
        if found is None:
            if not create:
                return None
            key = Fernet.generate_key()
            if not private.create_whole(path, key + b"\n"):  # whole or not at all (never an empty key file)
                key = key_file(path) or b""  # another run made it meanwhile: use theirs
        else:
            key = found
        try:
            fernet = Fernet(key)
        except ValueError:  # a damaged file: a traceback in the poll before
            raise Unsealable(f"the key file {path} holds no key (it was edited or damaged): {RESTORE}") from None
        _KEYS[path] = fernet
        return fernet


def held(home: Path) -> bytes | None:
    """The text of the home's key file, read now (None: it has none); Unsealable when it holds no key.  What the
    record's check value is compared with (`pbem.app.outbox_key`): the key this process keeps may be older."""
    path = Path(home) / KEY_FILE
    found = key_file(path)
    if found is None:
        return None
    try:
        Fernet(found)
    except ValueError:
        raise Unsealable(f"the key file {path} holds no key (it was edited or damaged): {RESTORE}") from None
    return found


def seal(home: Path, raw: bytes) -> bytes:
    """`raw` encrypted under the home's outbox key (made on first use)."""
    fernet = _key(home, create=True)
    assert fernet is not None
    return MARK + fernet.encrypt(raw)


def is_sealed(raw: bytes) -> bool:
    return bytes(raw[: len(MARK)]) == MARK


def opened(home: Path, raw: bytes, redacted: bytes | None) -> bytes:
    """The mail to send for a stored `raw`: itself, or if sealed the mail it seals; the `redacted` copy when
    the seal cannot be opened (no key file, another home's key)."""
    raw = bytes(raw)
    if not is_sealed(raw):
        return raw
    try:
        fernet = _key(home, create=False)
    except Unsealable as exc:
        log.warning("%s", exc)
        fernet = None
    why = f"no {KEY_FILE} in the home"
    if fernet is not None:
        try:
            return fernet.decrypt(raw[len(MARK) :])
        except InvalidToken:  # the key file is there: the log said "no outbox.key in the home" (walk9)
            why = (
                f"sealed with another {KEY_FILE} (one lost, a new one made by pbem poll --new-outbox-key), or its "
                "sealed copy is damaged in the database (pbem backup checks the database)"
            )
    log.warning("a queued mail's code cannot be opened (%s): sending it redacted", why)
    return bytes(redacted) if redacted is not None else raw
