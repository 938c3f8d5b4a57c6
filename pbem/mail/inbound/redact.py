"""Player codes out of everything pbem keeps or echoes (pure; issue 12, "codes are never stored").

A code can hide anywhere in a mail: an RFC 2047 subject, a base64 or
quoted-printable body, an HTML part (split by tags or entities), quoted
text, a signature, an attachment, a multipart preamble.  `redact_message`
parses the message, removes every code from every header (decoded) and
every part (after transfer decoding), and re-serialises the result; it then
reads its own output back the same way and, if any code survived anywhere,
falls back to the headers alone with a note.  It never returns the original
bytes with a string replaced.

Codes are matched as pbem checks them (`codes.normal`): any case, with or
without separators between the characters, as a whole token.  The codes
removed are the one the orders carried plus every `CODE x` line and subject
`code x` the message holds (quoted or not), so a message refused before its
orders were read is redacted too.

Cost (issue 26): linear in the message with a small constant.  The codes are
folded into one trie-shaped pattern (each character is tried once per
position, whatever the number of codes), a code is at most `MAX_CODE`
characters (longer tokens cannot be a code pbem checks), and a message
stating more than `MAX_CODES` distinct codes is over its budget: the caller
refuses it and keeps only its headers (`over_budget`).  No pattern here
backtracks over more than one line.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import itertools
import re
import string
import unicodedata
from collections.abc import Iterable, Iterator
from email import policy
from email.header import Header
from email.message import Message
from functools import cache, lru_cache

from pbem.mail.inbound.message import MAX_PARTS, FieldTooLong, html_to_text, parse_bytes, too_many_parts
from pbem.mail.inbound.words import decoded
from pbem.orders.charsets import as_utf8, decodable
from pbem.orders.typed import LOOKALIKES

REPLACEMENT = "[code]"
MIN_CODE = 4  # shorter "codes" (a stray `CODE x` line) are not worth matching everywhere
MAX_CODE = 24  # pbem's codes have 8 characters; a longer token is no code pbem could accept
MAX_CODES = 16  # distinct codes one message may state before it is over its budget
# Horizontal space only before the word: `\s*` at a line start would retry every following blank line (quadratic).
# Possessive space runs: two runs with an optional ":" between them were split every way (the square of a run).
_CODE_LINE = re.compile(r"^[ \t>|]*+code[ \t]*+[:=]?[ \t]*+(\S+)[ \t]*+\r?$", re.IGNORECASE | re.MULTILINE)
_SUBJECT_CODE = re.compile(r"\bcode[ \t]*+[:=]?[ \t]*+([A-Za-z0-9-]{4,64})\b", re.IGNORECASE)
#: The blocks that hold every character NFKC makes one ASCII letter or digit (998 in Unicode 14: full-width letters,
#: mathematical letters, circled and parenthesised ones, super- and subscripts, letter-like symbols, the Kelvin sign).
_FOLDING_BLOCKS = (
    (0x80, 0x300),
    (0x1D00, 0x1DC0),
    (0x2000, 0x2500),
    (0x2C00, 0x2C80),
    (0xA700, 0xA800),
    (0xFF00, 0xFFF0),
    (0x10700, 0x107C0),
    (0x1D400, 0x1D800),
    (0x1F100, 0x1F200),
    (0x1FBF0, 0x1FC00),
)


@cache
def _variants() -> dict[str, str]:
    """Each upper-case ASCII letter and digit with every other character the poll reads as it (`typed._normalised`:
    NFKC, then a Cyrillic or Greek look-alike as the Latin letter).  A code typed in full-width letters (a Japanese or
    Chinese keyboard), in Cyrillic look-alikes or as mathematical letters was read and checked by the poll, but the
    redaction looked for ASCII only and stored it as typed (explore35)."""
    out = {ch: ch + ch.lower() for ch in string.ascii_uppercase + string.digits}
    for lo, hi in _FOLDING_BLOCKS:
        for c in range(lo, hi):
            n = unicodedata.normalize("NFKC", chr(c))
            if len(n) == 1 and n.isascii() and n.isalnum():
                out[n.upper()] += chr(c)
    for src, dst in LOOKALIKES.items():  # (`str.maketrans`: code points to code points)
        out[chr(int(dst)).upper()] += chr(src)
    return out


def _class(ch: str) -> str:
    """A pattern for one character of a code: the character in any case or any form the poll reads as it."""
    return f"(?-i:[{re.escape(_variants()[ch])}])"


@cache
def _sep() -> str:
    """What may stand between two characters of a code: up to 3 characters that are none of them (case-blind class:
    compiled without the costly case folding; no character of a code may be read as a separator too, so that each
    split of a text is tried once)."""
    every = "".join(_variants().values())
    return f"(?-i:[^{re.escape(every)}\n]){{0,3}}"


def _folded(code: str) -> str:
    """`code` as the poll reads it (NFKC, look-alikes as Latin letters): a `CODE` line's value in full-width letters."""
    return code if code.isascii() else unicodedata.normalize("NFKC", code).translate(LOOKALIKES)


