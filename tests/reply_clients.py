"""Replies to pbem's own mails built the way mail clients build them (for the reply corpus and its generator).

`reply(sent, own, client, lang, rng)` answers a real mail pbem sent (an `EmailMessage` from the `sent`
Maildir) with the player's `own` lines, as `client` writes a reply in language `lang`: its headers
(In-Reply-To and References naming the mail answered), its attribution or quoted-header block in that
language, the answered mail quoted or not, reflowed or flattened from its HTML part.  The clients:

* ``gmail``: attribution in the language, ``> `` quoted, top-posted;
* ``gmail-bottom``: the same, the reply below the quote (Apple Mail, Thunderbird);
* ``outlook``: the localised ``From:/Sent:/To:/Subject:`` block, the original unquoted below a rule;
* ``outlook-html``: HTML only, the original's HTML pasted unquoted under the header block;
* ``qq``: QQ Mail's ``------------------ 原始邮件 ------------------`` block, the original unquoted;
* ``reflowed``: the original re-wrapped into long quoted lines (format=flowed clients, webmail);
* ``yandex``: ``30.11.2026, 21:08, "pbem" <addr>:`` then the quote (Yandex, Mail.ru);
* ``forwarded-unknown``: a header block in a language no rule knows (Vietnamese, Greek), unquoted:
  only pbem's knowledge of its own text removes it.
"""

from __future__ import annotations

import html
import random
import textwrap
from email.message import EmailMessage
from email.utils import make_msgid

WHEN = "30 Nov 2026 21:08"
LANGS = ("en", "de", "fr", "es", "it", "pt", "nl", "pl", "ru", "ja", "zh", "ko")
CLIENTS = ("gmail", "gmail-bottom", "outlook", "outlook-html", "qq", "reflowed", "yandex", "forwarded-unknown")

HEADER_LABELS = {
    "en": ("From", "Sent", "To", "Subject", "Monday, November 30, 2026 9:08 PM"),
    "de": ("Von", "Gesendet", "An", "Betreff", "Montag, 30. November 2026 21:08"),
    "fr": ("De", "Envoyé", "À", "Objet", "lundi 30 novembre 2026 21:08"),
    "es": ("De", "Enviado", "Para", "Asunto", "lunes, 30 de noviembre de 2026 21:08"),
    "it": ("Da", "Inviato", "A", "Oggetto", "lunedì 30 novembre 2026 21:08"),
    "pt": ("De", "Enviado", "Para", "Assunto", "segunda-feira, 30 de novembro de 2026 21:08"),
    "nl": ("Van", "Verzonden", "Aan", "Onderwerp", "maandag 30 november 2026 21:08"),
    "pl": ("Od", "Wysłane", "Do", "Temat", "poniedziałek, 30 listopada 2026 21:08"),
    "ru": ("От", "Отправлено", "Кому", "Тема", "30 ноября 2026 г. 21:08"),
    "ja": ("差出人", "送信日時", "宛先", "件名", "2026年11月30日 21:08"),
    "zh": ("发件人", "发送时间", "收件人", "主题", "2026年11月30日 21:08"),
    "ko": ("보낸 사람", "보낸 날짜", "받는 사람", "제목", "2026년 11월 30일 월요일 오후 9:08"),
}
UNKNOWN_LABELS = (
    ("Từ", "Đã gửi", "Đến", "Chủ đề", "Thứ Hai, 30 tháng 11, 2026 21:08"),
    ("Από", "Στάλθηκε", "Προς", "Θέμα", "Δευτέρα, 30 Νοεμβρίου 2026 9:08 μμ"),
)


def attribution(lang: str, who: str) -> str:
    return {
        "en": f"On Mon, {WHEN}, {who} wrote:",
        "de": f"Am Mo., 30. Nov. 2026 um 21:08 Uhr schrieb {who}:",
        "fr": f"Le lun. 30 nov. 2026 à 21:08, {who} a écrit :",
        "es": f"El lun, 30 nov 2026 a las 21:08, {who} escribió:",
        "it": f"Il giorno lun 30 nov 2026 alle ore 21:08 {who} ha scritto:",
        "pt": f"Em seg., 30 de nov. de 2026 às 21:08, {who} escreveu:",
        "nl": f"Op ma 30 nov 2026 om 21:08 schreef {who}:",
        "pl": f"pon., 30 lis 2026 o 21:08 {who} napisał(a):",
        "ru": f"пн, 30 нояб. 2026 г. в 21:08, {who}:",
        "ja": f"2026年11月30日(月) 21:08 {who}:",
        "zh": f"{who} 于2026年11月30日周一 21:08写道：",
        "ko": f"2026년 11월 30일 (월) 오후 9:08, {who}님이 작성:",
    }[lang]


