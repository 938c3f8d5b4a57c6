"""The shape of a line that closes a mail rather than orders (pure): a closing or a footer under the orders.

A refused line after every order of a message that starts with an order word ("Take care," where TAKE is one,
"Keep calm and carry on", "Vote for us in the Club of the Year awards") is set aside as chatter when its shape is
a closing's or a footer's and it names nothing the game knows (`pbem.app.lines.closing`; `pbem.trust.sent.set_aside`
reads an export the same way):

* a short closing: `CLOSING_WORDS` words at most, no digit, its words after the order word in lower case, none a
  word of the game's of `KNOWN` letters or more ("Take care,", "Play nice!", "Drop me a line");
* a footer in lower case: no digit, its words after the order word in lower case, none a word of the game's of
  `KNOWN` letters or more, however long ("Offer valid while stocks last", "Done is better than perfect.");
* a footer sentence, capitals and digits allowed: `SENTENCE_WORDS` words or more and two of the `FUNCTION_WORDS`
  of a sentence ("the", "for", "at", "since" ...) that are no word of the game's, and none of its other words a
  word of the game's of two letters or more, numbers aside ("Join the conversation at the Boardgame Guild",
  "Trade fair 2027: visit us at stand 4", "Leader in board games since 1999").

A mistyped order keeps a word of the game ("VOTE for the Red side": RED), a capital or a digit in a short line
("PLAY Nice", "TRIBUTE Gold 77", "VOTE Green"), or a word one typo from the game's (the caller's `near` check): it is
refused with its reason, never set aside (`tests/test_replies28_footers.py` generates both in the same places).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pbem.engine.base import Engine

CLOSING_WORDS = 4  # words of a short closing line at most ("Drop me a line")
KNOWN = 4  # letters of a word the game knows that a closing in lower case may not hold ("of", "the" are in names)
SENTENCE_WORDS = 5  # words of a footer sentence with capitals or digits at least
LONGEST = 12  # words of any closing or footer line at most (longer: `pbem.orders.typed.prose` already)
#: Words of sentences, not of orders: two of them (no word of the game's) make a line with capitals a sentence.
FUNCTION_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "at",
        "in",
        "on",
        "for",
        "of",
        "to",
        "is",
        "are",
        "was",
        "be",
        "than",
        "since",
        "while",
        "with",
        "from",
        "by",
        "as",
        "into",
        "us",
        "our",
        "your",
        "my",
        "me",
        "we",
        "you",
        "it",
        "its",
        "this",
        "that",
    ]
)
_WORD = re.compile(r"[^\W_]+")


def closing_shape(line: str, known: set[str], vocabulary: frozenset[str] = frozenset()) -> bool:
    """Whether `line` (starting with an order word) has a closing's or a footer's shape and names no word of
    `known` (the game's words, in capitals) as above; a word of `vocabulary` (the game's order words, in capitals:
    Sixteen Thirty's "OFFER GIVE ... FOR ...") is no word of a sentence."""
    said = line.split()
    words = _WORD.findall(line)[1:]
    if not words or len(said) > LONGEST:
        return False
    lower = not any(ch.isdigit() for ch in line) and all(w == w.lower() for w in words)
    if lower:
        return not any(len(w) >= KNOWN and w.upper() in known for w in words)
    if len(said) < SENTENCE_WORDS:
        return False
    function = sentence_words(line, known | vocabulary)
    others = [w for w in words if w.lower() not in FUNCTION_WORDS and not w.isdigit()]
    return len(function) >= 2 and not any(len(w) >= 2 and w.upper() in known for w in others)


#: Words that mark a company's or an address's line: a company's form, a street (players30).
FOOTER_MARKS = frozenset(
    [
        "LTD",
        "INC",
        "GMBH",
        "BV",
        "CO",
        "CORP",
        "LLC",
        "LLP",
        "PLC",
        "AG",
        "SARL",
        "SRL",
        "SPA",
        "OY",
        "PTY",
        "LIMITED",
        "STREET",
        "ROAD",
        "AVENUE",
    ]
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def footer_marked(line: str, known: set[str]) -> bool:
    """Whether `line` (starting with an order word) is a company's or an address's line: a word of `FOOTER_MARKS` or a
    year after its order word ("Play Corp Ltd. 2027", "Pass Labs GmbH, Berlin", "Vote Smith 2026!", "Trade Centre, 4
    Market Street"), `LONGEST` words at most, and no other word of `known` (the game's words, in capitals) of two
    letters or more.  Under a command alone (`pbem.app.footers`) such a line is the footer, on its first appearance
    too: it was refused there, the mail with it, so the player's footers were never learnt (players29's
    `pbem.app.footprints` learns only from accepted mails)."""
    said = line.split()
    words = _WORD.findall(line)[1:]
    if not words or len(said) > LONGEST or as_syntax(line):
        return False
    if not (any(w.upper() in FOOTER_MARKS for w in words) or _YEAR.search(line) or addressed(line)):
        return False
    return not any(len(w) >= 2 and not w.isdigit() and w.upper() in known - FOOTER_MARKS for w in words)


#: An address's shape after its first word: a house number and a town after a comma ("Place Vendome 12, Paris"), a
#: postcode before a town ("Pass 12, 8000 Zurich", "10115 Berlin"), a street's abbreviation ("Hauptstr. 5", "1600
#: Amphitheatre Pkwy").  Such a line under a command alone was refused on its first appearance (players31).
_ADDRESS = re.compile(
    r"\d{1,5}[a-z]?+,\s*+(?:\d{4,5}\s++)?+[A-ZÀ-Þ][^\W\d_]{2,}|(?<!\d)\d{4,5}\s++[A-ZÀ-Þ][^\W\d_]{2,}"
    r"|(?i:str|strasse|straße|platz|weg|gasse|allee|\b(?:pkwy|blvd|ave|rd|st|ln|dr|rue|via|plaza|parkway))\b\.?\s*+\d",
)
_STREET_END = re.compile(r"\b(?:str|pkwy|blvd|ave|parkway|boulevard|lane|drive|strasse|straße|platz)\.?\s*+$", re.I)


def addressed(line: str) -> bool:
    """Whether `line`, after its first word, has an address's shape (`_ADDRESS`, or a street's name ending it)."""
    rest = line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
    return bool(_ADDRESS.search(rest) or _STREET_END.search(rest))


def as_syntax(line: str) -> bool:
    """Whether `line` starts with its order word in capitals, as the game's syntax writes it ("TRIBUTE Napoleon 2027",
    "PLACE Vendome 12, Paris"): typed as an order, it is the engine's to refuse and so told, never set aside as a
    company's or an address's line ("Tribute Band Tours 2027"), which writes its first word as a name (players31)."""
    first = line.split(None, 1)[0] if line.strip() else ""
    letters = [ch for ch in first if ch.isalpha()]
    return len(letters) >= 2 and all(ch.isupper() for ch in letters)


def shape(line: str) -> tuple[str, ...]:
    """`line`'s order word in capitals, then "n" for each number and "w" for each other word after it."""
    words = _WORD.findall(line)
    return (words[0].upper(), *("n" if w.isdigit() else "w" for w in words[1:])) if words else ()


def order_shaped(line: str, legal: tuple[str, ...] | list[str]) -> bool:
    """Whether `line` has the shape of one of the `legal` orders (`shape`: "tribute napoleon 2027" that of "TRIBUTE
    Copper 2") and no company's form: a mistyped order, the engine's to refuse and so told, never a footer set aside
    (players31)."""
    said = shape(line)
    if len(said) < 2 or any(w.upper() in FOOTER_MARKS for w in _WORD.findall(line)[1:]):
        return False  # "Event Horizon Ltd", "Discard Studios Inc.": a company's form is no card's
    return any(shape(o) == said for o in legal)


def sentence_words(line: str, excluded: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The `FUNCTION_WORDS` among the words of `line` after its order word, but those of `excluded` (in capitals)."""
    return {w.lower() for w in _WORD.findall(line)[1:] if w.lower() in FUNCTION_WORDS and w.upper() not in excluded}


_SYNTAX: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}  # by kind and order words (a join step's own)
_CAPITALS = re.compile(r"\b[A-Z]{3,}\b")


def syntax_words(eng: Engine) -> frozenset[str]:
    """The words of the game's order syntax, of three letters or more ("by", "on", "it" are words of closings too):
    its order words and the words its handbook writes in capitals (WANT, ANY, RED, LOWEST ...), read once a game."""
    key = (eng.kind, tuple(eng.order_words))
    if key not in _SYNTAX:
        words = {w.upper() for ow in eng.order_words for w in _WORD.findall(ow) if len(w) >= 3}
        _SYNTAX[key] = frozenset(words | set(_CAPITALS.findall(eng.handbook())))
    return _SYNTAX[key]


FOOTPRINT_LINES = 200  # lines of an earlier mail read for the player's footers, at most
FOOTPRINT_LONGEST = 200  # characters of such a line kept, at most


def footprint_key(line: str) -> str:
    """A line as `footer_keys` keeps it: casefolded, its spaces one."""
    return " ".join(line.casefold().split())


def footer_keys(mails: list[tuple[str, tuple[str, ...]]], read: Callable[[str], str]) -> frozenset[str]:
    """The lines the player wrote in earlier accepted mails (text, order lines applied from it) that none of its
    orders is (players29, `pbem.app.footprints`): each unquoted line, up to `FOOTPRINT_LINES` a mail, as `read`
    reads it as an order line (`pbem.orders.typed.cleaned`), keyed by `footprint_key`.  Pure; `pbem verify --sent`
    learns them from the player's Sent mails the same way."""
    out: set[str] = set()
    for text, applied in mails:
        done = {footprint_key(read(line) or line) for line in applied}
        for line in text.splitlines()[:FOOTPRINT_LINES]:
            said = line.strip()
            if not said or said.startswith(">") or len(said) > FOOTPRINT_LONGEST:
                continue
            if (k := footprint_key(read(said) or said)) not in done:
                out.add(k)
    return frozenset(out)
