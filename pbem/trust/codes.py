"""Players' secret codes: made at random, mailed once, stored only as a salted hash.

A code reads like ``K7QX-2MPD`` (no 0/O or 1/I to misread).  It is checked in
constant time; the stored form is ``pbkdf2_sha256$ROUNDS$SALT$HASH``.

The rounds are a security choice, argued in docs/security.md: a code is 40
random bits, used nowhere but here, and whoever can read the stored hashes
already reads every game's secrets and holds the key that authenticates
replies; 10,000 rounds still make each code days of a top GPU's work.  A
stored hash names its own rounds, so codes hashed with other rounds (60,000
before 2026-12) are checked with theirs.  The derivation is paid once per
(seat, code) per process (`check_seat_code`: a poll of many orders from one
seat pays it once) and only for a registered seat.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
ROUNDS = 10_000  # docs/security.md: why this number

# (seat id, normalised code) -> does it match that seat's stored hash?  One poll process.
_SEAT_CHECKS: dict[tuple[int, str], bool] = {}
_IN_FLIGHT: dict[tuple[int, str], threading.Event] = {}
_LOCK = threading.Lock()
derivations = 0  # PBKDF2 runs in this process (for tests and `--timings`)
deriving = 0.0  # seconds spent in them, summed over threads (`pbem poll --timings`: "deriving codes")


def new_code() -> str:
    raw = "".join(secrets.choice(ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def normal(code: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", code.upper())


def hash_code(code: str, salt: str | None = None, rounds: int = ROUNDS) -> str:
    salt = salt or secrets.token_hex(8)
    digest = hashlib.pbkdf2_hmac("sha256", normal(code).encode(), salt.encode(), rounds).hex()
    return f"pbkdf2_sha256${rounds}${salt}${digest}"


def check_code(code: str | None, stored: str) -> bool:
    """Without a cache: for a code with no seat row yet (a seat's check goes through `check_seat_code`)."""
    if not code or not stored:
        return False
    try:
        _, rounds, salt, digest = stored.split("$")
    except ValueError:
        return False
    return hmac.compare_digest(_derive(normal(code), salt, int(rounds)), digest)


def check_seat_code(seat_id: int | None, code: str | None, stored: str) -> bool:
    """`check_code` for a seat row, paid once per (seat, code) per process.

    A seat row's hash never changes (a new code appends a row with a new id), so the
    answer can be kept.  Thread-safe: the poll may warm the cache from another thread;
    a check of a key being derived there waits for it rather than deriving it twice.
    """
    if not code or not stored or seat_id is None:
        return check_code(code, stored)
    key = (seat_id, normal(code))
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
        ok = check_code(code, stored)
        with _LOCK:
            _SEAT_CHECKS[key] = ok
        return ok
    finally:
        with _LOCK:
            del _IN_FLIGHT[key]
        pending.set()


def forget_checks() -> None:
    """Empty the (seat, code) cache (tests; a long-lived process between runs)."""
    with _LOCK:
        _SEAT_CHECKS.clear()


def _derive(code: str, salt: str, rounds: int) -> str:
    global derivations, deriving
    t0 = time.perf_counter()
    out = hashlib.pbkdf2_hmac("sha256", code.encode(), salt.encode(), rounds).hex()
    with _LOCK:
        derivations += 1
        deriving += time.perf_counter() - t0
    return out
