"""What people type around an order line (pure): list markers, emphasis, trailing punctuation, quotes.

`cleaned(line)` is the line an order or command is read from: without a list marker (``- ``, ``* ``,
``• ``, ``1. ``, ``2) ``, ``1st: ``, ``2nd - ``, a bullet and a tab; a keycap digit before a label's mark, ``Step 1️⃣:``,
as the digit; typed tight, ``•PASS``, ``1.PASS`` (full-width too), ``1、PASS``, ``・PASS``, ``①PASS``; a table's row
pasted as text, ``| PASS |``, ``1<tab>PASS``; CJK brackets, ``【PASS】``), an arrow (``→ ``, ``-> ``, ``=> ``: players mark the line they
chose from a report's list), or what the report itself prints before a line of its lists (``(default) ``,
``(on file) ``: a line copied out of it is read as the order it lists), a tick or a tag in brackets (``[x] ``,
``✓ ``, ``[Alice] ``: an answer typed into the mail answered, as Outlook's inline replies are), a pointer after
the order (``NO EVENT  <-- this one``), remarks in brackets, courtesies, smileys, ticks and dictated punctuation
after it (``TRIBUTE Gold 7 (my best card)``, ``NO EVENT, please``, ``VOTE RED - thanks :)``, ``PASS [x]``,
``Vote red period``; a dictated ``comma`` becomes ``,``, a dictated ``question mark`` ``?``, and a question is refused as one),
emoji around it (``👉 NO EVENT 👍``), in full-width letters as Japanese and Chinese keyboards type them
(NFKC), without emphasis markers (Gmail's plain part writes bold
as ``*bold*``, some clients ``_this_``), without a full stop or other punctuation at the end
(``No event.``, ``PLACE NONE.``, ``PASS!``), and without quotes around the whole line or around the
code (``CODE "K7QX-2MPD"``), or brackets around a whole order whose word is in capitals (``(PASS)``, ``<NO EVENT>``,
``[TRIBUTE Gold 4]``: `_unwrapped`; ``(play nice!)`` is a remark).  A line is read as an order only if its cleaned form starts with an order
word; chatter keeps what the player wrote.  `unarmoured` undoes an inline PGP clearsigned message
(RFC 4880 section 7): the armour header and signature go, dash-escaped lines get their text back.
"""

from __future__ import annotations

import re
import unicodedata

_MARKER = re.compile(
    # "1\tPASS": a number alone before the order is a list's too (a table's numbered row copied, its cells parted by a
    # tab; "① PASS", whose circled digit NFKC makes "1"; "1、PASS" as Chinese and Japanese number a list)
    r"^\s*(?:(?:[-*+•·‣◦▪●○■□–—xX»›oO§]|\(?\d{1,2}(?:\.\)|[.):、])?|\d{1,2}[ \t\u00a0]*[-–—]|\(?[a-zA-Z][.)]"
    r"|\(?(?:i{2,3}|iv|vi{1,3}|ix|xi{1,2})[.)]"  # "ii. PASS": Outlook's list numbered in Roman numerals
    r"|\(?\d{1,2}(?:st|nd|rd|th)(?:\.\)|[.):]|[ \t\u00a0]*[-–—])"  # "1st: PASS", "2nd - NO EVENT": ordinals
    r"|(?:first|second|third|fourth|fifth)(?::|[ \t\u00a0]*[-–—]))"  # "First: PASS"
    r"[ \t\u00a0]+"  # "x NO EVENT": ticked; "1 - NO EVENT", "1: PASS", "1.) VOTE RED", "» DISCARD NONE"
    # "o NO EVENT", "§ NO EVENT": the second and third levels of Outlook's bullets (Courier New's o, Wingdings' §)
    r"|(?:[-=\u2013\u2014]{1,2}>|[→⇒⟶⟹➔➜➙➛➝➞➟➠➡▶▸►➢➤])[ \t\u00a0]*"  # an arrow, a space after it or not
    # a Japanese list's dot ("・PASS", no space: an IME types none), a table row's first bar ("| PASS |": `_TRAILING`
    # takes the last), a number, a letter or a bullet typed tight against the order ("１．ＰＡＳＳ", "（１）ＰＡＳＳ",
    # "1、PASS", "a)PASS", "Ⅱ.PASS", "•PASS", "-NO EVENT": a phone's list with its space lost; "a.PASS" was told nothing)
    r"|[・|│][ \t\u00a0]*|(?:\(?\d{1,2}[.)、]|[-•·‣◦▪●○■□–—])(?=[^\W\d_])"
    r"|\(?(?:[a-z]|i{2,3}|iv|vi{1,3}|ix|xi{1,2})[.)](?=(?-i:[A-Z]))"  # a letter's: capitals after it ("e.g. PASS": none)
    r"|\((?:default|on file)\)[ \t\u00a0]+"  # what the report prints before a default or an order on file
    r"|\[[^\]\s][^\]]{0,19}\][ \t\u00a0]*"  # "[x]" ticked, "[Alice]", "[AM]": an answer typed into a mail
    r"|[✓✔☑✅][ \t\u00a0]*)(?=\S)",
    re.IGNORECASE,
)
# "NO EVENT  <-- this one" (or "<— this one": a phone's autocorrect makes "--" an em dash, and "->" "—>" too):
# from the pointer (a space before it; no run of spaces in the pattern, which a search
# would scan once per space) to the end of the line
_POINTER = re.compile(r"(?<=[ \t\u00a0])(?:<[-\u2013\u2014]+|<=+|<<+|←|⬅)(?:[ \t\u00a0].*)?$")
_EMPHASIS_RUN = re.compile(r"[*_~]+")  # what `_unemphasised` takes off, read run by run

