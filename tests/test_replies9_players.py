"""Replies still misread (replies9): a fresh corpus, each reply built from a real report pbem sent.

Orders wrapped whole in brackets ("(PASS)", "<PASS>", "[PASS]"), after a label of the step ("Step 1: PASS", the
report's own "Turn 3: TRIBUTE Gold 4"), numbers typed as words where an order takes one, a joiner or a soft hyphen
inside a word, marks after an order; bodies in windows-1252 and iso-8859-1 with curly quotes, quoted-printable soft breaks inside
an order, Outlook's HTML-only `<p class=MsoNormal>` with `&nbsp;` and spans splitting the order, Gmail's `<div
dir="ltr">` with `<br>` runs; subject chains of many languages' reply prefixes ("RE: AW: SV: Antw: VS: Odp:").
Each is read as the player meant (the state the order gives), and each shape with no order applies nothing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest

from pbem import engine as registry
from tests.test_replies3_players import ATTRIBUTIONS, KINDS, Moment, _plain, _quoted, shared_moments
from tests.test_replies7_clients import _html_mail, _message, _text_mail
from tests.test_replies8_players import _misread, _read


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def _number_word(o: str) -> str:
    """ "TRIBUTE Gold 4" as "TRIBUTE Gold Four": the last number of the order as a capitalised word."""
    found = list(re.finditer(r"(?<= )(\d{1,2})\b", o))
    if not found or int(found[-1].group(1)) >= len(_WORDS):
        return o
    m = found[-1]
    return o[: m.start()] + _WORDS[int(m.group(1))].title() + o[m.end() :]


def _inside_word(mark: str) -> Callable[[str], str]:
    """`mark` typed inside the order's first word ("PA\u200dSS"): a joiner or a soft hyphen a keyboard left there."""
    return lambda o: o[:2] + mark + o[2:]


STEP = "Step 9"  # a label naming the step: replaced by the step the report answered names (`own_step`)


def own_step(moment: Moment, typed: str) -> str:
    """`typed` with its label `STEP` naming the step the report names ("Turn 4", "Hand 1", "Gambit 1"; "Step 1" where
    it names none): a label naming another step is told, not read (tests/test_replies10_players.py)."""
    found = re.search(r"\b(?:Turn|Hand|Gambit) \d{1,3}\b", str(moment.report["Subject"]))
    return typed.replace(STEP, found.group(0) if found else "Step 1")


#: How the order line was typed: wrapped whole, labelled with the step, numbers as words, marks inside or after.
TYPINGS: dict[str, Callable[[str], str]] = {
    "parens": lambda o: f"({o})",
    "angle": lambda o: f"<{o}>",
    "square": lambda o: f"[{o}]",
    "curly": lambda o: f"{{{o}}}",
    "parens-stop": lambda o: f"({o}).",
    "square-capitalised": lambda o: (
        f"[{o.split(' ', 1)[0].upper()} {o.split(' ', 1)[1].lower()}]" if " " in o else f"[{o}]"
    ),
    "step-label": lambda o: f"Step 1: {o}",
    "turn-label": lambda o: f"{STEP}: {o}",
    "step-label-dash": lambda o: f"{STEP} - {o}",
    "gambit-label": lambda o: f"{STEP}: {o.lower()}",
    "turn-label-hash": lambda o: f"{STEP.replace(' ', ' #')}: {o}",
    "label-brackets": lambda o: f"{STEP}: ({o})",
    "order-label-angle": lambda o: f"My order: <{o}>",
    "number-word": _number_word,
    "number-word-stop": lambda o: _number_word(o) + ".",
    "joiner-inside": _inside_word("\u200d"),
    "soft-hyphen-inside": _inside_word("\u00ad"),
    "zero-width-inside": _inside_word("\u200b"),
    "full-width-digits": lambda o: re.sub(r"\d", lambda m: chr(ord(m.group(0)) + 0xFEE0), o),
    "bangs": lambda o: o + "!!!",
    "thumbs": lambda o: o.lower() + ". \U0001f44d",
    "ok-hand": lambda o: o + " \U0001f44c\U0001f3fb",
}

