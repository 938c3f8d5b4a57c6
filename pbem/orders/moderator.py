"""The moderator's command mail (issue 28, moderating by mail): a mail body to command lines (pure).

The moderator's address may send the game commands of `pbem game ...` by mail, one per line
(case-insensitive; list markers, emphasis and end punctuation are taken off as for orders,
quoted text, attributions and signatures are dropped):

    CODE K7QX-2MPD                       the moderator code (`pbem init`, `pbem moderator code`)
    GAME hh1                             the game (or name it in the subject: [pbem hh1])
    EXTEND 2d                            pbem game extend hh1 2d
    PAUSE / RESUME / START / ABANDON     pbem game pause|resume|start|abandon hh1
    PROCESS                              pbem game process hh1 (the deadline now: only resigned seats asked)
    KEEP                                 pbem game keep hh1 (a silent game goes on: told again after as many)
    NEW CODE Alice                       pbem game code hh1 Alice
    REPLACE Carol WITH Dora <d@x.org>    pbem game replace hh1 Carol "Dora <d@x.org>"
    ADDRESS Alice alice@new.org          pbem game address hh1 Alice alice@new.org
    UNDO TO 17 WHY misread order         pbem game undo hh1 --to 17 --why "misread order"
    UNDO TO 17 REROLL WHY a misdeal      ... --reroll
    AWAY Alice UNTIL 2026-12-24          pbem game away hh1 Alice 2026-12-24 (or AWAY Alice 5, days)
    BACK Alice                           pbem game away hh1 Alice back
    RESEND Alice                         pbem game resend hh1 Alice
    SAY The deadline holds, play on      pbem game say hh1 "The deadline holds, play on"
    WAITING (or WAITING 24h)             pbem game waiting [--within 24h]: every game, no GAME needed

Any other line is chatter: set aside and listed, never a reason to refuse.  A line that starts
with a command word but cannot be read is a problem: quoted back with why and what is accepted.
What a command does is `pbem.app.moderating`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from pbem.orders.furniture import own_lines
from pbem.orders.typed import CODE_PATTERN, cleaned, code_value, front, unarmoured

MAX_COMMANDS = 20  # commands one mail may carry (the rest is refused: one mail, a bounded transaction)
MAX_LINE = 500  # a longer line is no command

SYNTAX: dict[str, str] = {
    "EXTEND": "EXTEND 2d (a number and a unit: 30m, 48h, 3d, 1w)",
    "PAUSE": "PAUSE",
    "RESUME": "RESUME",
    "START": "START",
    "ABANDON": "ABANDON",
    "PROCESS": "PROCESS",
    "KEEP": "KEEP",
    "NEW CODE": "NEW CODE <player>",
    "REPLACE": "REPLACE <player> WITH Name <address@example.org>",
    "ADDRESS": "ADDRESS <player> <new address@example.org>",
    "UNDO": "UNDO TO <input number> [REROLL] WHY <reason>",
    "AWAY": "AWAY <player> UNTIL 2026-12-24, or AWAY <player> <days>",
    "BACK": "BACK <player>",
    "RESEND": "RESEND <player>",
    "SAY": "SAY <a message to every player, at most 400 characters>",
    "MAIL": "MAIL watch, MAIL normal or MAIL digest",
    "WAITING": "WAITING [24h] (who every game waits for, as pbem game waiting [--within 24h])",
    "GAME": "GAME <name>",
    "CODE": "CODE <the moderator code>",
}
ACCEPTED = tuple(SYNTAX.values())

#: A moderator's message to every player (SAY, `pbem game say`): one paragraph of at most this many characters.
SAY_MAX = 400
_SAY_WORD = re.compile(r"(?i)\bsay\b:?+")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CODE_GIVEN = re.compile(r"(?i)\bcode\s*+[:=]?\s*+[^\s\d]*+\d")  # "code: 7kqx...", "CODE=K7QX"
_UNDO = re.compile(r"^undo\s+(?:to\s+)?(\d{1,9})\s*(reroll\s+)?(?:why|because|:)\s*(.+)$", re.IGNORECASE)
_UNDO_WORD = re.compile(r"(?i)\bundo\b")
_REPLACE = re.compile(r"^replace\s+(\S+)\s+(?:with|by)\s+(.+)$", re.IGNORECASE)
_ADDRESS = re.compile(r"^address\s++(\S++)\s++(?:to\s++)?<?+([^\s<>]++)>?$", re.IGNORECASE)
_AWAY = re.compile(r"^away\s+(\S+)\s+(?:(?:until|till|to)\s+)?(\S+(?:\s+days?)?)$", re.IGNORECASE)
_ONE_ARG = re.compile(r"^(\S+)$")
_MODES = ("watch", "normal", "digest")  # MAIL's: `pbem.app.notify.MODES`
_NUMBER_UNIT = re.compile(r"^\d{1,12}\s+[a-z]{1,7}$", re.IGNORECASE)
_SPAN = re.compile(r"^\d{1,12}\s?[a-z]{1,7}$", re.IGNORECASE)  # WAITING's span: 24h, 2 days


@dataclass(frozen=True)
class Command:
    """One command line: `word` (a key of SYNTAX), its arguments as written, and the line itself."""

    word: str
    line: str
    args: tuple[str, ...] = ()
    reroll: bool = False


@dataclass
class Read:
    """What a moderator's mail says: its code, the game it names, its commands, problems and chatter."""

    code: str | None = None
    game: str | None = None
    commands: list[Command] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (the line as written, why)
    chatter: list[str] = field(default_factory=list)


