"""Turning an email into order lines (pure): orders, control commands and chatter.

The mail furniture (quotes, attributions, Outlook header blocks, forwarded
markers, client signatures, the ``-- `` signature) is dropped first by
`pbem.orders.furniture`.  Each remaining line, case-insensitive, is then:

* a control command, split off here:
  ``HELP`` (the handbook and the sender's legal orders now),
  ``STATUS`` / ``REPORT`` (re-send the sender's current report),
  ``CODE <code>`` (the player's secret code; it may also be in the subject),
  ``PRESS TO <player|ALL>`` ... ``END PRESS``, or ``PRESS TO <player|ALL>: <text>`` on one line
  (a message relayed to others),
  ``END`` alone (stop reading: what follows is not read),
  ``AWAY UNTIL <date>`` / ``AWAY <days>`` / ``BACK`` (a player's absence, `pbem.orders.away`),
  ``HISTORY`` / ``HISTORY <turn>`` (the game's history as the sender may know it, `pbem.app.histories`),
  ``RESIGN`` / ``RESIGN <word>`` (leaving the game, confirmed by the word its answer gives, `pbem.app.resigning`),
  ``ADDRESS <new address>`` / ``ADDRESS CONFIRM <word>`` (the seat's mail to a new address, `pbem.app.addresses`);
  a line starting with HISTORY, RESIGN or ADDRESS in any other way is a remark ("Resign from what?");
* an order, if it starts with one of the game's order words
  (`Engine.order_words`, aliases included): it goes to the engine, which
  accepts or refuses the whole message; one asked as a question (``NO EVENT?``)
  too, refused as one (`pbem.app.refusals.questioned`);
* an order said with a label: ``My order: NO EVENT``, ``Orders - PASS``, ``My vote is red`` (VOTE red), or the
  step's (``Step 1: PASS``, ``1st: PASS``, ``Step 1️⃣: PASS``, ``Turn 3: TRIBUTE Gold 4``), read as that order
  (`labelled_order`), or a label or a greeting of the player's own ("Orders for this turn - pass", and before an order
  word in capitals "Also: PASS", "Hallo zusammen, PASS": `pbem.orders.openers`); a label naming someone ("Bob:
  PASS") is told how to write it; a
  label naming a step of the game (turn, hand, gambit, round, year) is read only where the mail
  answered names that step so ("Turn 3: PASS" answering the turn-5 report is set aside and told: `off_step`); an
  order in brackets not in capitals (``(Pass)``, maybe a remark) is told how to write it (`_bracketed`); a short sentence that seems to be one ("I vote red", "Hi, vote red") is chatter in
  every game, never read (the deadline's and `pbem verify`'s readings have no game state to tell it from a remark:
  "I vote red next time?"), and the answer shows the line to send when the engine takes it now (`sentence`,
  `pbem.app.lines.seeming_told`: "I take it you are away" is a remark); so is an order typed in capitals inside a
  paragraph a phone did not wrap ("... in the end I will go with NO EVENT, because ...": `in_prose`);
* ``WATCH``, ``NORMAL`` or ``DIGEST`` alone on a line: how much mail the player
  gets from now on (`Extracted.mode`, `pbem.app.notify`);
* below a sign-off line that follows an order or a command ("Best regards,", "Cheers!", "Mit freundlichen Grüßen":
  `sign_off`),
  the signature: no line there is an order ("Play Corp Ltd.", "Keep calm and carry on"), though a command still is;
* chatter otherwise (greetings, sign-offs, a name, remarks): set aside in
  `Extracted.chatter`, listed to the player as "not read as orders", and
  never a reason to refuse.

``#`` starts a comment (not a list's hash number, "#1 PASS", nor a number sign, "Copper #4").  The Subject after the ``[pbem NAME]`` tag, without
``Re:``/``Fwd:``/``AW:``/``SV:`` prefixes, is read like a first line when it
is a command (``[pbem hh1] HELP``), or an order and the body holds none
(``[pbem hh1] NO EVENT code K7QX-2MPD``); otherwise it is only a title.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from pbem.orders import elsewhere
from pbem.orders.away import Away, meant, read_away
from pbem.orders.furniture import own_lines, sign_off
from pbem.orders.openers import (
    NEXT_STEP,
    OPENED_COMMANDS,
    THIS_STEP,
    connective,
    greeted,
    in_capitals,
    labelled_by_other,
    later_step_note,
    opened,
    opened_command_note,
    opened_rests,
)
from pbem.orders.typed import NUMBER_WORDS, chosen, cleaned, code_value, front, inside_brackets, said_not, unarmoured

# Possessive runs of white space: between optional characters, each split of a run was tried (the cube of it).
_CODE = re.compile(r"^code\s*+[:=]?\s*+[\"'`“”‘’«»]?\s*+(\S+?)\s*+[\"'`“”‘’«»]?\s*+$", re.IGNORECASE)
_PRESS = re.compile(r"press\s+to\s", re.IGNORECASE)  # the rest of the line: `_press_to`
_SUBJECT_CODE = re.compile(r"\bcode\s*+[:=]?\s*+([A-Za-z0-9-]{4,64})\b", re.IGNORECASE)
_GAME_TAG = re.compile(r"\[pbem\s++[^\][]*+\]", re.IGNORECASE)  # ("[pbem [pbem ...": a "[" ends the tag, linear)
_REPLY_PREFIX = re.compile(
    r"^(?:\s*+(?:re|fwd?|aw|wg|sv|vs|vb|tr|rv|r|antw|ref|odp|res|enc)\s*+(?:\[\d+\]|\(\d+\))?\s*+:)+\s*+",
    re.IGNORECASE,
)  # possessive runs of spaces: split between the two around an optional counter, they cost the square of a run
_TOKEN = re.compile(r"[^\W_]+(?:[-_][^\W_]+)*")  # a word as an order word is written (NO-EVENT, INCREASE_ARMY)
#: Characters a line shows nothing of (Unicode's format characters, category Cf, that are not a sign of their own):
#: zero-width spaces and joiners, the word joiner, the soft hyphen, the bidirectional marks, embeddings and isolates
#: a phone set to a right-to-left language puts around what is typed ("\u200eNO EVENT\u200e" was no order), the
#: byte order mark.  Taken out of every line read (a non-breaking space is a space).
INVISIBLE = (
    "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f"
    + "".join(chr(c) for r in ((0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F)) for c in range(r[0], r[1] + 1))
    + "\ufeff"
)
_INVISIBLE = str.maketrans({"\xa0": " ", **dict.fromkeys(INVISIBLE)})
CONTROL_WORDS = ("CODE", "HELP", "STATUS", "REPORT", "PRESS", "END", "AWAY", "BACK", "HISTORY", "RESIGN", "ADDRESS")
_HISTORY = re.compile(
    r"history(?:\s++of)?(?:\s++(?:the\s++)?(?:turn|hand|gambit|step|round))?(?:\s*+#?(\d{1,4}))?", re.I
)
_RESIGN = re.compile(r"resign(?:\s++(?:confirm\s++)?(\d{6}))?", re.I)
_ADDRESS = re.compile(r"address:?+\s++(?:confirm:?+\s++(\d{6})|(?:to\s++)?<?+([^\s<>@]++@[^\s<>]++)>?)", re.I)
MODE_WORDS = ("WATCH", "NORMAL", "DIGEST")  # alone on a line: how much mail the player gets (`pbem.app.notify`)


@dataclass
class Press:
    to: list[str]
    body: list[str]


@dataclass
class Extracted:
    orders: list[str] = field(default_factory=list)
    help: bool = False
    status: bool = False
    code: str | None = None
    press: list[Press] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    chatter: list[str] = field(default_factory=list)  # lines set aside: "not read as orders"
    mode: str | None = None  # WATCH, NORMAL or DIGEST alone on a line: "watch", "normal", "digest"
    furniture: list[str] = field(default_factory=list)  # attributions and client signatures dropped
    away: Away | None = None  # the last AWAY or BACK line that could be read
    lost_code: bool = False  # LOST CODE alone on a line, or as the subject after the game's tag
    typed: list[str] = field(default_factory=list)  # orders[k] as typed (its punctuation kept)
    order_at: list[int] = field(default_factory=list)  # orders[k]'s line's place in the message
    order_end: list[int] = field(default_factory=list)  # its last line's place (a wrapped order's, `_wrapped`)
    placed: list[int] = field(default_factory=list)  # chatter[k]'s line's place in the message
    seeming: list[tuple[str, str]] = field(default_factory=list)  # (line, the order it seems to be): `sentence`
    # each press block read, by its names (folded) and lines: one typed again is sent once (`_pressed`)
    press_keys: set[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=set, repr=False, compare=False)
    signed: list[tuple[str, str]] = field(default_factory=list)  # (line, its order) under a "-- " above the quote
    signed_off: list[tuple[str, str]] = field(default_factory=list)  # (line, its order) under a sign-off: `sign_off`
    sign_off: str = ""  # the sign-off after the orders ("Thanks,") the lines below which are the signature
    # an order word alone in the subject of a mail whose body holds orders ("Re: [pbem g1] PASS"): a title, or an
    # order the engine takes alone, then told (`pbem.app.lines.seeming_told`, players31)
    subject_word: str = ""
    # lines the player wrote in earlier accepted mails of the game and that none of them applied (`pbem.app.footprints`):
    # casefolded, spaces as one; a refused line after the orders among them is the player's footer
    footers: frozenset[str] = frozenset()
    history: str | None = None  # HISTORY alone: "", HISTORY 3 (of turn 3): "3"
    resign: str | None = None  # RESIGN alone: "", RESIGN 482193 (the word its answer gave): "482193"
    address: str | None = None  # ADDRESS new@example.org (an @ in it: "Address: Berlin" is a remark): the new address
    address_confirm: str | None = None  # ADDRESS CONFIRM 482193: the word mailed to that address

    def aside(self, orders: list[str]) -> list[str]:
        """The chatter with `orders` (lines of `self.orders` set aside after all, `pbem.app.lines`) among it in
        the order the message has them, each as typed ("Take care," with its comma)."""
        if not orders:
            return list(self.chatter)
        left = list(orders)
        out = list(zip(self.placed, self.chatter, strict=False))
        for k, line in enumerate(self.orders):
            if line in left:
                left.remove(line)
                known = k < len(self.typed) and k < len(self.order_at)
                out.append((self.order_at[k], self.typed[k]) if known else (10**9, line))
        out += [(10**9, line) for line in left]  # lines not of the message's own: last, as given
        return [line for _, line in sorted(out, key=lambda x: x[0])]


#: A line asking for a new player code (`pbem.app.lost_code`), as the words `_words` gives.
LOST_CODE = (["LOST", "CODE"], ["LOST", "MY", "CODE"], ["I", "LOST", "MY", "CODE"])


@lru_cache(maxsize=16)
def _phrases(words: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(w.upper().replace("_", "-").split()) for w in words if w.strip())


@lru_cache(maxsize=1)
def all_order_words() -> tuple[str, ...]:
    """Every installed game's order words (when the game is not known)."""
    from pbem import engine as registry

    return tuple(sorted({w for kind in registry.available() for w in registry.get(kind).order_words}))