#: Lines of the same shapes that hold no order.
NO_ORDER = ("(thinking)", "<not yet>", "[STILL DECIDING]", "Step 1: thinking about it", "Turn 3: no idea yet")
#: Remarks in brackets above an order, starting with an order word of some game: chatter, the order read alone.
ASIDES = (
    "(play nice!)",
    "(take care)",
    "(pass the word on)",
    "[done for today]",
    "(discard this if late)",
    "<keep it quiet>",
    "(accept my apologies)",
    "(vote early!)",
    "(end of my orders)",
    "(Drop me a line)",
)


def _top(moment: Moment, own: list[str]) -> list[str]:
    return [*own, "", ATTRIBUTIONS["gmail-en"][0], "", *_quoted(_plain(moment.report))]


def _raw(moment: Moment, head: str, body: bytes) -> bytes:
    """A mail whose body is `body` as the client encoded it, under its own Content-Type (`head`)."""
    msg = _message(moment)
    lines = [f"{k}: {v}" for k, v in msg.items()]
    return ("\r\n".join([*lines, "MIME-Version: 1.0", head, "", ""])).encode() + body


def eight_bit(charset: str, declared: bool = True) -> Callable[[Moment, list[str]], bytes]:
    """A text body in `charset` (curly quotes around the order, a greeting with accents), 8bit; its charset
    declared or not (some clients leave it off)."""

    def build(moment: Moment, own: list[str]) -> bytes:
        text = "\r\n".join(_top(moment, ["Grüße,", *own, "", "Zoë"]))
        body = text.encode(charset, errors="replace")
        head = f"Content-Type: text/plain; charset={charset}" if declared else "Content-Type: text/plain"
        return _raw(moment, head + "\r\nContent-Transfer-Encoding: 8bit", body)

    return build


def soft_broken(moment: Moment, own: list[str]) -> bytes:
    """Quoted-printable with a soft line break inside each line of the player's (after its fourth character)."""
    parts: list[str] = []
    for line in _top(moment, ["Hi,", *own, "", "Thanks"]):
        coded = line.encode("utf-8").decode("latin-1")
        q = "".join(c if 32 < ord(c) < 127 and c != "=" else f"={ord(c):02X}" for c in coded)
        q = q.replace("=20", " ")
        parts.append(q[:4] + "=\r\n" + q[4:] if line in own and len(q) > 6 else q)
    head = "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable"
    return _raw(moment, head, "\r\n".join(parts).encode("ascii"))


def _report_html(moment: Moment) -> str:
    return "<br>".join(html.escape(x) for x in _plain(moment.report))


def mso_normal(moment: Moment, own: list[str]) -> bytes:
    """Outlook's HTML only: a `<p class=MsoNormal>` a line, the order's words in spans with `&nbsp;` between them,
    empty paragraphs of `<o:p>&nbsp;</o:p>`, the header block under a border, the report unquoted."""

    def para(line: str) -> str:
        if not line:
            return "<p class=MsoNormal><o:p>&nbsp;</o:p></p>\r\n"
        first, _, rest = html.escape(line).partition(" ")
        rest = rest.replace(" ", "&nbsp;", 1)
        return (
            f"<p class=MsoNormal><span lang=EN-GB style='font-size:11.0pt'>{first}</span>"
            f"<span lang=EN-GB style='font-size:11.0pt'>{' ' + rest if rest else ''}<o:p></o:p></span></p>\r\n"
        )

    head = "".join(para(x) for x in ["Hi,", *own, "", "Thanks", ""])
    block = (
        "<div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'><p class=MsoNormal>"
        f"<b>From:</b> {html.escape(str(moment.report['From']))}<br><b>Sent:</b> Monday, November 30, 2026 9:08 PM"
        f"<br><b>To:</b> {html.escape(str(moment.report['To']))}<br><b>Subject:</b> "
        f"{html.escape(str(moment.report['Subject']))}<o:p></o:p></p></div>"
    )
    body = "<html><head><style>p.MsoNormal{margin:0cm}</style></head><body lang=EN-GB><div class=WordSection1>"
    return _html_mail(moment, f"{body}{head}{block}<p class=MsoNormal>{_report_html(moment)}</p></div></body></html>")