_NOT_CODE_CHAR = re.compile(r"[^A-Z0-9]")


def _normal(code: str) -> str:
    return _NOT_CODE_CHAR.sub("", _folded(code).upper())


def normals(codes: Iterable[str]) -> set[str]:
    """The codes as pbem checks them, without those too short or too long to be matched."""
    return {n for n in (_normal(c) for c in codes if c) if MIN_CODE <= len(n) <= MAX_CODE}


def over_budget(codes: Iterable[str]) -> bool:
    """True if a message states more distinct codes than one redaction may look for (see the docstring)."""
    seen: set[str] = set()
    for c in codes:  # stops at the first code over the budget: a mail of 40,000 CODE lines is over after 17
        n = _normal(c) if c else ""
        if MIN_CODE <= len(n) <= MAX_CODE:
            seen.add(n)
            if len(seen) > MAX_CODES:
                return True
    return False


def _trie(words: list[str]) -> str:
    """One pattern for `words` (distinct, non-empty, upper-case alphanumerics) sharing their prefixes, a
    separator allowed between any two characters: at each position every character is tried once."""
    heads: dict[str, list[str]] = {}
    for w in words:
        heads.setdefault(w[0], []).append(w[1:])
    alts = []
    for ch in sorted(heads):
        longer = [r for r in heads[ch] if r]
        tail = ""
        if longer:  # a code ending here (an empty rest) makes what follows optional, separator included
            tail = f"{_sep()}{_trie(longer)}"
            tail = tail if len(longer) == len(heads[ch]) else f"(?:{tail})?"
        alts.append(_class(ch) + tail)
    return alts[0] if len(alts) == 1 else f"(?:{'|'.join(alts)})"