def _words(line: str) -> list[str]:
    return line.upper().replace("\u2013", "-").replace("\u2014", "-").replace("_", "-").split()


def is_order(line: str, order_words: Iterable[str]) -> bool:
    """True if `line` starts with one of the order words (each a word or a phrase); "NO EVENT?" does too: an order
    asked as a question is refused as one (`pbem.app.refusals.questioned`), never set aside unseen."""
    words = _words(line.rstrip(_ASKED) if asks(line) else line)
    if not words:
        return False
    by_first = _by_first(order_words if isinstance(order_words, tuple) else tuple(order_words))
    first = words[0]
    return any(_starts(words, p) for key in {first, first.rstrip(".!;")} for p in by_first.get(key, ()))


@lru_cache(maxsize=16)
def _by_first(words: tuple[str, ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The order phrases (`_phrases`) by their first word: a line is tried against those its first word may start
    (Sixteen Thirty has 34 order words, tried one by one on each line, several times a line: half the cost of
    reading a mail of short lines; costs5)."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for p in _phrases(words):
        out.setdefault(p[0], []).append(p)
    return {k: tuple(v) for k, v in out.items()}


def _starts(words: list[str], phrase: tuple[str, ...]) -> bool:
    """Whether `words` start with `phrase`, its last word closed by a full stop, "!" or ";" too: "NO EVENT. Thanks
    for running the game" and "PASS; unless Bob objects" were chatter, the player told no order was found; as orders
    they are refused with the order to send alone (`pbem.app.refusals`)."""
    n = len(phrase)
    return len(words) >= n and words[: n - 1] == list(phrase[:-1]) and words[n - 1].rstrip(".!;,") == phrase[-1]


def phrase_end(line: str, order_words: Iterable[str]) -> int:
    """Where the longest order word or phrase `line` starts with ends ("NO EVENT" of "NO EVENT I have thought about
    it", a comma or full stop after it not counted), or 0: the place an order said alone may end."""
    words = _words(line)
    found = max((len(p) for p in _phrases(tuple(order_words)) if _starts(words, p)), default=0)
    at = 0
    for _ in range(found):  # past the phrase's words and the spaces before them, in the line as written
        at += len(line[at:]) - len(line[at:].lstrip())
        at += len(line[at:].split(None, 1)[0])
    return len(line[:at].rstrip(".!;,")) if found else 0


_ASKED = "?!.…\uff1f \t"  # the end of a line that asks: "NO EVENT?", "Vote red?!", "PASS ?", a full-width "?"


def asks(line: str) -> bool:
    """Whether a line ends with a question mark (after any "!" or "."): a question, never read as an order."""
    return line.rstrip("!.… \t").endswith(("?", "\uff1f"))


def unasked(line: str) -> str:
    """A line that asks (`asks`) without its question mark: "NO EVENT?" -> "NO EVENT"."""
    return line.rstrip(_ASKED)


def _labelled(line: str, order_words: Iterable[str]) -> str:
    """ "Play: Gold 10" (or "VOTE = red", "Play, Gold 10") as "Play Gold 10": an order word written as a label (a colon
    right after it) was set aside as a line starting with no order word, and an otherwise accepted mail went on
    without it.  So was an order word closed by a comma: "PASS, NEGATE Drive Them Off > Men-at-Arms" (read so, the
    engine is given both orders, refused as two on one line with each to send: `pbem.app.refusals.joined`), "Pass, I
    keep my cards" (the order with a remark: refused with the order alone to send), "DECLINE, ACCEPT Bob ..." was
    chatter, and a message with another order went on without it."""
    line_ = line.replace("：", ":", 1)
    dash = _DASH.search(line_)
    marks = (line_.find(":"), line_.find("="), line_.find(","), dash.start() if dash else -1)
    cut = min((k for k in marks if k >= 0), default=-1)  # "VOTE = red", "PASS, NEGATE ..." as "VOTE: red"
    after = (dash.end() if dash and cut == dash.start() else cut + 1) if cut >= 0 else 0
    head, colon, rest = (line_[:cut], ":", line_[after:]) if cut >= 0 else (line_, "", "")
    phrase = tuple(_words(head)) in _phrases(tuple(order_words))
    if dash and cut == dash.start() and phrase and rest.strip() and not _dashed_item(head, rest):
        return line  # "PASS - see you", "no event - See you": a remark after a dash (`pbem.app.refusals`)
    if colon and rest.strip() and phrase:
        return untimed(f"{head.strip()} {rest.strip()}", head.strip())
    if dash and cut == dash.start() and phrase:  # "PASS -", "NO EVENT —": a dash closing the order word alone
        return head.strip()
    return untimed(line, _head(line, order_words))


#: A dash standing alone after the order word ("BID – 3", "VOTE — yes", "PASS -": players32): a space before it,
#: a space or the end after it; a short "-" only at the line's end (before words it may part a list's items, and
#: `pbem.app.refusals` reads what follows it).  "PLACE-START" and "Close-Quarter" are words; "PASS -3" no dash.
_DASH = re.compile(r"[ \t\u00a0](?:[\u2013\u2014]{1,2}|--|-(?=[ \t\u00a0]*$))(?=[ \t\u00a0]|$)")
#: "1x" (or "1 x", "1×", "x1") right after the order word: one of what follows ("TRIBUTE 1x Gold 5").
_ONCE = re.compile(r"\A(?:1[ \t\u00a0]?[x\u00d7]|[x\u00d7][ \t\u00a0]?1)[ \t\u00a0]+(?=\S)", re.IGNORECASE)
#: "2 x", "3x" right after the order word: a count the order has no room for ("TRIBUTE 2 x Copper 2"): told, never read.
_TIMES = re.compile(r"\A(?:\d{1,3}[ \t\u00a0]?[x\u00d7]|[x\u00d7][ \t\u00a0]?\d{1,3})[ \t\u00a0]+(?=\S)", re.IGNORECASE)


def _dashed_item(head: str, rest: str) -> bool:
    """Whether `rest`, after a dash after the order word `head`, is the order's argument rather than a remark: one
    word ("VOTE — yes"), or, after an order word in capitals, a name or a number ("TRIBUTE – Gold 5", "BID –
    3").  "PASS - see you" and "no event - See you" are remarks, refused with the order alone offered as before."""
    words = rest.split()
    return len(words) == 1 or (in_capitals(head) and (words[0][0].isupper() or words[0][0].isdigit()))


def _head(line: str, order_words: Iterable[str]) -> str:
    """The order word (or phrase) `line` starts with, as typed, or ""."""
    words = line.split()
    phrases = _phrases(tuple(order_words))
    n = next((k for k in (3, 2, 1) if k <= len(words) and tuple(_words(" ".join(words[:k]))) in phrases), 0)
    return " ".join(words[:n])


def untimed(line: str, head: str) -> str:
    """`line` without a "1x" after its order word `head` ("TRIBUTE 1x Gold 5" as "TRIBUTE Gold 5": one of it is what
    an order names; players31 refused 21 of 24 such lines).  A larger count ("2 x") stays: `times_note` says why."""
    if not head or not line.startswith(head):
        return line
    rest = line[len(head) :].lstrip()
    m = _ONCE.match(rest)
    return f"{head} {rest[m.end() :]}" if m else line


def times_note(typed: str, line: str, order_words: Iterable[str]) -> str:
    """The note on an order with a count after its order word ("TRIBUTE 2 x Copper 2"), or "": the count is not
    read, since an order names one of each and reading it without the count could apply one where two were meant."""
    head = _head(line, order_words)
    rest = line[len(head) :].lstrip() if head and line.startswith(head) else ""
    m = _TIMES.match(rest)
    if not m:
        return ""
    count, one = m.group(0).strip(), f"{head} {rest[m.end() :]}"
    return (
        f'"{typed}" was not read: "{count}" asks for more than one, and an order names one; if you meant one, '
        f"write it as: {one}"
    )


_SAID = re.compile(  # "Order 1: NO EVENT", "Order #2 - PASS": a numbered label too; "Step 1: PASS", "Turn 3: ..."
    r"^(?:my\s+)?(?:orders?|moves?|choice|answer|decision|selection|step|turn|round|gambit|hand|phase)"
    r"(?:\s#?\d{1,2})?\s*(?:\s(?:is|are)\s|[:=]|-+\s)\s*(\S.*)$",
    re.I,
)
#: The same labels in the players' languages, no number after them ("Meine Wahl: PASS", "Mon choix : PASS",
#: "Mi elección: PASS", "La mia scelta: PASS", "Mijn keuze: PASS", "Minha escolha: PASS"): set aside untold before.
#: And in Japanese, Chinese, Korean and Russian ("注文：PASS", "我的选择：PASS", full-width colon and all).
_SAID_ABROAD = re.compile(
    r"^(?:(?:meine?|mon|ma|mes|mi|mis|la\s+mia|il\s+mio|le\s+mie|mijn|minha|meu|moja|mój|мой|моё)\s+|私の|我的)?"
    r"(?:wahl|entscheidung|befehle?|antwort|choix|d[ée]cision|ordres?|r[ée]ponse|elecci[oó]n|decisi[oó]n|[oó]rden|"
    r"[oó]rdenes|respuesta|scelta|decisione|ordine|ordini|risposta|keuze|beslissing|antwoord|escolha|decis[aã]o|"
    r"ordem|ordens|resposta|wyb[oó]r|decyzja|odpowied[zź]|注文|命令|選択|选择|選擇|指令|回答|명령|선택|주문|приказ|выбор|"
    r"ответ|ход)\s*+(?:[:=：]|-+\s)\s*+(\S.*)$",
    re.I,
)
#: A postscript's label ("PS: NO EVENT", "P.S. PASS", "PPS - vote red"): the writer's own afterthought, below the
#: sign-off and the name too, read as the order it labels.  An "s" ends the label only before a stop, a blank, a
#: colon or a dash ("Psst" is no label).
_POSTSCRIPT = re.compile(r"^(?:p\.?){1,2}s(?:\.|(?=[ \t:\-\u2013]))[ \t]*+(?:[:\-\u2013][ \t]*+)?(\S.*)$", re.I)
_MY_WORD = re.compile(r"^my\s+([^\W_]+(?:[-_][^\W_]+)*)\s*(?:\s(?:is|are)\s|[:=]|-+\s)\s*(\S.*)$", re.I)
_SENTENCE = re.compile(  # "’": a phone's apostrophe ("I’ll", "I’d like to"); "Ill": autocorrect's "I'll"
    r"^(?:i['’]d like to|i would like to|i want to|i['’]m going to|i am going to|i['’]ll go with|i['’]d|i will|"
    r"i['’]ll|ill|i|we['’]ll|we|let['’]s go with|let['’]s go|let['’]s|going with|go with|please|bitte|por favor|"
    r"per favore|s['’]il vous pla[iî]t|okay|ok|sure|fine|hi|hello|hey|yes|yep|"
    # a change of mind said in a sentence ("Change NO EVENT to EVENT PERSON Peter", "Make that PASS"), players34:
    # set aside untold; told the order to send (an earlier mail's order is replaced by sending the new one)
    r"(?:please\s+)?(?:change|switch)(?:\s++[^\n]{1,80}?)?\s+to|make\s+(?:that|it)|"
    # a greeting in the players' languages ("Hallo, TRIBUTE Gold 4", "こんにちは、PASS": the second was told nothing)
    r"hallo|bonjour|salut|hola|ciao|hej|hoi|ol[aá]|cze[sś][cć]|привет|здравствуйте|こんにちは|你好|안녕하세요)"
    r"(?:[,、\s]++|[ \t]*+[:\-\u2013][ \t]*+)(\S.*)$",  # "Hi, vote red": one line; "OK: pass", "Sure - pass"
    re.I,
)
SENTENCE_WORDS = 10  # words after "I ..." at most for a line to be told how to write the order it seems to be


OPENERS_TAKEN = 4  # connectives or greetings taken off a line in turn, at most ("Hi, also: my order: PASS" takes 2)


def labelled_order(line: str, order_words: Iterable[str], greeting: bool = True, left: int = OPENERS_TAKEN) -> str:
    """The order a line names with a label ("My order: NO EVENT", "Orders - PASS", "My vote is red" as VOTE red,
    "My tribute: Gold 7", "PS: PASS", "Pour ce tour : pass": `pbem.orders.openers.THIS_STEP`), or says after a
    connective or a greeting in capitals ("Also: PASS", "Hallo, PASS", "Hola a todos: PASS": `CONNECTIVE`, `greeted`),
    or "": the player says plainly that this is their order, so it is read as one.  At most `left` connectives
    are taken off in turn: a line of thousands ("Also: Also: ... PASS") went one call deeper for each, copying the
    rest each time, and raised RecursionError out of `extract` at 2,000 (costs18)."""
    m = _SAID.match(line) or _SAID_ABROAD.match(line) or THIS_STEP.match(line) or _POSTSCRIPT.match(line)
    if m and is_order(rest := cleaned(m.group(1)) or m.group(1), order_words):
        return rest
    m = _MY_WORD.match(line)
    if m and is_order(order := f"{m.group(1)} {cleaned(m.group(2)) or m.group(2)}", order_words):
        return order
    m = connective(line)
    after = m.group(1) if m else greeted(line) if greeting else ""
    if after:  # the rest as the line it would be alone: "Hallo, Play: Gold 10", "Hi, my order: PASS"
        rest = _labelled(cleaned(after) or after, order_words)
        if is_order(rest, order_words):
            return rest if in_capitals(rest) else ""  # "Hi all, play nice!": a remark; "Hi, vote red": a sentence
        return labelled_order(rest, order_words, greeting=False, left=left - 1) if left > 1 else ""
    return ""


SENTENCE_OPENERS = 3  # openers of a sentence taken off in turn ("ok" then "I'll go with"), at most
#: Words a phone's sentence ends with after the order ("ok I'll go with no event then"), taken off its end, in turn
#: ("no event for me this time", "I vote red on that", "red from me": `AFTERWORDS_TAKEN` words or pairs at most).
_AFTERWORDS = frozenset({"then", "please", "thanks", "now", "today", "instead", "again", "too"})
_AFTER_PAIRS = frozenset(
    {("for", "now"), ("for", "me"), ("this", "turn"), ("this", "time"), ("this", "round")}
    | {("from", "me"), ("on", "that"), ("on", "this"), ("by", "me"), ("it", "is")}
)
AFTERWORDS_TAKEN = 3
AFTER_LAST = _AFTERWORDS | frozenset(pair[1] for pair in _AFTER_PAIRS)  # the last word of a line so ended


def sentence(line: str, order_words: Iterable[str]) -> str:
    """The order a short sentence seems to be ("I vote red", "I'll discard none", "please pass", "ok I'll go with no
    event then"), or "".  Not read as one ("I take it you are away", "I pass on my thanks" are remarks): the answer
    says how to write it.  Up to `SENTENCE_OPENERS` openers are taken off in turn ("ok", then "I'll go with"), and a
    word or two a sentence ends with ("then", "for now"): "ok I'll go with no event then" was told nothing."""
    rest = line
    for _ in range(SENTENCE_OPENERS):
        m = _SENTENCE.match(rest)
        if not m:
            return ""
        rest = cleaned(m.group(1)) or m.group(1)
        said = without_afterwords(rest)
        if said and len(said.split()) <= SENTENCE_WORDS and is_order(said, order_words):
            return said
    return ""


def without_afterwords(rest: str) -> str:
    """`rest` without the words a sentence ends with after its order ("no event then", "pass for now", "vote red for
    me this time"), taken off in turn, `AFTERWORDS_TAKEN` at most."""
    said = rest.rstrip(" ,.!").split()
    for _ in range(AFTERWORDS_TAKEN):
        if len(said) > 2 and (said[-2].lower(), said[-1].lower().rstrip(",.!")) in _AFTER_PAIRS:
            said = said[:-2] if said[-2].lower() != "this" or len(said) < 4 or said[-3].lower() != "for" else said[:-3]
        elif len(said) > 1 and said[-1].lower().rstrip(",.!") in _AFTERWORDS:
            said = said[:-1]
        else:
            break
        said[-1] = said[-1].rstrip(",")
    return " ".join(said).rstrip(",")


def afterwords_at(line: str) -> int:
    """Where the words a sentence ends with begin after the order at the start of `line` ("TRIBUTE Silver 7 from me":
    at "from"), or -1 when it ends with none (`pbem.app.refusals` refuses such a line with the order alone offered)."""
    said = without_afterwords(line)
    return len(said) if said and len(said) < len(line.rstrip(" ,.!")) and line.startswith(said) else -1


OPENED_TOKENS = 16  # a line's first tokens `own_line`'s quick test looks among for an order or command word
OWN_ANSWERS = 1024  # lines whose `own_line` answer one game kind's reader remembers across mails, at most
OWN_REMEMBERED = 256  # characters of a line remembered so, at most (a longer one is read again each time)


def own_line(order_words: Iterable[str] | None = None) -> Callable[[str], bool]:
    """Whether a line is one the reader takes as the writer's own order or command, a colon after its first
    words too ("PRESS TO ALL: ...", "Event: Person Franz"): `keep` for `pbem.orders.own_mail.without_copies`,
    so that such a line right above a quoted mail is never dropped as the client's ``Label: value`` block.

    The answer is a function of the line and the order words alone, so one reader a set of words is kept
    (`_own_reader`) and remembers its answers across mails: the lines it is asked about are mostly those of the
    report a reply quotes ("> Deadline: ...", "> Keep it private: ..."), the same in every reply to one game's
    reports (perf33: 14.3 lines asked a reply of `poll_throughput.py`'s, 0.72 of them new; asked anew each reply
    they cost 0.35 ms of its 9.9 on the poll's thread).  At most `OWN_ANSWERS` answers, each of a line of at most
    `OWN_REMEMBERED` characters; the answers are forgotten all at once when full."""
    return _own_reader(tuple(all_order_words() if order_words is None else order_words))


class OwnReader:
    """`own_line`'s reader for one set of order words, remembering its answers (`answers`, at most `OWN_ANSWERS`)."""

    def __init__(self, words: tuple[str, ...]) -> None:
        self.answers: dict[str, bool] = {}
        self.asked = _own_line(words)

    def __call__(self, line: str) -> bool:
        got = self.answers.get(line)
        if got is None:
            got = self.asked(line)
            if len(line) <= OWN_REMEMBERED:
                if len(self.answers) >= OWN_ANSWERS:
                    self.answers.clear()
                self.answers[line] = got
        return got


@lru_cache(maxsize=8)
def _own_reader(words: tuple[str, ...]) -> OwnReader:
    """The reader kept for `words` (a poll reads a few games' kinds: at most 8 sets of words kept)."""
    return OwnReader(words)


def _own_line(words: tuple[str, ...]) -> Callable[[str], bool]:
    """`own_line` for `words`, each line read anew."""
    firsts = frozenset(p[0] for p in _phrases(words) if p) | frozenset(CONTROL_WORDS)

    def own(line: str) -> bool:
        said = _TOKEN.findall(front(line[:200]).upper().replace("_", "-"))
        if firsts.isdisjoint(said[:OPENED_TOKENS]):
            # none of its first words starts an order or a command (most lines: a regex, no more).  Not only the
            # first 4: "La mia scelta: PASS", "Hello everyone and good luck: PASS" (a greeting's rest), and a line
            # of labels "FROM: P.S. P.S. ACCEPT" that `labelled_order` reads (the fuzzer found the quick test of
            # the first 4 tokens and a greeting's rest disagreeing with the whole reading there)
            return False
        typed = _strip_comment(line)
        base = cleaned(typed) or typed  # "1. 注文：PASS": the label after a list's number is read so too
        bare = undoubled(base.replace(":", " ", 1).replace("：", " ", 1), words)
        return bool(typed) and (
            is_order(bare, words)
            or _control(bare) is not None
            or bool(labelled_order(base, words) or labelled_order(typed, words))
            or bool(_labelled_by_other(base, words))  # "Bob: PASS" under its own listed line: told, never dropped
            or bool(opened_command(base))  # "Y también: STATUS" above the quote: no client's "Label: value" line
            or bool(_opened(base, words) or _opened_command(base))  # "Good morning Mr Smith and all: HELP": told
        )

    return own


def _control(line: str) -> str | None:
    """The control word a line starts with (trailing punctuation ignored), or None.  A word of `SAID_ALONE` is a
    command only when alone on its line in any case ("Help", "status?", "Help please": a phone capitalises a line's
    first word), in capitals before other words ("HELP me", "STATUS - thanks"), or in the command's own form ("press to
    Bob: ...", "code: k7qx-2mpd", "End press"): "Help yourself to snacks" asked for the handbook, "Status: fine" and
    "Report to follow" for the report, "End of story" stopped the reading of the mail, and "Press on, friends" or
    "Code is on the fridge" were told to write a press or a code (players26)."""
    said = line.split(None, 1)
    first = said[0].upper().rstrip(":,.!?;") if said else ""
    if first not in CONTROL_WORDS:
        return None
    if first in SAID_ALONE and len(said) > 1 and not _commanded(first, line):
        return None
    return first


#: The control words read in a sentence's first word only in capitals or alone (`_control`); AWAY and BACK are read
#: by their own form (`pbem.orders.away.meant`), HISTORY, RESIGN and ADDRESS only as the whole line (`_asking`).
SAID_ALONE = frozenset(("HELP", "STATUS", "REPORT", "PRESS", "END", "CODE"))


def _commanded(word: str, line: str) -> bool:
    """Whether `line`, which starts with `word` of `SAID_ALONE` and goes on, is that command: its first word in
    capitals, the rest only punctuation, or the command's own form in any case."""
    if in_capitals(line) or not line.split(None, 1)[1].strip(" .!?:;,"):
        return True
    if word == "PRESS":
        return bool(_PRESS.match(line))
    if word == "CODE":
        return bool(_CODE.match(line))
    return word == "END" and (_words(line) == ["END", "PRESS"] or bool(_END_OF.fullmatch(line.rstrip(" .!:;,"))))


#: "end of my orders", "End of message": the end said in words, which stops the reading as END does.
_END_OF = re.compile(
    r"\Aend\s++(?:of\s++)?(?:(?:my|the|this|our)\s++)?(?:orders?|message|mail|e-?mail|turn|moves?)", re.IGNORECASE
)


#: "#1 PASS", "#2. VOTE RED": a list numbered with a hash, not a comment (the line was dropped whole, untold).
_HASH_NUMBER = re.compile(r"^[ \t\u00a0]*+#\d{1,2}[.):]?[ \t\u00a0]+(?=\S)")


#: "TRIBUTE Copper #4", "PLAY Platinum #9": a number sign before a card's number, not a comment (read "Copper").
_NUMBER_SIGN = re.compile(r"(?<=[ \t\u00a0])#(?=\d)")


def _strip_comment(line: str) -> str:
    """`line` without its comment (from a ``#``), without a list's hash number before its order ("#1 PASS"), and
    with a number sign before a number read as the number ("Copper #4")."""
    numbered = _HASH_NUMBER.match(line)
    text = _NUMBER_SIGN.sub("", line[numbered.end() if numbered else 0 :])
    return text.split("#", 1)[0].translate(_INVISIBLE).strip()


def subject_line(subject: str) -> str:
    """The subject after the game tag, without reply prefixes, a code and invisible characters (`INVISIBLE`)."""
    tag = _GAME_TAG.search(subject or "")
    if not tag:
        return ""
    rest = _REPLY_PREFIX.sub("", subject[tag.end() :].translate(_INVISIBLE))
    return _REPLY_PREFIX.sub("", _SUBJECT_CODE.sub(" ", rest)).strip()


def tagged(subject: str) -> str:
    """`subject`, with a game tag put before it when it names none ("Help", "Re: PASS", "Re: Turn 3, Alice to play"):
    a reply's whose game is that of the mail of pbem's it answers (`pbem.app.reading.named_game`), read as the subject
    after the tag is (`subject_line`).  Its subject changed to "Help", a reply only quoting its report was neither
    read nor told."""
    return subject if _GAME_TAG.search(subject or "") else f"[pbem -] {subject}"


def extract(
    text: str,
    subject: str = "",
    order_words: Iterable[str] | None = None,
    pbems: Callable[[str], bool] | None = None,
    answers: Callable[[], str] | None = None,
) -> Extracted:
    """Sort a message's lines into orders, commands and chatter (see the module docstring).  `pbems(line)`: the
    subject's line is the title of the mail it answers, pbem's words (a reply's "Join the game: reply JOIN"),
    never read as the sender's; asked only where the subject would be read.  `answers()`: the title of the mail of
    pbem's it answers ("" for none), by which a label naming a step is checked (`off_step`; None: not checked)."""
    words = tuple(all_order_words() if order_words is None else order_words)
    own = own_line(words)  # a quoted line marked as the writer's choice is theirs when it is an order
    ex = Extracted()
    m = _SUBJECT_CODE.search(subject or "")
    if m:
        ex.code = m.group(1)
    signature: list[str] = []  # the lines of a "-- " signature above the quote
    lines, ex.furniture = own_lines(unarmoured(text), lambda line: chosen(line) and own(line), signature)
    _under_signature(ex, signature, words)
    first = subject_line(subject)
    if first and _control(first) in ("HELP", "STATUS", "REPORT", "CODE", "HISTORY") and not (pbems and pbems(first)):
        lines.insert(0, first)
    i = 0
    signed = False  # a sign-off ("Best regards,") came after an order: the lines below it are the signature
    while i < len(lines):
        typed = _strip_comment(lines[i])
        i += 1
        if not typed:
            continue
        line = _read(typed, words)
        typed, line, i = _unhyphened(typed, line, lines, i, words)
        signed = signed and not _POSTSCRIPT.match(typed.lstrip())  # "PS: PASS" below the signature: the writer's
        if _taken(ex, i, typed, line, words, answers):
            continue
        if _control(line) is None and (signed or not is_order(line, words)):
            signed = _not_an_order(ex, i, typed, line, words, signed)
            continue
        if is_order(line, words):
            i, line = _order(ex, typed, line, lines, i, words)
            if _words(line) == ["END"]:
                break
            continue
        word = _control(line)
        if word is None:
            ex.placed.append(i)
            ex.chatter.append(line)
        elif word == "END":
            if len(_words(line)) > 1 and _words(line)[1] == "PRESS":
                continue  # a stray END PRESS closes nothing
            break
        else:
            i = _command(ex, word, line, lines, i, typed)
    if first and _words(cleaned(first) or first) in LOST_CODE:
        ex.lost_code = True
    said = _labelled(cleaned(first) or first, words) if first else ""  # "No event." as the line "No event"
    if said and not ex.orders and is_order(said, words) and not (pbems and pbems(first)):
        ex.orders.append(_strip_comment(said))  # a subject titled "tribute" above orders is only a title
    elif first and not ex.orders and pbems and (after := after_title(first, words, pbems)):
        _after_title(ex, after)
    else:
        _elsewhere(ex, text, (first, said), words, pbems)
    ex.press_keys.clear()  # (the press blocks' lines, codes and all: needed only while reading)
    return ex


def _elsewhere(
    ex: Extracted, text: str, subject: tuple[str, str], words: tuple[str, ...], pbems: Callable[[str], bool] | None
) -> None:
    """The notes on orders written where pbem does not read them (`pbem.orders.elsewhere`): the subject's order
    when the body's stand (`subject`: the subject's line and its reading), a forwarded mail's when none does."""
    first, said = subject
    if first and ex.orders and not (pbems and pbems(first)):
        ex.problems += elsewhere.subject_told(_subject_order(first, said, words, pbems), ex.orders)
        bare = said.strip(" .!")
        if bare and bare.upper() in {w.upper() for w in words} and elsewhere.subject_told(bare, ex.orders):
            ex.subject_word = bare  # "PASS" a title, or the order it is: the engine's to say (`app.lines`)
    if not ex.orders:
        ex.problems += elsewhere.forwarded_notes(text, lambda line: _forwarded_order(line, words))


def _subject_order(first: str, said: str, words: tuple[str, ...], pbems: Callable[[str], bool] | None) -> str:
    """The order typed in a subject (the whole subject after the tag, or after the title of the mail answered), ""
    for none; a bare order word is a title ("[pbem g1] Tribute" above the orders)."""
    if said and is_order(said, words):
        return "" if said.strip(" .!").upper() in {w.upper() for w in words} else said
    after = after_title(first, words, pbems) if pbems else ""
    return after if after and _control(after) is None and is_order(after, words) else ""


def _forwarded_order(line: str, words: tuple[str, ...]) -> str:
    said = _read(line, words)
    return said if _control(said) is None and is_order(said, words) else ""


#: How an order line ends, or the line under it starts, when a list goes on below it: a hard wrap at 20 to 40
#: columns (a client's, a forwarder's) parted "PLAYS Gold 5, Silver 3" into "PLAYS Gold 5," and "Silver 3", and the
#: first was read alone, a half order (players26).
#: ... or, in capitals as the report prints them, a word of an order's syntax that no order ends with ("EVENT CLAIM
#: Emperor TARGET" / "Bob", "NEGATE Resist Cavalry >" / "Men-at-Arms", "... GIVING" / "Spain 1": an HTML reply's
#: <br> or a phone's hard wrap at 20 columns parted the order there; players31's generator refused the first half,
#: the rest listed as not read).  Read without the game's state, as `pbem verify` reads the mail.
_GOES_ON = re.compile(
    r"(?:[,+&]|\band|(?-i:(?<=\s)(?:TARGET|GIVING|FOR|FROM|EXCEPT|THEN|CLAIM|PERSON)|\s(?:>|->)))$", re.I
)
_GOES_ON_FROM = re.compile(r"^(?:[,+&]|and\b|(?-i:(?:TARGET|GIVING|EXCEPT|THEN)\b|>\s))", re.IGNORECASE)
#: A number alone (or before a comma) under an order whose last word is a name ("PLAY Silver" / "11", "PLACE-START
#: France" / "1, France 2"): the order's number a wrap parted from its name (players32).  An order of one word
#: ("PASS" / "2") is never joined so.
_NUMBER_BELOW = re.compile(r"\A\d{1,2}(?:[.!]?$|,\s)")  # "11", "1, France 2, ...": the number, a list going on
_NAME_LAST = re.compile(r"\A[A-Z][a-zA-Z-]*")  # the line's last word, a name (fullmatch)
WRAPPED = 80  # characters of a line read as the rest of the order above it, at most


WRAPS = 6  # lines under an order read as its rest, at most


def _wrapped(typed: str, lines: list[str], i: int, words: tuple[str, ...]) -> int:
    """Where the order line `typed` ends in `lines` (the index of the first line after it, `i` when it ends on its
    own line): it goes on in the line under it when it ends with a comma, "+", "&" or "and", or the line under it
    starts so, and that line is no order, command or quote of its own; not after a closing that starts with an order
    word, no digit and its other words in lower case ("Play well," above the name: `pbem.app.lines.closing`).  Read
    whole, the order is the engine's to take or refuse: never its first half alone."""
    rest = typed.split()[1:]
    if not any(c.isdigit() for c in typed) and all(w == w.lower() for w in rest):
        return i  # "Play well," / "Alice", "Standing by,", "Take care,": a closing and the name under it
    end, last = i, typed
    while end < len(lines) and end - i < WRAPS:
        below = _strip_comment(lines[end])
        if not below or len(below) > WRAPPED or below.startswith(">"):
            break
        said_last = last.split()
        number = _NUMBER_BELOW.match(below) and len(said_last) >= 2 and _NAME_LAST.fullmatch(said_last[-1])
        if not (_GOES_ON.search(last.rstrip()) or _GOES_ON_FROM.match(below) or number):
            break
        said = _read(below, words)
        if is_order(said, words) or _control(said) is not None:
            break
        end, last = end + 1, below
    return end


#: A line ending in a word broken at its hyphen ("DISCARD-IF-" / "NEEDED LOWEST": a wrap at 16 to 24 columns breaks
#: there): set aside untold, the line under it refused or set aside (players32).
_HYPHENED = re.compile(r"[A-Za-z]-$")


def _unhyphened(typed: str, line: str, lines: list[str], i: int, words: tuple[str, ...]) -> tuple[str, str, int]:
    """(the line typed, as read, the index of the next line): `typed`, no order, joined with the line under it when
    that makes an order: ending in a word broken at its hyphen (no space between), or the first words of an order
    phrase in capitals whose last words are the whole line under it ("NO" / "EVENT": an HTML reply's <br> or a wrap
    parted "NO EVENT"; "No" / "Event CLAIM ..." is no phrase alone, and stays as it was)."""
    if i >= len(lines) or is_order(line, words):
        return typed, line, i
    below = _strip_comment(lines[i])
    if not below or below.startswith(">") or len(below) > WRAPPED:
        return typed, line, i
    if _HYPHENED.search(typed):
        joined = typed + below.lstrip()
    elif in_capitals(line) and tuple(_words(f"{line} {below}")) in _phrases(words):
        joined = f"{typed.rstrip()} {below.strip()}"
    else:
        return typed, line, i
    said = _read(joined, words)
    return (joined, said, i + 1) if is_order(said, words) else (typed, line, i)


def _order(ex: Extracted, typed: str, line: str, lines: list[str], i: int, words: tuple[str, ...]) -> tuple[int, str]:
    """An order line read into `ex`, with the lines under it it goes on in (`_wrapped`: "PLAYS Gold 5," / "Silver
    3", one order a hard wrap parted); returns the index of the next line to read and the order as read."""
    at, i = i, _wrapped(typed, lines, i, words)
    if i > at:
        typed = " ".join([typed.rstrip(), *(_strip_comment(lines[k]) for k in range(at, i))])
        line = _read(typed, words)
    ex.typed.append(typed.strip())
    ex.order_at.append(at)
    ex.order_end.append(i)
    ex.orders.append(_salt(typed) or line.replace("\t", " "))  # a table's cells ("MELD<tab>Heinrich ...") as words
    if (note := times_note(typed.strip(), line, words)) and note not in ex.problems:
        ex.problems.append(note)  # "TRIBUTE 2 x Copper 2": refused by the engine, and told why it was not read
    return i, line


def _after_title(ex: Extracted, after: str) -> None:
    """The order or the command typed after the title of the mail answered in a subject (`after_title`), read."""
    word = _control(after)
    if word is None:
        ex.orders.append(_strip_comment(after))
    elif word in ("HELP", "STATUS", "REPORT") and not (ex.help or ex.status):
        _command(ex, word, after, [], 0)
    elif word == "HISTORY" and ex.history is None:
        _asking(ex, word, after.rstrip(" .!?").upper(), 0)


def _taken(
    ex: Extracted, at: int, typed: str, line: str, words: tuple[str, ...], answers: Callable[[], str] | None
) -> bool:
    """Whether a line is done with before it is read as an order or command: an order labelled with a step other than
    the one the mail answers (set aside and told: `off_step`), an order with a negation run into it (`said_not`), or
    WATCH, NORMAL or DIGEST alone (the mail's mode)."""
    if answers is not None and (note := off_step(typed, line, words, answers)):
        _aside(ex, at, typed, line, (), note)
        return True
    if (meant := said_not(line)) and is_order(meant, words):  # "PASSにしません": not to PASS, set aside and told
        _aside(ex, at, typed, line, (), negated_note(typed, meant))
        return True
    if meant := cjk_tailed(line, words):  # "PASSを宣言します": an ending outside `typed._SAID_SO`'s grammar
        _aside(ex, at, typed, line, (), seeming_note(typed, meant))
        ex.seeming.append((typed, meant))  # told only when the engine takes it alone now (`lines.seeming_told`)
        return True
    later = NEXT_STEP.match(line)
    rest = (cleaned(later.group(1)) or later.group(1)) if later else ""
    if rest and is_order(rest, words):
        _aside(ex, at, typed, line, (), later_step_note(typed, rest))
        return True
    said = _words(line)
    if len(said) == 1 and said[0] in MODE_WORDS:
        ex.mode = said[0].lower()
        return True
    return False


#: Japanese or Chinese run into an order ("PASSを宣言します", "NO EVENTを希望"): kana or ideographs right after a Latin
#: letter or digit, to the end of the line (a stop or "!" may close it).  `typed._SAID_SO` reads the endings that
#: say "my choice" and `_SAID_NOT` those that say "not": another ending was refused with the engine's reason ("no card
#: named NONEを宣言します") or, with the order word's own letters run into it ("EVENTを..."), set aside untold
#: (players32).  It may say anything, so it is never read: the order is offered, when the engine takes it alone now.
_CJK_TAIL = re.compile(
    r"(?<=[A-Za-z0-9)\]])[ \t]?[\u3040-\u30ff\u3400-\u9fff][\u3040-\u30ff\u3400-\u9fff\u30fc]{0,30}[。.!！]*$"
)


def cjk_tailed(line: str, words: tuple[str, ...]) -> str:
    """The order `line` holds before a Japanese or Chinese ending no grammar of `pbem.orders.typed` reads
    (`_CJK_TAIL`), or ""."""
    m = _CJK_TAIL.search(line) if not line.isascii() else None
    head = line[: m.start()].rstrip() if m else ""
    return head if head and is_order(head, words) else ""


TITLE_CUTS = 4  # places in a subject where an order may start after the title of the mail answered, tried at most
TITLE_WORDS = 40  # words of a subject an order after the title may start at, at most (pbem's titles are short)
TITLE_REST = 400  # characters of the rest of a subject read as an order after the title, at most
_TITLE_END = " \t-\u2013\u2014:|,;"  # between the title kept and the order typed after it


def after_title(first: str, words: tuple[str, ...], pbems: Callable[[str], bool]) -> str:
    """The order a player typed after the title of the mail they answer, in its subject ("Re: [pbem g1] Gambit 1,
    Turn 1, Carol to play - PLAY Platinum 9", the body left empty or only quoting): it was not read, the subject
    being no title and no order.  Read where the subject's start is the whole title of a mail pbem sent them
    (`pbems`) and the rest an order, or a command alone in any case ("... Carol to play - Help": `OPENED_COMMANDS`,
    dropped untold before); "" if there is none.  At most `TITLE_CUTS` places are tried."""
    tried = 0
    for k, m in enumerate(re.finditer(r"(?<=\s)\S", first)):
        rest = first[m.start() :]
        if k >= TITLE_WORDS:
            break
        if len(rest) > TITLE_REST:
            continue  # an order is never so long: no reading of a long subject's rest (linear in the subject)
        said = _labelled(cleaned(rest) or rest, words)
        if not is_order(said, words) and not _titled_command(said):
            continue
        tried += 1
        if pbems(first[: m.start()].rstrip(_TITLE_END)):
            return said
        if tried >= TITLE_CUTS:
            break
    return ""


def _titled_command(said: str) -> bool:
    """Whether `said`, typed after the title of the mail answered in a subject, is a command that asks pbem for a
    mail, alone, in any case ("Help", "STATUS", "history 3"): `OPENED_COMMANDS`."""
    words = said.rstrip(" .!?").upper().split()
    return (
        bool(words) and words[0] in OPENED_COMMANDS and (len(words) == 1 or (words[0] == "HISTORY" and len(words) == 2))
    )


def _read(typed: str, words: tuple[str, ...]) -> str:
    """The line an order or command is read from: without list markers, emphasis, end punctuation, quotes; an order
    word written as a label ("Tribute: Gold 7") or a label naming the order ("My order: NO EVENT") read as the order."""
    line = undoubled(_labelled(cleaned(typed) or typed, words), words)
    if _control(line) is None and not is_order(line, words):
        # "Turn 3: (PASS)": the cleaned line lost its order as a remark in brackets after "Turn 3:"
        said = labelled_order(line, words) or (typed.endswith(_CLOSING) and labelled_order(typed, words))
        return said or opened_command(line) or line
    return line


def opened_command(line: str) -> str:
    """The command after a greeting or a connective, in capitals ("Hi, HELP", "Bonjour à tous, STATUS", "Also:
    HISTORY 3": `OPENED_COMMANDS`), or "": it was listed as not read.  "Hi, help me out" is a remark."""
    rest = opened(line)
    rest = cleaned(rest) or rest
    return rest if rest and in_capitals(rest) and _control(rest) in OPENED_COMMANDS else ""


_CLOSING = (")", "]", "}", ">")  # how a line may end whose order in brackets after a label cleaning takes off


def undoubled(line: str, words: Iterable[str]) -> str:
    """`line` without its first word when the word after it is the same and the rest is an order: dictation and a
    phone's keyboard repeat a word ("vote vote red", "Tribute tribute Silver 7", "no no event"), read as an order
    naming a card "tribute" or as no order.  No order of any game names an argument after its own order word."""
    first, _, rest = line.lstrip().partition(" ")
    rest = rest.lstrip()
    second = rest.split(None, 1)[0] if rest else ""
    if first and first.casefold() == second.casefold() and is_order(rest, words):
        return rest
    return line


_SALT_LINE = re.compile(r"(?:join[ \t]++)?salt\b", re.IGNORECASE)


def _salt(typed: str) -> str:
    """A SALT line (``SALT ...``, ``JOIN SALT ...``) as typed from its first word on, or "" for any other line: a
    salt is the rest of the line, any words the player likes (`pbem.trust.deal`), never read as an order is ("SALT
    one two three" is no number, "SALT lucky :)" keeps its smiley)."""
    start = next((k for k, ch in enumerate(typed) if ch.isalpha()), -1)
    return typed[start:].rstrip() if start >= 0 and _SALT_LINE.match(typed, start) else ""


def _not_an_order(ex: Extracted, at: int, typed: str, line: str, words: tuple[str, ...], signed: bool) -> bool:
    """A line that is no order or command (`LOST CODE`, chatter), or one below a sign-off after the orders ("Play
    Corp Ltd." under "Best regards,": the signature's, never an order).  Returns whether the signature has begun."""
    if signed:
        ex.placed.append(at)
        ex.chatter.append(typed)
        if is_order(line, words):  # never read; told if the engine takes it or it is an order mistyped
            ex.signed_off.append((typed, line))
        return True
    if _words(line) in LOST_CODE:
        ex.lost_code = True
        return False
    _aside(ex, at, typed, line, words)
    if (bool(ex.orders) or commanded(ex)) and sign_off(typed):
        ex.sign_off = typed.strip()
        return True
    return False


def commanded(ex: Extracted) -> bool:
    """Whether the message asks a command that stands without orders (HELP, STATUS, HISTORY, a press, AWAY or BACK,
    WATCH/NORMAL/DIGEST, RESIGN, ADDRESS): below a sign-off after it ("HELP" / "Cheers," / "Alice" / "Play fair, have fun") is the
    signature, and a footer's line starting with an order word is no reason to refuse the mail (players27: "HELP"
    above "Pass it on!" was answered with the handbook and a refusal)."""
    asked = ex.help or ex.status or ex.history is not None or ex.press or ex.away or ex.mode
    return bool(asked or ex.resign is not None or ex.address is not None or ex.address_confirm is not None)


def _aside(ex: Extracted, at: int, typed: str, line: str, words: tuple[str, ...], note: str = "") -> None:
    """A line set aside as chatter, as typed, told why by `note` if given; one that seems to be an order in a
    sentence, or holds one typed in capitals inside its prose, is told how to write."""
    ex.placed.append(at)
    ex.chatter.append(typed)  # what the player wrote, as they wrote it
    if note:
        ex.problems.append(note)
        return
    rests = opened_rests(line)
    if command := _command_after(rests):
        ex.problems.append(opened_command_note(typed, command))
        return
    seems = (
        sentence(line, words)
        or _bracketed(line, words)
        or _labelled_by_other(line, words)
        or _order_after(rests, words)
    )
    found, refused = ([seems], "") if seems else prose_orders(typed, words)
    if refused:
        ex.problems.append(negated_note(typed, refused))  # "I don't want PASS": told what was understood
    for said in found:
        ex.seeming.append((typed, said))
        ex.problems.append(seeming_note(typed, said))


def negated_note(typed: str, order: str) -> str:
    """The note for a line that says the player will not give an order ("I don't want PASS", "我不要PASS",
    "PASSにしません"): set aside, what it was understood to say, and that nothing of it was applied."""
    return f'"{typed}" was set aside: it says you do not want {order}, so nothing of it was applied'


PROSE_WORDS = 200  # words of a line looked at for an order typed inside its prose, at most
PROSE_CUTS = 4  # places an order inside prose may end at (a comma, a stop, the line's end), tried at most
PROSE_STARTS = 3  # words in capitals inside a line of prose that start an order, tried at most
PROSE_ORDER = 12  # words an order inside prose has, at most
_PROSE_END = ",;.!?:)"


def in_prose(typed: str, words: tuple[str, ...]) -> list[str]:
    """The orders a line of prose may hold, typed in capitals inside it (or in any case after "go with", "pick":
    "I'll go with no event, because ..." was told nothing), and ended by a comma, a stop or the line's end ("... and
    in the end I will go with NO EVENT, because the others look risky.": ["NO EVENT", "NO EVENT, because the others
    look risky"]; a word a sentence ends with taken off, "NO EVENT then" as NO EVENT): a phone does not wrap a
    paragraph, and such a line was chatter, dropped untold.  Never read (a remark may name an order); the caller tells
    the one the engine takes alone now (`pbem.app.lines.seeming_told`).  The first word in capitals that starts an
    order is tried, `PROSE_STARTS` such words at most: linear in the line, capped."""
    return prose_orders(typed, words)[0]


def prose_orders(typed: str, words: tuple[str, ...]) -> tuple[list[str], str]:
    """`in_prose`'s orders, and the order a negation before it says the player will not give ("I don't want PASS":
    ([], "PASS")), or ""."""
    said = (typed if typed.isascii() else _SCRIPTS_MEET.sub(" ", typed)).split()[:PROSE_WORDS]
    firsts, starts = _by_first(words), 0
    for k, word in enumerate(said):
        bare = word.strip("\"'“”‘’«»(")
        if k == 0 or len(bare) < 2 or not bare[:2].isalpha() or _not_prose(said[k - 1]):
            continue  # the first word, no word, or one after a label or inside a run of capitals
        if not bare.isupper() and not _choosing(said, k):
            continue  # in lower case, an order only after "go with", "choose", "pick" ("I'll go with no event,")
        if _words(bare.rstrip(_PROSE_END))[0] not in firsts:  # "PASS," as PASS
            continue
        negated = _negated(said, k)  # "I don't want PASS", "我不要PASS": the order refused is never offered
        found: list[str] = []
        for end in range(k, min(len(said), k + PROSE_ORDER)):
            last = said[end]
            if end + 1 == len(said) or last[-1] in _PROSE_END:
                order = " ".join([bare, *said[k + 1 : end + 1]]).rstrip(_PROSE_END + "\"'“”‘’«»")
                order = without_afterwords(order)  # "no event then," as "no event"
                order = order if order.isascii() else cleaned(order) or order  # "我要PASS吧" as PASS (`_SAID_SO`)
                if is_order(order, words):
                    found.append(order)
                if len(found) == PROSE_CUTS or last[-1] in ".!?":
                    break
        starts += 1
        if negated:  # the longest end naming only (no word in lower case): "PLACE-START Spain 3, France 1, France 2"
            named = [o for o in found if not any(w[:1].islower() for w in o.split()[1:])]
            return [], named[-1] if named else bare.rstrip(_PROSE_END)
        if found or starts == PROSE_STARTS:
            return found, ""
    return [], ""


#: Where a script written without spaces meets a Latin letter ("我选PASS", "私はPASS"): a word ends there, as at a space
#: (the order in capitals was one word with the words before it, and the line was listed untold).
_SCRIPTS_MEET = re.compile(r"(?<=[^\x00-\x7f\s])(?=[A-Za-z])")


#: The words before an order that say the player does not want it ("I don't want PASS", "I will not PASS", "je ne
#: veux pas PASS", "ich will nicht PASS", "no quiero PASS"), among the `NEGATION_WORDS` words before it in its clause
#: (after the last comma or stop: "not bad, I choose PASS", "pas mal, je choisis PASS", "kein Problem, ich nehme PASS"
#: choose it); in Chinese, written without spaces, a negation anywhere in the clause run into it ("我不要PASS", "别PASS",
#: "不选PASS", "没有PASS"), but for a word that holds one and says yes (`_AFFIRMING_ZH`: "不错，我选PASS", "没问题，就PASS吧").
#: Such a line was told "write it as: PASS" (players27), and "不错，我选PASS" nothing (players28).
_NEGATIONS = frozenset(
    [
        *("not", "don't", "dont", "don’t", "won't", "wont", "won’t", "never", "cannot", "can't", "can’t", "no"),
        *("ne", "pas", "jamais", "nicht", "kein", "keine", "keinen", "nie", "niemals", "nunca", "tampoco", "nada"),
    ]
)
_NEGATED_ZH = re.compile(r"[不别別没沒]")
#: Chinese words holding a negation's character that say yes or name something else: "not bad", "you're welcome",
#: "no problem", "never mind", "sorry", "almost", "but", "it's nothing", "others", "especially", "difference", "thanks".
_AFFIRMING_ZH = re.compile(
    r"不错|不錯|不客气|不客氣|没问题|沒問題|没关系|沒關係|不好意思|差不多|不过|不過|没事|沒事|别人|別人|特别|特別|区别|區別|"
    r"不用谢|不用謝|不谢|不謝"
)
_CLAUSE_END = re.compile(r"[,;.!?:，、。！？；：…]")
NEGATION_WORDS = 3


def negated_zh(text: str, clause: bool = True) -> bool:
    """Whether Chinese `text` says no (`_NEGATED_ZH`) in its last clause (all of it, not `clause`: a line holding an
    order's commas), its words that say yes aside."""
    last = _CLAUSE_END.split(text)[-1] if clause else text
    return bool(_NEGATED_ZH.search(_AFFIRMING_ZH.sub("", last)))


def _negated(said: list[str], k: int) -> bool:
    """Whether a negation comes before `said[k]` in its clause (`_NEGATIONS`, `negated_zh`)."""
    before = said[max(0, k - NEGATION_WORDS) : k]
    ends = [n for n, w in enumerate(before) if _CLAUSE_END.search(w[-1:])]
    before = before[ends[-1] + 1 :] if ends else before  # "not bad, I choose PASS": the clause of the order only
    return any(w.lower().strip(",.;:!") in _NEGATIONS for w in before) or negated_zh(said[k - 1])


#: The words before an order a sentence of prose chooses in any case ("I'll go with no event, because ...").
_CHOOSE = frozenset({"choose", "pick", "select", "take"})
_CHOOSE_PAIRS = frozenset({("go", "with"), ("going", "with"), ("opt", "for"), ("goes", "with"), ("stick", "with")})


def _choosing(said: list[str], k: int) -> bool:
    """Whether the words before `said[k]` choose it ("go with", "pick"): an order in lower case in prose."""
    last = said[k - 1].lower()
    return last in _CHOOSE or (k > 1 and (said[k - 2].lower(), last) in _CHOOSE_PAIRS)


def _not_prose(before: str) -> bool:
    """Whether the word `before` a word in capitals makes it no order said in prose: a label ("Default: PASS", pbem's
    line) or a word in capitals run on into it ("LOWESTNO EVENT", two of pbem's lines run together)."""
    return before[-1] in ":：" or (before.isalpha() and before.isupper())


def _under_signature(ex: Extracted, signed: list[str], words: tuple[str, ...]) -> None:
    """Note each order typed under a "-- " signature that stands above the quote (`own_lines`): the signature's lines
    are never read, so a player who typed their answer below it ("-- " / "Alice" / "NO EVENT", then the quote) was
    answered as if they had sent nothing.  Whether it is the signature's motto or an answer is not sure: it is not
    read, and told (`signed_note`) only when the engine takes it alone now (`pbem.app.lines.seeming_told`)."""
    for raw in signed:
        typed = _strip_comment(raw)
        line = _read(typed, words) if typed else ""
        if line and is_order(line, words):
            ex.signed.append((typed, line))


def signed_note(typed: str, order: str, above: str = '"-- "') -> str:
    """The note for a line under a "-- " signature above the quote (or under a sign-off, `above`) that is an order:
    not read, and what to send."""
    return (
        f'"{typed}" was not read: it is under your signature (the {above} line above it), which pbem does not read. '
        f"If it is your order, send it above that line: {order}"
    )


#: A label naming a step of the game: the words the games' reports name their steps by ("Turn 4, Alice to play",
#: "Hand 1, Tactics", "Gambit 1, Turn 2, Carol to play"), and those a player may mean one by ("Round 2", "Year 3").
#: "Step 1:", "Order 2:", "1st:" number a list, whatever the game.
_STEP_LABEL = re.compile(r"^(?:my\s++)?(turn|hand|gambit|round|year)\s*+#?(\d{1,3})(?!\d)", re.I)
_STEP_NAMED = re.compile(r"\b(turn|hand|gambit|round|year)\s++(\d{1,4})\b", re.I)
TITLE_SHOWN = 80  # characters of the title of the mail answered a note on a step's label quotes, at most


def off_step(typed: str, line: str, words: tuple[str, ...], answers: Callable[[], str]) -> str:
    """The note for an order labelled with a step of the game ("Turn 3: PASS") that the mail answered (its title,
    `answers()`) does not name so, or "" (no such label, or the same step: "Turn 5: PASS" answering "Turn 5, Alice
    to play").  Read, "Turn 3: PASS" answering the turn-5 report was an order for turn 5: which step the player
    meant is not sure, so the line is set aside and told, with the order to send alone."""
    base = cleaned(typed) or typed
    m = _STEP_LABEL.match(base)
    if m is None or is_order(base, words) or not is_order(line, words):
        return ""
    word, n = m.group(1).title(), int(m.group(2))
    title = answers()
    named = _steps_named(title)
    if named.get(word) == n:
        return ""
    if word in named:
        why = f"but the mail it answers is for {word} {named[word]}"
    elif title:
        why = f"but the mail it answers ({title[:TITLE_SHOWN]}) names no {word.lower()}"
    else:
        why = "but this mail answers none of pbem's to tell which step that is"
    return (
        f'"{typed}" was not read as an order: it names {word} {n}, {why}; to order for this step, send the order '
        f"alone: {line}"
    )


@lru_cache(maxsize=8)
def _steps_named(title: str) -> Mapping[str, int]:
    """The steps the title of the mail answered names ({"Turn": 5}), read once a title: every labelled line of a
    mail asks the same title, and reading it for each cost lines times its length (4,000 lines and a title of
    2,000 characters, the subject's cap: 0.62 s against 0.13 s for a short title; costs10)."""
    return MappingProxyType({w.title(): int(k) for w, k in _STEP_NAMED.findall(title)})


def _bracketed(line: str, words: tuple[str, ...]) -> str:
    """The order a line wrapped whole in brackets holds when it was not read as one ("(Pass)", "[vote red]": its first
    word not in capitals, it may be a remark, "(play nice!)"), or "": told how to write it when the engine takes it
    alone now (`pbem.app.lines.seeming_told`), a remark only listed."""
    inside = inside_brackets(line)
    rest = (cleaned(inside) or inside) if inside else ""
    return rest if rest and len(rest.split()) <= SENTENCE_WORDS and is_order(rest, words) else ""


def _labelled_by_other(line: str, words: tuple[str, ...]) -> str:
    """The order after a short label that is not the player's own ("Bob: PASS", maybe Bob's order), or "": told
    how to write it when the engine takes it alone now (`pbem.app.lines.seeming_told`); it was dropped untold."""
    after = labelled_by_other(line)
    rest = (cleaned(after) or after) if after else ""
    return rest if rest and len(rest.split()) <= SENTENCE_WORDS and is_order(rest, words) else ""


def _opened(line: str, words: tuple[str, ...]) -> str:
    """The order after a greeting or a connective not read ("Hallo, Pass", "Hi! Vote Red", "Hola a todos, pass",
    "Hello everyone and good luck: PASS"), or "": told how to write it when the engine takes it alone now
    (`pbem.app.lines.seeming_told`).  Title case there is how a sentence is written ("Hallo Bob! Pass auf dich
    auf", "Hi all, Play nice!"), and every reader of the mail reads it without the game's state: never read.  After
    "!" or "。" it was dropped untold; after a greeting of more words than a name or two and a colon, too."""
    return _order_after(opened_rests(line), words)


def _order_after(rests: list[str], words: tuple[str, ...]) -> str:
    """The first of `rests` (`opened_rests`) that is an order, or ""."""
    for after in rests:
        rest = cleaned(after) or after
        if len(rest.split()) <= SENTENCE_WORDS and is_order(rest, words):
            return rest
    return ""


def _opened_command(line: str) -> str:
    """The command alone after a greeting or a connective in any words and any case ("Hi, Help", "Bonjour, status?",
    "Hello everyone and good luck, HELP", "Also: History 3"), as it is sent, or "": not read (`opened_command` reads
    "Hi, HELP"), told with the command to send (`opened_command_note`).  "Hi, Help" was listed as not read; "Hello
    everyone and good luck: HELP" right above the quote was dropped as a client's header line."""
    return _command_after(opened_rests(line))


def _command_after(rests: list[str]) -> str:
    """The first of `rests` (`opened_rests`) that is a command alone, as it is sent, or ""."""
    for after in rests:
        rest = (cleaned(after) or after).rstrip(" .!?")
        said = rest.upper().split()
        if _control(rest) in OPENED_COMMANDS and (
            len(said) == 1 or (len(said) == 2 and said[0] == "HISTORY" and said[1].isdigit())
        ):
            return " ".join(said)
    return ""


def seeming_note(typed: str, order: str) -> str:
    """The note for a line that seems to be `order` said in a sentence ("I vote red"): not read, and how to write it.
    An order with an ending run into it no grammar reads ("PASSを宣言します": `cjk_tailed`) is told so."""
    if not typed.isascii() and typed.lstrip()[:1].isascii() and _CJK_TAIL.search(typed.rstrip()):
        said = "the words run into its end were not understood, so send it alone"
        return f'"{typed}" was not read as an order: {said}: {order}'
    return f'"{typed}" was not read as an order: an order line starts with its order word, so write it as: {order}'


def _command(ex: Extracted, word: str, line: str, lines: list[str], i: int, typed: str = "") -> int:
    """A control line other than END (`word` is its control word); returns the index of the next line to read.
    A press is read from the line as typed (`typed`), from its PRESS on: what the player wrote to other players
    is relayed as written, never as an order is read ("*really* sorry!", "good game, thanks :)" lost their
    emphasis, their "!" and their thanks)."""
    if word == "HELP":
        ex.help = True
    elif word in ("STATUS", "REPORT"):
        ex.status = True
    elif word in ("AWAY", "BACK"):
        _away(ex, line, i)
    elif word in ("HISTORY", "RESIGN", "ADDRESS"):
        _asking(ex, word, line, i)
    elif word == "CODE":
        cm = _CODE.match(line)
        if cm and code_value(cm.group(1)):
            ex.code = code_value(cm.group(1))
        else:
            ex.problems.append(f'"{line}": write the code alone after the word: CODE <your code>')
    else:
        start = typed.upper().find("PRESS")
        if start < 0 or not _PRESS.match(typed, start):
            return _press(ex, line, lines, i)
        said, lead = typed[start:], typed[:start].strip()
        if lead and set(lead) <= set("*_~"):
            said = said.replace(lead, "", 1)  # "**PRESS TO ALL:** text": the label's emphasis closed after it
        return _press(ex, said, lines, i)
    return i


def _asking(ex: Extracted, word: str, line: str, at: int) -> None:
    """HISTORY [turn], RESIGN [word] or ADDRESS new-address / ADDRESS CONFIRM word as the whole line; a line that
    only starts with the word is a remark."""
    said = " ".join(line.rstrip(".!").split())
    m = {"HISTORY": _HISTORY, "RESIGN": _RESIGN}.get(word, _ADDRESS).fullmatch(said)
    if m is None and word == "HISTORY" and _history_told(ex, line, said):
        return
    if m is None:
        ex.placed.append(at)
        ex.chatter.append(line)  # "History will judge us", "Resign from what?"
    elif word == "HISTORY":
        ex.history = m.group(1) or ""
    elif word == "ADDRESS":
        ex.address_confirm, ex.address = m.group(1), m.group(2)
    else:
        ex.resign = m.group(1) or ""


_HISTORY_OF = re.compile(
    r"history(?:\s++of)?(?:\s++(?:the\s++)?(?:turn|hand|gambit|step|round))?\s*+#?([^\s#]++)", re.I
)


def _history_told(ex: Extracted, line: str, said: str) -> bool:
    """HISTORY with a number `_HISTORY` does not read: one said as a word is read (`HISTORY three`, as an order's
    number dictated), a negative or too long one told what to write.  Both were listed as lines "that start with no
    order word" (explore35).  False for any other line (a remark: "History will judge us")."""
    m = _HISTORY_OF.fullmatch(said)
    if m is None:
        return False
    number = m.group(1).lower()
    if number in NUMBER_WORDS:
        ex.history = NUMBER_WORDS[number]
    elif re.fullmatch(r"[-+\u2212]?\d++", number):
        ex.problems.append(
            f'"{line}": write HISTORY alone for the whole history so far, or HISTORY and the number of a turn, hand '
            "or gambit from 1 (HISTORY 3)"
        )
    else:
        return False
    return True


def _away(ex: Extracted, line: str, at: int) -> None:
    if not meant(line):
        ex.placed.append(at)
        ex.chatter.append(line)  # "Back from holiday!": a remark, not an order
        return
    away = read_away(line)
    if away.problem:
        ex.problems.append(away.problem)
    else:
        ex.away = away


def _press(ex: Extracted, line: str, lines: list[str], i: int) -> int:
    """Read a press message that starts at `line`; returns the index of the line after it.

    `PRESS TO Bob: text` is a press of that one line unless an END PRESS follows before any other press
    (then `text` is its first line); `PRESS TO Bob` alone starts lines that END PRESS ends.
    """
    after = _press_to(line)
    if after is None:
        ex.problems.append(f'"{line}": a press message starts with PRESS TO <player> or PRESS TO ALL; nothing was sent')
        return i
    named, colon, said = after.partition(":")  # player names hold no colon (`pbem.engine.names`)
    to = [t.strip() for t in re.split(r"[,;]", named) if t.strip()]  # names may hold spaces
    body: list[str] = [said.strip()] if colon and said.strip() else []
    if body and not _press_goes_on(lines, i):
        _pressed(ex, line, Press(to, body))  # "PRESS TO Bob: shall we?" alone: the press is that line
        return i
    while i < len(lines):
        raw = lines[i]
        i += 1
        if _is_end_press(raw):
            if any(b.strip() for b in body):
                _pressed(ex, line, Press(to, body))
            else:  # an empty block was relayed as a mail saying nothing, and kept in the history (explore35)
                ex.problems.append(f'"{line}": the press holds no text before its END PRESS; nothing was sent')
            return i
        body.append(raw.rstrip())
    ex.problems.append(
        f'"{line}": press must end with a line "END PRESS", or be one line: {line.rstrip(": ")}: <message>;'
        " nothing was sent"
    )
    return i


def _pressed(ex: Extracted, line: str, press: Press) -> None:
    """`press` read, unless the message holds it already (the same names, in any case, and the same lines): a press
    typed or pasted twice is relayed once and the answer says so, as an order typed twice is read once (walk6: every
    recipient got it twice).  Linear: one look-up a block."""
    key = (tuple(t.casefold() for t in press.to), tuple(press.body))
    if key in ex.press_keys:
        ex.problems.append(press_repeat_note(line))
        return
    ex.press_keys.add(key)
    ex.press.append(press)


def press_repeat_note(line: str) -> str:
    """The acknowledgement's note on a press that repeats one above it (`_pressed`)."""
    return f'"{line}" repeats a press above it in the same message: sent once'


def _press_to(line: str) -> str | None:
    """What follows PRESS TO, without the white space around it and one ":" at its end; None for no press line.
    What `^press\\s+to\\s+(.+?)\\s*:?\\s*$` matched, in one pass: the pattern tried every split of a run of
    spaces before a letter between its three runs, for each character of it (129 s for 3,000 spaces)."""
    m = _PRESS.match(line)
    if m is None or "\n" in line or len(line) == m.end():
        return None
    rest = line[m.end() :]
    named = rest.strip()
    if not named:
        return rest[-1]  # white space only: the pattern kept its last character
    if len(named) > 1 and named.endswith(":"):
        named = named[:-1].rstrip()
    return named


def _is_end_press(raw: str) -> bool:
    return raw.strip().upper() in ("END PRESS", "ENDPRESS")


def _press_goes_on(lines: list[str], i: int) -> bool:
    """Whether an END PRESS comes from `lines[i]` on before the next PRESS line: then `PRESS TO Bob: text`
    starts a press of several lines, else it is a press of one line. Each line is looked at by one press only."""
    for k in range(i, len(lines)):  # not lines[i:]: a copy of the rest for every press would be quadratic
        raw = lines[k]
        if _is_end_press(raw):
            return True
        if raw.lstrip()[:5].upper() == "PRESS":
            return False
    return False