def gmail_br(moment: Moment, own: list[str]) -> bytes:
    """Gmail's HTML only: the whole answer one `<div dir="ltr">` with `<br>` runs, `&nbsp;` between words."""
    mine = "<br>".join(html.escape(x).replace(" ", "&nbsp;") for x in ["Hi,", "", *own, "", "", "Thanks"])
    attr = html.escape(ATTRIBUTIONS["gmail-en"][0])
    quote = f'<blockquote class="gmail_quote">{_report_html(moment)}</blockquote>'
    return _html_mail(moment, f'<div dir="ltr">{mine}<br></div><br><div class="gmail_quote">{attr}<br>{quote}</div>')


def prefixes(chain: str) -> Callable[[Moment, list[str]], bytes]:
    """The reply's subject after a chain of reply prefixes in many languages, the order in the body."""

    def build(moment: Moment, own: list[str]) -> bytes:
        subject = f"{chain} {moment.report['Subject']}"
        return _text_mail(moment, _top(moment, ["Hi,", *own, "", "Thanks"]), subject)

    return build


def subject_chain(moment: Moment, own: list[str]) -> bytes:
    """The order in the subject only, after a chain of reply prefixes and the game's tag."""
    tag = str(moment.report["Subject"]).split("]", 1)[0] + "]"
    subject = f"AW: SV: Antw: {tag} {own[0]}" if own else f"AW: SV: Antw: {moment.report['Subject']}"
    return _text_mail(moment, ["", "Sent from my iPhone"], subject)


def self_quoted(marker: str) -> Callable[[Moment, list[str]], bytes]:
    """The order quoted by the writer ("> TRIBUTE Gold 4", as replies8 found players mark it) above Outlook's
    `marker` and header block, the report unquoted below; with no order, a quoted remark there."""

    def build(moment: Moment, own: list[str]) -> bytes:
        sent = moment.report
        block = [f"From: {sent['From']}", "Sent: Monday, November 30, 2026 9:08 PM", f"To: {sent['To']}"]
        mine = [f"> {x}" for x in own] or ["> Not sure yet"]
        body = ["Hi,", *mine, "", "Thanks", "", marker, *block, f"Subject: {sent['Subject']}", "", *_plain(sent)]
        return _text_mail(moment, body)

    return build


SHAPES: dict[str, Callable[[Moment, list[str]], bytes]] = {
    "self-quoted-outlook": self_quoted("-----Original Message-----"),
    "self-quoted-rule": self_quoted("_" * 32),
    "windows-1252": eight_bit("windows-1252"),
    "iso-8859-1": eight_bit("iso-8859-1"),
    "windows-1252-undeclared": eight_bit("windows-1252", declared=False),
    "qp-soft-break": soft_broken,
    "outlook-mso": mso_normal,
    "gmail-br": gmail_br,
    "prefix-chain": prefixes("RE: AW: SV: Antw: VS: Odp:"),
    "prefix-chain-counted": prefixes("Re[2]: AW: Réf. :"),
    "subject-chain": subject_chain,
}


