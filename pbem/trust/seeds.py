"""Seed rules: what `pbem game new --seed` accepts, and the shell-safe lines that check a revealed seed.

A seed the moderator types is only as strong as its guessable part: the
commitment in every first report lets a player try candidate seeds offline
(issue 13: "20261130" fell in 38 seconds, and with it every secret counter).
So a given seed must carry at least 128 bits, written as 32 or more hex digits
with some variety and no pattern (`patterned`); anything else needs `--insecure-seed`, and such a game says
so in every report and in its export.  The default seed is 256 random bits.

The "check it" lines printed in exports hold only hex digits and fixed words,
so pasting them into any shell runs nothing but the check, whatever the seed's
text is.
"""

from __future__ import annotations

import itertools
import re

MIN_HEX_DIGITS = 32
MIN_DISTINCT_DIGITS = 8
RUN = 12  # this many equal steps in a row between neighbouring digits is a pattern (`patterned`)
ACCEPTED = (
    "a seed must be 32 or more hex digits (128 bits or more) from a random source, without a pattern, e.g. the output of "
    "`openssl rand -hex 32`; leave --seed out for 256 random bits, or add --insecure-seed to use it anyway"
)
INSECURE_NOTE = (
    "the moderator chose this game's seed by hand (--insecure-seed): it is weaker than 128 bits, "
    "so a player could have guessed it from the commitment and learned every secret."
)
_HEX = re.compile(r"\A[0-9a-fA-F]+")


def patterned(seed: str) -> bool:
    """True if the hex digits follow a pattern a person types: a repeated block ("deadbeef" * 4), a run of steps
    ("0123456789abcdef" twice, "fedc..."), or too few distinct pairs of neighbours.  32 random hex digits fail it
    with a probability below about 2^-35 (a run of 12 equal steps: 20 * 16^-11; tests/test_seeds.py samples
    200,000 seeds), so a seed from `openssl rand -hex 16` passes."""
    d = [int(c, 16) for c in seed.lower()]
    n = len(d)
    for period in range(1, min(n // 2, MIN_HEX_DIGITS - 1) + 1):  # a block of under 128 bits repeated
        if all(d[i] == d[i - period] for i in range(period, n)):
            return True
    steps = [(d[i + 1] - d[i]) % 16 for i in range(n - 1)]
    if max(steps.count(x) for x in set(steps)) > (n - 1) // 2:  # mostly one step: counting up, down, or constant
        return True
    run = longest = 1
    for a, b in itertools.pairwise(steps):
        run = run + 1 if a == b else 1
        longest = max(longest, run)
    if longest >= RUN:  # a long run of one step: "0123456789abcdef" then anything
        return True
    pairs = len(set(itertools.pairwise(d)))
    return pairs < min(n - 1, MIN_HEX_DIGITS - 1) * 5 // 8  # random: ~95% of 31 pairs differ; patterns repeat them


def seed_problem(seed: str) -> str | None:
    """None if `seed` carries at least 128 bits by the rule above; else the one line saying what is accepted."""
    if (
        len(seed) >= MIN_HEX_DIGITS
        and seed.isascii()
        and _HEX.fullmatch(seed)
        and len(set(seed.lower())) >= MIN_DISTINCT_DIGITS
        and not patterned(seed)
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
