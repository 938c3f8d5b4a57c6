"""Players' secret codes: made at random, mailed once, stored only as a keyed hash.

A code reads like ``K7QX-2MPD`` (no 0/O or 1/I to misread): 8 characters of a 32-letter alphabet, 40
random bits.  A new code is stored as

    hmac_sha256$KEY-ID$SALT$HEX      HEX = HMAC-SHA256(code key, SALT || normalised code)

The code key is HMAC-SHA256(the home's wrapping key, b"pbem player codes v1") (`pbem.record.sealing.derived`):
the wrapping key is the file `game-keys.secret` beside the record, the one that seals the games' signing
keys, and KEY-ID names it as sealing's KEY-ID does.  docs/security.md argues the choice: the record alone (a
backup, a copy of the hashes) lets no guess be checked offline, and a check costs microseconds where PBKDF2
cost milliseconds.

Older stored forms keep checking: ``pbkdf2_sha256$ROUNDS$SALT$HASH`` is checked with the rounds it names
(60,000 before 2026-12, then 10,000 until the keyed hash).  `hash_code` without a home (a `Policy` made
without one, the pure core's tests) still makes that form.  A keyed hash whose key is not here (the key file
lost, or another home's) checks as a wrong code, never as an error, and the log says once per poll which
file to restore.  A check is paid once per (seat, code) per process (`check_seat_code`) and only for a
registered seat; it is compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import threading
import time
from pathlib import Path

from pbem.record import sealing

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
KEYED = "hmac_sha256"  # new codes (docs/security.md)
STRETCHED = "pbkdf2_sha256"  # codes stored before, and codes hashed where no home is known
PURPOSE = b"pbem player codes v1"  # the code key's own label: never the wrapping key itself
ROUNDS = 10_000  # PBKDF2's, where no home is known (docs/security.md: the rounds' history)

log = logging.getLogger("pbem.codes")

# (seat id, its stored hash, normalised code) -> does the code match that hash?  One poll process.
_SEAT_CHECKS: dict[tuple[int, str, str], bool] = {}
_IN_FLIGHT: dict[tuple[int, str, str], threading.Event] = {}
_LOCK = threading.Lock()
_CODE_KEYS: dict[str, bytes] = {}  # KEY-ID -> code key, derived once
_WARNED: set[str] = set()  # KEY-IDs whose missing key this poll has logged
derivations = 0  # hashes of a code computed to check it, either form (for tests and `--timings`)
pbkdf2_runs = 0  # of them, PBKDF2 derivations (a code stored in the older form)
deriving = 0.0  # seconds spent in them, summed over threads (`pbem poll --timings`: "deriving codes")


def new_code() -> str:
    raw = "".join(secrets.choice(ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def normal(code: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", code.upper())


def hash_code(code: str, salt: str | None = None, rounds: int = ROUNDS, *, home: Path | None = None) -> str:
    """The stored form of a new code: keyed with `home`'s wrapping key (made if the home has none yet);
    without a home, PBKDF2 with `rounds`."""
    salt = salt or secrets.token_hex(8)
    if home is not None:
        wrapping = sealing.wrapping_key(home)
        key_id = sealing.key_id(wrapping)
        return f"{KEYED}${key_id}${salt}${_keyed(_code_key(key_id, wrapping), salt, normal(code))}"
    digest = hashlib.pbkdf2_hmac("sha256", normal(code).encode(), salt.encode(), rounds).hex()
    return f"{STRETCHED}${rounds}${salt}${digest}"


def check_code(code: str | None, stored: str) -> bool:
    """Without a cache: for a code with no seat row yet (a seat's check goes through `check_seat_code`)."""
    return _check(code, stored) is True


def check_seat_code(seat_id: int | None, code: str | None, stored: str) -> bool:
    """`check_code` for a seat row, paid once per (seat, code) per process.

    A seat row's hash never changes (a new code appends a row with a new id), so the
    answer can be kept; not an answer the key file could not give (it is not here, and may be
    restored).  Thread-safe: the poll may warm the cache from another thread; a check of a
    key being computed there waits for it rather than computing it twice.
    """
    if not code or not stored or seat_id is None:
        return check_code(code, stored)
    key = (seat_id, stored, normal(code))  # the stored hash too: another database's seat may have the same id
    while True:
        with _LOCK:
            if key in _SEAT_CHECKS:
                return _SEAT_CHECKS[key]
            pending = _IN_FLIGHT.get(key)
            if pending is None:
                pending = _IN_FLIGHT[key] = threading.Event()
                break
        pending.wait()
    try:
        ok = _check(code, stored)
        if ok is not None:
            with _LOCK:
                _SEAT_CHECKS[key] = ok
        return ok is True
    finally:
        with _LOCK:
            del _IN_FLIGHT[key]
        pending.set()


def forget_checks() -> None:
    """Empty the (seat, code) cache (tests; a long-lived process between runs)."""
    with _LOCK:
        _SEAT_CHECKS.clear()


def new_poll() -> None:
    """A poll starts: a key file still missing is named in its log again (once)."""
    with _LOCK:
        _WARNED.clear()


def _check(code: str | None, stored: str) -> bool | None:
    """Does `code` match `stored`?  None: it cannot be told here (a keyed hash whose key is not here)."""
    if not code or not stored:
        return False
    parts = stored.split("$")
    if len(parts) != 4:
        return False
    form, param, salt, digest = parts
    t0 = time.perf_counter()
    if form == KEYED:
        wrapping = sealing.known(param)
        if wrapping is None:
            _missing(param)
            return None
        computed = _keyed(_code_key(param, wrapping), salt, normal(code))
    elif form == STRETCHED and param.isdigit():
        computed = _stretched(normal(code), salt, int(param))
    else:
        return False
    _count(time.perf_counter() - t0)
    return hmac.compare_digest(computed, digest)


def _code_key(key_id: str, wrapping: bytes) -> bytes:
    key = _CODE_KEYS.get(key_id)
    if key is None:
        key = _CODE_KEYS[key_id] = sealing.derived(wrapping, PURPOSE)
    return key


def _keyed(key: bytes, salt: str, code: str) -> str:
    return hmac.digest(key, salt.encode() + code.encode(), "sha256").hex()


def _stretched(code: str, salt: str, rounds: int) -> str:
    global pbkdf2_runs
    with _LOCK:
        pbkdf2_runs += 1
    return hashlib.pbkdf2_hmac("sha256", code.encode(), salt.encode(), rounds).hex()


def _count(seconds: float) -> None:
    global derivations, deriving
    with _LOCK:
        derivations += 1
        deriving += seconds


def _missing(key_id: str) -> None:
    """Say once per poll that codes hashed with `key_id` cannot be checked, and which file to restore."""
    with _LOCK:
        if key_id in _WARNED:
            return
        _WARNED.add(key_id)
    log.warning(
        "player codes hashed with the wrapping key %s cannot be checked: it is not in %s; restore that file "
        "from the backup of this home (until then mail carrying such a code is refused as with a wrong code)",
        key_id,
        sealing.files(),
    )
