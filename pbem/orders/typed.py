"""What people type around an order line (pure): list markers, emphasis, trailing punctuation, quotes.

`cleaned(line)` is the line an order or command is read from: without a list marker (``- ``, ``* ``,
``• ``, ``1. ``, ``2) ``, a bullet and a tab), an arrow (``→ ``, ``-> ``, ``=> ``: players mark the line they
chose from a report's list), or what the report itself prints before a line of its lists (``(default) ``,
``(on file) ``: a line copied out of it is read as the order it lists), without emphasis markers (Gmail's plain part writes bold
as ``*bold*``, some clients ``_this_``), without a full stop or other punctuation at the end
(``No event.``, ``PLACE NONE.``, ``PASS!``), and without quotes around the whole line or around the
code (``CODE "K7QX-2MPD"``).  A line is read as an order only if its cleaned form starts with an order
word; chatter keeps what the player wrote.  `unarmoured` undoes an inline PGP clearsigned message
(RFC 4880 section 7): the armour header and signature go, dash-escaped lines get their text back.
"""

from __future__ import annotations

import re

_MARKER = re.compile(
    r"^\s*(?:(?:[-*+•·‣◦▪●○■□–—]|\(?\d{1,2}[.)]|\(?[a-zA-Z][.)])[ \t\u00a0]+"
    r"|(?:[-=]{1,2}>|[→⇒⟶⟹➔➜➙➛➝➞➟➠➡▶▸►➢➤])[ \t\u00a0]*"  # an arrow, a space after it or not
    r"|\((?:default|on file)\)[ \t\u00a0]+)(?=\S)",  # what the report prints before a default or an order on file
    re.IGNORECASE,
)
_EMPHASIS_RUN = re.compile(r"[*_~]+")  # what `_unemphasised` takes off, read run by run
# "…": the one character phones type for "...".  A match starts only where a run does (tried from each of its
# characters, a run followed by a letter cost its square).
_TRAILING = re.compile(r"(?<![\s.,;:!。、！；…])[\s.,;:!。、！；…]+$")
_QUOTES = "\"'`“”„‘’‚«»「」『』"


def cleaned(line: str) -> str:
    """The order a player meant by `line` (see the module docstring); `line` itself if nothing is around it."""
    text = line.strip()
    text = _MARKER.sub("", text, count=1)
    text = _unemphasised(text).strip()
    if len(text) > 1 and text[0] in _QUOTES and text[-1] in _QUOTES and "\n" not in text:
        # in one pass what `^[quotes]+(.*?)[quotes]+$` took off: that pattern tried every split of a run of quote
        # marks for each character of it (4 s for 1,600 of them)
        text = text.strip(_QUOTES).strip()
    text = _TRAILING.sub("", text)
    return text


def _unemphasised(text: str) -> str:
    """`text` without the emphasis marks around its words ("*PASS*", "_no event_"), in one pass over each run of
    them: what `(?:(?<=\\s)|^)[*_~]+(?=\\S)|(?<=\\S)[*_~]+(?=\\s|$|[.,;:!])` took off, which tried a run that a
    letter follows once per character of it (0.26 s for 4,000 underscores, the square of the run).  A run is taken
    off when it opens a word (at the start or after white space: unless it stands alone, one mark between spaces)
    or when it closes one (after a word, before white space, the end or a punctuation mark)."""
    out: list[str] = []
    kept = 0
    for m in _EMPHASIS_RUN.finditer(text):
        start, end = m.span()
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        if not before or before.isspace():
            if (after and not after.isspace()) or end - start > 1:
                out.append(text[kept:start])
                kept = end
        elif not after or after.isspace() or after in ".,;:!":
            out.append(text[kept:start])
            kept = end
    out.append(text[kept:])
    return "".join(out)


def code_value(value: str) -> str:
    """The code as written after CODE, without the quotes or punctuation pasted around it."""
    return value.strip(_QUOTES + ".,;:!()[]<>")


_PGP_BEGIN = "-----BEGIN PGP SIGNED MESSAGE-----"
_PGP_SIG = "-----BEGIN PGP SIGNATURE-----"
_PGP_END = "-----END PGP SIGNATURE-----"


def unarmoured(text: str) -> str:
    """`text` with inline PGP clearsigned armour removed (unchanged if it has none)."""
    if _PGP_BEGIN not in text:
        return text
    out: list[str] = []
    state = "outside"
    for line in text.replace("\r\n", "\n").split("\n"):
        bare = line.strip()
        if state == "outside" and bare == _PGP_BEGIN:
            state = "header"
            continue
        if state == "header":
            if bare.lower().startswith("hash:") or not bare:
                state = "header" if bare else "signed"
                continue
            state = "signed"
        if state == "signed":
            if bare == _PGP_SIG:
                state = "signature"
                continue
            out.append(line[2:] if line.startswith("- ") else line)
            continue
        if state == "signature":
            if bare == _PGP_END:
                state = "outside"
            continue
        out.append(line)
    return "\n".join(out)


_PHONE = re.compile(r"\d[\d ()./-]{5,}\d")
_WEBBY = re.compile(r"@|https?://|www\.|\.com\b|\.org\b|\.net\b", re.IGNORECASE)


def prose(line: str) -> bool:
    """A line that starts with an order word but reads as a sentence: a company footer ("Call us on
    0800 123 456"), an address, a web link, a long sentence.  Refused by the engine, it is set aside as
    chatter instead of refusing the message (an order word counts only when what follows parses)."""
    words = line.split()
    return bool(_PHONE.search(line) or _WEBBY.search(line)) or len(words) > 12 or line.rstrip().endswith("?")
