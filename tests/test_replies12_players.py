"""Replies still misread or silently dropped (replies12): HTML-only replies as real clients build them, and a line of
the mail answered marked in bold, each built from a real report pbem sent.

HTML-only replies (no text/plain part: Outlook on the web, Apple Mail, iOS, Gmail with plain text off): Gmail's
`<div dir="ltr">` blocks and its `gmail_quote` div, `<br>` runs, Outlook's `divRplyFwdMsg` block under its `<hr>`
with pbem's mail unquoted below, Apple Mail's `<blockquote type="cite">` with a `<div>` per line, iOS's quoted
attribution; the order plain, in `<b>`, `<strong>`, a bold `<span style>`, a `<font>`, with `&nbsp;` in it or around
it; pbem's report quoted as sent or with the white space between its tags taken out (as clients re-serialise it).
Each client also answers without an order: nothing read, nothing told.  A "-- " signature above the quote of an
HTML-only reply with the answer below the quote.  A listed line of the mail answered marked by the player in bold:
in Outlook's HTML original (`<li><b>NO EVENT</b></li>`) or its plain one ("*NO EVENT*"), in Gmail's or Apple Mail's
quote, or starred in a plain-text quote ("> *NO EVENT*"); a bold line that is no order; pbem's own bold
(a whole line, as `away_ack`'s notice is) told from a player's mark.

On 69018ba, 83 of the 312 cases failed, each dropped with nothing told: 11 signed above the quote (once pbem's copy
was taken out of the flattened HTML no quoted line was left to end the signature at), 24 orders set in bold in
Outlook's HTML original, 16 starred in its plain original, 16 starred in a plain quote and 16 set in bold in an
HTML quote (their words were all the copy's).  The whole generator (`_all_cases(moment, every=True)`: each client
with each way of setting the order, as sent and compact) failed 96 of 960: 24 signed above, the same 72 marked.
The orders set in bold, <font>, no-break spaces above the quote: none failed (sound).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.test_replies3_players import KINDS, WHO, Moment, _html, _plain, _quoted, shared_moments
from tests.test_replies7_clients import _esc, _html_mail, _text_mail
from tests.test_replies10_players import QUIET, misread_or_untold
from tests.test_replies11_players import ATTRIBUTIONS, NONE, marked_original


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


ATTR = html.escape(f"On Mon, 30 Nov 2026 at 21:08, {WHO} wrote:")
APPLE = html.escape(f"On 30 Nov 2026, at 21:08, {WHO} wrote:")
_HTML: dict[int, str] = {}


def report(moment: Moment, compact: bool) -> str:
    """pbem's HTML of the report (its body), as sent or with the white space between tags taken out."""
    sent = _HTML.get(id(moment)) or _HTML.setdefault(id(moment), _html(moment.report))
    return re.sub(r">\s+<", "><", sent) if compact else sent


#: How the order is set: as typed, in bold three ways, in a <font>, with no-break spaces in it or around it.
SET: dict[str, Callable[[str], str]] = {
    "plain": _esc,
    "b": lambda o: f"<b>{_esc(o)}</b>",
    "strong": lambda o: f"<strong>{_esc(o)}</strong>",
    "span-bold": lambda o: f'<span style="font-weight:bold">{_esc(o)}</span>',
    "font": lambda o: f'<font face="Arial" size="2">{_esc(o)}</font>',
    "nbsp": lambda o: _esc(o).replace(" ", "&nbsp;"),
    "nbsp-run": lambda o: f"&nbsp;&nbsp;{_esc(o)}&nbsp;&nbsp;",
    "span-nbsp": lambda o: f'<span style="font-size:11pt">{_esc(o)}&nbsp;</span>',
}


OUTLOOK_DIV = ' style="font-family:Calibri,Arial;font-size:12pt"'
LTR = ' dir="ltr"'


def _divs(own: list[str], attrs: str = "") -> str:
    return "".join(f"<div{attrs}>{x or '<br>'}</div>" for x in own)


def gmail(moment: Moment, own: list[str], rep: str) -> str:
    return (
        f'<div dir="ltr">{_divs(own)}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">{ATTR}<br>'
        f'</div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid '
        f'rgb(204,204,204);padding-left:1ex">{rep}</blockquote></div>'
    )


