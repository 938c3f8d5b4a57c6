"""Players of all four games answering from the clients and keyboards the six earlier corpora lack (replies7).

The replies3 harness (`tests.test_replies3_players`: a real game per kind at its first report and at a later step,
each reply read exactly as the poll reads it, the orders read applied) answers here, every case built from a real
report pbem sent, as these clients write a reply: iOS and macOS Apple Mail HTML only (a <div> or a <br> per line,
&nbsp; between words, the attribution inside or outside <blockquote type="cite">), Yahoo's, ProtonMail's and Samsung
Email's HTML (their quotes in a <div>, not a <blockquote>), Gmail's HTML lists (<ol><li>, <ul><li>: the number
or bullet is not in the text), orders in an HTML table (a row per order, a cell per word group, a numbered
column), Outlook desktop's Word-HTML lists (its bullets "·", "o", "§", its numbers "1.", "ii."), Outlook for
Android in German ("Outlook für Android herunterladen") and Outlook desktop in Finnish and Greek, Gmail's
attribution broken inside the address, Thunderbird's format=flowed with space-stuffing, with and without DelSp, the
order soft-wrapped; a forward of the report (Gmail's, Apple's, Thunderbird's) with the orders on top; the order in
the subject only, the body the quoted report; a reply to another game's report.  The orders are typed as phones
leave them: first word capitalised, a full stop and two spaces after, two spaces between words, indented, a dash
list marker turned into an em dash, "<--" and "->" turned into "<—" and "–>", bidirectional marks (U+200E, U+200F,
from a phone set to a right-to-left language), a word joiner (U+2060), a soft hyphen, an ideographic space.
The whole product (27 shapes, 15 typings, two orders, 8 moments: 6,480 replies) misread 2,854 before this corpus;
the test reads 54 replies a moment, every shape and typing among them (`cases`).

Every shape is also sent with no order of the player's ("Hi, thinking about it."): then nothing is read, never a
line of pbem's own quoted report, which lists every legal order, and no quoted line is told as changed.

What players meant and pbem misread before (each a class, fixed, its cases generated here for every game):

* an order in an HTML table was read with its cells run together ("TRIBUTEGold 4", "1.NO EVENT"): a table cell now
  ends with a space in `html_to_text` (and in `pbem.app.reading.html_words`, which must find the same words);
* an order with a bidirectional mark or a word joiner (U+200E, U+200F, U+2060), in the body or the subject, was no
  order (`pbem.orders.extract.INVISIBLE`);
* an order in Outlook's list at its second or third level ("o", "§") or numbered "ii." was no order
  (`pbem.orders.typed._MARKER`);
* an arrow or pointer whose dashes autocorrect made en or em dashes ("<— this", "—> PASS") was not taken off, and
  marked in the quote was not read (`pbem.orders.typed`);
* a reply to another game's report, with this game's tag and code, had that report read as orders (copies of the
  mails of the subject's game only were removed: `pbem.app.reading._mine`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from tests.test_replies3_players import KINDS, WHO, Moment, _html, _plain, _quoted, check, meant, read, shared_moments


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)  # test_replies3_players' games, built once per process


WHO_HTML = html.escape(WHO)
APPLE_WHEN = "On 30 Nov 2026, at 21:08, " + WHO + " wrote:"


def _esc(line: str, nbsp: bool = False) -> str:
    text = html.escape(line)
    return text.replace(" ", "&nbsp;") if nbsp else text


def _message(moment: Moment, subject: str = "", reply: bool = True) -> EmailMessage:
    sent = moment.report
    msg = EmailMessage()
    msg["From"] = f"{moment.player} <{moment.address}>"
    msg["To"] = str(sent["From"])
    msg["Subject"] = subject or "Re: " + str(sent["Subject"])
    msg["Message-ID"] = make_msgid(domain="players.example")
    if reply:
        msg["In-Reply-To"] = msg["References"] = str(sent["Message-ID"])
    return msg


def _html_mail(moment: Moment, body: str) -> bytes:
    msg = _message(moment)
    msg.set_content(body, subtype="html")
    return msg.as_bytes()


def _text_mail(moment: Moment, lines: list[str], subject: str = "", reply: bool = True) -> bytes:
    msg = _message(moment, subject, reply)
    msg.set_content("\n".join(lines) + "\n")
    return msg.as_bytes()


# ----------------------------------------------------------------------------------------------- HTML clients


def ios_html(moment: Moment, own: list[str]) -> bytes:
    """iOS Mail: a <div dir="ltr"> per line, &nbsp; where two spaces were typed, the attribution in a blockquote of
    its own, the report in another."""
    mine = "".join(f'<div dir="ltr">{_esc(x, nbsp=n % 2 == 1) or "<br>"}</div>' for n, x in enumerate(own))
    return _html_mail(
        moment,
        f'<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto">'
        f'{mine}<div dir="ltr"><br></div><div dir="ltr">Sent from my iPhone</div><div dir="ltr"><br>'
        f'<blockquote type="cite">{html.escape(APPLE_WHEN)}<br><br></blockquote></div>'
        f'<blockquote type="cite"><div dir="ltr">{_html(moment.report)}</div></blockquote></body></html>',
    )


def ios_html_br(moment: Moment, own: list[str]) -> bytes:
    """iOS Mail with the player's lines in one <div>, parted by <br>."""
    mine = "<br>".join(_esc(x) for x in own)
    return _html_mail(
        moment,
        f'<html><body dir="auto"><div dir="ltr">{mine}<br><br>Sent from my iPhone</div><div dir="ltr"><br>'
        f'<blockquote type="cite">{html.escape(APPLE_WHEN)}<br><br></blockquote></div>'
        f'<blockquote type="cite"><div dir="ltr">{_html(moment.report)}</div></blockquote></body></html>',
    )


