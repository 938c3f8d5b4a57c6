"""A closing the engine read by a name's prefix (pure): "keep care" under the orders is no order.

Every game matches a name by a unique prefix (`pbem.engine.names`), so a closing that starts with an order word and
whose next word begins a name was applied as an order: Italian Wars read "Keep care" (KEEP is its LEADER) and "pref
care" as LEADER-PREF Careful Soldier, under the player's real orders (players32's leftover, misapplied).  A prefix is
the player's shorthand only where the line is shaped as an order; a line at the end of the message (after every other
order, or alone) is read as a closing instead, and told, when it is shaped as one:

* its order word is not written in capitals (`KEEP care` is typed as an order: the engine's to read);
* its words after the order word are in lower case, at most `WORDS` of them, with no digit and none of the signs of
  an order's syntax (`,;>+&:/#`);
* one of them only begins a word of what the engine read ("care" of Careful Soldier), so the line named nothing of
  the game's whole: a word of the name typed whole ("keep careful", "pref great") is an order, as before, and so is a
  word the engine reads for another ("discard nothing" for DISCARD NONE);
* and one of its words is a word of sign-offs and chat (`SIGN_OFF`: "care", "well", "safe", "nice", "me", "it",
  "ciao", ...).  A line of the order word and the first letters of a name only ("play plat", "discard vigo capt",
  "event person hein") is the player's shorthand, read as the engine reads it (players33 told it: the player had to
  write again); a word shared with a closing keeps it told ("keep care" for Careful Soldier).

The line is set aside with the closings (`pbem.app.lines.without_prose`) and told with the order it would have been
(`note`); alone in the message it is refused with that reason, the order to send quoted.
"""

from __future__ import annotations

import re
from typing import Any

from pbem.engine.base import Engine, LineResult, Outcome
from pbem.engine.names import norm

WORDS = 3  # words after the order word of such a closing at most ("take it easy", "keep care")
#: Words of sign-offs and chat after an order word ("Take care", "Keep well", "Play nice", "Drop me a line", "keep care
#: e a presto", "Pass auf dich auf"), in English and the players' languages, and the small words of a sentence: a
#: line holding one is a closing when its other words only begin a name (above).
_SIGN_OFF_WORDS = (
    "care well safe cool nice fair warm easy smiling touch faith line regards luck soon calm strong up going healthy "
    "dry posted it me my you your yourself us a an the of on in to and for at so all mate friend friends amigo amiga "
    "cara caro cari bene bien buena bueno gut goed bem boa dobrze ciao bis bald tschüss tschuss groetjes presto "
    "saluti abrazos abrazo bises bisous pozdrawiam hälsningar görüşürüz пока auf dich deg selv på und e y et cuidate "
    "cuídate attention prends soin vorsicht"
)
SIGN_OFF = frozenset(_SIGN_OFF_WORDS.split())
_SYNTAX = frozenset(",;>+&:/#")
_WORD = re.compile(r"[^\W_]+")


def _order_word(line: str, order_words: tuple[str, ...]) -> str:
    """The order word (or phrase) `line` starts with, as typed, or ""."""
    said = " ".join(line.split())
    upper = said.upper().replace("_", "-")
    starts = [w for w in order_words if upper == w.upper() or upper.startswith(w.upper() + " ")]
    return said[: len(max(starts, key=len))] if starts else ""


def shaped(line: str, understood: str, order_words: tuple[str, ...]) -> bool:
    """Whether `line`, which the engine read as `understood`, is shaped as a closing read by a prefix (above)."""
    word = _order_word(line, order_words)
    letters = [ch for ch in word if ch.isalpha()]
    if not word or not understood or (len(letters) >= 2 and all(ch.isupper() for ch in letters)):
        return False
    rest = " ".join(line.split())[len(word) :].strip().rstrip(".!")
    typed = _WORD.findall(rest)
    if not typed or len(typed) > WORDS or any(ch.isdigit() or ch in _SYNTAX for ch in rest):
        return False
    if any(w != w.lower() for w in typed) or not any(w.casefold() in SIGN_OFF for w in typed):
        return False
    whole = {norm(w) for w in _WORD.findall(understood)}
    return any(norm(w) not in whole and any(u.startswith(norm(w)) for u in whole) for w in typed)


def trailing(eng: Engine, orders: list[str], result: Outcome) -> list[str]:
    """The lines at the end of `orders` (accepted: `result`) that are closings read by a prefix (`shaped`)."""
    if not result.accepted or len(result.lines) != len(orders):
        return []
    out: list[str] = []
    for line, r in zip(reversed(orders), reversed(result.lines)):
        if not shaped(line, r.understood, tuple(eng.order_words)):
            break
        out.append(line)
    return out[::-1]


def reason(understood: str) -> str:
    """Why such a closing was not read (it would have been `understood`), and the line to send for that order."""
    return (
        f"it is in lower case and its words only begin a name of the game, so it was read as a closing remark, not "
        f"as {understood}; if you meant that order, send it as: {understood}"
    )


def note(line: str, understood: str) -> str:
    """The acknowledgement's note on a closing set aside (`trailing`) under orders that were read."""
    return f'"{line}" was not read as an order: {reason(understood)}'


def refused(state: dict[str, Any], lines: list[str], result: Outcome) -> Outcome:
    """The outcome of a message whose every order line is such a closing: each refused with its `reason`."""
    said = [LineResult(r.line, False, reason(r.understood), (r.understood,)) for r in result.lines]
    return Outcome(state, [], said)


def read_alone(eng: Engine, state: dict[str, Any], player: str, line: str) -> str:
    """What the engine reads `line` as, alone, when it is such a closing; else "" (for `pbem.app.asides`)."""
    alone = eng.apply(state, player, [line])
    if not alone.accepted or len(alone.lines) != 1:
        return ""
    understood = alone.lines[0].understood
    return understood if shaped(line, understood, tuple(eng.order_words)) else ""
