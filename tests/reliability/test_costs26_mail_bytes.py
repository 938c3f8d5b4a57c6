"""What a poll's reading of one mail holds, a byte of the mail at a time (costs26; `tests.reliability.mailbytes26`).

The generator's 12 shapes at 1 MiB, held to 12 bytes a byte (3 for a mail refused unread): 8 of 12 over on 4da2cbd6
(a body 13.0, encoded words 19.7, an 8-bit Subject holding the code 32.4, no Message-ID 18.2, an 8-bit body 15.4, one
long line 13.0, the forwarded and many-part mails refused unread 9.2 and 11.3; an ASCII Subject, a To, References
10.8 to 10.9, under the bound), 0 on costs26 (5.8 to 10.0; the refused 0.8 and 1.8).  At 256 KiB: 8 of 12 on
4da2cbd6, 0 on costs26 (5.3 to 9.6; 0.3 and 1.3); at 96 KiB 6 and 0.  The suite runs three shapes at 96 KiB, each over on
4da2cbd6 (30.7, 7.6, 17.8); `PBEM_COSTS26_FULL=1` runs all 12 at 1 MiB (some 60 s).  What held the bytes,
each fixed as a mechanism: the parser's `StringIO` (four bytes a character of the whole mail), a refused mail's
headers parsed with its whole body as their payload, `email.header.Header` folding a long header again as the
redacted copy is written, `str.lower` of a text that is not ASCII (14 bytes a character), `re.sub` over a whole
Subject to read its first 300 characters, `msg.get`'s `Header` of a Subject of 8-bit bytes, and the words' list of a
long header hashed for a mail with no Message-ID.  The new folding and hashing are held to what they replace.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.reliability import mailbytes26

FULL = bool(os.environ.get("PBEM_COSTS26_FULL"))
SAMPLE = (
    "a Subject in 8-bit UTF-8 with the code",
    "forwarded deep (refused at 64)",
    "a long Subject and no Message-ID",
)


@pytest.mark.parametrize("shape", list(mailbytes26.SHAPES) if FULL else list(SAMPLE))
def test_a_polls_reading_of_a_mail_holds_a_few_copies_of_it(shape: str) -> None:
    size = 1024 * 1024 if FULL else 96 * 1024
    n, peak, ratio = mailbytes26.held_per_byte(shape, size)
    assert ratio <= mailbytes26.bound(shape), f"{shape}: {n:,} bytes held {peak:,} at the peak ({ratio:.1f} a byte)"


def _value(rng: random.Random) -> str:
    pieces = ["word", "a", " ", "  ", "\t", "x" * 90, "=?utf-8?q?Caf=C3=A9?=", ";", ",", "\n ", "\r\n\t", "<id@x.test>"]
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 400)))


def test_a_long_header_folded_at_its_blanks_unfolds_to_itself_within_its_width() -> None:
    """`redact.folded_at_blanks` on 1,500 generated values (runs of blanks, tabs, words longer than a line, existing
    folds): unfolded (its line breaks taken out), the header as it was; a line longer than 78 characters only where no
    blank allows a fold; none begins with the header's name alone."""
    from pbem.mail.inbound.redact import folded_at_blanks

    rng = random.Random(26)
    for _ in range(1500):
        value = _value(rng)
        out = folded_at_blanks("Subject", value).decode("ascii")
        assert out.endswith("\n")
        assert out.replace("\n", "") == "Subject: " + "".join(value.splitlines()), repr(value)
        for i, line in enumerate(out[:-1].split("\n")):
            blank = line.rfind(" ", len("Subject: ") if i == 0 else 1)
            assert len(line) <= 78 or blank < 0 or blank > 78, (repr(value), line)


def test_a_mails_content_hash_is_the_same_hashed_a_word_at_a_time() -> None:
    """`fingerprint.content_hash` hashes a header's words one at a time (`_words_hashed`): the same digest as the
    words joined first, on 3,000 generated header blocks (folds, tabs, form feeds, names running on, trace headers)."""
    import hashlib

    from pbem.mail.inbound import fingerprint

    def joined(raw: bytes) -> str:  # 4da2cbd6's reading
        text = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        head, sep, body = text.partition(b"\n\n")
        if not sep and b":" not in text.split(b"\n", 1)[0]:
            head, body = b"", text
        fields: list[list[bytes]] = []
        for line in head.split(b"\n"):
            if line[:1] in (b" ", b"\t") and fields:
                fields[-1].append(line.strip())
            elif line:
                fields.append([line])
        h = hashlib.sha256()
        for lines in fields:
            name, _, value = b" ".join(lines).partition(b":")
            if fingerprint.is_trace(name.decode("latin-1")):
                continue
            h.update(name.strip().lower() + b":" + b" ".join(value.split()) + b"\n")
        h.update(b"\n" + body.rstrip())
        return h.hexdigest()

    pieces = [b"Subject", b"Received", b"X-Spam-Flag", b":", b" ", b"\t", b"\n", b"\r\n", b"\r", b"a", b"b c"]
    pieces += [b"\x0b", b"\x0c", b"\n ", b"\n\t", b"\n\n", b"body", b"\xe9", b"::"]
    rng = random.Random(26)
    for _ in range(3000):
        raw = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 40)))
        assert fingerprint.content_hash(raw) == joined(raw), raw
