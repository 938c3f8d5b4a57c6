# ruff: noqa: RUF002
"""What players write before an order on its line (pure): a greeting, a label of their own, a label naming someone.

* A greeting, alone or to someone ("Hallo, PASS", "Hola: PASS", "Bonjour à tous, PASS", "Hi Bob, VOTE red",
  "こんにちは、PASS", "Всем привет, PASS"), then a mark (a comma, a colon, "!", a dash, "、", "。"): `greeted` gives the
  rest, read as the line it would be alone when its order word is in capitals (`in_capitals`).  The reader may be
  named in a word or three, with a title ("Dear Mr. Smith,", "Beste meneer Jansen,"), an honorific ("こんにちはBob
  さん、", "你好，王先生，"), marks of their own ("Hi, Bob. PASS", "Привет, Боб! PASS"), or first in Japanese, Chinese
  and Korean ("Bob你好，PASS"); a Korean greeting ends at a space as a Japanese one does ("안녕하세요 PASS").  It was told the
  order to send (a sentence's opener), and the player had to write again.  In lower case it stays a sentence, told
  ("Hi, vote red"), or a remark ("Hi all, play nice!" above the orders: read, the message was refused); without a
  mark ("Hi PASS") a sentence too.
* A label the player puts before their own order: the step named without a number ("Orders for this turn - pass",
  "Pour ce tour : PASS", "Mein Zug: PASS", "本回合：PASS": `THIS_STEP`), read as the order it labels; a connective
  ("Also: PASS", "Alors : PASS", "Außerdem: PASS", "Y también: PASS", "また：PASS", "Итак: PASS": `CONNECTIVE`), read
  as a greeting is, before capitals ("Also: take care" is a remark).  A word that turns an order down or away
  ("Not:", "Otherwise:", "Sinon :", "Aber:") is none of them.
* Any other short label ("Bob: PASS": another player's order, maybe) is not read: `labelled_by_other` gives the
  order so that the answer quotes the line and shows what to send (`pbem.orders.extract._aside`).  The labels of
  pbem's own mails (`PBEMS_LABELS`: "Default at the deadline", "understood as") are neither read nor told.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

_GREETINGS = (
    r"hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|day)|dear|"
    r"bonjour|bonsoir|salut|coucou|cher|ch[eè]re|chers|"
    r"hallo|moin|servus|guten\s+(?:morgen|tag|abend)|liebe|lieber|gr[üu][ßs]\s+gott|gr[üu]ezi|"
    r"hola|buenas|buen[oa]s\s+(?:d[ií]as|tardes|noches)|querid[oa]s?|estimad[oa]s?|"
    r"ciao|salve|buongiorno|buonasera|car[oia]|"
    r"hoi|goedemorgen|goedemiddag|goedenavond|beste|"
    r"ol[aá]|oi|bom\s+dia|boa\s+(?:tarde|noite)|prezad[oa]s?|"
    r"cze[sś][cć]|witam|witajcie|dzie[nń]\s+dobry|dobry\s+wiecz[oó]r|"
    r"hej|hall[aå]|god\s+(?:morgon|kv[aä]ll)|tjena|"
    r"привет|всем\s+привет|здравствуйте|добрый\s+(?:день|вечер)|доброе\s+утро"
)
#: Korean greetings: words are spaced, but a space before the next word's Latin letters ends them as a mark does
#: ("안녕하세요 PASS", as "こんにちは PASS"): the change of script is where English puts the comma.
_KOREAN = r"(?:여러분\s*)?(?:안녕하세요|안녕|좋은\s*아침입니다|좋은\s*아침)"
#: The greetings of a script written without spaces between words (Japanese, Chinese): no word boundary after them
#: ("こんにちは皆さん PASS"), and a space or the next word's Latin letters end them as a mark does (`_unmarked_ends`).
_UNSPACED = (
    r"(?:皆さん、|みなさん、)?(?:こんにちは|こんばんは|おはようございます|おはよう|お疲れ様です|お疲れさまです)|"
    r"你好|您好|大家好|早上好|晚上好|嗨"
)
_GREETING = re.compile(
    rf"¡?(?:(?:{_GREETINGS})(?![^\W_])|(?P<unmarked>(?:{_KOREAN})(?![^\W_])|{_UNSPACED}))",  # "¡Hola! PASS"
    re.IGNORECASE,
)
#: A name before a Japanese, Chinese or Korean greeting ("Bob你好，PASS", "田中さん、こんにちは。PASS", "Bob님
#: 안녕하세요, PASS"): how those languages greet someone by name.  Looked for only in a line not all ASCII.
_NAME_FIRST = re.compile(rf"\A([^\W\d_][^\W_]{{0,15}}?)[ \t\u3000,、]*(?=(?:{_KOREAN})(?![^\W_])|{_UNSPACED})")
#: The words a greeting may name its reader with besides a name ("Hallo zusammen", "Bonjour à tous", "Hi all").
_EVERYONE_WORDS = (
    "all everyone everybody folks guys team there y'all gang zusammen allerseits alle à a tous todos todas tutti "
    "allemaal iedereen pessoal wszystkim allihop alla всем все друзья 皆さん みなさん 皆様 皆さま みなさま みんな 大家 "
    "各位 여러분"
)
_EVERYONE = frozenset(_EVERYONE_WORDS.split())
#: Titles written in lower case before a name ("Beste meneer Jansen", "Witam pana Kowalskiego", "Hola señor García").
_TITLE_WORDS = (
    "mr mrs ms miss dr prof sir madam monsieur madame mademoiselle herr frau meneer mevrouw mevr dhr heer señor señora "
    "señorita sr sra srta don doña signor signore signora sig senhor senhora pan pani panie pana"
)
_TITLES = frozenset(_TITLE_WORDS.split())
#: What a name ends with in Japanese, Chinese and Korean to be polite ("Bobさん", "田中様", "王先生", "철수님").
_HONORIFICS = ("さん", "様", "さま", "くん", "君", "ちゃん", "先生", "殿", "氏", "老师", "女士", "小姐", "님", "씨")
_MARKS = ",:!、。;"  # what ends a greeting (NFKC has made "，" ",", "：" ":", "！" "!"); "." before a space too
_DASHES = "-\u2013\u2014"
GREETING_HEAD = 40  # characters after a greeting looked at for the mark that ends it, at most
GREETING_NAMES = 3  # words naming the reader between a greeting and its mark, at most ("Dear Mr. Smith,")
GREETING_CUTS = 3  # marks after a greeting of any words the rest is taken after, at most


def _greeting(line: str) -> re.Match[str] | None:
    """The greeting `line` starts with, after a name in Japanese, Chinese or Korean ("Bob你好，"), or None."""
    m = _GREETING.match(line)
    if m is not None or line[:GREETING_HEAD].isascii():
        return m
    named = _NAME_FIRST.match(line)
    if named is None or not _names_reader(named.group(1)):
        return None
    return _GREETING.match(line, named.end())


def greeted(line: str) -> str:
    """What follows a greeting at the start of `line` and the mark after it ("Hallo zusammen, PASS": "PASS"), or "":
    no greeting, no mark, or more than a name or two between them ("Hi, I vote red" gives "I vote red").  Of the
    first `GREETING_CUTS` marks with only a name before them, the first with a word in capitals after it
    (`in_capitals`): a name may be set off by marks of its own ("Hi, Bob. PASS", "Привет, Боб! PASS", "你好，王先生，
    PASS", "Dear Mr. Smith, PASS"), or run into an unspaced greeting ("こんにちはBobさん、PASS")."""
    m = _greeting(line)
    if m is None:
        return ""
    rest = line[m.end() : m.end() + GREETING_HEAD + 1]
    first = ""
    for at in _ends(m, rest):
        names = rest[:at].translate(_UNMARK).split()
        if len(names) > GREETING_NAMES or not all(_names_reader(w) for w in names):
            break  # every later mark has these words before it too
        said = line[m.end() + at :].lstrip(_MARKS + _DASHES + ". \t\u3000").strip()
        if in_capitals(said):
            return said
        first = first or said
    return first


_UNMARK = str.maketrans(dict.fromkeys(_MARKS + ".", " "))


def _marks(rest: str) -> Iterator[int]:
    """Where a mark that ends a greeting is in `rest` (a dash only after a space or at the start, a full stop only
    before a space or at the end: "Hi, Bob. PASS", not "e.g.PASS")."""
    return (
        k
        for k, ch in enumerate(rest)
        if ch in _MARKS
        or (ch in _DASHES and rest[k - 1 : k] in ("", " "))
        or (ch == "." and rest[k + 1 : k + 2] in ("", " ", "\t", "\u3000"))
    )


def _ends(greeting: re.Match[str], rest: str) -> Iterator[int]:
    """Where the greeting `greeting` may end in `rest`, the text after it, in order: at its first `GREETING_CUTS`
    marks (`_marks`), and for a greeting of a script written without spaces, or Korean, where it ends without one
    (`_unmarked_ends`: one more than a greeting's names need)."""
    marks = islice(_marks(rest), GREETING_CUTS)
    if greeting.group("unmarked") is None:
        return marks
    return iter(sorted({*islice(_unmarked_ends(rest), GREETING_NAMES + 1), *marks}))


def _unmarked_ends(rest: str) -> Iterator[int]:
    """Where a Japanese, Chinese or Korean greeting may end with no mark in `rest`, the text after it, before its
    first mark: at a space ("こんにちは PASS", "こんにちは皆さん PASS", "안녕하세요 여러분 PASS") or at the first
    letter or digit of the Latin alphabet ("こんにちはPASS", "こんにちはBobさん、PASS").  These scripts put no space
    between words, or the change of script is where English puts the comma ("Hi, PASS").  What stands before it is
    checked as a name is (`_names_reader`)."""
    latin = False
    for k, ch in enumerate(rest):
        if ch in _MARKS:
            return
        if ch.isspace() and not rest[k - 1 : k].isspace():
            yield k
        elif not latin and ch.isascii() and ch.isalnum():
            latin = True
            if not rest[k - 1 : k].isspace():
                yield k


def opened_rests(line: str) -> list[str]:
    """What follows a connective, or a greeting of any words and each of its first `GREETING_CUTS` marks within
    `GREETING_HEAD` characters ("Hello everyone and good luck: PASS": ["PASS"]; "皆さん、こんにちは。今回もよろしく
    お願いします：PASS": ["今回も...：PASS", "PASS"]), at the start of `line`, in any case; [] for none."""
    m = connective(line)
    if m:
        return [m.group(1)]
    g = _greeting(line)
    if g is None:
        return []
    rest = line[g.end() : g.end() + GREETING_HEAD + 1]
    said = (line[g.end() + at :].lstrip(_MARKS + _DASHES + ". \t\u3000").strip() for at in _ends(g, rest))
    return [s for s in said if s]


def _names_reader(word: str) -> bool:
    """A word naming whom a greeting is to: everyone ("zusammen"), a title ("meneer", "Mr."), a name in capitals
    ("Bob", "O'Neil", "Bobさん"), or a name with an honorific in a script without capitals ("田中さん", "王先生")."""
    bare = word.rstrip(".")
    if bare.casefold() in _EVERYONE or bare.casefold() in _TITLES:
        return True
    if bare[:1].isupper() and bare.replace("'", "").replace("-", "").isalpha():
        return True
    return bare.endswith(_HONORIFICS) and bare.isalpha()


_LABEL_MARK = r"\s*+(?:[:=]|[-\u2013\u2014]+\s)\s*+(\S.*)$"
#: A label of the player's own naming the step without a number, read as the order it labels in any case.
THIS_STEP = re.compile(
    r"^(?:(?:(?:my\s+)?(?:orders?|moves?|choice|answer|decision|play)\s+)?(?:for\s+)?(?:this|the\s+current)\s+"
    r"(?:turn|round|step|hand|gambit|phase)|"
    r"(?:mes\s+ordres\s+|mon\s+choix\s+)?pour\s+ce\s+(?:tour|coup)|ce\s+tour(?:-ci)?|mon\s+coup|"
    r"(?:meine?\s+(?:wahl|befehle)\s+)?f[üu]r\s+diese[nrs]?\s+(?:runde|zug|hand)|diese[nrs]?\s+(?:runde|zug)|"
    r"mein\s+(?:spiel)?zug|(?:para|en)\s+este\s+turno|este\s+turno|mi\s+(?:jugada|movimiento)|"
    r"(?:per|in)\s+questo\s+turno|questo\s+turno|(?:la\s+)?mia\s+mossa|"
    r"voor\s+deze\s+(?:beurt|ronde)|deze\s+(?:beurt|ronde)|mijn\s+zet|"
    r"neste\s+turno|minha\s+jogada|meu\s+lance|w\s+tej\s+(?:turze|rundzie)|m[oó]j\s+ruch|"
    r"(?:i\s+|f[oö]r\s+)?den\s+h[aä]r\s+rundan|denna\s+runda|mitt\s+drag|"
    r"今回(?:の注文|の手)?|このターン|私の手|本回合|这回合|这一回合|本轮|我的出牌|"
    r"на\s+этот\s+ход|в\s+этом\s+ходу|этот\s+ход|이번\s*턴|이번\s*라운드|내\s+선택)" + _LABEL_MARK,
    re.IGNORECASE,
)
#: A connective before the player's order ("Also: PASS", "Same as last turn: PASS"), read only before an order word
#: in capitals, as a greeting is ("Also: take care" is a remark).
CONNECTIVE = re.compile(
    r"^(?:also|and\s+also|and|so|then|finally|anyway|alors|aussi|donc|et|enfin|au[ßs]erdem|und|dann|auch|zudem|"
    r"y\s+tambi[eé]n|tambi[eé]n|adem[aá]s|entonces|pues|inoltre|allora|anche|quindi|ook|dus|verder|daarnaast|"
    r"tamb[eé]m|ent[aã]o|al[eé]m\s+disso|tak[zż]e|te[zż]|wi[eę]c|ponadto|poza\s+tym|ocks[aå]|s[aå]|dessutom|[aä]ven|"
    r"また|それと|あと|では|じゃあ|另外|还有|然后|那么|также|итак|ещё|еще|а\s+также|그리고|또한|그럼|"
    # "Same as last turn: NO EVENT", "As before - PASS" (players34): the order is the one after it
    r"(?:the\s+)?same\s+as\s+(?:the\s+)?(?:last|previous|before)(?:\s+(?:turn|time|round|step))?|"
    r"as\s+(?:before|usual|always)|wie\s+(?:immer|vorher|letztes\s+mal)|comme\s+(?:d'habitude|avant|toujours)|"
    # a correction's label ("Correction: EVENT PERSON Peter", "Edit: PASS", "Scratch that - NO EVENT"), players34
    r"correction|corrected|update|updated|edit|edited|actually|scratch\s+that|korrektur)" + _LABEL_MARK,
    re.IGNORECASE,
)

#: An acknowledgement before the player's order ("OK, NO EVENT", "Yes: PASS", "Okay - VOTE RED", "Ja, PASS"): read
#: only before an order word in capitals, as a connective is ("OK, take care" is a remark, "ok, no event" told).
#: A mark after it is needed: pbem's own acknowledgement lists "OK   NO EVENT" (a copy of it is no order).
ACKNOWLEDGED = re.compile(
    r"^(?:ok(?:ay|ey|ej)?|yes|yep|yeah|sure|alright|all\s+right|fine|agreed|got\s+it|understood|ja|jawohl|oui|"
    r"d'accord|s[ií]|claro|va\s+bene|certo|prima|goed|akkoord|sim|tak|хорошо|ладно|да)"
    r"\s*+(?:[,:!]|[-\u2013\u2014]+\s)\s*+(\S.*)$",
    re.IGNORECASE,
)


def connective(line: str) -> re.Match[str] | None:
    """The connective or acknowledgement `line` starts with (`CONNECTIVE`, `ACKNOWLEDGED`), its group 1 the rest."""
    return CONNECTIVE.match(line) or ACKNOWLEDGED.match(line)


def in_capitals(rest: str) -> bool:
    """Whether `rest` starts with a word in capitals ("PASS", "NO-EVENT", "TRIBUTE Silver 7"): what a greeting or a
    connective is read before.  "Hi all, play nice!" and "Also: take care" are remarks; "Hi, vote red" is told the
    order to send (`pbem.orders.extract.sentence`)."""
    first = rest.split(None, 1)[0] if rest.strip() else ""
    letters = [c for c in first if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


#: The first words of the labels pbem's own mails put before an order or a line that starts like one ("Default at
#: the deadline: NO EVENT", "Asked of you now: Accept one offer ...", "understood as: ...", a handbook's "Alias:"):
#: such a line, in a copy of pbem's mail its reader did not take out, is neither read nor told.
PBEMS_LABELS = frozenset(
    {"default", "defaults", "asked", "you", "nothing", "waiting", "still", "deadline", "note", "joined", "join"}
    | {"on", "understood", "why", "ok", "no", "alias", "aliases", "example", "examples", "legal"}
)
LABEL_HEAD = 40  # characters of a label looked at, at most
LABEL_WORDS = 4  # words of a label that names someone, at most ("Bob", "Bob's order", "What Carol sent")


def labelled_by_other(line: str) -> str:
    """What follows a short label that is not the player's own ("Bob: PASS", "Carol - vote red"), or "": a label
    of a word or a few (no digit: "Turn 3:" names a step, `pbem.orders.extract.off_step`), then a colon, or a dash
    between spaces.  The caller decides whether that is an order."""
    head = line[: LABEL_HEAD + 3]
    colon = min((k for k in (head.find(":"), head.find("=")) if k >= 0), default=-1)
    dash = next((k for k in range(1, len(head) - 1) if head[k] in _DASHES and head[k - 1] == " "), -1)
    at = min((k for k in (colon, dash) if k > 0), default=-1)
    label = head[:at].strip() if at > 0 else ""
    words = label.split()
    if not 0 < len(words) <= LABEL_WORDS or words[0].casefold() in PBEMS_LABELS:
        return ""
    if not all(w.replace("'", "").replace("’", "").replace("-", "").replace(".", "").isalpha() for w in words):
        return ""
    return line[at:].lstrip(":=" + _DASHES + " \t").strip()


def opened(line: str) -> str:
    """What follows a connective or a greeting and its mark at the start of `line` ("Also: HELP", "Hi! Pass",
    "Hallo zusammen, STATUS"), in any case, or "" (none)."""
    m = connective(line)
    return m.group(1) if m else greeted(line)


#: The commands read after a greeting or a connective, in capitals ("Hi, HELP", "Bonjour, STATUS", "Also: HISTORY"):
#: those that only ask pbem for a mail (listed as "not read" before).  "Hi, help me with this" is a remark.
OPENED_COMMANDS = frozenset({"HELP", "STATUS", "REPORT", "HISTORY"})


def opened_command_note(typed: str, command: str) -> str:
    """The note for a command after a greeting or a connective that was not read ("Hi, Help", "Bonjour, Status",
    "Hello everyone and good luck, HELP"): it was only listed as not read, or dropped above the quote."""
    return f'"{typed}" was not read as a command: pbem reads one at the start of its line; to have it, send: {command}'


#: A label naming a later step than the one asked now ("Next turn: PASS", "Au prochain tour : PASS", "Nächste Runde:
#: PASS", "次のターン：PASS"): pbem reads an order for the step it asks now, and refuses one from a player it does not
#: ask; read, the order would apply now, and telling "write it as: PASS" told the player to send just that.
NEXT_STEP = re.compile(
    r"^(?:(?:my\s+)?(?:orders?\s+|moves?\s+|choice\s+)?(?:for\s+|in\s+)?(?:the\s+)?(?:next|following)\s+"
    r"(?:turn|round|step|hand|gambit|phase|time)|"
    r"(?:au\s+|pour\s+le\s+)?(?:prochain\s+(?:tour|coup)|tour\s+suivant)|"
    r"(?:f[üu]r\s+die\s+|in\s+der\s+|im\s+|f[üu]r\s+den\s+)?n[äa]chste[nr]?\s+(?:runde|zug|hand|mal)|"
    r"(?:para\s+el\s+|en\s+el\s+|al\s+)?(?:pr[oó]ximo|siguiente)\s+turno|"
    r"(?:per\s+il\s+|al\s+|nel\s+)?prossimo\s+turno|turno\s+successivo|"
    r"(?:voor\s+de\s+|in\s+de\s+)?volgende\s+(?:beurt|ronde)|"
    r"(?:para\s+o\s+|no\s+|na\s+)?pr[oó]xim[oa]\s+(?:turno|rodada|jogada)|"
    r"(?:w\s+)?nast[eę]pn(?:a|ej|ym)\s+(?:tura|turze|rundzie|runda|ruchu)|"
    r"(?:i\s+|f[oö]r\s+)?n[aä]sta\s+(?:runda|drag|omg[aå]ng)|"
    r"次のターン|次回|次の手|下回合|下一回合|下一轮|下轮|"
    r"(?:на\s+|в\s+)?следующ(?:ий|ем)\s+(?:ход|ходу|раунд|раунде)|다음\s*(?:턴|라운드|차례))" + _LABEL_MARK,
    re.IGNORECASE,
)


def later_step_note(typed: str, order: str) -> str:
    """The note for an order labelled with a later step ("Next turn: PASS", `NEXT_STEP`): not read, why, and what to
    send.  Short: an answer quotes a note's first `pbem.app.answers.LINE_CHARS` characters, the order to send last."""
    return (
        f'"{typed}" was not read as an order: it names a later step (send it when that step asks you); for this '
        f"step, send: {order}"
    )
