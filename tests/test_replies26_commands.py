"""players26, item 1: a sentence that starts with a command word is a remark, the word alone is the command.

The README promises a command "alone on a line" (`HELP`, `STATUS`, `END`, ...): a line that only starts with the word
("Help yourself to snacks", "Status: all good here", "End of story", "Code is on the fridge", "Press on, friends")
was read as the command: HELP mailed the handbook, STATUS the report, END stopped the reading of the mail (orders
below it lost, untold), PRESS and CODE refused a line the player never meant as one.  A phone capitalises a line's
first word, so the word alone in any case ("Help", "status?", "Help please") is the command, and so is the word in
capitals before other words ("HELP me", "STATUS: where are we?"); the command's own form is read in any case ("press
to Bob: hi", "code: k7qx-2mpd", "end of my orders").  AWAY and BACK were read so already (`pbem.orders.away.meant`),
HISTORY, RESIGN and ADDRESS only as the whole line: their prose is in the corpus to keep it so.

`PROSE` holds prose lines starting with each command word, in English and in the other languages whose sentences
start with the same word (Dutch "Help je mee", German "Status quo", French "Report du match", "Code de la route");
`ALONE` the commands players send.  Each line is read with each game's order words, above an order of that game.
On 8080c21 85 of the 199 cases failed (every `PROSE` line of HELP, STATUS, REPORT, PRESS, END and CODE, in every
game; END's not in Habsburg, where END is an order), and both subjects; now none does.  Every case runs in the suite
(about 0.1 s).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pbem import engine as registry
from pbem.orders.extract import Extracted, extract

ORDER = {
    "habsburg": "NO EVENT",
    "italian-wars": "DISCARD NONE",
    "sixteen-thirty": "VOTE RED",
    "dynasties": "TRIBUTE Gold 4",
}

#: Prose lines starting with a command word: nothing asked, nothing told, the reading goes on below.
PROSE = {
    "HELP": (
        "Help yourself to snacks",
        "Help me understand the rules, someone?",
        "Help is on the way",
        "help wanted at the club on Friday",
        "Help! I'm drowning in cards",
        "Help je mee met de pizza?",  # Dutch
    ),
    "STATUS": (
        "Status: all good here",
        "Status quo it is",
        "status update: moving house next week",
        "Status quo bleibt",
    ),
    "REPORT": ("Report to follow", "Report cards came today", "Report du match à jeudi"),  # French: postponed
    "PRESS": ("Press on, friends", "Press the button twice if it sticks"),
    "END": ("End of story", "End the war now!", "end of discussion from me"),
    "CODE": ("Code is on the fridge", "Code review later today", "Code de la route oblige", "Code ist geheim"),
    "BACK": ("Back from holiday", "Back in five", "back to work tomorrow"),
    "AWAY": ("Away from my desk till Monday", "away we go"),
    "HISTORY": ("History will judge us", "history is written by winners"),
    "RESIGN": ("Resign from what?",),
}

#: A command as players send it alone, and what it asks.
ALONE = (
    ("Help", "help"),
    ("help", "help"),
    ("HELP", "help"),
    ("Help!", "help"),
    ("help?", "help"),
    ("Help please", "help"),
    ("Help, thanks", "help"),
    ("HELP me", "help"),
    ("Status", "status"),
    ("status?", "status"),
    ("STATUS", "status"),
    ("Status please", "status"),
    ("STATUS: where are we?", "status"),
    ("Report", "status"),
    ("report.", "status"),
    ("Code: K7QX-2MPD", "code"),
    ("code k7qx-2mpd", "code"),
    ("End", "end"),
    ("end of my orders", "end"),
    ("Back", "back"),
    ("back.", "back"),
)


@dataclass(frozen=True)
class Case:
    kind: str
    line: str
    meant: str  # "" for a remark, else what is asked: help, status, code, end, back

    @property
    def label(self) -> str:
        return f"{self.kind}: {self.line!r} ({self.meant or 'a remark'})"


def cases() -> list[Case]:
    """Every line with each game's order words; END's lines not in Habsburg, where END is an order (END TURN)."""
    out = [
        Case(kind, line, "") for kind in ORDER for word, lines in PROSE.items() for line in lines if _ours(kind, word)
    ]
    return out + [Case(kind, line, meant) for kind in ORDER for line, meant in ALONE if _ours(kind, meant.upper())]


def _ours(kind: str, word: str) -> bool:
    return word not in registry.get(kind).order_words


def _asked(ex: Extracted) -> set[str]:
    got = {name for name, on in (("help", ex.help), ("status", ex.status), ("code", ex.code)) if on}
    got |= {"back"} if ex.away is not None and ex.away.back else set()
    return got | ({"away"} if ex.away is not None and not ex.away.back else set())


def misread(case: Case) -> str:
    """Why `case` was not read as meant, or ""."""
    order = ORDER[case.kind]
    ex = extract(f"{case.line}\n{order}\n", "", tuple(registry.get(case.kind).order_words))
    want = {case.meant} - {"end", ""}
    orders = [] if case.meant == "end" else [order]
    if _asked(ex) != want or ex.orders != orders or ex.problems or ex.press:
        return f"{case.label}: asked {sorted(_asked(ex))}, orders {ex.orders}, told {ex.problems}"
    return ""


def test_a_sentence_starting_with_a_command_word_is_a_remark_and_the_word_alone_the_command() -> None:
    failures = [why for case in cases() if (why := misread(case))]
    assert not failures, f"{len(failures)} of {len(cases())} misread:\n" + "\n".join(failures)


@pytest.mark.parametrize("subject", ["Help with the rules", "Status of the war"])
def test_a_subject_starting_with_a_command_word_asks_nothing(subject: str) -> None:
    """The subject is read as a first line: a title starting with the word asks nothing; the word alone does."""
    words = tuple(registry.get("habsburg").order_words)
    assert not (ex := extract("NO EVENT\n", f"[pbem hh1] {subject}", words)).help and not ex.status
    ex = extract("", f"[pbem hh1] {subject.split()[0]}", words)
    assert ex.help or ex.status
