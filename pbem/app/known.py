"""The words the game knows now (pure), by which a refused line is told a mistyped order rather than a remark.

Shared by `pbem.app.lines` (prose and closings set aside, or refused as orders mistyped) and `pbem.app.signed` (a
line under the player's signature told, or left the signature's).
"""

from __future__ import annotations

import re
from typing import Any

from pbem.engine.base import Engine, Outcome
from pbem.orders.closings import KNOWN

NEAR = 5  # letters of a word that counts as a typo of a game's word one typo away ("frnce"; not "care" for "Carl")
_WORD = re.compile(r"[^\W_]+")


def known(eng: Engine, state: dict[str, Any], player: str, result: Outcome) -> set[str]:
    """The words the game knows now, upper case: of the legal orders and names offered for any line of the
    message, and of the player's requests."""
    known: set[str] = set()
    for r in result.lines:
        for text in (*r.legal, *r.names):
            known.update(w.upper() for w in _WORD.findall(text))
    for req in eng.requests(state):
        if req.player == player:
            for text in req.legal:
                known.update(w.upper() for w in _WORD.findall(text))
    return known


def names_the_game(line: str, known: set[str]) -> bool:
    """Whether a line's words after its order word name a word of the game's of `KNOWN` letters or more, or are
    one typo from one."""
    typed = [w.upper() for w in _WORD.findall(line)[1:]]
    return any(len(w) >= KNOWN and w in known for w in typed) or near_any(typed, known)


def near_any(words: list[str], known: set[str]) -> bool:
    """Whether a word of `NEAR` letters or more is one typo from a word the game knows of as many letters:
    a letter dropped, added, changed or two swapped (each word with one letter deleted, both sides)."""
    keys: set[str] = set()
    for k in known:
        if len(k) >= NEAR:
            keys.add(k)
            keys.update(_deletions(k))
    return any(len(w) >= NEAR and (w in keys or not keys.isdisjoint(_deletions(w))) for w in words)


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}
