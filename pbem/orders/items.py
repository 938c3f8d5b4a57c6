"""What may follow a short dash as the next item of a list in an order (pure).

A short dash may part the items of a list ("EVENT CLAIM Emperor TARGET Bob - Carol"), so words after " - " are not
a remark by their place alone, as after a long dash.  But words that start no item of any order the player is
offered now ("VOTE RED - see you", "TRIBUTE Silver 7 - go team", "DISCARD Culverins - hope that works") cannot be
one: `pbem.app.refusals` refuses such a line with the order before the dash alone offered, not with the engine's
reason for a card named "team" or a player named "Carol - go team".  The order grammar decides, per game and per
moment: the words of the player's requested legal lines and syntax (and of what the refusal offers), past each
line's first word.  Built lazily once per refused line that has a short dash; linear in the lines offered.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterable
from typing import Any

from pbem.engine.base import Engine

_AROUND = ".,;:!?()[]<>\"'\u201c\u201d\u2018\u2019"  # punctuation around a word, never part of an item's word


class Items:
    """The words an item of `player`'s orders now may start with (the module docstring)."""

    def __init__(self, eng: Engine, state: dict[str, Any], player: str, offered: Iterable[str] = ()) -> None:
        self._args = (eng, state, player, tuple(offered))
        self._built = False
        self.starts: set[str] = set()
        self.pairs: set[tuple[str, str]] = set()
        self.ends: set[str] = set()

    def _build(self) -> None:
        eng, state, player, offered = self._args
        lines = list(offered)
        for q in eng.requests(state):
            if q.player == player:
                lines += [*q.legal, *q.syntax]
        for line in lines:
            words = words_of(line)[1:]  # past the order word
            self.starts.update(words)
            self.pairs.update(itertools.pairwise(words))
            self.ends.update(words[-1:])
        self.starts.update(words_of(" ".join(offered)))  # a name offered alone ("Silver Coronation") is an item
        self._built = True

    def may_start(self, rest: str) -> bool:
        """Whether `rest` (what follows a short dash) starts with words an item may start with: its first word is
        an item's word, and its second follows that word in some offered line (or the first may end one)."""
        words = words_of(rest)[:2]
        if not words:
            return True
        if not self._built:
            self._build()
        first = words[0]
        return first in self.starts and (len(words) == 1 or first in self.ends or tuple(words) in self.pairs)


def words_of(text: str) -> list[str]:
    """The words of `text` as items are compared: without the punctuation around them, case and accents ignored."""
    out = []
    for w in text.split():
        w = w.strip(_AROUND)
        if w:
            bare = unicodedata.normalize("NFKD", w.casefold())
            out.append("".join(c for c in bare if not unicodedata.combining(c)))
    return out