def apple_mac_html(moment: Moment, own: list[str]) -> bytes:
    """macOS Mail: class="" everywhere, the attribution inside the blockquote, Apple-interchange-newline."""
    empty = '<br class="">'
    mine = "".join(f'<div class="">{_esc(x) or empty}</div>' for x in own)
    return _html_mail(
        moment,
        f'<html><head></head><body style="word-wrap: break-word;" class="">{mine}<div class=""><br class="">'
        f'<blockquote type="cite" class=""><div class="">{html.escape(APPLE_WHEN)}</div>'
        f'<br class="Apple-interchange-newline"><div class="">{_html(moment.report)}</div></blockquote></div>'
        f'<br class=""></body></html>',
    )


def apple_mac_bottom(moment: Moment, own: list[str]) -> bytes:
    """macOS Mail, the answer typed below the quote."""
    mine = "".join(f"<div>{_esc(x) or '<br>'}</div>" for x in own)
    return _html_mail(
        moment,
        f'<html><body><div><br><blockquote type="cite"><div>{html.escape(APPLE_WHEN)}</div><br>'
        f"<div>{_html(moment.report)}</div></blockquote></div><br><div>{mine}</div></body></html>",
    )


def _gmail_quote(moment: Moment) -> str:
    attr = html.escape(f"On Mon, 30 Nov 2026 at 21:08, {WHO} wrote:")
    return (
        f'<br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">{attr}<br></div>'
        f'<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">{_html(moment.report)}</blockquote></div>'
    )


def _split_orders(own: list[str], orders: list[str]) -> tuple[list[str], list[str], list[str]]:
    """`own` as (the lines above the orders, the orders, the lines below them)."""
    at = [k for k, x in enumerate(own) if x in orders]
    if not at:
        return own, [], []
    return own[: at[0]], own[at[0] : at[-1] + 1], own[at[-1] + 1 :]


def gmail_list(tag: str) -> Callable[[Moment, list[str], list[str]], bytes]:
    def build(moment: Moment, own: list[str], orders: list[str]) -> bytes:
        head, listed, tail = _split_orders(own, orders)
        items = "".join(f"<li>{_esc(x)}</li>" for x in listed)
        lst = f"<{tag}>{items}</{tag}>" if items else ""
        body = "".join(f"<div>{_esc(x) or '<br>'}</div>" for x in head)
        body += lst + "".join(f"<div>{_esc(x) or '<br>'}</div>" for x in tail)
        return _html_mail(moment, f'<div dir="ltr">{body}</div>{_gmail_quote(moment)}')

    return build


