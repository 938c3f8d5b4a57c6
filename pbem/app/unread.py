"""Words of an accepted order line that the engine read no part of (pure helpers of `pbem.app.refusals`).

`shortened`: the order understood is the line's first words only ("NO TRADE" of "NO TRADE TRADE WANT ANY").
`ignored`: the words after the order word changed nothing at all: Sixteen Thirty reads DECLINE and anything after
it as DECLINE ALL, so "Decline your time, there is no rush" was applied as DECLINE ALL.  Told by the engine itself:
the order word alone is understood the same (one more application, from the message's budget), so an alias the
engine resolves ("DISCARD LOWEST" read as the card it names) is never taken for words ignored.
"""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Engine, LineResult


def shortened(r: LineResult) -> bool:
    """An accepted line whose order, as the engine understood it, is only the line's first words ("NO TRADE" of
    "NO TRADE TRADE WANT ANY").  The engine's note after the order ("CONCLAVE TAKE HIGHEST (kept as your standing
    conclave choice)") is not part of it, and an order it wrote otherwise (an alias, a name completed) is whole."""
    said, line = bare_words(r.understood.split(" (", 1)[0]), bare_words(r.line)
    return (0 < len(said) < len(line) and line[: len(said)] == said) or _glued(said, line)


def _glued(said: list[str], line: list[str]) -> bool:
    """Whether the line's words are the order understood but for letters of another script run into its last word,
    which the engine did not read ("TRIBUTE Gold 4しません", "I will not tribute Gold 4", was applied as TRIBUTE Gold
    4: Dynasties' parser sees only ASCII letters and digits).  What Japanese, Chinese and Korean put after an order
    to say it is the player's choice is taken off before (`pbem.orders.typed._SAID_SO`)."""
    if not said or len(said) > len(line) or line[: len(said) - 1] != said[:-1]:
        return False
    word, last = line[len(said) - 1], said[-1]
    return word != last and word.startswith(last) and any(not c.isascii() and c.isalpha() for c in word[len(last) :])


def ignored(eng: Engine, state: dict[str, Any], player: str, r: LineResult, budget: list[int]) -> bool:
    """An accepted line none of whose words after its order word is (the start of) a word of the order understood,
    which the engine understands the same from its order word alone: the rest was read as nothing."""
    said, line = bare_words(r.understood.split(" (", 1)[0]), bare_words(r.line)
    if not (len(said) > 1 < len(line) and said[0] == line[0]) or budget[0] <= 0:
        return False
    if any(s.startswith(w) for w in line[1:] for s in said):  # a word of the line is in the order understood
        return False
    budget[0] -= 1
    alone = eng.apply(state, player, [r.line.split()[0]])
    return alone.accepted and len(alone.lines) == 1 and alone.lines[0].understood == r.understood


#: What may close a word of a line without being part of it: "DECLINE ALL; unless Bob offers more" and "DECLINE
#: ALL, ACCEPT Alice ..." were taken whole as DECLINE ALL (the word "ALL;" was not "ALL": the rest went unread).
CLOSERS = ".,;:!?/|"


def bare_words(text: str) -> list[str]:
    """The words of `text` upper case, without the punctuation that closes them; a word of punctuation only
    ("/", "!") is none."""
    return [w for w in (t.rstrip(CLOSERS) for t in text.upper().split()) if w]
