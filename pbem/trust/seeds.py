"""Seed rules: what `pbem game new --seed` accepts, and the shell-safe lines that check a revealed seed.

A seed the moderator types is only as strong as its guessable part: the
commitment in every first report lets a player try candidate seeds offline
(issue 13: "20261130" fell in 38 seconds, and with it every secret counter).
So a given seed must carry at least 128 bits, written as 32 or more hex digits
with some variety; anything else needs `--insecure-seed`, and such a game says
so in every report and in its export.  The default seed is 256 random bits.

The "check it" lines printed in exports hold only hex digits and fixed words,
so pasting them into any shell runs nothing but the check, whatever the seed's
text is.
"""

from __future__ import annotations

import re

MIN_HEX_DIGITS = 32
MIN_DISTINCT_DIGITS = 8
ACCEPTED = (
    "a seed must be 32 or more hex digits (128 bits or more) from a random source, e.g. the output of "
    "`openssl rand -hex 32`; leave --seed out for 256 random bits, or add --insecure-seed to use it anyway"
)
INSECURE_NOTE = (
    "the moderator chose this game's seed by hand (--insecure-seed): it is weaker than 128 bits, "
    "so a player could have guessed it from the commitment and learned every secret."
)
_HEX = re.compile(r"[0-9a-fA-F]+")


def seed_problem(seed: str) -> str | None:
    """None if `seed` carries at least 128 bits by the rule above; else the one line saying what is accepted."""
    if (
        len(seed) >= MIN_HEX_DIGITS
        and _HEX.fullmatch(seed)
        and len(set(seed.lower())) >= MIN_DISTINCT_DIGITS
        and seed.isascii()
    ):
        return None
    return f"refused: {ACCEPTED}"


def ascii_seed_problem(seed: str) -> str | None:
    """Even an insecure seed must be printable ASCII: the commitment is SHA-256 of its ASCII text."""
    if seed and seed.isascii() and seed.isprintable():
        return None
    return "refused: a seed must be printable ASCII text (its SHA-256 is the commitment every player receives)"


def seed_hex(seed: str) -> str:
    """The seed's ASCII text in hexadecimal: what the check lines hash."""
    return seed.encode("ascii").hex()


def check_lines(seed: str) -> list[str]:
    """Two commands that print SHA-256 of the seed; each holds only hex digits and fixed text."""
    h = seed_hex(seed)
    return [
        f"printf %s {h} | xxd -r -p | sha256sum",
        f"python3 -c \"import hashlib; print(hashlib.sha256(bytes.fromhex('{h}')).hexdigest())\"",
    ]
