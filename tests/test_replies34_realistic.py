# ruff: noqa: RUF001
"""players34, part B: realistic replies, thirty-fourth round (shapes the earlier rounds lack).

Each family (`FAMILIES`) is a reply to the report pbem sent (the eight moments of `tests.test_replies3_players`), read
through the intake's path (`pbem.app.reading.extracted` with the report known, then `tests/replies27.judged`) and
sorted by `tests.test_replies31_realistic.verdict`: `read` (what the player meant applied), `told` (nothing applied,
and a note quotes the order or a line of it is refused, quoted back with why), `untold` (nothing applied, nothing
said), `misapplied` (something applied the player did not mean):

* Outlook's (and Outlook on the web's) From/Sent/To/Subject block in Spanish, Russian, Turkish, Danish, Finnish,
  Chinese, Czech and Korean over the report unquoted; Outlook for Android's block with no rule; the order typed under
  Outlook's unquoted report (bottom-posted); the report attached as a message (message/rfc822), the order above it;
* Gmail's cuts: the quote reduced to "[Quoted text hidden]", or clipped ("...", "[Message clipped]  View entire
  message"); Apple Mail's "On ... <address>" / "wrote:" split over two lines, top- and bottom-posted;
* HTML-only replies: Apple Mail's <div dir="ltr"> lines over a <blockquote type="cite">, Outlook's <p class=
  "MsoNormal"> and its divRplyFwdMsg block, Gmail's <br> lines, each word in a <span> with &nbsp; between (Outlook on
  the web);
* quoted-printable with a soft line break inside the order (text and HTML); the body in ISO-8859-1, Shift_JIS or
  KOI8-R; the order typed in the Subject only (the body empty, or only the quote), or after the report's subject;
* digits of other scripts (Arabic-Indic, Persian, Devanagari); the order with "; that's all from me" or "; STATUS"
  after it, "(same as last turn)" after it or "Same as last turn:" before it, "same as last turn" under it, "OK:"
  before it; "Same as last turn please." with no order (`SAME`); the report quoted twice (nested, and one copy under the other); the order pasted twice;
* another order struck out next to the one meant: "~~ORDER~~" (Markdown) or "~ORDER~" (WhatsApp, Slack) under it or
  above it, <s>ORDER</s> in HTML.

`REPLIES34_ALL=1 python3 -m pytest tests/test_replies34_realistic.py -n 0 -s` runs every case and prints the counts
per family; the suite runs `SAMPLED` cases a moment and one struck-out order.  Of the 1,080 cases (45 families, 3
picks, 8 moments), on 36ff7173: 887 read, 149 told, 24 untold, 20 misapplied; now 1,010 read, 70 told, 0 untold, 0
misapplied.  Misapplied on 36ff7173: an order struck out under the one meant, "~~ORDER~~" or "~ORDER~" (10 of 24
each): the tildes were taken off as emphasis and the struck order read, replacing the order above it.  Now a line
struck out whole is no order (`pbem.orders.typed._struck`).  Untold on 36ff7173: "Same as last turn please." (or
"Same orders as before", "Repeat my last orders") with no order, 24 of 24: listed as not read, no word of why.  Now
told, the line quoted with why and the orders to send now (`pbem.app.repeated`).  Read now, told on 36ff7173: "OK:"
before the order (24, `pbem.orders.openers.ACKNOWLEDGED`), "Same as last turn:" before it (24, a connective of
`pbem.orders.openers.CONNECTIVE`, read before capitals), digits of other scripts (15: Sixteen Thirty's set-up
refused "Spain ٣"; `pbem.orders.typed._normalised`), the order struck out above the one meant (14).  Told before
and now: a remark or a command after a semicolon (46: the line refused with its reason; ";" is a separator of some
games' orders).  Read before and now: every other family.
"""

from __future__ import annotations

import html
import quopri

import pytest

