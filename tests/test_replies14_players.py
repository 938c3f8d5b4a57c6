"""Replies still misread or silently dropped (replies14): a line highlighted, a quote inside a quote, an order under a
"-- " signature above the quote, an order inside a paragraph a phone did not wrap; and client shapes that were sound.

A player marks their choice in the report by colouring its line, not only in bold: `<span style="color:...">`, a
background, `<font color>`, `<mark>`, Outlook's `mso-highlight`, in Outlook's unquoted original or in Gmail's and
Apple Mail's quote.  `html_to_text` starred bold lines only, so a highlighted line was pbem's words and dropped.
A reply to the player's own earlier reply quotes pbem's report inside the earlier answer: `html_to_text` gave each
line one "> " whatever its depth, so a line the player had set in bold in the older quote read as marked now.
"-- " / "Alice Martin" / "NO EVENT" above the quote: the signature's lines are not read, so the order was dropped with
nothing told (now told when the engine takes it alone, `signed_note`).  A phone's paragraph on one line with "... I
will go with NO EVENT, because ..." was chatter, told nothing (now told how to write it, `in_prose`).  Controls: the
same line of the older quote coloured, the report coloured on every line by the client (Gmail's purple), a
signature's line and a paragraph that name no order: nothing read, nothing told.  Shapes from real clients that were
read right on 4adb736 (sound): Outlook for iOS's header block in seven languages, Gmail's attribution on two lines,
Apple Mail's "Sent from my iPhone" over "> On ..., at ..., X wrote:", format=flowed with space-stuffing,
quoted-printable soft breaks inside a word, an empty text part beside the HTML one, Windows-1252 and ISO-8859-1, a
forward.

On 4adb736, 144 of the 496 cases of the whole generator (`cases(moment, every=True)`) failed, each dropped with
nothing told: 120 highlighted lines (every way, every client), 16 a bold line of the older quote (read as marked now,
with or without a new order), 8 prose; the test through `seeming_told` failed for all 8 moments (the order under the
signature and the one in prose told nothing).  The controls and the sound shapes: none failed.  The suite runs a
share, 10 cases a moment (56 of its 80 failed on 4adb736): each highlight with one client turning, one control, the
older quote in bold and one highlight, prose, one sound shape turning.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest

from pbem import engine as registry
from pbem.app.lines import seeming_told
from pbem.mail.inbound.message import HIGHLIGHT_LINES, html_to_text
from pbem.orders.extract import extract, seeming_note, signed_note
from tests.test_replies3_players import ATTRIBUTIONS, KINDS, Moment, _plain, _quoted, shared_moments
from tests.test_replies7_clients import _esc, _html_mail, _message, _text_mail
from tests.test_replies10_players import QUIET, TOLD, misread_or_untold, reading
from tests.test_replies11_players import NONE
from tests.test_replies12_players import _divs, apple, gmail, listed, outlook_web, report


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


#: How a player highlights a line (escaped): coloured, on a coloured ground, <mark>ed, Outlook's highlighter.
HIGHLIGHT: dict[str, Callable[[str], str]] = {
    "span-color": lambda e: f'<span style="color:rgb(255,0,0)">{e}</span>',
    "span-background": lambda e: f'<span style="background-color:yellow">{e}</span>',
    "font-color": lambda e: f'<font color="#ff0000">{e}</font>',
    "mark": lambda e: f"<mark>{e}</mark>",
    "mso-highlight": lambda e: f"<span style='background:yellow;mso-highlight:yellow'>{e}</span>",
}
BOLD: dict[str, Callable[[str], str]] = {"b": lambda e: f"<b>{e}</b>"}
QUOTING: dict[str, Callable[[Moment, list[str], str], str]] = {
    "outlook-web": outlook_web,
    "gmail": gmail,
    "apple": apple,
}


def _marked(moment: Moment, order: str, how: Callable[[str], str]) -> str:
    """pbem's HTML report with the <li> listing `order` set `how`."""
    e = html.escape(order, quote=False)
    return report(moment, False).replace(f"<li>{e}</li>", f"<li>{how(e)}</li>", 1)


def highlighted(moment: Moment, order: str, how: Callable[[str], str], client: Callable[..., str]) -> bytes:
    return _html_mail(moment, client(moment, ["Meine Wahl ist unten markiert."], _marked(moment, order, how)))


def nested(moment: Moment, own: list[str], older: str, how: Callable[[str], str]) -> bytes:
    """Gmail's reply to the player's own earlier reply, which quoted pbem's report with the line listing `older` set
    `how` (their choice then): the report quoted inside the earlier answer."""
    inner = gmail(moment, ["See below"], _marked(moment, older, how))
    mine = html.escape(f"On Tue, 1 Dec 2026 at 08:00, {moment.player} <{moment.address}> wrote:")
    body = (
        f'<div dir="ltr">{_divs([_esc(x) for x in own])}</div><br><div class="gmail_quote"><div dir="ltr" '
        f'class="gmail_attr">{mine}<br></div><blockquote class="gmail_quote">{inner}</blockquote></div>'
    )
    return _html_mail(moment, body)