# "…": the one character phones type for "...".  A match starts only where a run does (tried from each of its
# characters, a run followed by a letter cost its square).
_TRAILING = re.compile(r"(?<![\s.,;:!。、！；…|│])[\s.,;:!。、！；…|│]+$")  # "|": a table row's last bar
_QUOTES = "\"'`“”„‘’‚«»「」『』"


# What people put after an order, taken off one at a time from the end (`_untailed`), each only after a space,
# a comma or a full stop (no run of spaces in a pattern: a search would scan a run once per space):
_THANKS = re.compile(  # "NO EVENT, please", "PASS thanks!", "VOTE RED - thanks": a courtesy after the order
    r"(?<=[ \t,;.!、])(?:please|pls|plz|(?:thanks|thank you|thank u)(?: (?:very|so) much| a lot| again)?|many thanks|"
    r"much appreciated|thx|tnx|cheers|merci|"
    r"danke|bitte|gracias|grazie|obrigad[oa]|dank je|dzięki|tack|por favor|per favore|s'il vous pla[iî]t|"
    r"s'il te pla[iî]t|svp|stp|alsjeblieft|alstublieft|proszę|(?:vielen|herzlichen) dank|danke schön|"
    r"muchas gracias|merci beaucoup|grazie mille|muito obrigad[oa]|merci (?:d['’]|par )avance|danke im voraus|s\.v\.p|"
    # in Dutch, Finnish, Russian, Japanese, Chinese and Korean ("NO EVENT、よろしくお願いします" was refused whole)
    r"bedankt|kiitos|спасибо|пожалуйста|ありがとう(?:ございます)?|よろしく(?:お願いします|お願い致します)?|お願いします|"
    r"谢谢|謝謝|请|請|감사합니다|고맙습니다"
    r"|period|full stop|exclamation (?:mark|point)"  # punctuation dictated and written out ("Vote red period")
    # a tick after the order, ticked in a list ("NO EVENT [x]"), a kiss ("x"), a chat's agreement ("+1")
    r"|\+1|x{1,3}|\[[xX✓✔]\]|\([xX✓✔]\)"
    r"|[:;=][-'^o]?[()\[\]DPpO3/|*]|<3|\^_?\^|xD)[.!]*$",  # a smiley: ":)", ":-)", ";)", ":D", ":P", "<3", "^^"
    re.IGNORECASE,
)
_CONDITION = re.compile(r"\b(?:if|unless|when|whenever|only|except|but|not|or|until|provided|depending)\b", re.I)
_QUESTION = re.compile(r"(?<=[ \t,;])question mark$", re.IGNORECASE)  # "Vote red question mark": dictated "?"
#: A comma dictated where the order holds one, or before what follows it ("tribute gold 5 comma thanks period",
#: "PLACE-START Spain 3 comma France 1"): after a letter or digit, before a space or the end (players30).
_COMMA_SAID = re.compile(r"(?<=[^\W_]) comma(?= |$)", re.IGNORECASE)
_SEPARATORS = " \t,;-\u2013\u2014~"  # between an order and what follows it: "VOTE RED - thanks", "— cheers"
TAILS = 4  # things taken off the end of one line at most ("PASS - thanks :) x")
#: The words a courtesy or a dictated mark ends with (a tail ending with another word of letters is none of them).
_COURTESIES = ("please", "pls", "plz", "thanks", "you", "u", "much", "lot", "again", "appreciated", "thx", "tnx")
_COURTESIES_ABROAD = (
    *("cheers", "merci", "danke", "bitte", "gracias", "grazie", "obrigado", "obrigada", "je", "dzięki"),
    *("favor", "favore", "plaît", "plait", "svp", "stp", "alsjeblieft", "alstublieft", "proszę", "dank", "schön"),
    *("beaucoup", "mille", "avance", "voraus", "bedankt", "kiitos", "спасибо", "пожалуйста", "ありがとう"),
    *(
        "ありがとうございます",
        "よろしく",
        "よろしくお願いします",
        "よろしくお願い致します",
        "お願いします",
        "谢谢",
        "謝謝",
    ),
    *("请", "請", "감사합니다", "고맙습니다"),
)
_LAST_WORDS = frozenset(
    (*_COURTESIES, *_COURTESIES_ABROAD, "tack", "period", "stop", "mark", "point", "x", "xx", "xxx", "xd")
)
TAIL = 40  # characters at the end of a line a courtesy, smiley or tick is looked for in ("thank you very much!!")
_ASIDE = re.compile(r"(?<=\S)[ \t]+\([^()]{0,60}\)$")  # "TRIBUTE Gold 7 (my best card)": a remark after the order
_DECORATION = frozenset(("So", "Sk", "Cs", "Co"))  # emoji, arrows, hands, their skin tones: "👉 NO EVENT 👍"
_JOINERS = frozenset("\ufe0f\ufe0e\u200d\u20e3")  # emoji variation selectors, the joiner, the keycap


