"""An order typed under the player's signature (pure): never read, told when it is an order mistyped.

Lines under a "-- " signature (`pbem.orders.extract.Extracted.signed`) or under a sign-off after the orders
("Thanks," / "Bob": `Extracted.signed_off`) are the signature's, never read: a motto, a company footer, a phone's
line.  One the engine takes alone now is told with the line to send (`signed_note`, players26).  A mistyped order
there ("TRIBUTE Gld 5", "TRIBUTE Gold 99", "EVENT CLAIM First Cusins TARGET Carol") was dropped silently: the
player was answered as if they had sent nothing, or only the orders above it (players29).  Now such a line is told,
quoted, with why it is no order (the engine's reason) and what would be accepted: the one legal order it is one typo
from (`pbem.orders.near.nearest`), else the legal orders of its order word.  Under a signature a line is the
signature's unless it says the game: one typo from a legal order, every word of it the game's syntax
(`closings.syntax_words`: "trade want any"), a word of the game's of three letters or
more in capitals after its order word ("TRADE WNAT ANY"), or naming a word the game knows now of four letters or
more, or one typo from one (`known.names_the_game`), without a closing's or a footer's shape (`pbem.orders.closings.closing_shape`).  So "Play Corp", "Play hard, play
fair", "Pass it on!", "Trade fair 2027: visit us at stand 4" and "DISCARD Napoleon" stay the signature's, unsaid,
where under the orders the last would be refused (`pbem.app.lines.closing`).  At most `TOLD` lines a message.
"""

from __future__ import annotations

import re
from typing import Any

from pbem.app.known import known, names_the_game
from pbem.app.unread import shortened
from pbem.engine.base import Engine, Outcome
from pbem.orders import near
from pbem.orders.closings import closing_shape, syntax_words
from pbem.orders.extract import Extracted, phrase_end, signed_note

TOLD = 8  # lines under a signature checked against the engine, per message
SHOWN = 5  # legal orders a note lists at most
_VOWELS = frozenset("AEIOUY")
SHORT = (3, 4)  # letters of a word read as a known word with a letter dropped ("Gld": GOLD), at least and at most
_WORD = re.compile(r"[^\W_]+")


def alone(eng: Engine, state: dict[str, Any], player: str, order: str, legal: dict[str, str]) -> str:
    """The legal line to send for `order` when the engine takes it alone now, as it understood it ("I pass" in
    Habsburg: NO EVENT), else ""."""
    taken = eng.apply(state, player, [order])
    if not taken.accepted or (taken.lines and shortened(taken.lines[0])):
        return ""
    said = taken.lines[0].understood.split(" (", 1)[0] if taken.lines else ""  # "pass" as NO EVENT
    return legal.get(order.upper()) or said or order


def told(eng: Engine, state: dict[str, Any], player: str, ex: Extracted, legal: dict[str, str]) -> list[str]:
    """The notes on the orders under the message's signature: the line to send for one the engine takes alone, and
    for a mistyped one (see the module docstring) why it is none and what would be."""
    under = [(typed, line, '"-- "') for typed, line in ex.signed]
    under += [(typed, line, f'"{ex.sign_off}"') for typed, line in ex.signed_off]
    out: list[str] = []
    for typed, order, above in under[:TOLD]:
        if send := alone(eng, state, player, order, legal):
            out.append(signed_note(typed, send, above))
        elif note := _mistyped(eng, state, player, (typed, order, above), legal):
            out.append(note)
    return out


def _mistyped(
    eng: Engine, state: dict[str, Any], player: str, line: tuple[str, str, str], legal: dict[str, str]
) -> str:
    """The note on a line under the signature the engine refuses, `line` (as typed, as read, the line above it)
    being an order mistyped; "" for the signature's own lines."""
    typed, order, above = line
    result = eng.apply(state, player, [order])
    refused = next((r for r in result.lines if not r.ok), None)
    if refused is None:
        return ""
    nearest = near.nearest(order, legal.values())  # one typo from a legal order: "TRIBUTE Gld 5"
    if not nearest and not says_the_game(eng, state, player, order, result):
        return ""  # a motto, a footer, a company's line ("Play Corp"): the signature's
    verb = order.split()[0].upper()
    mine = [line for line in legal.values() if line.split()[0].upper() == verb]  # whole orders of its word
    offered = mine or [line for line in refused.legal if line.split()[0].upper() == verb] or list(legal.values())
    said = f"send it above that line: {nearest}" if nearest else "what would be accepted: " + _listed(offered)
    return (
        f'"{typed}" was not read: it is under your signature (the {above} line above it), which pbem does not read, '
        f"and as written it is no order ({refused.reason.rstrip('.')}). If it is your order, {said}"
    )


def says_the_game(eng: Engine, state: dict[str, Any], player: str, order: str, result: Outcome) -> bool:
    """Whether a refused `order` under the signature says the game (see the module docstring), its words after its
    order word or phrase looked at ("NO EVENT is too small for us": "is too small for us")."""
    grammar = syntax_words(eng)  # "TRADE WANT ANY 77": a later step's syntax (the handbook's words in capitals)
    spoken = frozenset(w.upper() for ow in eng.order_words for w in ow.split())
    words = known(eng, state, player, result) - spoken  # "PLAY hard, play fair": an order word names nothing
    end = phrase_end(order, eng.order_words)
    probe = f"{order.split()[0]} {order[end:]}" if end else order
    capitals = any(
        len(w) >= 3 and w.isupper() and (w in words or w in grammar - spoken) for w in _WORD.findall(probe)[1:]
    )
    if capitals or all(w.upper() in grammar for w in _WORD.findall(order)):  # "TRADE WNAT ANY", "trade want any"
        return True
    if closing_shape(probe, words, spoken):
        return False
    return names_the_game(probe, words) or names_the_game(mended(probe, words), words)


def mended(line: str, words: set[str]) -> str:
    """`line` with each short word (`SHORT` letters) that is a word the game knows of one more letter, a vowel after
    its first letter dropped ("TRIBUTE Gld 4": GOLD), written as that word; `known.names_the_game` reads a typo only in a word of
    `known.NEAR` letters or more, so "Gld" named nothing and the line stayed the signature's, untold (players30)."""
    dropped: dict[str, str] = {}
    for k in words:
        if SHORT[0] < len(k) <= SHORT[1] + 1 and k.isalpha():
            for i in range(1, len(k)):
                if k[i] in _VOWELS:  # "Gld", "Pter": not "old" for GOLD, "ore" for CORE (words of their own)
                    dropped.setdefault(k[:i] + k[i + 1 :], k)
    if not dropped:
        return line
    said = line.split()
    return " ".join(dropped.get(w.upper(), w) if SHORT[0] <= len(w) <= SHORT[1] else w for w in said)


def _listed(lines: list[str]) -> str:
    shown = ", ".join(lines[:SHOWN])
    return shown + (f" ... and {len(lines) - SHOWN} more (send HELP for the full list)" if len(lines) > SHOWN else "")