def say_text(typed: str) -> str:
    """A moderator's message as it is recorded and mailed: one paragraph, its runs of spaces and line breaks one
    space each."""
    return " ".join(typed.split())


def said(text: str) -> str:
    """The public event's text of a moderator's message `text` (as `say_text` made it); `pbem verify` checks it."""
    return f"The moderator says: {text}"


def moved(player: str) -> str:
    """The public event's text of a seat's mail moved to a new address (ADDRESS, `pbem game address`): it names no
    address, which a player's mail is not the others' to know; `pbem verify` checks it."""
    return f"{player}'s mail goes to a new address from now on."


def resigned(player: str) -> str:
    """The public event's text of a player's resignation (RESIGN by mail, confirmed with its word): what lets
    `pbem verify` check that a step processed now waited only for players who resigned (`processed`)."""
    return f"{player} resigned from the game."


#: Why a press that names players who resigned is not relayed to them ("Bob resigned: ..."): `pbem verify --mail`
#: checks each name against the resignations the record holds by then (`pbem.trust.pressed`).
PRESS_RESIGNED = "resigned: press to a player who resigned is not relayed"


def press_seat_now(old: str, now: str) -> str:
    """Why a press naming a player whose seat was given to another is not sent: who holds it now, and the line to
    write (the replacement was announced to every player).  `pbem verify --mail` checks it against the record's
    replacements by then (`pbem.trust.pressed`)."""
    return f"{old}'s seat is {now}'s now: write PRESS TO {now}"


def processed(players: list[str]) -> str:
    """The public event's text of a step's deadline moved to now (PROCESS, `pbem game process`): the players it still
    asked, every one of whom had resigned; `pbem verify` checks it."""
    return f"The moderator applied the deadline now: it waited only for {', '.join(players)}, who resigned."


def _code_shaped(text: str) -> bool:
    """Whether `text` holds a player code as it may be typed: 4-4 of the codes' characters, in capitals ("K7QX-2MPD")
    or holding a digit in any case ("k7qx-2mpd": only the capitals were caught).  A word pair in lower case without a
    digit ("self-help", "make-sure") is prose here; whether it is a code of the game's players (a code of letters only
    typed in lower case or mixed case, a tenth of codes) is told against their codes (`code_candidates`)."""
    return any(
        m.group().isupper() or any(c.isdigit() for c in m.group()) for m in CODE_PATTERN.finditer(text[: SAY_MAX + 1])
    )