PURPLE = '<span style="color:rgb(80,0,80)">'  # Gmail's colour for a quote inside a quote


def coloured(moment: Moment, client: Callable[..., str]) -> bytes:
    """The report quoted with every <li> and <p> line in one colour (the client's, no mark), no order typed."""
    rep = re.sub(r"<(li|p)>(.*?)</\1>", lambda m: f"<{m[1]}>{PURPLE}{m[2]}</span></{m[1]}>", report(moment, False))
    return _html_mail(moment, client(moment, [_esc(NONE)], rep))


def _top(moment: Moment, own: list[str], attribution: list[str] | None = None) -> list[str]:
    return [*own, "", *(attribution or ATTRIBUTIONS["gmail-en"]), "", *_quoted(_plain(moment.report))]


def signed_then(moment: Moment, own: list[str]) -> bytes:
    """A "-- " signature, then the answer typed under it, above the quote."""
    return _text_mail(moment, _top(moment, ["Hi,", "", "-- ", "Alice Martin", *own]))


def prose(moment: Moment, said: str) -> bytes:
    """A phone's paragraph on one line (not wrapped), `said` inside it."""
    line = (
        "Hi, thanks for running this, I thought about it for a long while on the train this morning and in the end "
        f"{said}, because the other choices look too risky to me right now. Talk soon!"
    )
    return _text_mail(moment, _top(moment, [line]))


OUTLOOK_IOS = {  # Outlook for iOS: its signature, its header block's labels, the date as it writes it
    "en": ("Get Outlook for iOS", "From", "Sent", "To", "Subject", "Monday, November 30, 2026 9:08:12 PM"),
    "de": ("Outlook für iOS herunterladen", "Von", "Gesendet", "An", "Betreff", "Montag, November 30, 2026 9:08 PM"),
    "fr": ("Obtenir Outlook pour iOS", "De", "Envoyé", "À", "Objet", "lundi, novembre 30, 2026 9:08:12 PM"),
    "es": ("Obtener Outlook para iOS", "De", "Enviado", "Para", "Asunto", "lunes, noviembre 30, 2026 9:08 p. m."),
    "it": ("Scarica Outlook per iOS", "Da", "Inviato", "A", "Oggetto", "lunedì, novembre 30, 2026 9:08:12 PM"),
    "nl": ("Outlook voor iOS downloaden", "Van", "Verzonden", "Aan", "Onderwerp", "maandag, november 30, 2026"),
    "pt": ("Obter o Outlook para iOS", "De", "Enviado", "Para", "Assunto", "segunda-feira, novembro 30, 2026"),
}


def outlook_ios(moment: Moment, own: list[str], lang: str) -> bytes:
    sig, f, s, t, subj, date = OUTLOOK_IOS[lang]
    sent = moment.report
    block = [f"{f}: {sent['From']}", f"{s}: {date}", f"{t}: {sent['To']}", f"{subj}: {sent['Subject']}"]
    return _text_mail(moment, [*own, "", f"{sig}<https://aka.ms/o0ukef>", "_" * 32, *block, "", *_plain(sent)])


def _raw(moment: Moment, head: str, lines: list[str]) -> bytes:
    msg = _message(moment)
    top = "\r\n".join([*(f"{k}: {v}" for k, v in msg.items()), "MIME-Version: 1.0", head])
    return (top + "\r\n\r\n" + "\r\n".join(lines) + "\r\n").encode()


def flowed_stuffed(moment: Moment, own: list[str]) -> bytes:
    """Thunderbird's format=flowed: a line of the player's starting with a space stuffed with one more."""
    stuffed = [" " + x if x.startswith((" ", "From ", ">")) else x for x in own]
    head = "Content-Type: text/plain; charset=utf-8; format=flowed\r\nContent-Transfer-Encoding: 8bit"
    return _raw(moment, head, [*stuffed, "", *_top(moment, [], ATTRIBUTIONS["thunderbird"])[1:]])


def qp_midword(moment: Moment, own: list[str]) -> bytes:
    """Quoted-printable with a soft break inside the first word of each of the player's lines."""
    out = []
    for x in _top(moment, own):
        q = "".join(c if 32 <= ord(c) < 127 and c != "=" else "".join(f"={b:02X}" for b in c.encode()) for c in x)
        out.append(q[:3] + "=\r\n" + q[3:] if x in own and len(q) > 3 else q)
    return _raw(moment, "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable", out)