def _undecorated(text: str) -> str:
    """`text` without emoji and other symbols at its start and end (and the spaces beside them).  Linear."""
    start, end = 0, len(text)
    while start < end and (
        text[start] in _JOINERS or unicodedata.category(text[start]) in _DECORATION or _keycap(text, start)
    ):
        start += 1
        while start < end and text[start].isspace():
            start += 1
    while end > start and (text[end - 1] in _JOINERS or unicodedata.category(text[end - 1]) in _DECORATION):
        end -= 1
        while end > start and text[end - 1].isspace():
            end -= 1
    return text[start:end]


# A keycap digit before a label's mark ("Step 1️⃣: PASS", "1️⃣: PASS", "Order 2️⃣ - PASS"): the digit it shows.
_KEYCAP_LABEL = re.compile(r"(\d)\ufe0f?\u20e3(?=[ \t\u00a0]*+[:.)=\u2013\u2014-])")


def _keycaps(text: str) -> str:
    """`text` with each keycap digit before a label's mark as the digit: the label was chatter, "Step 1: PASS" read."""
    return _KEYCAP_LABEL.sub(r"\1", text) if "\u20e3" in text else text


def _keycap(text: str, at: int) -> bool:
    """Whether a keycap emoji starts at `at` ("1️⃣ TRIBUTE Gold 4": a digit, "#" or "*", the variation selector,
    the enclosing keycap): a numbered list's bullet on a phone, its digit no part of the order (it was read "1
    TRIBUTE Gold 4", no order word first, and the message found no order)."""
    if text[at] not in "0123456789#*":
        return False
    nxt = at + 1 + (text[at + 1 : at + 2] == "\ufe0f")
    return text[nxt : nxt + 1] == "\u20e3"


# A choice marked on a line of the mail answered: a pointer or a tick after it, a tick before it, a remark naming it
# as the writer's pick.  No line pbem writes carries one (tests/test_replies4_phones.py reads every golden mail).
_CHOSEN_AFTER = re.compile(
    r"(?:(?<=[ \t\u00a0])(?:<[-\u2013\u2014]+|<=+|<<+|←|⬅|👈|\[[xX✓✔]\]|\([xX✓✔]\)|[xX])|[✓✔☑✅]"
    r"|(?<=[ \t\u00a0])\((?:(?:my|this|the|our)[ \t]+)?(?:pick|choice|one|answer|order|vote|selection)\b[^()]{0,30}\)"
    r"|(?<=[ \t\u00a0])\((?:mine|yes|chosen|selected|this)\))(?:[ \t\u00a0][^<←⬅]{0,40})?$",
    re.IGNORECASE,
)
_CHOSEN_BEFORE = re.compile(r"^[ \t\u00a0]*+(?:\[[xX✓✔]\]|\([xX✓✔]\)|[xX][ \t\u00a0]|[✓✔☑✅👉])")


# A line of its own that marks the line above it as chosen: typed under a quoted line (Gmail's "respond inline", a
# phone where the quote cannot be edited): "<-- this", "^ this one", "☝️", "[x]", "x", "this one", "my pick".  Not
# "yes": under a quoted line of another player's press ("> VOTE RED with me"), it agrees, it does not order.
_POINTS_UP = re.compile(
    r"^[ \t\u00a0]*+(?:\^+|☝️?|👆|<[-\u2013\u2014]+|<=+|←|⬅|\[[xX✓✔]\]|[xX✓✔☑✅]|this|this one|that one|mine|"
    r"my (?:pick|choice|vote|answer|order))(?:[ \t\u00a0]+(?:this|this one|one|please|mine|my (?:pick|choice)))?"
    r"[ \t\u00a0.!]*$",
    re.IGNORECASE,
)


def points_up(line: str) -> bool:
    """Whether `line` alone marks the line above it as the writer's choice ("<-- this", "^ this one", "x")."""
    return len(line) <= 40 and bool(_POINTS_UP.match(line))


_MARKS = frozenset("<←⬅👈👉✓✔☑✅")  # pointers, hands and ticks: a mark holds one, or is one of the forms below
_PICK = re.compile(
    r"\((?:(?:my|this|the|our)[ \t]+)?(?:pick|choice|one|answer|order|vote|selection|mine|yes|chosen|selected|this)\b",
    re.I,
)


