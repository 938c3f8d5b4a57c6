"""Removing copies of pbem's own mail from a reply (pure), before its orders are read.

pbem knows the text of the mails a reply names (`pbem.app.reading`): a copy of one inside the reply,
quoted or not, reflowed, flattened from HTML, under any client's header block in any language, is
never read as orders (the Outlook Polish and Japanese replies that re-applied an acknowledgement's
"orders now on file").  A copy is found by its words, not its layout: both texts become streams of
words (case, punctuation, quote marks and line breaks ignored).  Every run of `GRAM` words of the reply
that also occurs in a sent mail is matched to its places there; a chain of such runs at consecutive places
(the reply's words following each other exactly as in the sent mail) covering at least `RUN` words is a
copy.  Order lines copied one by one out of a report's list, even of a repetitive one, are short chains,
not a copy; a single order copied out of a report is kept.  Every line whose words all lie in a copy is
dropped, and with it the client's block of ``Label: value`` lines (From/Od/差出人 ...) just above it.
Cost: linear in both texts (at most `PLACES` places remembered per run of words).
"""

from __future__ import annotations

import re

GRAM = 6  # words in one matched run
RUN = 30  # words in a row, following each other as in a sent mail, that make a copy
PLACES = 512  # places of one word run in the sent mails remembered (repetitive lists), at most
HEADER_LINES = 10  # "Label: value" lines above a copy dropped with it, at most
_WORD = re.compile(r"\w+")
_LABEL = re.compile(r"^\s*[>|]*\s*\**[^\s:：][^:：]{0,30}\**\s*[:：]")


def _words(line: str) -> list[str]:
    return _WORD.findall(line.casefold())


def without_copies(text: str, sent: list[str]) -> str:
    """`text` without the lines that belong to a copy of one of the `sent` texts."""
    known: dict[int, list[int]] = {}  # a run of GRAM words -> where it starts in the sent mails' words
    offset = 0
    for t in sent:
        words = _words(t)
        for i in range(len(words) - GRAM + 1):
            places = known.setdefault(hash(tuple(words[i : i + GRAM])), [])
            if len(places) < PLACES:
                places.append(offset + i)
        offset += len(words) + GRAM  # no run spans two sent mails
    if not known:
        return text
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    stream: list[str] = []
    owner: list[int] = []  # the line each word of the stream comes from
    for n, line in enumerate(lines):
        ws = _words(line)
        stream += ws
        owner += [n] * len(ws)
    in_copy = [False] * len(stream)
    start, here = (
        0,
        set[int](),
    )  # the chain of runs now: where it started in the reply, where it may be in the sent mails
    for i in range(len(stream) - GRAM + 2):
        found = set(known.get(hash(tuple(stream[i : i + GRAM])), ())) if i <= len(stream) - GRAM else set()
        follows = {p + 1 for p in here} & found
        if follows:
            here = follows
            continue
        if here and (i - 1) + GRAM - start >= RUN:  # the chain ended: words start .. i-1+GRAM-1 are a copy
            for k in range(start, i - 1 + GRAM):
                in_copy[k] = True
        start, here = i, found
    drop = [False] * len(lines)
    has_words = [False] * len(lines)
    outside = [False] * len(lines)
    for k, n in enumerate(owner):
        has_words[n] = True
        if not in_copy[k]:
            outside[n] = True
    for n in range(len(lines)):
        drop[n] = has_words[n] and not outside[n]
    for n in range(len(lines)):
        if drop[n] and (n == 0 or not drop[n - 1]):
            _drop_header_block(lines, drop, n)
    return "\n".join(line for n, line in enumerate(lines) if not drop[n])


def _drop_header_block(lines: list[str], drop: list[bool], start: int) -> None:
    """Drop the client's "Label: value" block (and blank lines, rules) just above a copy starting at `start`."""
    n, seen = start - 1, 0
    block: list[int] = []
    while n >= 0 and seen < HEADER_LINES:
        line = lines[n]
        if not line.strip() or set(line.strip()) <= set("-_=*> "):
            block.append(n)
        elif _LABEL.match(line):
            block.append(n)
            seen += 1
            for b in block:
                drop[b] = True
            block = []
        else:
            break
        n -= 1