def empty_text(moment: Moment, own: list[str]) -> bytes:
    """An empty text part beside the HTML one that holds the answer."""
    msg = _message(moment)
    msg.set_content("\n")
    msg.add_alternative(gmail(moment, [_esc(x) for x in own], report(moment, False)), subtype="html")
    return msg.as_bytes()


def charset(moment: Moment, own: list[str], name: str) -> bytes:
    msg = _message(moment)
    text = "\n".join(_top(moment, [*own, "", "Grüße, Zoë"], ATTRIBUTIONS["gmail-de"])) + "\n"
    msg.set_content(text.encode(name, "replace"), "text", "plain", params={"charset": name}, cte="quoted-printable")
    return msg.as_bytes()


def forwarded(moment: Moment, own: list[str]) -> bytes:
    """The report forwarded back with the answer above Gmail's forward marker, the report unquoted below it."""
    sent = moment.report
    block = ["---------- Forwarded message ---------", f"From: {sent['From']}", "Date: Mon, 30 Nov 2026 at 21:08"]
    rest = [f"Subject: {sent['Subject']}", f"To: {sent['To']}", "", *_plain(sent)]
    return _text_mail(moment, [*own, "", *block, *rest], subject="Fwd: " + str(sent["Subject"]))


def sound(moment: Moment, o: str) -> list[tuple[str, bytes, list[str] | None]]:
    """The client shapes read right on 4adb736, with the order `o` and with none."""
    out: list[tuple[str, bytes, list[str] | None]] = []
    for lang in OUTLOOK_IOS:
        out += [(f"outlook-ios/{lang}", outlook_ios(moment, [o], lang), [o])]
        out += [(f"outlook-ios/{lang}/none", outlook_ios(moment, [NONE], lang), QUIET)]
    for name, build in {
        "gmail-two-lines": lambda own: _text_mail(moment, _top(moment, own, ATTRIBUTIONS["gmail-ios-wrapped"])),
        "iphone-plain": lambda own: _text_mail(moment, [*own, "", "Sent from my iPhone", "", *_quoted(_apple(moment))]),
        "flowed-stuffed": lambda own: flowed_stuffed(moment, own),
        "qp-midword": lambda own: qp_midword(moment, own),
        "empty-text": lambda own: empty_text(moment, own),
        "windows-1252": lambda own: charset(moment, own, "windows-1252"),
        "iso-8859-1": lambda own: charset(moment, own, "iso-8859-1"),
        "forwarded": lambda own: forwarded(moment, own),
    }.items():
        out += [(name, build(["Hi,", " " + o if name == "flowed-stuffed" else o]), [o])]
        out += [(f"{name}/none", build(["Hi,", NONE]), QUIET)]
    return out


def _apple(moment: Moment) -> list[str]:
    return [f"On 30 Nov 2026, at 21:08, {moment.report['From']} wrote:", "", *_plain(moment.report)]


def cases(moment: Moment, every: bool = False) -> list[tuple[str, bytes, list[str] | None]]:
    """(label, the reply, the orders meant: TOLD where the line is to be set aside and told): every highlight in
    every client, the older quote marked each way, every control and sound shape (`every`), or the suite's share."""
    legal, choices, turn = moment.legal, listed(moment), sum(str(moment.report["Subject"]).encode())
    o1, o2 = legal[0], legal[-1]
    out: list[tuple[str, bytes, list[str] | None]] = []
    for c, (cname, client) in enumerate(QUOTING.items()):
        for k, (hname, how) in enumerate(HIGHLIGHT.items()):
            if every or (turn + k) % len(QUOTING) == c:
                o = choices[(c * 4 + k) % len(choices)]
                out.append((f"highlight/{cname}/{hname}", highlighted(moment, o, how, client), [o]))
        if every or turn % len(QUOTING) == c:
            out.append((f"coloured/{cname}/none", coloured(moment, client), QUIET))
    for k, (hname, how) in enumerate({**BOLD, **HIGHLIGHT}.items()):
        o = choices[k % len(choices)]
        if every or k == 0:
            out.append((f"older/{hname}/none", nested(moment, [NONE], o, how), QUIET))
        if every or k == 1 + turn % len(HIGHLIGHT):
            out.append((f"older/{hname}/order", nested(moment, ["Sorry, I meant:", o2], o, how), [o2]))
    out.append(("prose", prose(moment, f"I will go with {o1}"), TOLD))
    if every:
        out.append(("prose/none", prose(moment, "I will answer on SUNDAY"), QUIET))
    shapes = sound(moment, o2)
    return out + (shapes if every else [shapes[turn % len(shapes)]])


