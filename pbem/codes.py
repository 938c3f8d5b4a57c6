"""Players' secret codes: made at random, mailed once, stored only as a salted hash.

A code reads like ``K7QX-2MPD`` (no 0/O or 1/I to misread).  It is checked in
constant time; the stored form is ``pbkdf2_sha256$ROUNDS$SALT$HASH``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from functools import lru_cache

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
ROUNDS = 60_000


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
    if not code or not stored:
        return False
    try:
        _, rounds, salt, digest = stored.split("$")
    except ValueError:
        return False
    return hmac.compare_digest(_derived(normal(code), salt, int(rounds)), digest)


@lru_cache(maxsize=4096)
def _derived(code: str, salt: str, rounds: int) -> str:
    """PBKDF2 once per (code, salt) per process: a poll of many orders from one player pays it once."""
    return hashlib.pbkdf2_hmac("sha256", code.encode(), salt.encode(), rounds).hex()