from pbem import engine as registry
from tests.replies27 import judged, sampled, tallied
from tests.test_replies3_players import KINDS, Moment, _html, _plain, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies10_players import reading
from tests.test_replies19_players import WHO
from tests.test_replies31_realistic import verdict
from tests.test_replies32_realistic import PICKS, Case


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def _quoted(lines: list[str], prefix: str = "> ") -> list[str]:
    return [f"{prefix}{x}".rstrip() for x in lines]


def _gmail(original: list[str]) -> list[str]:
    return [f"On Mon, 7 Dec 2026 at 10:02, {WHO} wrote:", "", *_quoted(original)]


#: Outlook's (and Outlook on the web's) From/Sent/To/Subject block in languages the earlier rounds lack, the report
#: unquoted under it.
OUTLOOK = {
    "outlook-es": ("De", "Enviado", "Para", "Asunto", "lunes, 7 de diciembre de 2026 10:02", ": "),
    "outlook-ru": ("От", "Отправлено", "Кому", "Тема", "7 декабря 2026 г. 10:02", ": "),
    "outlook-tr": ("Kimden", "Gönderildi", "Kime", "Konu", "7 Aralık 2026 Pazartesi 10:02", ": "),
    "outlook-da": ("Fra", "Sendt", "Til", "Emne", "7. december 2026 10:02", ": "),
    "outlook-fi": ("Lähettäjä", "Lähetetty", "Vastaanottaja", "Aihe", "maanantai 7. joulukuuta 2026 10.02", ": "),
    "outlook-zh": ("发件人", "发送时间", "收件人", "主题", "2026年12月7日 10:02", ": "),
    "outlook-cs": ("Od", "Odesláno", "Komu", "Předmět", "pondělí 7. prosince 2026 10:02", ": "),
    "outlook-ko": ("보낸 사람", "보낸 날짜", "받는 사람", "제목", "2026년 12월 7일 월요일 오전 10:02", ": "),
}
#: Digits of other scripts typed in the order (a phone's keyboard in Arabic or Persian, a CJK IME's full-width).
DIGITS = {
    "arabic-indic": "٠١٢٣٤٥٦٧٨٩",
    "persian-digits": "۰۱۲۳۴۵۶۷۸۹",
    "devanagari-digits": "०१२३४५६७८९",
}
#: How the order is typed on the player's line (a reply at the top, Gmail's quote under it).
TYPED = {
    "semicolon-remark": lambda o: f"{o}; that's all from me",
    "same-as-last-paren": lambda o: f"{o} (same as last turn)",
    "same-as-last-label": lambda o: f"Same as last turn: {o}",
    "ok-colon": lambda o: f"OK: {o}",
}
MORE = (
    "gmail-quoted-hidden",
    "gmail-message-clipped",
    "apple-split-wrote",
    "apple-split-bottom",
    "html-apple-div",
    "html-outlook-p",
    "html-gmail-br",
    "qp-soft-break",
    "qp-soft-break-html",
    "subject-only",
    "subject-only-empty",
    "two-reports-nested",
    "two-reports-stacked",
    "pasted-twice",
    "same-as-last-alone-under",
    "semicolon-status",
    "subject-appended",
    "outlook-mobile-norule",
    "outlook-bottom",
    "charset-latin1",
    "charset-shift-jis",
    "charset-koi8r",
    "html-nbsp-spans",
    "rfc822-attached",
    "html-struck-after",
    "html-struck-before",
    "markdown-struck-after",
    "markdown-struck-before",
    "whatsapp-struck-after",
    "same-as-last-only",
)
FAMILIES = (*OUTLOOK, *DIGITS, *TYPED, *MORE)


def cases() -> list[Case]:
    return [Case(f, p) for f in FAMILIES for p in range(PICKS)]


def _outlook(moment: Moment, labels: tuple[str, ...]) -> list[str]:
    frm, sent, to, subject, date, colon = labels
    r = moment.report
    block = [
        f"{frm}{colon}{r['From']}",
        f"{sent}{colon}{date}",
        f"{to}{colon}{r['To']}",
        f"{subject}{colon}{r['Subject']}",
    ]
    return ["", "_" * 32, *block, "", *_plain(r)]