@pytest.mark.parametrize("kind", KINDS)
def test_each_reply_of_the_replies14_corpus_is_read_as_the_player_meant(moments: dict[str, Moment], kind: str) -> None:
    failures = misread_or_untold(moments[kind], cases(moments[kind]))
    assert not failures, f"{len(failures)} misread:\n" + "\n".join(failures)


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_under_the_signature_or_in_prose_is_told_when_the_engine_takes_it_and_a_motto_is_not(
    moments: dict[str, Moment], kind: str
) -> None:
    """As the poll tells them (`seeming_told`: the game's state known), never read: the order under a "-- " signature
    above the quote and the one in a paragraph, each as the legal line to send, once; a signature's motto that starts
    with an order word ("Play hard, play fair") and the paragraph's other ends ("NO EVENT, because ...") never."""
    m = moments[kind]
    eng, o = registry.get(m.kind), m.legal[-1]
    motto = {"dynasties": "PLAY hard, play fair", "habsburg": "NO EVENT is too small for us"}.get(m.kind, "Carpe diem")
    said = f"I will go with {o}"
    line = reading(m, prose(m, said)).chatter[0]  # the paragraph, as the note quotes it
    for raw, notes in (
        (signed_then(m, [o]), [signed_note(o, o)]),
        (signed_then(m, [motto]), []),
        (prose(m, said), [seeming_note(line, o)]),
        (prose(m, "I will answer on SUNDAY"), []),
    ):
        ex = seeming_told(eng, m.state, m.player, reading(m, raw))
        assert (ex.orders, ex.problems) == ([], notes), raw


SHAPES = {
    "<div><mark>NO EVENT</mark></div>": "*NO EVENT*",
    '<div><span style="caret-color: rgb(0, 0, 0); color: rgb(200, 0, 0);">NO EVENT</span></div>': "*NO EVENT*",
    '<div><font color="#c00">NO EVENT</font> now</div>': "NO EVENT now",  # not the whole line
    '<div><span style="color:#222;background:white">NO EVENT</span></div>': "NO EVENT",  # a client's text colour
    '<div><font color="windowtext">NO EVENT</font></div>': "NO EVENT",
    "<blockquote>a<blockquote><div><b>NO EVENT</b></div></blockquote>b</blockquote>": "> a\n> > *NO EVENT*\n> b",
    "<blockquote>" * 12 + "x" + "</blockquote>" * 12: "> " * 8 + "x",
}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_highlighted_line_is_starred_and_a_quote_inside_a_quote_marked_twice(shape: str) -> None:
    assert html_to_text(shape) == SHAPES[shape]


def test_a_colour_on_every_line_is_the_clients_and_on_a_few_the_players() -> None:
    """On every line of a quote: the client's; on a few, or on the writer's own lines (their font colour, replies15):
    the player's."""
    line = '<div><span style="color:purple">NO EVENT {}</span></div>'
    many, few = HIGHLIGHT_LINES + 1, HIGHLIGHT_LINES
    assert "*" not in html_to_text("<blockquote>" + "".join(line.format(n) for n in range(many)) + "</blockquote>")
    assert html_to_text("".join(line.format(n) for n in range(few))).count("*") == 2 * few
    assert html_to_text("".join(line.format(n) for n in range(many))).count("*") == 2 * many


@pytest.mark.parametrize("lang", OUTLOOK_IOS)
def test_outlook_for_ios_signature_in_each_language_is_furniture_not_chatter(lang: str) -> None:
    ex = extract(
        f"NO EVENT\n\n{OUTLOOK_IOS[lang][0]}<https://aka.ms/o0ukef>\n", "", registry.get("habsburg").order_words
    )
    assert ex.orders == ["NO EVENT"] and ex.chatter == []


def test_reading_highlights_nested_quotes_and_prose_costs_linear_time() -> None:
    """A hostile mail at the size's cap: lines highlighted in many colours inside deep blockquotes, and one-line
    paragraphs each full of words in capitals that start orders.  4x the lines costs at most about 4x (8 allowed)."""
    from tests.growth import growth

    def marked(n: int) -> Callable[[], object]:
        line = "".join(f'<div><span style="color:#{k % 4096:03x}">NO EVENT {k}</span></div>' for k in range(n))
        page = "<blockquote>" * 40 + line + "</blockquote>" * 40
        return lambda: html_to_text(page)

    def prose_lines(n: int) -> Callable[[], object]:
        text = "\n".join("Hi " + " ".join(["NO NO, NO EVENT, TRIBUTE PASS,"] * 40) for _ in range(n))
        words = registry.get("habsburg").order_words
        return lambda: extract(text, "", words)

    for work, n in ((marked, 400), (prose_lines, 20)):
        g = growth(work, n, bound=8)
        assert g.ratio <= 8, g