def table(form: str) -> Callable[[Moment, list[str], list[str]], bytes]:
    """An Outlook-drawn table of orders: a row per order, one cell (`one`), the order word and the rest in two
    cells (`split`), or a numbered column (`numbered`)."""

    def row(n: int, order: str) -> str:
        word, _, rest = order.partition(" ")
        if form == "split" and rest:
            return f"<tr><td>{_esc(word)}</td><td>{_esc(rest)}</td></tr>"
        if form == "numbered":
            return f"<tr><td>{n + 1}.</td><td>{_esc(order)}</td></tr>"
        return f"<tr><td>{_esc(order)}</td></tr>"

    def build(moment: Moment, own: list[str], orders: list[str]) -> bytes:
        head, listed, tail = _split_orders(own, orders)
        rows = "".join(row(n, x) for n, x in enumerate(listed))
        grid = f'<table border="1" cellpadding="0" style="border-collapse:collapse"><tbody>{rows}</tbody></table>'
        block = "<br>".join(
            html.escape(x)
            for x in (
                f"From: {moment.report['From']}",
                "Sent: Monday, November 30, 2026 9:08 PM",
                f"To: {moment.report['To']}",
                f"Subject: {moment.report['Subject']}",
            )
        )
        paras = "".join(f'<p class="MsoNormal">{_esc(x) or "&nbsp;"}</p>' for x in head)
        after = "".join(f'<p class="MsoNormal">{_esc(x) or "&nbsp;"}</p>' for x in tail)
        return _html_mail(
            moment,
            f'<html><body><div class="WordSection1">{paras}{grid if rows else ""}{after}<hr>'
            f'<div id="divRplyFwdMsg">{block}</div><div>{_html(moment.report)}</div></div></body></html>',
        )

    return build


def outlook_list(marker: str, font: str = "Symbol") -> Callable[[Moment, list[str], list[str]], bytes]:
    """Outlook desktop's list (Word's HTML): the bullet or number in a mso-list:Ignore span, non-breaking spaces after
    it, inside a marked section for clients without lists.  "·", "o", "§" are its bullets' three levels (Symbol,
    Courier New, Wingdings); "1.", "a.", "ii." its numbers."""

    def item(order: str) -> str:
        return (
            "<p class=MsoListParagraph style='mso-list:l0 level1 lfo1'><![if !supportLists]>"
            f"<span style='font-family:{font}'><span style='mso-list:Ignore'>{html.escape(marker)}"
            "<span style='font:7.0pt \"Times New Roman\"'>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp; </span></span></span>"
            f"<![endif]>{_esc(order)}<o:p></o:p></p>"
        )

    def build(moment: Moment, own: list[str], orders: list[str]) -> bytes:
        head, listed, tail = _split_orders(own, orders)
        paras = "".join(f'<p class="MsoNormal">{_esc(x) or "&nbsp;"}</p>' for x in head)
        after = "".join(f'<p class="MsoNormal">{_esc(x) or "&nbsp;"}</p>' for x in tail)
        block = "<br>".join(
            html.escape(x) for x in _outlook_block(moment, ("From:", "Sent:", "To:", "Subject:"), "Monday")
        )
        return _html_mail(
            moment,
            f'<html><body><div class="WordSection1">{paras}{"".join(item(x) for x in listed)}{after}<hr>'
            f'<div id="divRplyFwdMsg">{block}</div><div>{_html(moment.report)}</div></div></body></html>',
        )

    return build


def yahoo_html(moment: Moment, own: list[str]) -> bytes:
    """Yahoo: the report in a yahoo_quoted <div>, not a blockquote, under its attribution."""
    mine = "".join(f"<div>{_esc(x) or '<br>'}</div>" for x in own)
    when = html.escape(f"On Monday, November 30, 2026, 09:08:00 PM GMT+1, {WHO} wrote:")
    return _html_mail(
        moment,
        f'<html><body><div class="ydp3f0f6a4yahoo-style-wrap">{mine}</div><div id="yahoo_quoted_1234" '
        f'class="yahoo_quoted"><div style="font-family:Helvetica"><div>{when}</div><div><br></div><div><br></div>'
        f'<div><div dir="ltr">{_html(moment.report)}</div></div></div></div></body></html>',
    )


def proton_html(moment: Moment, own: list[str]) -> bytes:
    mine = "".join(f"<div>{_esc(x) or '<br>'}</div>" for x in own)
    when = html.escape(f"On Monday, November 30th, 2026 at 21:08, {WHO} wrote:")
    return _html_mail(
        moment,
        f'<div style="font-family: Arial">{mine}</div><div class="protonmail_signature_block">'
        f'<div class="protonmail_signature_block-proton">Sent with <a href="https://proton.me">Proton Mail</a> '
        f'secure email.</div></div><br><div class="protonmail_quote">------- Original Message -------<br>{when}<br>'
        f'<br><blockquote class="protonmail_quote" type="cite">{_html(moment.report)}</blockquote><br></div>',
    )