def _text(sent: EmailMessage, kind: str = "plain") -> str:
    part = sent.get_body(preferencelist=(kind,))
    return str(part.get_content()) if part is not None else ""  # type: ignore[attr-defined]


def _block(labels: tuple[str, str, str, str, str], sent: EmailMessage, colon: str = ": ") -> list[str]:
    frm, sent_l, to, subj, date = labels
    return [
        f"{frm}{colon}{sent['From']}",
        f"{sent_l}{colon}{date}",
        f"{to}{colon}{sent['To']}",
        f"{subj}{colon}{sent['Subject']}",
    ]


def body_lines(sent: EmailMessage, own: list[str], client: str, lang: str, rng: random.Random) -> list[str]:
    """The reply's text lines (for every client but ``outlook-html``)."""
    original = _text(sent).rstrip("\n").split("\n")
    who = str(sent["From"])
    quoted = [("> " + ln).rstrip() for ln in original]
    if client == "gmail":
        return [*own, "", attribution(lang, who), "", *quoted]
    if client == "gmail-bottom":
        return [attribution(lang, who), *quoted, "", *own]
    if client == "outlook":
        colon = "：" if lang in ("ja", "zh") and rng.random() < 0.5 else ": "
        return [*own, "", "________________________________", *_block(HEADER_LABELS[lang], sent, colon), "", *original]
    if client == "qq":
        qq = ("发件人", "发送时间", "收件人", "主题", "2026年11月30日(星期一) 晚上9:08")
        return [*own, "", "", "------------------ 原始邮件 ------------------", *_block(qq, sent), "", *original]
    if client == "reflowed":
        paragraphs = " ".join(ln.strip() for ln in original if ln.strip())
        return own + ["", attribution(lang, who)] + ["> " + w for w in textwrap.wrap(paragraphs, 76)]
    if client == "yandex":
        return [*own, "", f'30.11.2026, 21:08, "pbem" <{sent["From"].addresses[0].addr_spec}>:', *quoted]
    if client == "forwarded-unknown":
        return [*own, "", "-----", *_block(rng.choice(UNKNOWN_LABELS), sent), "", *original]
    raise ValueError(client)


def reply(
    sent: EmailMessage, own: list[str], client: str, lang: str, rng: random.Random, sender: str | None = None
) -> bytes:
    """The raw reply (see the module docstring)."""
    msg = EmailMessage()
    msg["From"] = sender or str(sent["To"])
    msg["To"] = str(sent["From"])
    prefix = {"de": "AW: ", "nl": "Antw: ", "pl": "Odp: ", "ja": "RE: ", "zh": "回复：", "ko": "RE: "}
    msg["Subject"] = prefix.get(lang, "Re: ") + str(sent["Subject"])
    msg["Message-ID"] = make_msgid(domain="players.example")
    mid = str(sent["Message-ID"])
    msg["In-Reply-To"] = mid
    msg["References"] = " ".join([*str(sent.get("References", "")).split(), mid])
    if client == "outlook-html":
        mine = "".join(f"<div>{html.escape(ln) or '<br>'}</div>" for ln in own)
        block = "<br>".join(html.escape(ln) for ln in _block(HEADER_LABELS[lang], sent))
        original = _text(sent, "html") or f"<pre>{html.escape(_text(sent))}</pre>"
        msg.set_content(
            f"<html><body>{mine}<hr><div id='divRplyFwdMsg'>{block}</div><div>{original}</div></body></html>",
            subtype="html",
        )
        if rng.random() < 0.5:  # Outlook's empty text part beside the HTML one
            html_part = msg.get_content()
            msg = _with_empty_plain(msg, html_part)
        return msg.as_bytes()
    msg.set_content("\n".join(body_lines(sent, own, client, lang, rng)) + "\n")
    return msg.as_bytes()


def _with_empty_plain(msg: EmailMessage, html_text: str) -> EmailMessage:
    out = EmailMessage()
    for key in ("From", "To", "Subject", "Message-ID", "In-Reply-To", "References"):
        out[key] = msg[key]
    out.set_content("\r\n")
    out.add_alternative(html_text, subtype="html")
    return out


def typed(order: str, rng: random.Random) -> str:
    """An order as people type it: plain, in a list, bold, with a full stop, in lower case."""
    form = rng.choice(["plain", "dash", "star", "number", "bullet-tab", "bold", "period", "lower"])
    return {
        "plain": order,
        "dash": f"- {order}",
        "star": f"* {order}",
        "number": f"1. {order}",
        "bullet-tab": f"•\t{order}",
        "bold": f"*{order}*",
        "period": f"{order}.",
        "lower": order.lower(),
    }[form]