def code_pattern(codes: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern for every code, any case, any separators between its characters, as a whole token.
    Of more than `MAX_CODES` codes only the first `MAX_CODES` (sorted) are looked for: see `over_budget`."""
    found = sorted(normals(codes))[:MAX_CODES]
    return _pattern(tuple(found)) if found else None


@lru_cache(maxsize=256)
def _pattern(found: tuple[str, ...]) -> re.Pattern[str]:
    """Built once per set of codes: one message asks for the same pattern for each text it redacts."""
    return re.compile(rf"(?<![A-Za-z0-9])(?:{_trie(list(found))})(?![A-Za-z0-9])", re.IGNORECASE)


def redact_text(text: str, codes: Iterable[str]) -> str:
    pat = code_pattern(codes)
    return pat.sub(REPLACEMENT, text) if pat else text


def codes_in_text(text: str) -> set[str]:
    """Every value of a `CODE x` line (quoted or not) and of a `code x` in a subject-like text; in a text that is not
    ASCII, also as the poll reads its lines that hold the word (`_folded`: a `CODE` line typed in full-width letters)."""
    found = _codes_in(text)
    if not text.isascii():
        for line in _lines_with_code(text):
            found |= _codes_in(_folded(line))
    return found


@cache
def _code_word() -> re.Pattern[str]:
    return re.compile("".join(_class(ch) for ch in "CODE"))


def _lines_with_code(text: str) -> Iterator[str]:
    """Each line of `text` that holds the word "code" in any form the poll reads as it and is not ASCII, once."""
    end = -1
    for m in _code_word().finditer(text):
        if m.start() < end:
            continue  # (in a line already given)
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        line = text[start:end]
        if not line.isascii():
            yield line


def _codes_in(text: str) -> set[str]:
    at = _words_code(text)
    first = next(at, None)
    if first is None:  # both patterns need the word (no other character folds to c, o, d or e)
        return set()
    found = {m.group(1) for m in _CODE_LINE.finditer(text)}
    # in running text only what looks like a code (a digit or a dash in it): "your code keeps them out" names none
    found |= {m.group(1) for m in _running(text, itertools.chain((first,), at)) if re.search(r"[0-9-]", m.group(1))}
    return {c.strip("[]<>()\"'.,;") for c in found}


_CODE_WORD = re.compile("code", re.IGNORECASE)


def _words_code(text: str) -> Iterator[int]:
    """Where the word "code" starts in `text`, in any case: found in `text.lower()` where the text is ASCII, else by a
    case-blind search of the text itself.  `str.lower` of a text that is not ASCII holds 3 characters of 4 bytes for
    each of it while it lowers it (one may lower to three): 14 bytes a character, the peak of a poll's reading of a long
    8-bit or encoded Subject (8.4 MB for a text of 598,000 characters; costs26)."""
    if text.isascii():
        low = text.lower()
        at = low.find("code")
        while at >= 0:
            yield at
            at = low.find("code", at + 1)
    else:
        yield from (m.start() for m in _CODE_WORD.finditer(text))


def _running(text: str, starts: Iterator[int] | None = None) -> Iterable[re.Match[str]]:
    """`_SUBJECT_CODE.finditer(text)`, tried only where the word starts (`starts`, else `_words_code(text)`): the
    pattern tried case-blind at every character was most of the cost of a reply's redaction (a quoted report of 4 KB:
    62 us of the 93), where the word stands in a few places."""
    end = 0
    for at in _words_code(text) if starts is None else starts:
        m = _SUBJECT_CODE.match(text, at) if at >= end else None  # matches never overlap, as finditer's
        if m is not None:
            end = m.end()
            yield m


def _header_text(value: object) -> str:
    """A header as a reader sees it: its encoded words decoded (linear in the header: `pbem.mail.inbound.words`;
    a word in a charset that fails stays as written)."""
    return decoded(str(value).encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


def _part_text(part: Message) -> str:
    """A leaf part's content after transfer decoding, as text (its charset, else Latin-1: every byte kept)."""
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        payload = None
    if not isinstance(payload, bytes):
        payload = str(part.get_payload()).encode("utf-8", "surrogateescape")
    try:
        if (read := as_utf8(payload, part.get_content_charset())) is not None:
            return read  # as the poll reads it (`charsets.text_of`: UTF-8 under a label that says otherwise)
        charset = decodable(part.get_content_charset() or "utf-8")  # (punycode's: the square of the text)
        return payload.decode(charset, "strict")
    except Exception:  # unknown, failing or wrong charset
        return payload.decode("latin-1")


def _texts(msg: Message) -> Iterable[str]:
    """Everything a reader (or a search) could see in `msg`: headers, parts, preambles, raw payloads."""
    for part in msg.walk():
        for name, value in part.raw_items():
            yield f"{name}: {_header_text(value)}"
            yield str(value)
        for extra in (part.preamble, part.epilogue):
            if extra:
                yield extra
        if not part.is_multipart():
            text = _part_text(part)
            yield text
            if part.get_content_type() == "text/html":
                yield html_to_text(text)
                yield html.unescape(text)


def _joined(msg: Message) -> str:
    """All of `_texts(msg)` in one string, one text per line run: no pattern here matches across a line break, so
    one search of the whole finds what a search of each text would (at a fraction of the calls)."""
    return "\n".join(_texts(msg))


def codes_in_message(raw: bytes) -> set[str]:
    """Every code the message states, anywhere in it."""
    try:
        return codes_in_text(_joined(parse_bytes(raw)))
    except FieldTooLong:  # not read part by part: its lines as they stand
        return codes_in_text(raw.decode("latin-1"))
    except Exception:  # an unparseable message states no code we can find
        return set()


def _redact_headers(part: Message, pat: re.Pattern[str]) -> None:
    items = part._headers  # type: ignore[attr-defined]  # ordered (name, value) pairs: rewriting keeps order and duplicates
    for i, (name, value) in enumerate(items):
        text = _header_text(value)
        if pat.search(text) or pat.search(str(value)):
            new = pat.sub(REPLACEMENT, text)
            items[i] = (name, new if new.isascii() else _eight_bit(name, new))