def samsung_html(moment: Moment, own: list[str]) -> bytes:
    """Samsung Email: its "-------- Original message --------" block in <div>s, the report unquoted below."""
    mine = "".join(f'<div dir="auto">{_esc(x) or "<br>"}</div>' for x in own)
    head = "".join(
        f"<div>{html.escape(x)}</div>"
        for x in (
            "-------- Original message --------",
            f"From: {moment.report['From']} ",
            "Date: 30/11/2026  21:08  (GMT+01:00) ",
            f"To: {moment.address} ",
            f"Subject: {moment.report['Subject']} ",
        )
    )
    return _html_mail(
        moment,
        f'<html><body>{mine}<div dir="auto"><br></div><div id="composer_signature" dir="auto"><div '
        f'style="font-size:85%;color:#575757" dir="auto">Sent from my Galaxy</div></div><div dir="auto"><br></div>'
        f'<div><br></div><div align="left" dir="auto" style="font-size:100%;color:#000000">{head}<div><br></div>'
        f"</div>{_html(moment.report)}</body></html>",
    )


# ----------------------------------------------------------------------------------------------- text clients


def _outlook_block(moment: Moment, labels: tuple[str, str, str, str], date: str) -> list[str]:
    frm, when, to, subject = labels
    sent = moment.report
    return [f"{frm} {sent['From']}", f"{when} {date}", f"{to} {sent['To']}", f"{subject} {sent['Subject']}"]


def outlook_android_de(moment: Moment, own: list[str]) -> bytes:
    block = _outlook_block(moment, ("Von:", "Gesendet:", "An:", "Betreff:"), "Montag, November 30, 2026 9:08:00 PM")
    signature = "Outlook für Android herunterladen<https://aka.ms/ghei36>"
    return _text_mail(moment, [*own, "", signature, "", "_" * 32, *block, "", *_plain(moment.report)])


def outlook_fi(moment: Moment, own: list[str]) -> bytes:
    labels = ("Lähettäjä:", "Lähetetty:", "Vastaanottaja:", "Aihe:")
    block = _outlook_block(moment, labels, "maanantai 30. marraskuuta 2026 21.08")
    return _text_mail(moment, [*own, "", "_" * 32, *block, "", *_plain(moment.report)])


def outlook_el(moment: Moment, own: list[str]) -> bytes:
    labels = ("Από:", "Στάλθηκε:", "Προς:", "Θέμα:")
    block = _outlook_block(moment, labels, "Δευτέρα, 30 Νοεμβρίου 2026 9:08 μμ")
    return _text_mail(moment, [*own, "", "_" * 32, *block, "", *_plain(moment.report)])


def gmail_wrapped_address(moment: Moment, own: list[str]) -> bytes:
    """Gmail's plain part, its attribution wrapped inside the sender's address."""
    attr = ["On Mon, 30 Nov 2026 at 21:08, pbem moderator <", "games@example.org> wrote:"]
    return _text_mail(moment, [*own, "", *attr, "", *_quoted(_plain(moment.report))])


def gmail_wrapped_de(moment: Moment, own: list[str]) -> bytes:
    attr = ["Am Mo., 30. Nov. 2026 um 21:08 Uhr schrieb pbem moderator <", "games@example.org>:"]
    return _text_mail(moment, [*own, "", *attr, "", *_quoted(_plain(moment.report))])


def _flowed(line: str, width: int, delsp: bool) -> list[str]:
    """`line` as format=flowed writes it: space-stuffed, soft-wrapped after a space at `width` (the line ends with
    that space: the soft break; with DelSp=yes one more space, which the reader deletes)."""
    stuffed = " " + line if line.startswith((" ", ">", "From ")) else line
    out, now = [], ""
    for word in stuffed.split(" "):
        if now and len(now) + len(word) > width:
            out.append(now + (" " if delsp else ""))
            now = ""
        now += word + " "
    return [*out, now[:-1]]


