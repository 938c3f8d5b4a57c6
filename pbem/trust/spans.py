"""Blocks of an HTML part read as `re.compile(r"OPEN(.{0,MOST}?)CLOSE|...", re.S)` reads them, in time linear in the
text (costs28).

Searched, such a pattern scanned from every opening tag to its closing one: a part of a run of `<p>` with no `</p>`
cost the square of the run (`acked._PARAGRAPH`, `joined._BLOCK`: 0.05 s at 2,000 and 0.81 s at 8,000 tags, and
`pbem verify --mail` reads an acknowledgement's HTML from a folder the moderator mailed into, up to 32 MiB a mail).
Here each kind's next closing tag is looked for once, and kept while the openings before it are read: the same
blocks, the leftmost first, each ending at the first closing tag within MOST characters of its opening.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    opening: re.Pattern[str]
    closing: str
    most: int


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    kind: int
    inside: str


def blocks(text: str, kinds: tuple[Kind, ...]) -> Iterator[Block]:
    """Each block of `text`, as `finditer` of the pattern the kinds make (their alternation, in order) finds them."""
    pos = 0
    opened: list[re.Match[str] | None] = [None] * len(kinds)
    closed = [-1] * len(kinds)  # the next closing tag of each kind at or after its opening (len(text) + 1: none)
    gone = [False] * len(kinds)  # no opening of the kind after some place: none later (each searched for once)
    while True:
        for k, kind in enumerate(kinds):
            m = opened[k]
            if not gone[k] and (m is None or m.start() < pos):
                opened[k] = kind.opening.search(text, pos)
                gone[k] = opened[k] is None
        found = sorted((m.start(), k) for k, m in enumerate(opened) if m is not None)
        if not found:
            return
        start = found[0][0]
        block = next((b for at, k in found if at == start and (b := _closed(text, kinds, k, opened, closed))), None)
        if block is not None:
            yield block
        pos = block.end if block is not None else start + 1


def _closed(
    text: str, kinds: tuple[Kind, ...], k: int, opened: list[re.Match[str] | None], closed: list[int]
) -> Block | None:
    """The block kind `k`'s opening (`opened[k]`) starts, or None where its closing tag is not within its MOST."""
    m = opened[k]
    assert m is not None
    if closed[k] < m.end():
        at = text.find(kinds[k].closing, m.end())
        closed[k] = at if at >= 0 else len(text) + 1
    if closed[k] <= len(text) and closed[k] - m.end() <= kinds[k].most:
        return Block(m.start(), closed[k] + len(kinds[k].closing), k, text[m.end() : closed[k]])
    return None


def without(text: str, kinds: tuple[Kind, ...]) -> str:
    """`text` without its blocks (`sub("", text)` of the pattern the kinds make)."""
    out, at = [], 0
    for b in blocks(text, kinds):
        out.append(text[at : b.start])
        at = b.end
    out.append(text[at:])
    return "".join(out)