def gmail_br(moment: Moment, own: list[str], rep: str) -> str:
    return (
        f'<div dir="ltr">{"<br>".join(own)}<br></div><br><div class="gmail_quote"><div dir="ltr" '
        f'class="gmail_attr">{ATTR}<br></div><blockquote class="gmail_quote">{rep}</blockquote></div>'
    )


def outlook_web(moment: Moment, own: list[str], rep: str) -> str:
    """Outlook on the web: the answer, its rule, the `divRplyFwdMsg` block with bold labels, pbem's mail unquoted."""
    sent = moment.report
    block = "<br>".join(
        f"<b>{label}:</b> {html.escape(str(value))}"
        for label, value in (
            ("From", sent["From"]),
            ("Sent", "Monday, November 30, 2026 9:08 PM"),
            ("To", sent["To"]),
            ("Subject", sent["Subject"]),
        )
    )
    return (
        f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"></head><body dir="ltr">'
        f'{_divs(own, OUTLOOK_DIV)}<div id="appendonsend"></div>'
        f'<hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr">'
        f'<font face="Calibri, sans-serif" style="font-size:11pt">{block}</font><div>&nbsp;</div></div>{rep}'
        f"</body></html>"
    )


def apple(moment: Moment, own: list[str], rep: str) -> str:
    return (
        f'<html><head></head><body style="overflow-wrap: break-word;">{_divs(own)}<div><br><blockquote type="cite">'
        f'<div>{APPLE}</div><br class="Apple-interchange-newline"><div>{rep}</div></blockquote></div><br></body></html>'
    )


def apple_bottom(moment: Moment, own: list[str], rep: str) -> str:
    return (
        f'<html><body><div><br><blockquote type="cite"><div>{APPLE}</div><br><div>{rep}</div></blockquote></div>'
        f"<br>{_divs(own)}</body></html>"
    )


def ios(moment: Moment, own: list[str], rep: str, signature: str = "Sent from my iPhone") -> str:
    return (
        f'<html><body dir="auto">{_divs(own, LTR)}<div dir="ltr"><br></div><div dir="ltr">{signature}'
        f'</div><div dir="ltr"><br><blockquote type="cite">{APPLE}<br><br></blockquote></div>'
        f'<blockquote type="cite"><div dir="ltr">{rep}</div></blockquote></body></html>'
    )


CLIENTS: dict[str, Callable[[Moment, list[str], str], str]] = {
    "gmail": gmail,
    "gmail-br": gmail_br,
    "outlook-web": outlook_web,
    "apple": apple,
    "apple-bottom": apple_bottom,
    "ios": ios,
}


def signed_above(moment: Moment, client: str, order: str, compact: bool) -> bytes:
    """A "-- " signature above the quote, the answer typed below the quote (bottom-posting), HTML only."""
    rep, sig, below = report(moment, compact), ["-- ", "Alice Martin"], f"<div>{_esc(order)}</div>"
    if client == "gmail":
        body = gmail(moment, sig, rep) + below
    elif client == "apple":
        body = apple(moment, sig, rep).replace("</body>", below + "</body>")
    else:
        body = ios(moment, [], rep, "-- <br>Alice Martin").replace("</body>", below + "</body>")
    return _html_mail(moment, body)


MARKED: dict[str, Callable[[str], str]] = {  # a listed line of Outlook's HTML original marked by the player
    "b": lambda e: f"<li><b>{e}</b></li>",
    "strong": lambda e: f"<li><strong>{e}</strong></li>",
    "span-bold": lambda e: f'<li><span style="font-weight:700">{e}</span></li>',
}


def marked_in_html(
    moment: Moment,
    order: str,
    mark: Callable[[str], str],
    client: Callable[[Moment, list[str], str], str] = outlook_web,
) -> bytes:
    """Outlook on the web's "see below", pbem's report unquoted under its block (or quoted, by another `client`), the
    line listing `order` marked."""
    e = html.escape(order, quote=False)
    rep = report(moment, False).replace(f"<li>{e}</li>", mark(e), 1)
    return _html_mail(moment, client(moment, ["Meine Wahl ist unten markiert."], rep))