def thunderbird_flowed(delsp: bool, width: int = 20) -> Callable[[Moment, list[str]], bytes]:
    """Thunderbird bottom-posted in format=flowed: the quote and the player's lines soft-wrapped at `width`."""

    def build(moment: Moment, own: list[str]) -> bytes:
        quoted: list[str] = []
        for line in _plain(moment.report):
            quoted += [("> " + p).rstrip("\n") for p in _flowed(line.rstrip(), 72, delsp)] if line.strip() else [">"]
        mine = [p for x in own for p in (_flowed(x, width, delsp) if x else [""])]
        lines = ["On 30/11/2026 21:08, pbem moderator wrote:", *quoted, "", *mine, "", "-- ", "Alice"]
        msg = _message(moment)
        msg.set_content("\n".join(lines) + "\n")
        msg.set_param("format", "flowed")
        if delsp:
            msg.set_param("delsp", "yes")
        return msg.as_bytes()

    return build


def forwarded(style: str) -> Callable[[Moment, list[str]], bytes]:
    """The report forwarded to the game's address with the orders on top (a new mail: no In-Reply-To)."""

    def build(moment: Moment, own: list[str]) -> bytes:
        sent = moment.report
        fields = [f"From: {sent['From']}", "Date: Mon, 30 Nov 2026 at 21:08", f"Subject: {sent['Subject']}"]
        fields.append(f"To: <{moment.address}>")
        head = {
            "gmail": ["---------- Forwarded message ---------", *fields],
            "apple": ["Begin forwarded message:", "", *fields],
            "thunderbird": ["-------- Forwarded Message --------", *(f.replace(": ", ": \t", 1) for f in fields)],
        }[style]
        return _text_mail(
            moment, [*own, "", *head, "", *_plain(sent)], subject="Fwd: " + str(sent["Subject"]), reply=False
        )

    return build


def subject_only(moment: Moment, own: list[str], orders: list[str]) -> bytes:
    """The order typed into the subject, after the game's tag; the body the quoted report and a greeting."""
    tag = str(moment.report["Subject"]).split("]", 1)[0] + "]"
    subject = f"Re: {tag} {orders[0]}" if orders else "Re: " + str(moment.report["Subject"])
    rest = [x for x in own if x not in orders]
    return _text_mail(
        moment, [*rest, "", f"On Mon, 30 Nov 2026 at 21:08, {WHO} wrote:", *_quoted(_plain(moment.report))], subject
    )


Shape = Callable[[Moment, list[str], list[str]], bytes]


def _own(build: Callable[[Moment, list[str]], bytes]) -> Shape:
    return lambda moment, own, orders: build(moment, own)


SHAPES: dict[str, Shape] = {
    "ios-html": _own(ios_html),
    "ios-html-br": _own(ios_html_br),
    "apple-mac-html": _own(apple_mac_html),
    "apple-mac-bottom": _own(apple_mac_bottom),
    "gmail-ol": gmail_list("ol"),
    "gmail-ul": gmail_list("ul"),
    "table-one-cell": table("one"),
    "table-split": table("split"),
    "table-numbered": table("numbered"),
    "outlook-list-bullet": outlook_list("·"),
    "outlook-list-o": outlook_list("o", "Courier New"),
    "outlook-list-section": outlook_list("§", "Wingdings"),
    "outlook-list-roman": outlook_list("ii.", "Calibri"),
    "yahoo-html": _own(yahoo_html),
    "proton-html": _own(proton_html),
    "samsung-html": _own(samsung_html),
    "outlook-android-de": _own(outlook_android_de),
    "outlook-fi": _own(outlook_fi),
    "outlook-el": _own(outlook_el),
    "gmail-wrapped-address": _own(gmail_wrapped_address),
    "gmail-wrapped-de": _own(gmail_wrapped_de),
    "thunderbird-flowed": _own(thunderbird_flowed(False)),
    "thunderbird-flowed-delsp": _own(thunderbird_flowed(True)),
    "forward-gmail": _own(forwarded("gmail")),
    "forward-apple": _own(forwarded("apple")),
    "forward-thunderbird": _own(forwarded("thunderbird")),
    "subject-only": subject_only,
}


def _capital(o: str) -> str:
    return o[:1].upper() + o[1:].lower()


TYPINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda o: o,
    "capitalised": _capital,  # "No event", "Tribute gold 4"
    "capitalised-stop-spaces": lambda o: _capital(o) + ".  ",
    "two-spaces": lambda o: o.replace(" ", "  "),
    "em-dash-marker": lambda o: "\u2014 " + o,  # "-- " as a list marker, autocorrected to an em dash
    "en-dash-marker": lambda o: "\u2013 " + o,
    "lrm": lambda o: "\u200e" + o + "\u200e",  # bidirectional marks of a phone set to a right-to-left language
    "rlm-words": lambda o: "\u200f" + o.replace(" ", " \u200f"),
    "word-joiner": lambda o: o.replace(" ", "\u2060 ") + "\u2060",
    "soft-hyphen": lambda o: o.replace(" ", "\u00ad ", 1),
    "ideographic-space": lambda o: o.replace(" ", "\u3000"),
    "nbsp-stop": lambda o: o.replace(" ", "\xa0") + ".\xa0",
    "indented": lambda o: "  " + o,  # space-stuffed by format=flowed
    "pointer-em-dash": lambda o: o + " <\u2014 this one",  # "<--" autocorrected: "--" became an em dash
    "arrow-en-dash": lambda o: "\u2013> " + o,
}

SIGNED = ["", "Thanks,", "Alice"]


def _reply(moment: Moment, shape: str, typing: str, want: list[str]) -> bytes:
    orders = [TYPINGS[typing](o) for o in want]
    own = ["Hi,", "", *orders, *SIGNED]
    return SHAPES[shape](moment, own, orders)


def cases() -> list[tuple[str, str]]:
    """Every shape with every typing once, mixed: (shape, typing)."""
    shapes, typings = list(SHAPES), list(TYPINGS)
    step = next(k for k in range(5, 99) if math.gcd(k, len(typings)) == 1)  # every typing, mixed
    return [(shapes[n % len(shapes)], typings[(n * step) % len(typings)]) for n in range(len(shapes) * 2)]


def test_the_corpus_holds_every_shape_and_typing() -> None:
    got = cases()
    assert {s for s, _ in got} == set(SHAPES) and {t for _, t in got} == set(TYPINGS)
    assert len(SHAPES) >= 20


@pytest.mark.parametrize("kind", KINDS)
def test_each_new_shape_is_read_as_the_player_meant(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    failures = []
    for n, (shape, typing) in enumerate(cases()):
        want = meant(moment, n)
        try:
            check(moment, _reply(moment, shape, typing, want), want, f"{shape}/{typing}")
        except AssertionError as err:
            failures.append(str(err))
    assert not failures, f"{len(failures)} of {len(cases())}:\n" + "\n".join(failures)


@pytest.mark.parametrize("kind", KINDS)
def test_each_new_shape_with_no_order_reads_none_of_pbems_lines(moments: dict[str, Moment], kind: str) -> None:
    """No order of the player's: nothing is read, though the quoted (or forwarded) report lists every legal order;
    and with or without one, no line of the quote is told as changed or typed into it (the quote is as pbem wrote
    it)."""
    from pbem import engine as registry
    from pbem.app.reading import own_text
    from pbem.mail.inbound.message import parse
    from pbem.mail.inbound.replies import SentMail

    moment = moments[kind]
    mid = str(moment.report["Message-ID"])
    sent = {mid: SentMail(mid, 1, moment.player, moment.address, None, moment.report.as_bytes())}
    words = tuple(registry.get(moment.kind).order_words)
    failures = []
    for shape, build in SHAPES.items():
        for own, orders in ((["Hi,", "", "Thinking about it, more tomorrow.", *SIGNED], []), _typed(moment)):
            raw = build(moment, own, orders)
            got = read(moment, raw)
            if got != tuple(orders):
                failures.append(f"{kind} / {shape}: read {got}")
            changed: list[tuple[str, str]] = []
            own_text(parse(raw), sent, 1, words, changed)
            if changed:  # a quote left as pbem wrote it holds no line changed or typed into it
                failures.append(f"{kind} / {shape}: told of {changed}")
    assert not failures, "\n".join(failures)


def _typed(moment: Moment) -> tuple[list[str], list[str]]:
    orders = meant(moment, 0)
    return ["Hi,", "", *orders, *SIGNED], orders


#: Format characters (Unicode category Cf) that are a sign of their own, not an invisible mark: the Arabic number
#: and end-of-ayah signs, Syriac's abbreviation mark and the like, which stay in a line as typed.
SHOWN = frozenset(
    chr(c) for c in (*range(0x0600, 0x0606), 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0xFFF9, 0xFFFA, 0xFFFB)
)


def test_every_invisible_format_character_inside_an_order_is_read_past() -> None:
    """Every format character of the Basic Multilingual Plane that shows nothing, before, inside and after an order of
    each game, and in the subject: the order is read as itself (U+200E from a phone set to Hebrew made it chatter)."""
    import unicodedata

    from pbem import engine as registry
    from pbem.orders.extract import extract

    hidden = [chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) == "Cf" and chr(c) not in SHOWN]
    assert len(hidden) >= 25
    for kind in registry.available():
        words = registry.get(kind).order_words
        order = {"habsburg": "NO EVENT", "italian-wars": "DISCARD NONE"}.get(kind, "PLACE NONE")
        order = "TRIBUTE Gold 4" if kind == "dynasties" else order
        for ch in hidden:
            line = ch + order.replace(" ", " " + ch) + ch
            got = extract(f"Hi,\n{line}\nThanks", "", words).orders
            assert got == [order], (kind, hex(ord(ch)), got)
            assert extract("", f"Re: [pbem g1] {line}", words).orders == [order], (kind, hex(ord(ch)))


