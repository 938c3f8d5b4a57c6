"""What a poll's reading of one mail holds at its peak, a byte of the mail at a time, over shapes of mail (costs26).

The sweep (`tests/reliability/sweep24.py`) read three mails whose cost in bytes rose past the poll's fixed part late:
a Subject of 200N words (6.2 MB at x256, 39 MB at x1024), a mail forwarded 1,280 deep (refused at 64: 0.08 then 2.4
MB of its own at x64 and x256) and one of 16N lines (0.9, 6.7 MB).  Each is the same class: a stage of the mail's
reading that holds several copies of the mail, or of one header, at once.  The stages a poll runs on each mail are
`message.parse` then `storage.scrub` (its bounded, redacted copy: the redaction re-serialises the mail and parses the
result again before it is trusted); `held` reads their peak bytes together, in a child of its own.

`SHAPES` makes a mail of about `size` bytes in one shape each: lines of a body, a Subject of words on one line or
folded as mail clients fold it, a Subject of encoded words, a Subject in 8-bit UTF-8 holding the sender's code, a To
of addresses, References of ids, a mail forwarded deep (refused at 64 levels), a mail of many parts (refused at
1,000), one long line, a long Subject with no Message-ID, an 8-bit body.  A shape fails when the stages hold more
than `BOUND` bytes a byte of the mail (`REFUSED_BOUND` for a mail refused unread; less `SLACK` for the modules' own).
At 1 MiB: on 4da2cbd6 8 of 12 shapes over (a Subject of encoded words 19.7 and in 8-bit UTF-8 32.4, `str.lower` of a
text that is not ASCII and `email.header.Header`'s folding of the redacted copy; a body, one long line 13.0, the
parser's `StringIO`, four bytes a character of the whole mail; no Message-ID 18.2; the forwarded and many-part mails,
refused, 9.2 and 11.3: their headers-only parse was given the whole mail); on costs26 0 of 12 (5.8 to 10.0, the
refused 0.8 and 1.8).  The command: `PYTHONPATH=CHECKOUT python3 -m tests.reliability.mailbytes26 [KiB]` (about 60 s
at 1,024 KiB on costs26, 130 s on 4da2cbd6).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

CODE = "ALIC-2222"
HEAD = "From: Alice <alice@players.test>\nTo: moderator@pbem.test\nMessage-ID: <m26@players.test>\n"
HEAD += "Date: Mon, 07 Dec 2026 10:00:00 +0000\nMIME-Version: 1.0\n"
PLAIN = 'Content-Type: text/plain; charset="utf-8"\nContent-Transfer-Encoding: 8bit\n'
BODY = f"\nCODE {CODE}\nSTATUS\n"
#: bytes a byte of the mail the stages may hold at their peak (the mail, its text, the parser's lines, the redacted
#: copy and its parse: linear, 5.8 to 10.0 on costs26 at 1 MiB, a text of 8-bit bytes held at 2 bytes a character),
#: a refused mail's (read for its headers only: the mail and its lowered copy, 2 at most), and what the modules hold
#: whatever the mail
BOUND = 12.0
REFUSED_BOUND = 3.0
SLACK = 192 * 1024
MAX_STORED = 4 * 1024 * 1024  # `max_stored_player`: what a registered player's mail is stored up to


def _words(size: int, word: str = "word") -> str:
    return " ".join(f"{word}{i}" for i in range(size // (len(word) + 5)))


def _folded(text: str, width: int = 76) -> str:
    out, line = [], ""
    for w in text.split(" "):
        if line and len(line) + 1 + len(w) > width:
            out.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    return "\n ".join([*out, line])


def body_lines(size: int) -> bytes:
    lines = "\n".join(f"a line of a long letter, number {i}, that says nothing pbem reads" for i in range(size // 64))
    return (HEAD + "Subject: [pbem hh1] orders\n" + PLAIN + BODY + "\n" + lines + "\n").encode()


def subject_line(size: int) -> bytes:
    return (HEAD + f"Subject: [pbem hh1] {_words(size)}\n" + PLAIN + BODY).encode()


def subject_folded(size: int) -> bytes:
    return (HEAD + f"Subject: {_folded('[pbem hh1] ' + _words(size))}\n" + PLAIN + BODY).encode()


def subject_encoded(size: int) -> bytes:
    words = " ".join(f"=?utf-8?q?Caf=C3=A9_{i}?=" for i in range(size // 22))
    return (HEAD + f"Subject: [pbem hh1] {_folded(words)}\n" + PLAIN + BODY).encode()


def subject_8bit_code(size: int) -> bytes:
    return (HEAD + f"Subject: [pbem hh1] code {CODE} {_folded(_words(size, 'café'))}\n" + PLAIN + BODY).encode()


def to_addresses(size: int) -> bytes:
    to = ", ".join(f"Player {i} <p{i}@players.test>" for i in range(size // 32))
    return (HEAD.replace("To: moderator@pbem.test", f"To: moderator@pbem.test, {_folded(to)}") + PLAIN + BODY).encode()


def references(size: int) -> bytes:
    refs = " ".join(f"<pbem.{i:012x}@pbem.test>" for i in range(size // 28))
    return (HEAD + f"Subject: Re: [pbem hh1] orders\nReferences: {_folded(refs)}\n" + PLAIN + BODY).encode()


def forwarded(size: int) -> bytes:
    inner = (HEAD + "Subject: [pbem hh1] orders\n" + PLAIN + BODY).encode()
    depth = size // 230
    opens = b"".join(
        (HEAD + f'Subject: Fwd\nContent-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n').encode()
        + b"Content-Type: message/rfc822\n\n"
        for i in range(depth)
    )
    return opens + inner + b"".join(b"\n--b%d--\n" % i for i in reversed(range(depth)))


def many_parts(size: int) -> bytes:
    parts = "".join(f"--p\nContent-Type: text/plain\n\npart {i}\n" for i in range(size // 40))
    return (
        HEAD + 'Subject: [pbem hh1] orders\nContent-Type: multipart/mixed; boundary="p"\n\n'
        f"--p\n{PLAIN}{BODY}" + parts + "--p--\n"
    ).encode()


def no_message_id(size: int) -> bytes:
    head = HEAD.replace("Message-ID: <m26@players.test>\n", "")
    return (head + f"Subject: {_folded('[pbem hh1] ' + _words(size))}\n" + PLAIN + BODY).encode()


def body_8bit(size: int) -> bytes:
    lines = "\n".join(f"une ligne d'une longue lettre, numéro {i}, où pbem ne lit rien" for i in range(size // 64))
    return (HEAD + "Subject: [pbem hh1] orders\n" + PLAIN + BODY + "\n" + lines + "\n").encode()


def one_line(size: int) -> bytes:
    return (HEAD + "Subject: [pbem hh1] orders\n" + PLAIN + BODY + "x" * size + "\n").encode()


SHAPES: dict[str, Callable[[int], bytes]] = {
    "a body of lines": body_lines,
    "a Subject of words on one line": subject_line,
    "a Subject of words, folded": subject_folded,
    "a Subject of encoded words": subject_encoded,
    "a Subject in 8-bit UTF-8 with the code": subject_8bit_code,
    "a To of addresses": to_addresses,
    "References of ids": references,
    "forwarded deep (refused at 64)": forwarded,
    "many parts (refused at 1,000)": many_parts,
    "a long Subject and no Message-ID": no_message_id,
    "a body in 8-bit UTF-8": body_8bit,
    "one long line": one_line,
}


def stages(raw: bytes) -> Callable[[], object]:
    """The run: what a poll does with one player's mail before its orders are read (parse, then the stored copy)."""
    from pbem.mail.inbound.message import parse
    from pbem.mail.inbound.storage import scrub

    def run() -> object:
        msg = parse(raw, "moderator@pbem.test")
        return len(scrub(msg, raw, None, MAX_STORED)[1])

    return run


def bound(shape: str) -> float:
    return REFUSED_BOUND if "refused" in shape else BOUND


def held_per_byte(shape: str, size: int) -> tuple[int, int, float]:
    """(the mail's bytes, the stages' peak bytes, bytes a byte over `SLACK`) for `shape` at about `size` bytes."""
    from tests.growth import held

    raw = SHAPES[shape](size)
    stages(raw)()  # (the modules it imports, imported before the count)
    peak = held(stages(raw))
    return len(raw), peak, max(0, peak - SLACK) / len(raw)


def main(argv: list[str]) -> int:
    size = int(argv[0]) * 1024 if argv else 256 * 1024
    over = 0
    for shape in SHAPES:
        n, peak, ratio = held_per_byte(shape, size)
        over += ratio > bound(shape)
        mark = "OVER " if ratio > bound(shape) else "     "
        print(f"{mark}{shape}: {n:,} bytes, {peak:,} held ({ratio:.1f} a byte, at most {bound(shape)})", flush=True)
    print(f"{over} of {len(SHAPES)} shapes over their bound")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