_EN = ("From", "Sent", "To", "Subject", "Monday, December 7, 2026 10:02 AM", ": ")


def _digits(order: str, family: str) -> str:
    return order.translate(str.maketrans("0123456789", DIGITS[family]))


def _html_reply(moment: Moment, family: str, order: str) -> str:
    report = _html(moment.report)
    e = html.escape(order)
    if family == "html-apple-div":
        mine = f'<div dir="ltr">Hi,</div><div dir="ltr"><br></div><div dir="ltr">{e}</div><div dir="ltr"><br></div>'
        mine += f'<div dir="ltr">Thanks</div><div dir="ltr">{moment.player}</div>'
        quote = f'<div dir="ltr"><br><blockquote type="cite">On 7 Dec 2026, at 10:02, {html.escape(WHO)} wrote:<br><br>'
        return f"<html><body>{mine}{quote}{report}</blockquote></div></body></html>"
    if family == "html-outlook-p":
        mine = '<p class="MsoNormal">Hi,<o:p></o:p></p><p class="MsoNormal"><o:p>&nbsp;</o:p></p>'
        mine += f'<p class="MsoNormal">{e}<o:p></o:p></p><p class="MsoNormal">Thanks<o:p></o:p></p>'
        r = moment.report
        block = (
            f'<div id="divRplyFwdMsg"><hr><b>From:</b> {html.escape(str(r["From"]))}<br><b>Sent:</b> Monday, '
            f"December 7, 2026 10:02 AM<br><b>To:</b> {html.escape(str(r['To']))}<br><b>Subject:</b> "
            f"{html.escape(str(r['Subject']))}</div>"
        )
        return f'<html><body><div class="WordSection1">{mine}</div>{block}{report}</body></html>'
    mine = f"<div>Hi,<br><br>{e}<br><br>Thanks<br>{moment.player}</div>"  # html-gmail-br
    quote = f'<div class="gmail_quote"><div class="gmail_attr">{html.escape(WHO)} wrote:<br></div>'
    return f'<html><body>{mine}<br>{quote}<blockquote class="gmail_quote">{report}</blockquote></div></body></html>'


def _soft_broken(moment: Moment, text: str, order: str, subtype: str) -> bytes:
    """`text` sent quoted-printable, a soft line break inside `order` (after its first word's second letter)."""
    msg = _message(moment)
    del msg["Content-Type"]
    msg["MIME-Version"] = "1.0"
    msg["Content-Type"] = f'text/{subtype}; charset="utf-8"'
    msg["Content-Transfer-Encoding"] = "quoted-printable"
    encoded = quopri.encodestring(text.encode("utf-8"))
    typed = quopri.encodestring(order.encode("utf-8")).rstrip(b"\n")
    at = min(3, len(typed) - 1)
    encoded = encoded.replace(typed, typed[:at] + b"=\n" + typed[at:], 1)
    head = msg.as_bytes().rstrip(b"\n") + b"\n\n"
    return head + encoded


def body_of(moment: Moment, case: Case, order: str) -> list[str]:
    original = _plain(moment.report)
    f = case.family
    mine = ["Hi,", "", order, "", "Thanks", moment.player]
    if f in OUTLOOK:
        return [*mine, *_outlook(moment, OUTLOOK[f])]
    if f in DIGITS:
        return ["Hi,", "", _digits(order, f), "", "Thanks", moment.player, "", *_gmail(original)]
    if f in TYPED:
        return ["Hi,", "", TYPED[f](order), "", "Thanks", moment.player, "", *_gmail(original)]
    return _more(moment, case, order, original, mine)