def may_be_marked(line: str) -> bool:
    """Whether `line` may carry a mark of choice (`chosen`): a pointer or a tick in it, "[x]", "(x)", " x", "x " at
    its start, or a remark naming a pick at its end.  Most lines of a quoted report hold none: no pattern is tried."""
    if not _MARKS.isdisjoint(line) or "[x]" in line or "[X]" in line or "(x)" in line or "(X)" in line:
        return True
    if " x" in line or " X" in line or line.lstrip(" >\t").startswith(("x ", "X ")):
        return True
    return line.rstrip().endswith(")") and _PICK.search(line[-80:]) is not None


#: The pieces of a mark `may_be_marked` looks for, as plain strings: an ASCII line holds one of them, or a line end
#: after ")", when it may carry a mark ("x " and " x" stand for "x " at its start after quote marks as well).
_MARK_PIECES = ("<", " x", " X", "x ", "X ", "[x]", "[X]", "(x)", "(X)")
_OTHER_MARKS = re.compile("[" + "".join(sorted(c for c in _MARKS if not c.isascii())) + "]")
_CLOSED = re.compile(r"\)[^\S\n]*$", re.MULTILINE)  # ")" at a line's end, white space after it


def may_be_marked_lines(lines: list[str]) -> list[int]:
    """The indexes of `lines` (none holding a line break) of which `may_be_marked` holds, in order.  Asked line by
    line, the test cost two microseconds a line of a quoted report, which holds none (a tenth of the copy search's
    cost); here each piece of a mark is searched for in the lines' text in C (`str.find`; a pattern for the non-ASCII
    marks and for a line ending with ")"), and only a line holding one is asked."""
    text = "\n".join(lines)
    at: list[int] = [m.start() for m in _CLOSED.finditer(text)]
    if not text.isascii():
        at += [m.start() for m in _OTHER_MARKS.finditer(text)]
    for piece in _MARK_PIECES:
        found = text.find(piece)
        while found >= 0:
            at.append(found)
            found = text.find(piece, found + 1)
    out: list[int] = []
    line, seen = 0, 0
    for p in sorted(at):
        line += text.count("\n", seen, p)
        seen = p
        if (not out or out[-1] != line) and may_be_marked(lines[line]):
            out.append(line)
    return out


def chosen(text: str) -> bool:
    """Whether a line of a quoted mail carries the writer's mark of choice: "NO EVENT <-- this", "VOTE RED  <== this
    one", "[x] NO EVENT", "NO EVENT x", "✓ PASS", "* VOTE RED (my pick)": the one line of the report's list the
    writer chose (`pbem.orders.furniture.own_lines` reads it as theirs when it is an order)."""
    if not may_be_marked(text):
        return False
    if _CHOSEN_BEFORE.match(text):
        return True
    tail = text[-120:]  # a mark is at the end: the pattern is tried on the last characters only (linear in the line)
    return bool(_CHOSEN_AFTER.search(tail))


# Hyphens other than "-" (after NFKC): the hyphen, the non-breaking hyphen a copied web page may hold, the figure
# dash and the minus sign; the soft hyphen, invisible, goes.
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2212": "-", "\u00ad": None})
#: An en dash between two letters or digits: a hyphen an editor's autocorrect or a copied page changed ("DISCARD–IF–
#: NEEDED" was no order); one between spaces ("NO EVENT – thanks") parts a remark off and stays.
_INWORD_DASH = re.compile(r"(?<=[^\W_])\u2013(?=[^\W_])")


def _normalised(text: str) -> str:
    """`text` in NFKC (full-width letters as ASCII), every hyphen as "-", keycap digits as digits, a circled number
    that starts it as a list's number ("①PASS": NFKC makes it "1PASS", no order)."""
    body = text.lstrip()
    if body and "\u2460" <= body[0] <= "\u2473":  # ① to ⑳
        text = f"{text[: len(text) - len(body)]}{ord(body[0]) - 0x245F}. {body[1:]}"
    text = _INWORD_DASH.sub("-", _unmixed(unicodedata.normalize("NFKC", text)).translate(_HYPHENS))
    return _keycaps(_OTHER_DIGIT.sub(_ascii_digit, text))


#: A decimal digit of another script (Arabic-Indic "٣", Persian "۳", Devanagari "३", Bengali, Thai ...): a phone's
#: keyboard in that language types them; NFKC leaves them (it makes full-width "３" "3").  Each is the digit it is.
_OTHER_DIGIT = re.compile(r"(?![0-9])\d")


def _ascii_digit(m: re.Match[str]) -> str:
    return str(unicodedata.decimal(m.group(0)))


#: Cyrillic and Greek letters drawn as Latin ones: "PАSS" with a Cyrillic А (a phone's keyboard left on Russian, a
#: copied page) was no order word, told "write it as: PASS" (players31: 24 of 24 generated cases).
_LOOKALIKES = str.maketrans(
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0430\u0435\u043e\u0440\u0441\u0443\u0445"
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u03bf",
    "ABEKMHOPCTXaeopcyxABEZHIKMNOPTYXo",
)
LOOKALIKES = _LOOKALIKES  # (the redaction of codes reads them too: `pbem.mail.inbound.redact`)
_WORD_LETTERS = re.compile(r"[^\W\d_]++")


