"""Removing copies of pbem's own mail from a reply (pure), before its orders are read.

pbem knows the text of the mails a reply names (`pbem.app.reading`): a copy of one inside the reply,
quoted or not, reflowed, flattened from HTML, under any client's header block in any language, is
never read as orders (the Outlook Polish and Japanese replies that re-applied an acknowledgement's
"orders now on file").  A copy is found by its words, not its layout: both texts become streams of
words (case, punctuation, quote marks and line breaks ignored); every run of at least `GRAM` words of the
reply that also occurs in the sent mail is covered, and a stretch of covered words at least `RUN` long is
a copy.  Every line whose words all lie in a copy is dropped, and with it the client's block of
``Label: value`` lines (From/Od/差出人 ...) just above the copy.  A player's own line is never that long a
stretch of pbem's words, so what they typed stays (a single order copied out of a report is kept: it is
shorter than `RUN`).  Cost: linear in both texts (a set of hashed word runs).
"""

from __future__ import annotations

import re

GRAM = 6  # words in one matched run
RUN = 14  # covered words in a row that make a copy
HEADER_LINES = 10  # "Label: value" lines above a copy dropped with it, at most
_WORD = re.compile(r"\w+")
_LABEL = re.compile(r"^\s*[>|]*\s*\**[^\s:：][^:：]{0,30}\**\s*[:：]")


def _words(line: str) -> list[str]:
    return _WORD.findall(line.casefold())


def _grams(words: list[str]) -> set[int]:
    return {hash(tuple(words[i : i + GRAM])) for i in range(len(words) - GRAM + 1)}


def without_copies(text: str, sent: list[str]) -> str:
    """`text` without the lines that belong to a copy of one of the `sent` texts."""
    known: set[int] = set()
    for t in sent:
        known |= _grams(_words(t))
    if not known:
        return text
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    stream: list[str] = []
    owner: list[int] = []  # the line each word of the stream comes from
    for n, line in enumerate(lines):
        ws = _words(line)
        stream += ws
        owner += [n] * len(ws)
    covered = [False] * len(stream)
    for i in range(len(stream) - GRAM + 1):
        if hash(tuple(stream[i : i + GRAM])) in known:
            for j in range(i, i + GRAM):
                covered[j] = True
    in_copy = [False] * len(stream)
    i = 0
    while i < len(stream):
        if not covered[i]:
            i += 1
            continue
        j = i
        while j < len(stream) and covered[j]:
            j += 1
        if j - i >= RUN:
            for k in range(i, j):
                in_copy[k] = True
        i = j
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