@pytest.mark.parametrize("kind", KINDS)
def test_a_quoted_line_marked_with_an_autocorrected_arrow_is_read(moments: dict[str, Moment], kind: str) -> None:
    """ "> NO EVENT <-- this" typed on a phone whose autocorrect turns "--" into a dash ("<— this", "<– my pick"), or
    "<— this" on a line of its own under the quoted line: the marked line is the player's choice, as "<--" is."""
    from tests.test_replies3_players import ATTRIBUTIONS
    from tests.test_replies4_phones import _listed, reply

    moment = moments[kind]
    original = _plain(moment.report)
    listed = _listed(moment)
    assert listed, kind
    for n, (at, order) in enumerate(listed[:6]):
        quoted = _quoted(original)
        if n % 2:
            quoted = [*quoted[: at + 1], "<\u2014 this", *quoted[at + 1 :]]
        else:
            quoted[at] += " <\u2014 this" if n % 4 == 0 else " <\u2013 my pick"
        body = ["Hi,", "", ATTRIBUTIONS["apple"][0], "", *quoted]
        check(moment, reply(moment, body), [order], f"marked {n}: {order}")


@pytest.mark.parametrize("kind", sorted({k.split("+")[0] for k in KINDS}))
def test_a_reply_to_another_games_report_reads_none_of_its_lines(moments: dict[str, Moment], kind: str) -> None:
    """A player of two games answers the report of one (its References name it) with the other game's tag in the
    subject and their code: the report it answers, pasted under a header block no rule knows (Vietnamese Outlook),
    was read as orders, its every listed legal order applied or refused (the poll removed copies of the mails of the
    subject's game only; `pbem verify` read it without them).  Copies of every mail pbem sent the sender that the
    reply names are removed; the player's own order alone is read."""
    from pbem import engine as registry
    from pbem.app.reading import own_text
    from pbem.mail.inbound.message import parse
    from pbem.mail.inbound.replies import SentMail
    from pbem.orders.extract import extract
    from tests.reply_clients import UNKNOWN_LABELS

    mine, other = moments[kind], moments[f"{kind}+later"]  # another game of the same kind: its orders are this kind's
    mid = str(other.report["Message-ID"])
    sent = {mid: SentMail(mid, 2, mine.player, mine.address, None, other.report.as_bytes())}
    frm, when, to, subject, date = UNKNOWN_LABELS[0]
    block = [f"{frm}: {other.report['From']}", f"{when}: {date}", f"{to}: {mine.address}", f"{subject}: Gambit"]
    want = meant(mine, 0)
    body = [*want, "CODE K7QX-2MPD", "", "-----", *block, "", *_plain(other.report)]
    msg = _message(mine, subject="Re: [pbem g1] orders")
    msg.replace_header("In-Reply-To", mid)
    msg.replace_header("References", mid)
    msg.set_content("\n".join(body) + "\n")
    words = tuple(registry.get(kind).order_words)
    text = own_text(parse(msg.as_bytes()), sent, 1, words)
    assert extract(text, "", words).orders == want, (kind, extract(text, "", words).orders)