def _eight_bit(name: str, new: str) -> str:
    """A redacted header that is not ASCII, as the generator writes it: in encoded words (`Header`), or, longer than
    `LONG_HEADER`, as UTF-8 itself (RFC 6532; the generator writes a value of escaped bytes as they are): `Header`
    held some 30 bytes a byte of a long 8-bit Subject that stated a code (costs26)."""
    if len(new) > LONG_HEADER:
        return new.encode("utf-8", "surrogatepass").decode("ascii", "surrogateescape")
    return Header(new, "utf-8", header_name=name).encode()


def _redact_leaf(part: Message, pat: re.Pattern[str]) -> None:
    text = _part_text(part)
    if part.get_content_type() == "text/html":
        seen = html_to_text(text)
        if pat.search(seen) or pat.search(html.unescape(text)):  # a code split by tags or entities: keep the words
            text = "<pre>" + html.escape(pat.sub(REPLACEMENT, seen)) + "</pre>"
    elif pat.search(text):
        text = pat.sub(REPLACEMENT, text)
    else:
        return
    del part["Content-Transfer-Encoding"]
    part.set_payload(text, "utf-8")


#: characters of a header's value past which `_Compat32` folds it at its blanks itself (RFC 5322's line: no client
#: writes a longer header on one line, and one that long was folded before it came)
LONG_HEADER = 998


def folded_at_blanks(name: str, value: str, linesep: str = "\n", width: int = 78) -> bytes:
    """`name: value` folded as `policy.compat32` folds an ASCII value, each of its lines (`str.splitlines`, as
    `email.header.Header` splits it) at the last blank that keeps it within `width` characters (at the first blank
    past it, where a word is longer), the blank beginning the next line: unfolded, the value as it was.  One pass
    that holds the lines and their join (about 3 bytes a character): `Header` held some 9.4 bytes a character of a
    long Subject at its peak, 19 MB for one of 2.1 MB (`held`; costs26)."""
    out: list[str] = []
    least = len(name) + 2  # (the first line's first blank is the one after the name's colon: never a fold)
    for line in f"{name}: {value}".splitlines():
        start = 0
        while len(line) - start > width:
            cut = line.rfind(" ", start + least, start + width + 1)
            if cut < 0:
                cut = line.find(" ", max(start + width + 1, start + least))
                if cut < 0:
                    break
            out.append(line[start:cut])
            start, least = cut, 1
        out.append(line[start:])
        least = 1
    return (linesep.join(out) + linesep).encode("ascii", "surrogateescape")


class _Compat32(policy.Compat32):
    """`policy.compat32`, with a header that fits one line as it stands written as it is (perf30), and a long ASCII
    one folded at its blanks in one pass (`folded_at_blanks`, costs26).

    The generator folds every header of a redacted mail again through `email.header.Header` (some 10 us each, a
    third of a code mail's redaction); for a value of printable ASCII (no tab, no line break) with no blank at either
    end, whose line fits 78 characters, that gives the value itself (tests/test_perf30.py holds the two equal on
    generated headers).  Every other header is folded by compat32 as before."""

    def fold_binary(self, name: str, value: str) -> bytes:
        if isinstance(value, str) and len(value) > LONG_HEADER and value.isascii():
            return folded_at_blanks(name, value, self.linesep, self.max_line_length or LONG_HEADER)
        if (
            isinstance(value, str)
            and self.max_line_length is not None
            and len(name) + 2 + len(value) <= self.max_line_length
            and value.isascii()
            and value.isprintable()
            and value[:1] != " "
            and value[-1:] != " "
        ):
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)


_COMPAT32 = _Compat32()


def _serialise(msg: Message, pat: re.Pattern[str]) -> bytes:
    for part in msg.walk():
        _redact_headers(part, pat)
        if part.preamble:
            part.preamble = pat.sub(REPLACEMENT, part.preamble)
        if part.epilogue:
            part.epilogue = pat.sub(REPLACEMENT, part.epilogue)
        if not part.is_multipart():
            _redact_leaf(part, pat)
    return msg.as_bytes(policy=_COMPAT32)


def _holds_code(raw: bytes, pat: re.Pattern[str]) -> bool:
    if pat.search(raw.decode("latin-1")):
        return True
    return pat.search(_joined(parse_bytes(raw))) is not None


_NOTHING = re.compile(r"(?!)")  # matches nowhere: a message stating no code has none to take out
_IDENTITY = frozenset(("from", "to", "cc", "date", "message-id", "in-reply-to", "references", "return-path"))
OVER_BUDGET = "the body states more than {n} different codes and is not kept"