def cases(moment: Moment) -> list[tuple[str, bytes, list[str]]]:
    """(label, the reply, the orders meant) for one moment: every typing and shape, with an order and without."""
    legal = moment.legal
    out: list[tuple[str, bytes, list[str]]] = []
    for n, (name, typing) in enumerate(TYPINGS.items()):
        o = legal[n % len(legal)]
        typed = own_step(moment, typing(o))
        out.append((f"typing/{name}", _text_mail(moment, _top(moment, ["Hi,", typed, "", "Thanks"])), [o]))
    for n, line in enumerate(NO_ORDER):
        out.append((f"typing/none/{n}", _text_mail(moment, _top(moment, ["Hi,", line, "", "Thanks"])), []))
    for n, aside in enumerate(ASIDES):
        o = legal[(n * 5) % len(legal)]
        out.append((f"aside/{n}", _text_mail(moment, _top(moment, ["Hi,", aside, o, "", "Thanks"])), [o]))
    for n, (name, shape) in enumerate(SHAPES.items()):
        o = legal[(n * 3) % len(legal)]
        typed = {"windows-1252": f"\u201c{o}\u201d", "iso-8859-1": f"\u00ab{o}\u00bb"}.get(name, o)  # “” and «»
        out.append((f"shape/{name}", shape(moment, [typed]), [o]))
        out.append((f"shape/{name}/none", shape(moment, []), []))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_each_reply_of_the_replies9_corpus_is_read_as_the_player_meant(moments: dict[str, Moment], kind: str) -> None:
    """A reply meant to hold no order reads no line at all (pbem's own list read from an unquoted copy was refused
    as many orders, so nothing was applied: applying nothing is not enough)."""
    moment = moments[kind]
    built = cases(moment)
    failures = [why for label, raw, want in built if (why := _misread(moment, raw, want, label))]
    failures += [
        f"{label}: no order meant, pbem read {got}"
        for label, raw, want in built
        if not want and (got := _read(moment, raw))
    ]
    assert not failures, f"{len(failures)} misread:\n" + "\n".join(failures)


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_in_brackets_not_in_capitals_is_told_how_to_write_it(moments: dict[str, Moment], kind: str) -> None:
    """ "(Pass)", "[Tribute gold 4]": brackets around an order typed in small letters may hold a remark ("(play
    nice!)"), so the line is not read; the player is told the line to send, and a remark so wrapped is only listed."""
    from pbem.app.lines import seeming_told
    from pbem.orders.extract import extract

    moment = moments[kind]
    eng = registry.get(moment.kind)
    for n, o in enumerate(moment.legal[:3]):
        typed = f"({o[:1].upper()}{o[1:].lower()})" if n % 2 else f"[{o.lower()}]"
        ex = seeming_told(eng, moment.state, moment.player, extract(f"Hi,\n{typed}\nThanks", "", eng.order_words))
        assert ex.orders == [] and any(p.endswith(f"write it as: {o}") for p in ex.problems), (typed, ex.problems)
    for aside in ASIDES:
        ex = seeming_told(eng, moment.state, moment.player, extract(f"{aside}\nThanks", "", eng.order_words))
        assert ex.orders == [] and ex.problems == [], (aside, ex.problems)


NARROW = (30, 36)  # columns of a phone client's wrap that quotes only each line's first piece


@pytest.mark.parametrize("kind", KINDS)
def test_a_listed_order_changed_in_a_narrow_first_piece_quote_is_told(moments: dict[str, Moment], kind: str) -> None:
    """A client that wraps at 30 to 36 columns and quotes only the first piece of each line ("> EVENT CLAIM Emperor
    TARGET" / "Carol"): a listed order changed there (the change all on the unquoted pieces) is not read and is told,
    as at 60 columns; the quote unchanged holds no change, and an order typed under a quoted line is the writer's."""
    from tests.test_replies3_players import read
    from tests.test_replies4_phones import reply
    from tests.test_replies7_orders import _changed, _listed
    from tests.test_replies8_rewrapped import ATTRIBUTION, _first_piece

    moment = moments[kind]
    original = _plain(moment.report)
    failures = []
    for n, i in enumerate(_listed(moment)[:4]):
        width = NARROW[n % len(NARROW)]
        other = moment.legal[(moment.legal.index(original[i].strip()) + 1) % len(moment.legal)]
        indent = original[i][: len(original[i]) - len(original[i].lstrip())]
        edited = [*original[:i], indent + other, *original[i + 1 :]]
        body = ["Hi,", "Thinking.", "", ATTRIBUTION, *_first_piece(edited, width)]
        told = [(" ".join(line.lstrip("> ").split()), was) for line, was in _changed(moment, body)[1]]
        if told != [(other, original[i].strip())]:
            failures.append(f"{width}: {other!r} <- {original[i].strip()!r}: told {told}")
        assert read(moment, reply(moment, body)) == (), (kind, width, other)
    for width in NARROW:
        quoted = _first_piece(original, width)
        assert _changed(moment, ["Hi,", "", ATTRIBUTION, *quoted])[1] == [], (kind, width)
        at = next(
            k for k, line in enumerate(quoted) if line.startswith(">") and moment.legal[0].startswith(line[2:].strip())
        )
        inline = [ATTRIBUTION, *quoted[: at + 1], moment.legal[-1], *quoted[at + 1 :]]
        assert _changed(moment, inline)[1] == [], (kind, width, "typed under a quoted line")
    assert not failures, f"{kind}: {len(failures)} not told:\n" + "\n".join(failures)