def _more(moment: Moment, case: Case, order: str, original: list[str], mine: list[str]) -> list[str]:
    f = case.family
    if f == "gmail-quoted-hidden":  # Gmail's printed/forwarded text: the quote cut to "[Quoted text hidden]"
        return [*mine, "", f"On Mon, 7 Dec 2026 at 10:02, {WHO} wrote:", "[Quoted text hidden]"]
    if f == "gmail-message-clipped":  # the quote cut after its first lines, Gmail's clip marker under it
        return [*mine, "", *_gmail(original)[:6], "...", "", "[Message clipped]  View entire message"]
    if f.startswith("apple-split"):  # Apple Mail's attribution wrapped before "wrote:"
        head = [f"On 7 Dec 2026, at 10:02, {WHO}", "wrote:", ""]
        if f == "apple-split-wrote":
            return [*mine, "", *head, *_quoted(original)]
        return [*head, *_quoted(original), "", *mine]
    if f.startswith("subject-only"):
        return [] if f.endswith("-empty") else ["", *_gmail(original)]
    if f == "two-reports-nested":  # the report answered, the same report quoted again inside it (an earlier thread)
        older = [*original, "", f"On Sun, 6 Dec 2026 at 10:02, {WHO} wrote:", *_quoted(original)]
        return [*mine, "", *_gmail(older)]
    if f == "two-reports-stacked":  # two reports answered in one reply: both copies quoted, one under the other
        return [*mine, "", *_gmail(original), "", *_gmail(original)]
    return _further(moment, case, order, original, mine)


def _further(moment: Moment, case: Case, order: str, original: list[str], mine: list[str]) -> list[str]:
    f = case.family
    if f == "semicolon-status":  # the order and a command on one line
        return ["Hi,", "", f"{order}; STATUS", "", "Thanks", moment.player, "", *_gmail(original)]
    if f == "subject-appended":  # the order typed after the report's subject, the body only the quote
        return ["", *_gmail(original)]
    if f == "outlook-mobile-norule":  # Outlook for Android/iOS: the From/Sent block with no rule above it
        return [*mine, "", "Get Outlook for Android", *_outlook(moment, _EN)[2:]]
    if f == "outlook-bottom":  # the report under Outlook's block unquoted, the order typed under it
        return ["Hi, my order is at the bottom.", *_outlook(moment, _EN), "", *mine]
    if f.startswith("charset-"):
        greeting = {
            "charset-latin1": "Grüße, à bientôt",
            "charset-shift-jis": "よろしくお願いします",
            "charset-koi8r": "Привет",
        }
        return [greeting[f], "", order, "", "Thanks", moment.player, "", *_gmail(original)]
    if f == "same-as-last-only":  # no order: the player asks for the last turn's again (`SAME`)
        return ["Hi,", "", SAME[case.pick % len(SAME)], "", "Thanks", moment.player, "", *_gmail(original)]
    if f == "pasted-twice":  # the order pasted twice
        return ["Hi,", "", order, "", order, "", "Thanks", moment.player, "", *_gmail(original)]
    # the order, then "same as last turn" on its own line under it
    return ["Hi,", "", order, "same as last turn", "", "Thanks", moment.player, "", *_gmail(original)]