def starred_in_quote(moment: Moment, order: str, stars: str) -> bytes:
    """A plain-text reply (Thunderbird, mutt) quoting the report, the line listing `order` starred in the quote."""
    original = _plain(moment.report)
    at = next(i for i, x in enumerate(original) if x.strip() == order)
    original[at] = _starring(stars)(original[at])
    return _text_mail(moment, ["Siehe unten.", "", ATTRIBUTIONS["de"], *_quoted(original)])


def listed(moment: Moment) -> list[str]:
    """The legal orders the report's HTML lists one per <li> (where a player marks one in Outlook's original)."""
    rep = report(moment, False)
    return [o for o in moment.legal if f"<li>{html.escape(o, quote=False)}</li>" in rep] or moment.legal[:1]


def _all_cases(moment: Moment, every: bool) -> list[tuple[str, bytes, list[str] | None]]:
    """(label, the reply, the orders meant): every client with each way of setting the order, as sent and compact
    (`every`), or the suite's share: three ways a client, turning with the moment, the form in turn."""
    legal, turn = moment.legal, sum(str(moment.report["Subject"]).encode())  # each moment turns its own way
    out: list[tuple[str, bytes, list[str] | None]] = []
    for c, (client, build) in enumerate(CLIENTS.items()):
        ways = list(SET.items()) if every else [list(SET.items())[(c * 3 + k + turn) % len(SET)] for k in range(3)]
        for k, (how, setting) in enumerate(ways):
            for compact in (False, True) if every else ((c + k + turn) % 2 == 1,):
                o = legal[(c * 7 + k * 3 + compact) % len(legal)]
                body = build(moment, ["Hi,", "", setting(o), "", "Thanks"], report(moment, compact))
                out.append(
                    (f"html/{client}/{how}/{'compact' if compact else 'as-sent'}", _html_mail(moment, body), [o])
                )
        none = build(moment, ["Hi,", "", _esc(NONE), "", "Thanks"], report(moment, (c + turn) % 2 == 1))
        out.append((f"html/{client}/none", _html_mail(moment, none), QUIET))
    for c, client in enumerate(("gmail", "apple", "ios")):
        for compact in (False, True) if every else ((c + turn) % 2 == 1,):
            o = legal[(c * 5) % len(legal)]
            out.append((f"signed-above/{client}/{compact}", signed_above(moment, client, o, compact), [o]))
    out.append(("signed-above/none", signed_above(moment, "gmail", NONE, True), QUIET))
    choices = listed(moment)
    for c, (how, mark) in enumerate(MARKED.items()):
        o = choices[(c * 3 + 1) % len(choices)]
        out.append((f"marked-html/{how}", marked_in_html(moment, o, mark), [o]))
    out.append(("marked-html/not-an-order", _html_mail(moment, _bold_not_an_order(moment)), QUIET))
    out.append(("marked-html/none", marked_in_html(moment, "", lambda e: e), QUIET))
    for c, stars in enumerate(("*", "**")):
        o = legal[(c * 3 + 1) % len(legal)]
        starred = marked_original(moment, o, _starring(stars))
        out.append((f"starred-original/{stars}", _text_mail(moment, starred), [o]))
        o = legal[(c * 3 + 2) % len(legal)]
        out.append((f"starred-quote/{stars}", starred_in_quote(moment, o, stars), [o]))
    for c, (name, quoting) in enumerate((("gmail", gmail), ("apple", apple))):
        o = choices[(c * 5 + 2) % len(choices)]
        out.append((f"bold-in-quote/{name}", marked_in_html(moment, o, MARKED["b"], quoting), [o]))
    return out


def _starring(stars: str) -> Callable[[str], str]:
    """A line of the original starred as a plain-text client shows bold: "    NO EVENT" as "    *NO EVENT*"."""
    return lambda line: line.replace(line.strip(), f"{stars}{line.strip()}{stars}")


def _bold_not_an_order(moment: Moment) -> str:
    """The player set a line of the original in bold that is no order (the deadline): nothing read, nothing told."""
    rep = re.sub(r"<p>(Deadline: [^<]*)</p>", r"<p><b>\1</b></p>", report(moment, False), count=1)
    return outlook_web(moment, [_esc(NONE)], rep)