def _headers_only(raw: bytes, pat: re.Pattern[str], over: bool = False, why: str = "") -> bytes:
    """The last resort: the redacted headers and a note (the body could not be redacted and read back clean).
    `over`: the message states more codes than `pat` holds, or cannot be read part by part (`why`): only the
    headers that say who sent it are kept."""
    head = raw.split(b"\n\n", 1)[0].split(b"\r\n\r\n", 1)[0]
    lines = []
    for line in head.decode("latin-1").splitlines():
        if ":" in line and not line[:1].isspace():
            name, _, value = line.partition(":")
            if name.strip().lower() in ("content-type", "content-transfer-encoding"):
                continue
            if over and name.strip().lower() not in _IDENTITY:
                continue
            lines.append(f"{name}:{pat.sub(REPLACEMENT, _header_text(value))}")
    why = why or (
        OVER_BUDGET.format(n=MAX_CODES)
        if over
        else "the body held a player code and could not be redacted part by part; it is not kept"
    )
    note = f"[pbem: {why}. SHA-256 of the original: {hashlib.sha256(raw).hexdigest()}]"
    out = "\n".join(ln for ln in lines if not pat.search(ln)) + "\nContent-Type: text/plain; charset=utf-8\n\n"
    return (out + note + "\n").encode("utf-8", "replace")


def redact_message(raw: bytes, codes: Iterable[str] = (), discover: bool = True) -> bytes:
    """`raw` with every code (given, or stated in the message unless `discover` is off) removed everywhere,
    re-serialised.  A message that states no code and is given none is returned as it is: nothing to remove.
    """
    return find_and_redact(raw, codes, discover)[1]


def find_and_redact(
    raw: bytes, codes: Iterable[str] = (), discover: bool = True, parsed: Message | None = None
) -> tuple[set[str], bytes]:
    """(the codes removed, `raw` without them): `redact_message`, parsing the message once for both the
    search and the rewrite (the poll stores every message this way).  The result is still parsed again
    and searched before it is trusted.  `parsed`: `raw` already parsed whole with `policy.compat32`
    (`message.parse` keeps it), used instead of parsing it again, and rewritten here."""
    found = set(codes)
    msg: Message | None = parsed
    if msg is None and too_many_parts(raw):  # not parsed: each part costs the same however small (`MAX_PARTS`)
        found |= codes_in_text(raw.decode("latin-1")) if discover else set()
        why = f"the message has more than {MAX_PARTS} parts; only the headers that say who sent it are kept"
        return found, _headers_only(raw, code_pattern(found) or _NOTHING, over=True, why=why)
    if msg is None:
        try:
            msg = parse_bytes(raw)
        except FieldTooLong as exc:  # not read part by part: its lines searched as they stand, only who sent it kept
            found |= codes_in_text(raw.decode("latin-1")) if discover else set()
            why = f"the message could not be read ({exc}); only the headers that say who sent it are kept"
            return found, _headers_only(raw, code_pattern(found) or _NOTHING, over=True, why=why)
        except Exception:  # unparseable: no code found in it, and the given ones go below
            msg = None
    if discover and msg is not None:
        with contextlib.suppress(Exception):  # as codes_in_message: a structure we cannot read states no code
            found |= codes_in_text(_joined(msg))
    pat = code_pattern(found)
    if pat is None:
        return found, raw
    if over_budget(found):  # more codes than one pattern looks for: the body is not kept (see `over_budget`)
        return found, _headers_only(raw, pat, over=True)
    return found, _redacted(raw, msg, pat)


def _let_go(msg: Message) -> None:
    """`msg`'s headers and payloads dropped, once written out: the parse is the redaction's to rewrite (`parsed`,
    `message.ParsedOnce`), and its callers still hold it while the copy is parsed again to be checked; the tree and
    the copy's parse were two parses of the mail held at once (costs26)."""
    for part in list(msg.walk()):
        part._headers = []  # type: ignore[attr-defined]
        part._payload = None  # type: ignore[attr-defined]
        part.preamble = part.epilogue = None


def _redacted(raw: bytes, msg: Message | None, pat: re.Pattern[str]) -> bytes:
    try:
        if msg is None:
            raise ValueError("unparseable")
        out = _serialise(msg, pat)
        _let_go(msg)
        if not _holds_code(out, pat):
            return out
    except Exception:  # a structure the generator cannot write back: fall back below
        pass
    return _headers_only(raw, pat)