def build(moment: Moment, case: Case) -> tuple[bytes, str]:
    """The reply of `case` to `moment`'s report, and the order it means."""
    order = moment.legal[case.pick % len(moment.legal)]
    f = case.family
    if f.startswith("html-"):
        msg = _message(moment)
        msg.set_content(_html_reply(moment, f, order), subtype="html")
        return msg.as_bytes(), order
    if f == "qp-soft-break":
        return _soft_broken(
            moment, "\n".join(["Hi,", "", order, "", "Thanks", moment.player]) + "\n", order, "plain"
        ), order
    if f == "qp-soft-break-html":
        text = f"<html><body><div>Hi,</div><div>{html.escape(order)}</div><div>Thanks</div></body></html>\n"
        return _soft_broken(moment, text, html.escape(order), "html"), order
    if f.startswith(
        ("html-struck", "markdown-struck", "whatsapp-struck")
    ):  # another order struck out, above or under the one meant
        other = moment.legal[(case.pick + 1) % len(moment.legal)]
        if not f.startswith("html"):
            msg = _message(moment)
            struck = f"~{other}~" if f.startswith("whatsapp") else f"~~{other}~~"
            pair = [order, struck] if f.endswith("after") else [struck, order]
            lines = ["Hi,", "", *pair, "", "Thanks", moment.player, "", *_gmail(_plain(moment.report))]
            msg.set_content("\n".join(lines) + "\n")
            return msg.as_bytes(), order
        struck = f"<div><s>{html.escape(other)}</s></div>"
        mine = f"<div>{html.escape(order)}</div>"
        pair = f"{mine}{struck}" if f.endswith("after") else f"{struck}{mine}"
        msg = _message(moment)
        msg.set_content(f"<html><body><div>Hi,</div>{pair}<div>Thanks</div></body></html>", subtype="html")
        return msg.as_bytes(), order
    if f == "html-nbsp-spans":  # each word in a span, no-break spaces between them (Outlook on the web)
        spans = "&nbsp;".join(f'<span style="font-size:11pt">{html.escape(w)}</span>' for w in order.split())
        msg = _message(moment)
        body = f"<html><body><div>Hi,</div><div>{spans}</div><div>Thanks</div><hr>{_html(moment.report)}</body></html>"
        msg.set_content(body, subtype="html")
        return msg.as_bytes(), order
    subject = order if f.startswith("subject-only") else ""
    subject = f"Re: {moment.report['Subject']} {order}" if f == "subject-appended" else subject
    msg = _message(moment, subject=subject)
    text = "\n".join(body_of(moment, case, order)) + "\n"
    if f.startswith("charset-"):
        charset = {"charset-latin1": "iso-8859-1", "charset-shift-jis": "shift_jis", "charset-koi8r": "koi8-r"}[f]
        try:
            text.encode(charset)
        except UnicodeEncodeError:  # the report holds a character the charset lacks: the client drops it
            text = text.encode(charset, "replace").decode(charset)
        msg.set_content(text.encode(charset), maintype="text", subtype="plain", cte="8bit")
        msg.replace_header("Content-Type", f'text/plain; charset="{charset}"')
        return msg.as_bytes(), order
    if f == "rfc822-attached":  # the order typed, the report attached as a message (Outlook's "reply with attachment")
        msg.set_content("\n".join(["Hi,", "", order, "", "Thanks", moment.player]) + "\n")
        msg.add_attachment(moment.report)
        return msg.as_bytes(), order
    msg.set_content(text)
    return msg.as_bytes(), order


#: "Same as last turn" alone: the player means an earlier step's orders, which pbem cannot know to be legal now.
SAME = ("Same as last turn please.", "Same orders as before", "Repeat my last orders")


def outcome(moment: Moment, case: Case) -> tuple[str, str]:
    if case.family != "same-as-last-only":
        return verdict(moment, *build(moment, case), case.label)
    raw, _ = build(moment, case)  # nothing meant that pbem may read: told (the line quoted, the orders to send)
    eng = registry.get(moment.kind)
    got = judged(eng, moment.state, moment.player, reading(moment, raw))
    said = f"{case.label}: applied {got.applied}, refused {got.refused}, told {got.notes}"
    if got.applied:
        return "misapplied", said
    line = SAME[case.pick % len(SAME)]
    return ("told" if any(n.startswith(f'"{line}"') for n in got.notes) else "untold"), said


SAMPLED = 3


def sample(kind: str) -> list[Case]:
    """`SAMPLED` cases drawn, and one reply with an order struck out under the one meant (misapplied on 36ff7173), a
    moment; all under REPLIES34_ALL=1."""
    every = sampled(cases(), "REPLIES34_ALL", "replies34", kind, SAMPLED)
    struck = Case("markdown-struck-after" if len(kind) % 2 else "whatsapp-struck-after", len(kind) % PICKS)
    return every if struck in every else [*every, struck]


@pytest.mark.parametrize("kind", KINDS)
def test_realistic_replies_of_round_thirty_four_are_read_or_told_and_never_misapplied(
    moments: dict[str, Moment], kind: str
) -> None:
    """See the module docstring's figures."""
    moment = moments[kind]
    failures = tallied(kind, sample(kind), lambda case: outcome(moment, case), "REPLIES34_ALL")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:80])
