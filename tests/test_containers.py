"""`pbem.orders.containers.more_than` answers as the case-blind search it replaced, for every bound near a mail's count.

The search it replaced (`re.IGNORECASE`, the whole mail searched, in `pbem.mail.inbound.message.too_nested` and
`pbem.trust.addresses.too_nested` until suite5) is kept here as the reference.  The generator writes mails of the
pieces that decide it: both words in any case, the whitespace and "*" the pattern allows between their parts, words
cut short or run into other words, words inside longer ones, and filler (base64-like lines, CR LF); each mail is asked
at every bound from 0 to two more than its true count.  600 seeded mails in the suite (about 0.5 s under a load of 12);
`PBEM_CONTAINERS_FULL=1` runs 100,000.  0 of either differ (there was no failure to find: this holds a speed-up).
"""

from __future__ import annotations

import os
import random
import re
from itertools import islice

from pbem.mail.inbound import message
from pbem.orders.containers import more_than
from pbem.trust import addresses

OLD = re.compile(rb"boundary\s*+\*?\s*+=|content-type\s*+:\s*+message/", re.IGNORECASE)
MAILS = 100_000 if os.environ.get("PBEM_CONTAINERS_FULL") else 600


def old_more_than(raw: bytes, most: int) -> bool:
    return next(islice(OLD.finditer(raw), most, None), None) is not None


def _cased(rnd: random.Random, word: str) -> str:
    return "".join(c.upper() if rnd.random() < 0.3 else c for c in word)


def _space(rnd: random.Random) -> str:
    return "".join(rnd.choice([" ", "\t", "\r\n", "\n", "\x0b", "\x0c"]) for _ in range(rnd.choice([0, 0, 1, 2])))


def _piece(rnd: random.Random) -> str:
    kind = rnd.randrange(8)
    if kind == 0:
        return _cased(rnd, "boundary") + _space(rnd) + rnd.choice(["", "*"]) + _space(rnd) + rnd.choice(["=", ":", ""])
    if kind == 1:
        return (
            _cased(rnd, "content-type")
            + _space(rnd)
            + rnd.choice([":", "=", ""])
            + _space(rnd)
            + _cased(rnd, rnd.choice(["message/", "message", "multipart/", "text/"]))
        )
    if kind == 2:  # cut short, or run together with itself or the other word
        return _cased(
            rnd, rnd.choice(["boundar", "oundary", "content-typ", "boundaryboundary=", "content-typeboundary="])
        )
    if kind == 3:
        return rnd.choice(["x-boundary=", "Content-Type-Foo: message/", "noboundary =", "content-type:message/rfc822"])
    if kind == 4:
        return "".join(
            rnd.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(76)
        )
    if kind == 5:
        return rnd.choice(["\r\n", "\n", "\n\n", "--b\n", ";", '"'])
    if kind == 6:
        return "Content-Type: multipart/mixed; " + _cased(rnd, "boundary") + '="b' + str(rnd.randrange(99)) + '"\n'
    return "".join(chr(rnd.randrange(32, 127)) for _ in range(rnd.randrange(20)))


def test_more_than_answers_as_the_case_blind_search_at_every_bound() -> None:
    rnd = random.Random(5)
    differ = []
    for i in range(MAILS):
        raw = "".join(_piece(rnd) for _ in range(rnd.randrange(0, 40))).encode("latin-1")
        count = sum(1 for _ in OLD.finditer(raw))
        for most in range(count + 3):
            if more_than(raw, most) != old_more_than(raw, most):
                differ.append((i, most, raw[:200]))
    assert differ == [], differ[:3]


def test_both_readers_bound_containers_as_before() -> None:
    """The poll's bound (`MAX_MULTIPARTS`) and `verify --mail`'s (`MAX_NESTED`): one over, and exactly at it."""
    for most, nested in ((message.MAX_MULTIPARTS, message.too_nested), (addresses.MAX_NESTED, addresses.too_nested)):
        for n in (most, most + 1):
            raw = ("".join(f'Content-Type: multipart/mixed; BOUNDARY = "b{i}"\n\n--b{i}\n' for i in range(n))).encode()
            assert nested(raw) is (n > most) is old_more_than(raw, most)
        forwarded = b"Content-Type : Message/rfc822\n\n" * (most + 1)
        assert nested(forwarded) and old_more_than(forwarded, most)