def _unmixed(text: str) -> str:
    """Each word of `text` mixing Latin letters with Cyrillic or Greek look-alikes (`_LOOKALIKES`) in Latin letters
    only; a word wholly in another script stays as it is (a Russian remark is no order)."""
    return _WORD_LETTERS.sub(_latin, text)


def _latin(m: re.Match[str]) -> str:
    word = m[0]
    if word.isascii() or not any("a" <= ch.lower() <= "z" for ch in word):
        return word
    return word.translate(_LOOKALIKES)


_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_TEENS = ("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_NUMBERS = {w: str(n) for n, w in enumerate((*_UNITS, *_TEENS))}
NUMBER_WORDS = _NUMBERS  # (HISTORY three: `pbem.orders.extract._history_told`)
# A number dictated as a word where an order holds a number: after a space, before a comma, a semicolon, the end or
# "on" ("PLACE England three, Open one", "Open two ON Denmark").  No legal line of any game holds one there
# (tests/test_replies3_players.py: `cleaned` leaves every legal line of a bot game as it is).
_NUMBER = re.compile(rf"(?<=\s)(?:{'|'.join(_NUMBERS)})(?=[ \t]*+(?:[,;.!]|$)|[ \t]++on\b)", re.IGNORECASE)


NUMBERED = 200  # characters of a line at most whose numbers said as words are read as digits (an order is short)
_NOT_BEFORE_NUMBER = frozenset(
    ("a", "an", "the", "this", "that", "which", "each", "every", "any", "no", "one", "only", "just", "more", "my")
)


def _digits(m: re.Match[str]) -> str:
    """A number word as its digits when it stands where an order's number does: two words or more before it, the
    last a name ("Gold seven", "England three"), not "Take this one." nor "Play one!" (closings, `pbem.app.lines`)."""
    before = m.string[: m.start()].split()
    if len(before) < 2 or before[-1].lower().strip(",;") in _NOT_BEFORE_NUMBER:
        return m.group(0)
    return _NUMBERS[m.group(0).lower()]


#: What Japanese, Chinese and Korean put right after an order to say it is the player's choice, politely ("PASSでお願い
#: します", "PASSにします", "PASS吧", "PASS로 하겠습니다", "PASS 부탁드립니다"): the order was read with it ("PASSでお願い
#: します" no order at all, "DISCARD Sortieでお願いします" naming no card) and refused.  Only after a Latin letter, a
#: digit or a closing bracket of the order, and only a saying that takes it: a grammar, not a list of phrases
#: (players26: "PASSを選びます", "PASSを選択します", "PASSでいきます" and "PASS할게요" were refused as whole phrases
#: outside the list).  Japanese: a particle, then a verb of choosing in its polite or plain affirmative form (negations
#: end otherwise: "PASSしません", "PASSを選ばない", "PASSにしません" are no tail, and stay refused); Chinese: "吧", "就好",
#: "了", "就行", "就可以"; Korean: a particle, then 하다, 선택하다, 가다 or 부탁 in a polite affirmative ending ("PASS 안 할게요", "PASS 하지
#: 않겠습니다" are negations, no tail).
_JA_STEM = r"(?:し|選び|えらび|選択し|決め|決定し|いき|行き|出し|提出し|お願いし|お願い致し|お願いいたし|頼み)"
_JA_PLAIN = r"(?:する|選ぶ|えらぶ|選択する|決める|決定する|いく|行く|出す|提出する)"
_JA = (
    r"(?:で|に|を|は)?(?:"
    + _JA_STEM
    + r"(?:ます|ました|たいです|たいと思います|ましょう|ようと思います)|"
    + _JA_PLAIN
    + r"(?:よ|ね)?|(?:よろしく)?お願い(?:します|致します|いたします)?|よろしく|(?:いい|良い)です|です)|で"
)
_ZH = r"吧|(?:就(?:好|行|可以)|好)了?|了|即可"  # "PASS就行", "PASS就可以了" (players27): "it will do"
_KO = (
    r"(?:로|으로|를|을)?[ \t]?(?:선택[ \t]?)?(?:하겠습니다|할게요|할께요|합니다|해요|할래요|해주세요|해 주세요)|"
    r"(?:로|으로)[ \t]?(?:가겠습니다|갈게요|갑니다|가요)|(?:로|으로)?[ \t]?(?:부탁드립니다|부탁합니다|부탁해요|부탁드려요)|"
    r"(?:로|으로|를|을)[ \t]?선택|요"
)
_SAID_SO = re.compile(r"(?<=[A-Za-z0-9)\]])[ \t]?(?:" + _JA + "|" + _ZH + "|" + _KO + r")[。.!！]*$")
#: What Japanese, Chinese and Korean put right after an order to say the player will NOT give it ("PASSにしません",
#: "PASSを選ばない", "PASSはやめます", "PASS不要", "PASS就算了", "PASS 안 할게요", "PASS는 하지 않겠습니다", "PASS 말고"):
#: a grammar as `_SAID_SO`'s, in the negative.  Such a line was refused with the engine's reason ("no card named
#: ...しません"), the whole message with it, where "I don't want PASS" is set aside and listed (players29).
_JA_NOT_STEM = r"(?:し|選ば|えらば|選択し|決め|決定し|いか|行か|出さ|提出し)"
_JA_NOT = (
    r"(?:で|に|を|は|も)?(?:"
    + _JA_STEM
    + r"(?:ません(?:でした)?)|"
    + _JA_NOT_STEM
    + r"(?:ない(?:です|でおきます|ことにします|よ|ね)?|ないでください)|"
    + r"(?:やめ|止め)(?:ます|る|ておきます|とく)|なし|無し|なしで|いらない|要らない|いりません|結構です)"
)
_ZH_NOT = r"(?:就)?(?:算了|不要了?|不用了?|不选了?|不選了?|不行|不了)"
_KO_NOT = (
    r"(?:는|은|를|을|로|으로)?[ \t]?(?:안[ \t]?(?:해요|할게요|할께요|할래요|합니다|하겠습니다|함|해)|"
    r"(?:선택[ \t]?)?하지[ \t]?(?:않겠습니다|않을게요|않아요|않습니다|않음|마세요|말아주세요)|말고|싫어요|싫습니다)"
)
_SAID_NOT = re.compile(r"(?<=[A-Za-z0-9)\]])[ \t]?(?:" + _JA_NOT + "|" + _ZH_NOT + "|" + _KO_NOT + r")[。.!！]*$")


def said_not(line: str) -> str:
    """The order `line` says the player will not give, with a negation in Japanese, Chinese or Korean run into it
    (`_SAID_NOT`: "PASSにしません" -> "PASS"), or "" for any other line."""
    text = line.strip()
    m = _SAID_NOT.search(text) if not text.isascii() else None
    return text[: m.start()].rstrip() if m else ""


#: A name quoted inside an order (`DISCARD "Close-Quarter Advantage"`, `EVENT CLAIM “First Cousins” TARGET Carol`,
#: `PLACE-START "Spain 3", "France 1", "France 2"`): a pair of quote marks after a space or a comma around a name
#: without one, closed before a space, a comma, a stop or the line's end.  Three games refused such an order (the
#: name not one of theirs); Dynasties' parser read past the marks (players27).  No legal line of a game holds one.
_QUOTED_ITEM = re.compile(r"(?<=[ \t,])([\"“„«‘「『])([^\"“”„«»‘’「」『』\n]{1,80}?)([\"”“»’」』])(?=[ \t,;.!]|$)")
_PAIRS = frozenset({('"', '"'), ("“", "”"), ("„", "“"), ("„", "”"), ("«", "»"), ("‘", "’"), ("「", "」"), ("『", "』")})


def _unquoted_items(text: str) -> str:
    """`text` without the pairs of quote marks around a name inside it (`_QUOTED_ITEM`); a mark left unpaired stays."""
    if not any(ch in text for ch in '"“„«‘「『'):
        return text
    return _QUOTED_ITEM.sub(lambda m: m.group(2) if (m.group(1), m.group(3)) in _PAIRS else m.group(0), text)


ROUNDS = 3  # passes over a line at most: what is around an order comes in layers ("“VOTE RED - thanks”", "x 👉 PASS")


def cleaned(line: str) -> str:
    """The order a player meant by `line` (see the module docstring); `line` itself if nothing is around it.  What is
    around an order is taken off in passes (at most `ROUNDS`) until a pass changes nothing: each layer may hide the
    next ("“VOTE RED - thanks”" in quotes, "NO EVENT xx;" before a semicolon, "👍." an emoji before a full stop)."""
    text = line.strip()
    if not text.isascii():  # full-width "ＮＯ ＥＶＥＮＴ" as typed in Japan; "PLACE‑START" with a non-breaking hyphen
        text = _normalised(text).strip()
    if "comma" in text.lower():
        text = _COMMA_SAID.sub(",", text)
    if _struck(text):
        return text  # "~~VOTE RED~~": struck out (Markdown, WhatsApp, Slack), no order: not read
    for _ in range(ROUNDS):
        before = text
        if not text.isascii():
            text = _SAID_SO.sub("", _undecorated(text))
        text = _POINTER.sub("", _MARKER.sub("", _MARKER.sub("", text, count=1), count=1)).rstrip()  # "[AM] - PASS"
        text = _unemphasised(text).strip()
        text = _untailed(text)
        if len(text) > 1 and text[0] in _QUOTES and text[-1] in _QUOTES and "\n" not in text:
            # in one pass what `^[quotes]+(.*?)[quotes]+$` took off: that pattern tried every split of a run of quote
            # marks for each character of it (4 s for 1,600 of them)
            text = text.strip(_QUOTES).strip()
        text = _TRAILING.sub("", _unwrapped(_unquoted_items(text)))
        if text == before:
            break
    if len(text) <= NUMBERED and text.count(" ") >= 2 and _NUMBER.search(text):  # "Gold seven": 3 words or more
        text = _NUMBER.sub(_digits, text)  # dictated "TRIBUTE Gold seven"
    return text


# What `cleaned` takes off a line's start besides markers and emoji (and the brackets around a whole order, "(PASS)",
# which the quick test of `front`'s first words reads past: they are no word)
_FRONT = " \t\u00a0*_~" + _QUOTES


def front(line: str) -> str:
    """`line` from where `cleaned` could find its order word: normalised as `cleaned` does, and without the
    markers, quotes, emphasis and emoji it could take off the start ("1. [x] “PASS”", "👉 a) b) PASS", an order in
    full-width letters).
    Takes off at least what `cleaned` does, so a quick test of the first words of `front(line)` never rejects a line
    `cleaned` would read as an order (`pbem.orders.extract.own_line`).  Linear: anchored patterns, a bounded count."""
    text = line
    if not text.isascii():
        text = _normalised(text)
    for _ in range(2 * ROUNDS + 1):  # each pass of `cleaned` takes off two markers at most
        before = text
        text = text.lstrip(_FRONT)
        if not text.isascii():
            text = _SAID_SO.sub("", _undecorated(text))
        text = _MARKER.sub("", text, count=1)
        if text == before:
            break
    return text


_CLOSERS = {"(": ")", "[": "]", "{": "}", "<": ">", "【": "】", "〔": "〕", "〖": "〗"}  # and as CJK text sets a label


def inside_brackets(text: str) -> str:
    """What brackets around the whole of `text` hold, in any case ("(Pass)": "Pass"), or "" (`_unwrapped`'s rule but
    for the capitals): a line so wrapped whose inside is an order is told how to write it (`pbem.orders.extract`)."""
    unwrapped = _unwrapped(text, capitals=False)
    return unwrapped if unwrapped != text else ""


def _unwrapped(text: str, capitals: bool = True) -> str:
    """`text` without the brackets around the whole of it ("(PASS)", "<NO EVENT>", "[TRIBUTE Gold 4]": an order
    set apart as a line of a form is filled in): only when the bracket that opens it is closed at its very end and
    nowhere before ("(a) PASS (b)" is kept as typed), but for one between spaces, an order's own sign ("<NEGATE Resist
    Cavalry > Attack Rear>"), and only when its first word is in capitals as pbem prints an order word: a remark in
    brackets is typed in small letters ("(play nice!)", "(take care)": they were chatter, and stay so, never refused
    as orders).  Chatter so wrapped stays chatter ("(THINKING)")."""
    closer = _CLOSERS.get(text[:1])
    if closer is None or len(text) < 3 or text[-1] != closer:
        return text
    inner = text[1:-1].strip()
    if text[0] in inner or closer in inner.replace(f" {closer} ", " "):
        return text
    if capitals and not inner.split(None, 1)[0].isupper():
        return text
    return inner


def _untailed(text: str) -> str:
    """`text` without the remarks in brackets, courtesies, ticks, smileys and dictated punctuation after the order
    ("TRIBUTE Gold 7 (my best card)", "VOTE RED - thanks",
    "NO EVENT :)", "PASS [x]", "Vote red period"), up to `TAILS` of them, and with a dictated "question mark" written
    as "?" (a question is not an order: `pbem.app.refusals.questioned`), as is a remark that asks ("VOTE RED (or
    blue?)").  Nothing is taken off a line that is only one of them ("Thanks")."""
    if "mark" in text or "MARK" in text or "Mark" in text:
        text = _QUESTION.sub("?", text)
    asked = False
    for _ in range(TAILS):
        # "NO EVENT (aliases: PASS) (my pick)": both remarks off.  A tail is short: it is looked for in the line's
        # last `TAIL` characters only (the pattern's look-behind still sees the character before them)
        m = _ASIDE.search(text) if text.endswith(")") else None
        last = text[text.rfind(" ") + 1 :].rstrip(".!").lower()
        if m is None and last.isalpha() and last not in _LAST_WORDS:
            break  # no tail ends with this word ("EVENT", "Emperor"): the pattern is not tried
        m = m or _THANKS.search(text, max(0, len(text) - TAIL))
        asks = m is not None and ("?" in m.group(0) or "\uff1f" in m.group(0))
        if m is None or (not asks and _CONDITION.search(m.group(0))):
            break  # "VOTE RED (unless Bob votes blue)": a condition is never taken off (refused with the line)
        rest = text[: m.start()].rstrip(_SEPARATORS)
        if not rest.strip(_SEPARATORS + ".!") or (m.group(0).startswith("+") and rest[-1:].isdigit()):
            break  # "TRIBUTE Gold 5 +1": the "+1" may add to the number (refused with the line, never read)
        asked = asked or asks
        text = rest
    return f"{text}?" if asked else text  # "VOTE RED (right?)": a remark that asks makes the line a question


def _struck(text: str) -> bool:
    """Whether `text` is struck out whole: "~~VOTE RED~~" in Markdown (GitHub, Discord, Reddit), "~VOTE RED~" in
    WhatsApp, Slack and Telegram.  The player crossed the order out (kept to show what changed); its "~" were taken
    off as emphasis and the struck order read, replacing the order above it (players34: 10 of 24 generated replies
    misapplied).  Linear: no pattern searched."""
    body = text.rstrip(".!")
    inner = body.strip("~")
    return text.startswith("~") and body.endswith("~") and bool(inner) and inner == inner.strip()


def _unemphasised(text: str) -> str:
    """`text` without the emphasis marks around its words ("*PASS*", "_no event_"), in one pass over each run of
    them: what `(?:(?<=\\s)|^)[*_~]+(?=\\S)|(?<=\\S)[*_~]+(?=\\s|$|[.,;:!])` took off, which tried a run that a
    letter follows once per character of it (0.26 s for 4,000 underscores, the square of the run).  A run is taken
    off when it opens a word (at the start or after white space: unless it stands alone, one mark between spaces)
    or when it closes one (after a word, before white space, the end or a punctuation mark)."""
    out: list[str] = []
    kept = 0
    for m in _EMPHASIS_RUN.finditer(text):
        start, end = m.span()
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        if not before or before.isspace():
            if (after and not after.isspace()) or end - start > 1:
                out.append(text[kept:start])
                kept = end
        elif not after or after.isspace() or after in ".,;:!":
            out.append(text[kept:start])
            kept = end
    out.append(text[kept:])
    return "".join(out)


#: What a player code looks like (`pbem.trust.codes`: 8 of its 32 characters, 4-4), in any case: players and
#: moderators type codes in lower case too, and pbem reads them so.
CODE_PATTERN = re.compile(r"(?i)(?<![a-z0-9])[a-hj-np-z2-9]{4}-[a-hj-np-z2-9]{4}(?![a-z0-9])")


def code_value(value: str) -> str:
    """The code as written after CODE, without the quotes or punctuation pasted around it."""
    return value.strip(_QUOTES + ".,;:!()[]<>")


_PGP_BEGIN = "-----BEGIN PGP SIGNED MESSAGE-----"
_PGP_SIG = "-----BEGIN PGP SIGNATURE-----"
_PGP_END = "-----END PGP SIGNATURE-----"


def unarmoured(text: str) -> str:
    """`text` with inline PGP clearsigned armour removed (unchanged if it has none)."""
    if _PGP_BEGIN not in text:
        return text
    out: list[str] = []
    state = "outside"
    for line in text.replace("\r\n", "\n").split("\n"):
        bare = line.strip()
        if state == "outside" and bare == _PGP_BEGIN:
            state = "header"
            continue
        if state == "header":
            if bare.lower().startswith("hash:") or not bare:
                state = "header" if bare else "signed"
                continue
            state = "signed"
        if state == "signed":
            if bare == _PGP_SIG:
                state = "signature"
                continue
            out.append(line[2:] if line.startswith("- ") else line)
            continue
        if state == "signature":
            if bare == _PGP_END:
                state = "outside"
            continue
        out.append(line)
    return "\n".join(out)


_PHONE = re.compile(r"\d[\d ()./-]{5,}\d")
_WEBBY = re.compile(r"@|https?://|www\.|\.com\b|\.org\b|\.net\b", re.IGNORECASE)


#: Words of sentences that no order holds (card and place names hold "the", "of", "a", "with": not these).
SENTENCE_WORDS = frozenset(
    [
        "you",
        "your",
        "yours",
        "we",
        "us",
        "our",
        "this",
        "that",
        "these",
        "is",
        "are",
        "was",
        "not",
        "if",
        "please",
        "it",
        "its",
        "i",
        "me",
        "my",
        "will",
        "would",
        "can",
        "could",
        "be",
        "been",
        "have",
        "has",
        "do",
        "does",
        "did",
        "should",
        "may",
        "might",
    ]
)
#: Words that, right after the order word, make the line a sentence said to someone: "Accept my apologies for the
#: delay" (Sixteen Thirty's ACCEPT), "Take my word for it", "Drop us a line".  No card, place or order starts so.
_ADDRESSED = frozenset(["my", "your", "our", "their", "me", "us", "you", "we", "i", "them"])
_TWO_SENTENCES = re.compile(r"[^\W\d_]{2}[.!?]\s+[A-Z]")  # "Play fair. Take care.": not "J. R. Smith"


def prose(line: str) -> bool:
    """A line that starts with an order word but reads as a sentence: a company footer ("Call us on
    0800 123 456"), an address, a web link, a long sentence, one with two words of sentences no order holds
    ("Discard this e-mail if you are not the intended recipient"), two sentences ("Play fair. Take care."), a
    pronoun right after the order word ("Accept my apologies for the delay", "Take my word for it").
    Refused by the engine, it is set aside as chatter instead of refusing the message (an order word counts
    only when what follows parses, and a line naming the game's words is a mistyped order: `pbem.app.lines`)."""
    words = line.split()
    said = {w.strip(".,;:!?()\"'").lower() for w in words[1:]} & SENTENCE_WORDS
    return (
        bool(_PHONE.search(line) or _WEBBY.search(line) or _TWO_SENTENCES.search(line))
        or len(words) > 12
        or line.rstrip().endswith("?")
        or len(said) >= 2
        or (len(words) >= 3 and words[1].strip(".,;:!?()\"'").lower() in _ADDRESSED)
    )