def cases(moment: Moment) -> list[tuple[str, bytes, list[str] | None]]:
    return _all_cases(moment, False)


@pytest.mark.parametrize("kind", KINDS)
def test_each_reply_of_the_replies12_corpus_is_read_as_the_player_meant(moments: dict[str, Moment], kind: str) -> None:
    failures = misread_or_untold(moments[kind], cases(moments[kind]))
    assert not failures, f"{len(failures)} misread:\n" + "\n".join(failures)


AWAY = "AWAY UNTIL Mon 12 Jan"  # a line of pbem's set in bold that reads as an order (no mail of pbem's has one yet)


def test_pbems_own_bold_line_in_an_unquoted_copy_is_pbems_and_a_players_star_is_theirs() -> None:
    """pbem's HTML sets whole lines in bold (`away_ack`'s notice); Outlook's plain part of a reply shows such a line
    "*...*" in the unquoted original, Gmail's quote "> *...*": pbem's, dropped with the copy, even one that reads as
    an order; with pbem's bold unknown, the same line is the writer's mark.  An HTML-only reply's flattening stars a
    line set in bold whole ("> *PASS*" in a quote), never bold words inside a line (`html_words` reads pbem's HTML so:
    the copy's words are the same)."""
    from pbem.mail.inbound.message import html_to_text
    from pbem.orders.extract import own_line
    from pbem.orders.own_mail import bold_texts, without_copies

    sent_html = (
        f"<p>You are marked away:</p><p><strong>{AWAY}</strong></p><p>Orders that come in the meantime are "
        "applied as usual; the published default orders stand in for yours at each deadline until then.</p>"
        "<p>Send BACK to end it early, or NO EVENT to play this turn all the same.</p>"
    )
    sent_plain = html_to_text(sent_html.replace("<strong>", "").replace("</strong>", ""))
    assert bold_texts(sent_html) == [AWAY]
    keep = own_line(("NO EVENT", "AWAY", "BACK"))
    head = ["Danke.", "", "-----Original Message-----", "From: pbem <games@example.org>", "Sent: Monday", "To: x", ""]

    def reply(lines: list[str]) -> str:
        return "\n".join([*head, *lines])

    copy = html_to_text(sent_html).split("\n")
    assert f"*{AWAY}*" in copy  # as Outlook's plain part shows pbem's bold
    sent = [sent_plain]
    assert without_copies(reply(copy), sent, keep, bold=bold_texts(sent_html)).split("\n")[0] == "Danke."
    assert f"*{AWAY}*" not in without_copies(reply(copy), sent, keep, bold=bold_texts(sent_html))
    assert f"*{AWAY}*" in without_copies(reply(copy), sent, keep)  # with pbem's bold unknown: the writer's
    quoted = html_to_text(f"<blockquote>{sent_html}</blockquote>").split("\n")
    assert f"> *{AWAY}*" in quoted  # Gmail's quote of it, flattened
    assert f"*{AWAY}*" not in without_copies(reply(quoted), sent, keep, bold=bold_texts(sent_html))
    assert html_to_text("<p>one<b>two</b> three</p><div><b>PASS</b> now</div>") == "onetwo three\nPASS now"
    assert html_to_text("<blockquote><b>PASS</b></blockquote><ul><li><b>PASS</b></li></ul>") == "> *PASS*\n*PASS*"


def test_through_a_real_poll_an_order_set_in_bold_in_outlooks_html_original_is_applied(tmp_path: Path) -> None:
    """Habsburg's turn-1 report answered from Outlook on the web, HTML only: "see below" above its block, the report
    unquoted below it with the player's NO EVENT line set in bold.  Applied (on 69018ba: nothing read, and the
    answer said no order was found), the answer quoting it."""
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "habsburg")
    before = len(sent_mail(moment.cfg))
    deliver(moment.cfg, marked_in_html(moment, "NO EVENT", MARKED["b"]))
    summary = _poll(moment.cfg, moment.clock)
    assert summary.accepted == 1, summary.line()
    ack = next(m for m in sent_mail(moment.cfg)[before:] if m["To"].addresses[0].addr_spec == moment.address)
    answer = str(ack.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    assert "NO EVENT" in answer and "No orders were found" not in answer, answer
