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
from collections.abc import Iterator

GRAM = 6  # words in one matched run
RUN = 30  # words in a row, following each other as in a sent mail, that make a copy
PLACES = 512  # places of one word run in the sent mails remembered (repetitive lists), at most
HEADER_LINES = 10  # "Label: value" lines above a copy dropped with it, at most
_WORD = re.compile(r"\w+")
_LABEL = re.compile(r"^\s*[>|]*\s*\**[^\s:：][^:：]{0,30}\**\s*[:：]")


def _words(line: str) -> list[str]:
    return _WORD.findall(line.casefold())


def _grams(words: list[str]) -> Iterator[tuple[str, ...]]:
    """Every run of `GRAM` words in a row, in order (built in C by zip: the loop below only looks them up)."""
    return zip(*(words[k:] for k in range(GRAM)))


def _places(sent: list[str]) -> dict[tuple[str, ...], set[int]]:
    """Each run of GRAM words of the sent mails -> where it starts in their words (at most PLACES places)."""
    known: dict[tuple[str, ...], set[int]] = {}
    offset = 0
    for t in sent:
        words = _words(t)
        for i, gram in enumerate(_grams(words)):
            places = known.get(gram)
            if places is None:
                known[gram] = {offset + i}
            elif len(places) < PLACES:
                places.add(offset + i)
        offset += len(words) + GRAM  # no run spans two sent mails
    return known


def without_copies(text: str, sent: list[str]) -> str:
    """`text` without the lines that belong to a copy of one of the `sent` texts."""
    known = _places(sent)
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
    nothing: set[int] = set()
    found_at = [known.get(gram, nothing) for gram in _grams(stream)]  # per reply word: its run's places
    found_at.append(nothing)  # one step past the last run: the chain open there ends
    start, here = 0, nothing  # the chain of runs now: where it started in the reply, where it may be in the mails
    for i, found in enumerate(found_at):
        if here and found:
            follows = {p + 1 for p in here if p + 1 in found}
            if follows:
                here = follows
                continue
        if here and (i - 1) + GRAM - start >= RUN:  # the chain ended: words start .. i-1+GRAM-1 are a copy
            in_copy[start : i - 1 + GRAM] = [True] * (i - 1 + GRAM - start)
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
