"""The games' signing keys are sealed in the record (issue 25): a thief of the database alone cannot sign.

Each game's Ed25519 private key (`pbem.trust.signing`) is stored in `games.signing_key` as

    "sealed:v1:" KEY-ID ":" base64( nonce (12 bytes) || AES-256-GCM(wrapping key, nonce, private key,
                                                              associated data = the game's name) )

The wrapping key is 32 random bytes kept in the home directory, outside the record, in the file
`game-keys.secret` (mode 0600, made when first needed: `pbem init`'s moderator code or the first game;
KEY-ID is the first 16 hex digits of its SHA-256, so a record restored beside another home's file is
named, not misread).  Back it up with the database: without it pbem can no longer sign that home's games
(it says so, and which file), nor check the players' codes hashed with it.

Other secrets of the home take a key of their own from it (`derived`), never the wrapping key itself:
the players' codes are hashed with one (`pbem.trust.codes`, docs/security.md).
A key in clear (a game made before this) is still read, and named by `pbem check`'s successor tools as
unsealed; nothing rewrites it in place (the record is append-only but for status columns).

Homes register their wrapping key when their configuration is loaded (`register`); one process may
hold several homes (the tests do), told apart by KEY-ID.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from pbem.record import private

FILE = "game-keys.secret"
PREFIX = "sealed:v1:"
_KEYS: dict[str, bytes] = {}  # key id -> wrapping key, for the homes loaded in this process
_FILES: dict[str, Path] = {}  # home -> its file (for the error that names it)


class Unsealable(Exception):
    """A sealed key whose wrapping key is not here (the home's key file is missing or another one)."""


def key_id(key: bytes) -> str:
    """The name of a wrapping key in the record (KEY-ID): it says which file a stored secret needs."""
    return hashlib.sha256(key).hexdigest()[:16]


def known(named: str) -> bytes | None:
    """The wrapping key whose KEY-ID is `named`, if a home loaded in this process holds it."""
    return _KEYS.get(named)


def derived(key: bytes, purpose: bytes) -> bytes:
    """A key of its own for `purpose`, HMAC-SHA256(wrapping key, purpose): a secret of one purpose (the
    players' codes) tells nothing of the wrapping key or of another purpose's key."""
    return hmac.digest(key, purpose, "sha256")


def files() -> str:
    """The key files of the homes loaded in this process, for a message that asks for one to be restored."""
    return ", ".join(str(p) for p in _FILES.values()) or f"the home's {FILE}"


def _read(path: Path) -> bytes | None:
    """The key in `path` (None: no such file); Unsealable, in one line, for a file that holds no key.  A damaged
    file ended every command in a ValueError traceback, a FIFO made it wait without end (costs4)."""
    key = key_file(path)
    if key is None:
        return None
    if os.name == "posix" and path.stat().st_mode & 0o077:
        path.chmod(0o600)  # readable by others: closed at once (it is as secret as the keys it seals)
    got = parsed(key)
    if got is None:
        raise Unsealable(f"the key file {path} holds no key (it was edited or damaged): {RESTORE}")
    return got


#: The end of every sentence about a key file that cannot be used.
RESTORE = "restore it from the backup of this home"
KEY_FILE_BYTES = 4096  # a key file is one line of hex


def key_file(path: Path) -> bytes | None:
    """The stripped bytes of the key file `path` (None: there is none); Unsealable if it is no regular file or
    larger than a key file can be."""
    from pbem.record.files import Unreadable, read_at_most

    try:
        return read_at_most(path, KEY_FILE_BYTES, f"the key file {path}").strip()
    except FileNotFoundError:
        return None
    except (Unreadable, OSError) as exc:
        raise Unsealable(f"{exc}; {RESTORE}") from None


def register(home: Path) -> bytes | None:
    """Read the wrapping key of `home` if it has one; made on first use by `wrapping_key`."""
    key = _read(home / FILE)
    if key is not None:
        _KEYS[key_id(key)] = key
    _FILES[str(home)] = home / FILE
    return key


def wrapping_key(home: Path) -> bytes:
    """The wrapping key of `home`, made (mode 0600, never overwritten) if it has none."""
    key = register(home)
    if key is not None:
        return key
    fresh = secrets.token_bytes(32)
    # made whole or not at all: a run stopped between making the file and writing the key left it empty, and
    # every later command refused the home as "holds no key" (pbem.cli.deadline stops a command anywhere)
    if not private.create_whole(home / FILE, (fresh.hex() + "\n").encode("ascii")):
        return wrapping_key(home)  # another process made it meanwhile: use theirs
    _KEYS[key_id(fresh)] = fresh
    return fresh


def seal(private_hex: str, game: str, home: Path) -> str:
    """`private_hex` sealed for the record of game `game` with `home`'s wrapping key."""
    key = wrapping_key(home)
    nonce = secrets.token_bytes(12)
    sealed = AESGCM(key).encrypt(nonce, bytes.fromhex(private_hex), game.encode("utf-8"))
    return f"{PREFIX}{key_id(key)}:{base64.b64encode(nonce + sealed).decode('ascii')}"


def is_sealed(stored: str) -> bool:
    return stored.startswith(PREFIX)


def opens(stored: str, game: str, key: bytes) -> bool:
    """Whether the wrapping key `key` opens the sealed key `stored` of game `game` (a key in clear: True), a
    backup's key file checked against its own database (`pbem backup --check`), nothing registered."""
    if not is_sealed(stored):
        return True
    named, _, body = stored[len(PREFIX) :].partition(":")
    if named != key_id(key):
        return False
    try:
        raw = base64.b64decode(body)
        AESGCM(key).decrypt(raw[:12], raw[12:], game.encode("utf-8"))
    except (InvalidTag, ValueError):  # binascii.Error is one
        return False
    return True


def parsed(text: bytes) -> bytes | None:
    """The wrapping key a key file's stripped bytes hold (None: they hold none)."""
    try:
        got = bytes.fromhex(text.decode("ascii"))
    except ValueError:  # UnicodeDecodeError is one
        return None
    return got if len(got) in (16, 24, 32) else None  # what AES takes; pbem makes 32 bytes


def unseal(stored: str, game: str) -> str:
    """The private key (hex) that `stored` holds: unsealed with the registered wrapping key, or in clear."""
    if not is_sealed(stored):
        return stored
    named, _, body = stored[len(PREFIX) :].partition(":")
    key = known(named)
    if key is None:
        raise Unsealable(
            f"the signing key of game {game} is sealed with the wrapping key {named}, which is not in {files()}: "
            "restore that file from the backup of this home"
        )
    raw = base64.b64decode(body)
    try:
        return AESGCM(key).decrypt(raw[:12], raw[12:], game.encode("utf-8")).hex()
    except InvalidTag:
        raise Unsealable(f"the sealed signing key of game {game} does not open: it was edited or moved") from None
