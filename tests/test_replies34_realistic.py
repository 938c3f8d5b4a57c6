# ruff: noqa: RUF001
"""players34, part B: realistic replies, thirty-fourth round (shapes the earlier rounds lack).

Each family (`FAMILIES`) is a reply to the report pbem sent (the eight moments of `tests.test_replies3_players`), read
through the intake's path (`pbem.app.reading.extracted` with the report known, then `tests/replies27.judged`) and
sorted by `tests.test_replies31_realistic.verdict`: `read`, `told`, `untold` or `misapplied`.
"""

from __future__ import annotations

import html
import quopri

import pytest

from tests.replies27 import sampled, tallied
from tests.test_replies3_players import KINDS, Moment, _html, _plain, shared_moments
from tests.test_replies7_clients import _message
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
    msg = _message(moment, subject=order if f.startswith("subject-only") else "")
    msg.set_content("\n".join(body_of(moment, case, order)) + "\n")
    return msg.as_bytes(), order


def outcome(moment: Moment, case: Case) -> tuple[str, str]:
    return verdict(moment, *build(moment, case), case.label)


SAMPLED = 3


def sample(kind: str) -> list[Case]:
    return sampled(cases(), "REPLIES34_ALL", "replies34", kind, SAMPLED)


@pytest.mark.parametrize("kind", KINDS)
def test_realistic_replies_of_round_thirty_four_are_read_or_told_and_never_misapplied(
    moments: dict[str, Moment], kind: str
) -> None:
    """See the module docstring's figures."""
    moment = moments[kind]
    failures = tallied(kind, sample(kind), lambda case: outcome(moment, case), "REPLIES34_ALL")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:80])