#: A word a player code may be typed as, in any case: 4-4 of the codes' characters, or the 8 without the hyphen.
_CODE_WORD = re.compile(r"(?i)(?<![a-z0-9])(?:[a-hj-np-z2-9]{4}-[a-hj-np-z2-9]{4}|[a-hj-np-z2-9]{8})(?![a-z0-9])")
MAX_CANDIDATES = 24  # words of a message checked against the players' codes; a message with more is refused
#: Why a message holding more such words is refused (each costs a check of every player's code).
TOO_MANY_CANDIDATES = (
    f"the message holds more than {MAX_CANDIDATES} words a player's code could be typed as (8 letters or digits, "
    "or 4-4 with a hyphen), each checked against the players' codes; say it in two"
)


def code_candidates(text: str) -> list[str] | None:
    """The words of a moderator's message (as `say_text` made it) that a player's code may be typed as, in any case
    ("kqxm-abcd", "Kqxm-Abcd", "KQXMABCD"), to be checked against the game's codes (`pbem.app.say`): the shape alone
    cannot tell "kqxm-abcd" from "self-help".  None when it holds more than `MAX_CANDIDATES` (refused: each costs a
    check per player)."""
    found = [m.group() for m in _CODE_WORD.finditer(text[: SAY_MAX + 1])]
    return found if len(found) <= MAX_CANDIDATES else None


CODE_SHAPED = "the message holds something shaped like a player's code, which every player would read; leave it out"


def say_problem(text: str) -> str:
    """Why `text` (as `say_text` made it) cannot go to every player, or "": empty, longer than `SAY_MAX`, a
    control character (an escape sequence in a player's terminal), or something shaped like a player code (the
    message goes to everyone and stays in the record: a code in it would be everyone's)."""
    if not text:
        return "the message is empty: write what every player should read"
    if len(text) > SAY_MAX:
        return f"the message is {len(text)} characters long; at most {SAY_MAX}: shorten it, or say it in two"
    if (bad := _CONTROLS.search(text)) is not None:
        return f"the message holds the control character U+{ord(bad.group()):04X}; write it without"
    if _code_shaped(text) or ("code" in text.lower() and _CODE_GIVEN.search(text)):
        return CODE_SHAPED
    return ""


def _word(line: str) -> str | None:
    words = line.split()
    if not words:
        return None
    first = words[0].upper().rstrip(":")
    if first == "NEW" and len(words) > 1 and words[1].upper().rstrip(":") == "CODE":
        return "NEW CODE"
    if first == "NEWCODE":
        return "NEW CODE"
    return first if first in SYNTAX else None


def is_command(line: str) -> bool:
    """Whether `line` starts with a command word (`keep` for `pbem.orders.own_mail.without_copies`: a command
    right above a quoted mail, "UNDO TO 17: misread order", is never dropped as the client's header block)."""
    typed = line.strip()
    return _word((cleaned(typed) or typed).strip()) is not None


def read(text: str) -> Read:
    """Sort the moderator's lines into the code, the game, commands, problems and chatter."""
    out = Read()
    lines, _ = own_lines(unarmoured(text))
    for typed in lines:
        if not typed.strip():
            continue
        line = (cleaned(typed) or typed).strip()
        word = _word(line)
        if word is None or (len(line) > MAX_LINE and word != "SAY"):  # a SAY too long: refused, saying so
            out.chatter.append(typed)
            continue
        rest = line.split(None, 2 if word == "NEW CODE" else 1)[2 if word == "NEW CODE" else 1 :]
        arg = rest[0].strip() if rest else ""
        if (word == "WAITING" and arg and not _SPAN.match(arg)) or (word == "MAIL" and arg.lower() not in _MODES):
            out.chatter.append(typed)  # "Waiting for Bob's answer.", "Mail me the results": prose, not a command
            continue
        before = len(out.commands)
        problem = _take(out, word, line, arg, typed)
        if problem:
            out.problems.append((typed.strip(), problem))
        elif len(out.commands) > before:  # quoted back as typed ("EXTEND soon please"), read as cleaned
            out.commands[-1] = replace(out.commands[-1], line=typed.strip())
    if len(out.commands) > MAX_COMMANDS:
        out.problems.append((out.commands[MAX_COMMANDS].line, f"at most {MAX_COMMANDS} commands in one mail"))
        del out.commands[MAX_COMMANDS:]
    return out


def _reason(typed: str) -> str:
    """UNDO's reason as the moderator wrote it: every player reads it and the record keeps it, so what the order
    cleaner takes off an order's end (a remark in brackets, "please", a smiley, a tick " x", a number word read as
    digits) stays, as `pbem game undo --why` keeps it; only emphasis around the whole line (`*UNDO ... *`) goes."""
    start = _UNDO_WORD.search(typed)  # after a list marker or emphasis; the rest exactly as typed (no NFKC: "²")
    m = _UNDO.match(typed[start.start() :].strip()) if start is not None else None
    if m is None:
        return ""
    lead = typed.strip()[:1]
    why = m.group(3).strip()
    return why.rstrip(lead).strip() if lead in "*_~" and lead else why


def _take_heading(out: Read, word: str, arg: str, expected: str) -> str:
    """A CODE or GAME line: what the mail's commands need, not a command."""
    if word == "CODE":
        value = code_value(arg) if _ONE_ARG.match(arg) else None
        if not value:
            return expected
        out.code = value
        return ""
    if not _ONE_ARG.match(arg):
        return expected
    if out.game is not None and out.game.lower() != arg.lower():  # every command ran on the last one named
        return f"GAME {out.game} came first: one mail moderates one game; send a mail for each"
    out.game = arg
    return ""


def _take(out: Read, word: str, line: str, arg: str, typed: str = "") -> str:
    """Add `line` (a `word` line with argument text `arg`, `typed` as written) to `out`; returns why it cannot be
    read ("" if it can)."""
    expected = f"write {SYNTAX[word]}"
    if word in ("CODE", "GAME"):
        return _take_heading(out, word, arg, expected)
    if word == "SAY":  # the message as typed (the order cleaner's cuts are for orders), less emphasis round it
        start = _SAY_WORD.search(typed or line)
        text = (typed or line)[start.end() :] if start is not None else ""
        lead = (typed or line).strip()[:1]
        text = say_text(text.rstrip(lead) if lead and lead in "*_~" else text)
        if problem := say_problem(text):
            return f"{problem}; {expected}"
        out.commands.append(Command(word, line, (text,)))
        return ""
    if word == "WAITING":  # read alone or with a span (`read`): anything else after it is prose
        out.commands.append(Command(word, line, (arg,) if arg else ()))
        return ""
    if word in ("PAUSE", "RESUME", "START", "ABANDON", "PROCESS", "KEEP"):
        if arg:
            return f"{word} takes nothing after it; {expected}"
        out.commands.append(Command(word, line))
        return ""
    if word in ("EXTEND", "NEW CODE", "BACK", "RESEND", "MAIL"):
        if not (_ONE_ARG.match(arg) or (word == "EXTEND" and _NUMBER_UNIT.match(arg))):  # "EXTEND 2 days"
            return expected
        out.commands.append(Command(word, line, (arg,)))
        return ""
    if word == "UNDO":
        m = _UNDO.match(line)
        if not m:
            m = _UNDO.match(front(typed).strip())  # "WHY x": the cleaner took the reason for a tick
            if not m:
                return expected
        why = _reason(typed) or m.group(3).strip()
        out.commands.append(Command(word, line, (m.group(1), why), reroll=bool(m.group(2))))
        return ""
    if word in ("REPLACE", "ADDRESS"):
        m = (_REPLACE if word == "REPLACE" else _ADDRESS).match(line)
        if not m:
            return expected
        out.commands.append(Command(word, line, (m.group(1), m.group(2).strip())))
        return ""
    m = _AWAY.match(line)  # AWAY
    if not m:
        return expected
    out.commands.append(Command(word, line, (m.group(1), m.group(2))))
    return ""
