# ruff: noqa: RUF001
"""Replies as real mail clients write them, in the languages players use, combined (replies19).

Each piece below was handled one case at a time (an attribution, a header block, a width, a list marker); what a
player sends combines them: a French Outlook block under a full-width numbered order, an order typed under the
quoted line it answers below a German attribution, a Spanish Apple Mail forward in HTML with the order in a list.
For each of the four games at its first report and at a later step, the report pbem sent is answered by each
client (Gmail top-, bottom-posted and inline; Outlook's rule, "-----Original Message-----" and inline answers;
Thunderbird's and Apple Mail's forwards; the iPhone; Gmail's, Outlook's and Apple Mail's HTML-only mail), in each
of eleven locales (its attribution, header block, markers, phone signature, greeting and thanks), with each order
shape a phone keyboard or an IME types (full-width letters and digits, non-breaking and narrow spaces, the first
word capitalised, a full stop, emoji, numbered and bulleted lists, a table's row, smart dashes), and read through
the real intake path (`pbem.app.reading.extracted` with the report known, then the intake's second reading): the
orders read are exactly the ones meant, and nothing else is read or told.  A reply with no order, signed with a name
a legal order ends with ("Heinrich", "Bob"), reads nothing and is told nothing.

On f76a375, 4,210 of the 9,744 cases failed (`REPLIES19_ALL=1`), every one by its order shape, in every client and
locale: a list's number, letter or bullet typed tight against the order ("1.PASS" in full-width letters, "1、PASS",
"a)PASS", "•PASS", "-NO EVENT", the last told "write it as: EVENT"), a circled number ("①PASS": NFKC makes it
"1PASS"), a Japanese list's dot ("・PASS"), a table's row pasted as text ("| PASS |", "1<tab>PASS"), CJK brackets
("【PASS】") and labels ("注文" and "我的选择" before a full-width colon), a courtesy after the order in Japanese, Chinese,
Korean, Russian, Dutch ("PASS, bedankt"), "merci d'avance" (the line refused whole); no client or locale failed
with a plain order.  Now `pbem.orders.typed` reads them (`_MARKER`, `_TRAILING`, `_normalised`, `_CLOSERS`,
`_THANKS`) and `pbem.orders.extract._SAID_ABROAD` the labels.  The suite runs one case of each second shape a moment
(78 of its 180 failed on f76a375).  A numbered answer typed under its own line of Outlook's inline copy was dropped
when the line's number went on as the report's words do (3 of 10 failed); an order after a greeting on its line in
Japanese or Chinese ("こんにちは、PASS") was told nothing (4 of 26); since replies20 it is read.
"""

from __future__ import annotations

import html
import os
import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage

import pytest

from tests.test_replies3_players import KINDS, Moment, _html, _plain, _quoted, meant, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies8_players import _misread
from tests.test_replies10_players import reading

WHO = "pbem moderator <games@example.org>"


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


@dataclass(frozen=True)
class Locale:
    attribution: str  # Gmail's line above the quote ({who}: the sender)
    block: tuple[str, str, str, str, str]  # Outlook's From, Sent, To, Subject labels, and its date
    original: str  # Outlook's original-message marker
    forward: str  # Thunderbird's forwarded-message marker
    apple: str  # Apple Mail's forwarded-message line
    phone: str  # the phone's signature
    hello: str
    thanks: str


LOCALES = {
    "en": Locale(
        "On Mon, 30 Nov 2026 at 21:08, {who} wrote:",
        ("From", "Sent", "To", "Subject", "Monday, November 30, 2026 9:08 PM"),
        "-----Original Message-----",
        "-------- Forwarded Message --------",
        "Begin forwarded message:",
        "Sent from my iPhone",
        "Hi,",
        "Thanks",
    ),
    "fr": Locale(
        "Le lun. 30 nov. 2026 à 21:08, {who} a écrit :",
        ("De", "Envoyé", "À", "Objet", "lundi 30 novembre 2026 21:08"),
        "-----Message d'origine-----",
        "-------- Message transféré --------",
        "Début du message réexpédié :",
        "Envoyé de mon iPhone",
        "Bonjour,",
        "Merci !",
    ),
    "de": Locale(
        "Am Mo., 30. Nov. 2026 um 21:08 Uhr schrieb {who}:",
        ("Von", "Gesendet", "An", "Betreff", "Montag, 30. November 2026 21:08"),
        "-----Ursprüngliche Nachricht-----",
        "-------- Weitergeleitete Nachricht --------",
        "Anfang der weitergeleiteten Nachricht:",
        "Von meinem iPhone gesendet",
        "Hallo,",
        "Viele Grüße",
    ),
    "es": Locale(
        "El lun, 30 nov 2026 a las 21:08, {who} escribió:",
        ("De", "Enviado el", "Para", "Asunto", "lunes, 30 de noviembre de 2026 21:08"),
        "-----Mensaje original-----",
        "-------- Mensaje reenviado --------",
        "Inicio del mensaje reenviado:",
        "Enviado desde mi iPhone",
        "Hola,",
        "Gracias",
    ),
    "it": Locale(
        "Il giorno lun 30 nov 2026 alle ore 21:08 {who} ha scritto:",
        ("Da", "Inviato", "A", "Oggetto", "lunedì 30 novembre 2026 21:08"),
        "-----Messaggio originale-----",
        "-------- Messaggio Inoltrato --------",
        "Inizio messaggio inoltrato:",
        "Inviato da iPhone",
        "Ciao,",
        "Grazie",
    ),
    "nl": Locale(
        "Op ma 30 nov 2026 om 21:08 schreef {who}:",
        ("Van", "Verzonden", "Aan", "Onderwerp", "maandag 30 november 2026 21:08"),
        "-----Oorspronkelijk bericht-----",
        "-------- Doorgestuurd bericht --------",
        "Begin doorgestuurd bericht:",
        "Verstuurd vanaf mijn iPhone",
        "Hoi,",
        "Groetjes",
    ),
    "pt": Locale(
        "Em seg., 30 de nov. de 2026 às 21:08, {who} escreveu:",
        ("De", "Enviado", "Para", "Assunto", "segunda-feira, 30 de novembro de 2026 21:08"),
        "-----Mensagem original-----",
        "-------- Mensagem encaminhada --------",
        "Início da mensagem encaminhada:",
        "Enviado do meu iPhone",
        "Olá,",
        "Obrigado",
    ),
    "pl": Locale(
        "W dniu 30.11.2026 o 21:08, {who} pisze:",
        ("Od", "Wysłane", "Do", "Temat", "poniedziałek, 30 listopada 2026 21:08"),
        "-----Wiadomość oryginalna-----",
        "-------- Przekazana wiadomość --------",
        "Początek przekazywanej wiadomości:",
        "Wysłane z iPhone'a",
        "Cześć,",
        "Pozdrawiam",
    ),
    "sv": Locale(
        "Den mån 30 nov. 2026 kl 21:08 skrev {who}:",
        ("Från", "Skickat", "Till", "Ämne", "den 30 november 2026 21:08"),
        "-----Ursprungligt meddelande-----",
        "-------- Vidarebefordrat meddelande --------",
        "Vidarebefordrat brev:",
        "Skickat från min iPhone",
        "Hej,",
        "Tack",
    ),
    "ja": Locale(
        "2026年11月30日(月) 21:08 {who}:",
        ("差出人", "送信日時", "宛先", "件名", "2026年11月30日 21:08"),
        "-----元のメッセージ-----",
        "-------- 転送メッセージ --------",
        "転送されたメッセージ:",
        "iPhoneから送信",
        "こんにちは",
        "よろしくお願いします",
    ),
    "zh": Locale(
        "{who} 于2026年11月30日周一 21:08写道：",
        ("发件人", "发送时间", "收件人", "主题", "2026年11月30日 21:08"),
        "------------------ 原始邮件 ------------------",
        "-------- 转发的消息 --------",
        "转发的邮件：",
        "从我的iPhone发送",
        "你好，",
        "谢谢",
    ),
    "ru": Locale(
        "пн, 30 нояб. 2026 г. в 21:08, {who}:",
        ("От", "Отправлено", "Кому", "Тема", "30 ноября 2026 г. 21:08"),
        "-----Исходное сообщение-----",
        "-------- Пересылаемое сообщение --------",
        "Начало переадресованного сообщения:",
        "Отправлено с iPhone",
        "Привет,",
        "Спасибо",
    ),
    "ko": Locale(
        "2026년 11월 30일 (월) 오후 9:08, {who}님이 작성:",
        ("보낸 사람", "보낸 날짜", "받는 사람", "제목", "2026년 11월 30일 월요일 오후 9:08"),
        "-----원본 메시지-----",
        "-------- 전달된 메시지 --------",
        "전달된 메시지:",
        "나의 iPhone에서 보냄",
        "안녕하세요,",
        "감사합니다",
    ),
}


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c for c in text)


def _first_capital(order: str) -> str:
    return order[:1].upper() + order[1:].lower()  # a phone capitalises the sentence's first word, the rest typed low


#: How an order is typed: by a phone's keyboard or an IME (`n`: its place in a list of orders).
SHAPES: dict[str, Callable[[str, int], str]] = {
    "plain": lambda o, n: o,
    "full-width": lambda o, n: _full_width(o),
    "full-width-digits": lambda o, n: "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in o),
    "full-width-numbered": lambda o, n: _full_width(f"{n + 1}. {o}"),
    "ideographic-space": lambda o, n: o.replace(" ", "\u3000"),
    "nbsp": lambda o, n: o.replace(" ", "\xa0"),
    "narrow-nbsp": lambda o, n: o.replace(" ", "\u202f"),
    "autocapitalised": lambda o, n: _first_capital(o),
    "full-stop": lambda o, n: _first_capital(o) + ".",
    "ideographic-stop": lambda o, n: o + "。",
    "emoji": lambda o, n: o + " \U0001f44d",
    "numbered": lambda o, n: f"{n + 1}. {o}",
    "numbered-paren": lambda o, n: f"{n + 1}) {o}",
    "circled": lambda o, n: chr(0x2460 + n) + " " + o,
    "bullet": lambda o, n: "• " + o,
    "hyphen": lambda o, n: "- " + o,
    "en-dash": lambda o, n: "– " + o,
    "katakana-dot": lambda o, n: "・" + o,
    "table-row": lambda o, n: f"| {o} |",
    "tab-cells": lambda o, n: f"{n + 1}\t{o}",
    "smart-hyphens": lambda o, n: o.replace("-", "\u2010"),
    "en-dash-words": lambda o, n: o.replace("-", "\u2013"),
    "nbsp-numbered-stop": lambda o, n: f"{n + 1}.\xa0{o.lower()}.",
    "keycap": lambda o, n: f"{n + 1}\ufe0f\u20e3 {o}",
    "cjk-comma": lambda o, n: f"{n + 1}、{o}",
    "full-width-tight": lambda o, n: _full_width(f"{n + 1}.") + _full_width(o),
    "full-width-paren": lambda o, n: _full_width(f"({n + 1})") + _full_width(o),
    "diamond": lambda o, n: "◆ " + o,
    "white-star": lambda o, n: "☆" + o,
    "rtl-marks": lambda o, n: "\u200f" + o + "\u200f",
    "word-joiner": lambda o, n: o.replace(" ", " \u2060"),
    "bullet-tight": lambda o, n: "•" + o,
    "letter-tight": lambda o, n: "abc"[n] + ")" + o,
    "hyphen-tight": lambda o, n: "-" + o,
    "lenticular": lambda o, n: f"【{o}】",
    "ja-label": lambda o, n: "注文：" + o,
    "zh-label": lambda o, n: "我的选择：" + o,
    "thanks-ja": lambda o, n: o + " ありがとう",
    "please-ja": lambda o, n: o + "、よろしくお願いします",
    "thanks-zh": lambda o, n: o + "，谢谢",
    "thanks-ko": lambda o, n: o + " 감사합니다",
    "thanks-ru": lambda o, n: o + ", спасибо",
    "thanks-nl": lambda o, n: o + ", bedankt",
    "thanks-fr": lambda o, n: o + " - merci d'avance",
    "no-order": lambda o, n: o,  # no order at all (`build`)
}

#: Signatures under the orders (the player's name may be a name the game knows: never read as a choice).
SIGNATURES: dict[str, Callable[[Moment, Locale], list[str]]] = {
    "none": lambda m, loc: [],
    "name": lambda m, loc: [m.player],
    "thanks-name": lambda m, loc: [loc.thanks, m.player],
    "dashes": lambda m, loc: ["-- ", f"{m.player} Martin"],
    "phone": lambda m, loc: [loc.phone],
    "choice-name": lambda m, loc: [loc.thanks + ",", _named(m)],
}


def _named(moment: Moment) -> str:
    """A name a legal order of the moment ends with, signed as the writer's own ("Heinrich", "Bob"), else theirs."""
    names = [o.split()[-1] for o in moment.legal if o.split()[-1].isalpha() and o.split()[-1].istitle()]
    return names[-1] if names else moment.player


TEXT_CLIENTS = (
    "gmail-top",
    "gmail-bottom",
    "gmail-inline",
    "outlook-rule",
    "outlook-original",
    "outlook-inline",
    "thunderbird-forward",
    "apple-forward",
    "iphone",
    "gmail-forward",
)
HTML_CLIENTS = (
    "gmail-html",
    "gmail-html-inline",
    "gmail-html-forward",
    "outlook-html",
    "outlook-mobile-html",
    "apple-html",
    "apple-html-inline",
    "thunderbird-html-forward",
    "yahoo-html",
    "proton-html",
    "thunderbird-html-bottom",
)
CLIENTS = (*TEXT_CLIENTS, *HTML_CLIENTS)
#: How an HTML-only reply sets the player's lines.
CONTAINERS = ("div", "p", "br", "ul", "ol", "table", "mso-list", "mso-p")


def _block(loc: Locale, sent: EmailMessage) -> list[str]:
    frm, when, to, subject, date = loc.block
    return [f"{frm}: {WHO}", f"{when}: {date}", f"{to}: {sent['To']}", f"{subject}: {sent['Subject']}"]


def _listed(original: list[str], order: str) -> int:
    """The index of the report's line that lists `order` (an inline answer goes under it), else the middle."""
    return next((i for i, ln in enumerate(original) if ln.strip() == order), len(original) // 2)


def text_body(client: str, loc: Locale, sent: EmailMessage, own: list[str], sig: list[str], order: str) -> list[str]:
    original = _plain(sent)
    at = _listed(original, order) + 1
    who = loc.attribution.format(who=WHO)
    mine = [loc.hello, "", *own, "", *sig] if sig else [loc.hello, "", *own]
    if client == "gmail-top":
        return [*mine, "", who, "", *_quoted(original)]
    if client == "gmail-bottom":
        return [who, *_quoted(original), "", *mine]
    if client == "gmail-inline":
        quoted = _quoted(original)
        return [loc.hello, "", who, *quoted[:at], "", *own, "", *quoted[at:], "", *sig]
    if client == "outlook-rule":
        return [*mine, "", "_" * 32, *_block(loc, sent), "", *original]
    if client == "outlook-original":
        return [*mine, "", loc.original, *_block(loc, sent), "", *original]
    if client == "outlook-inline":
        head = [loc.hello, "", "_" * 32, *_block(loc, sent), ""]
        return [*head, *original[:at], *own, *original[at:]]
    if client == "thunderbird-forward":
        frm, when, to, subject, date = loc.block
        head = [f"{subject}: \t{sent['Subject']}", f"{when}: \t{date}", f"{frm}: \t{WHO}", f"{to}: \t{sent['To']}"]
        return [*mine, "", "", loc.forward, *head, "", "", "", *original]
    if client == "apple-forward":
        frm, when, to, subject, date = loc.block
        head = [f"{frm}: {WHO}", f"{subject}: {sent['Subject']}", f"{when}: {date}", f"{to}: {sent['To']}"]
        return [*mine, "", loc.apple, "", *head, "", *original]
    if client == "iphone":
        return [*own, "", loc.phone, "", *_quoted([who, "", *original])]
    if client == "gmail-forward":  # Gmail's marker in the writer's language, its labels partly in English
        frm, _, to, _, date = loc.block
        head = [f"{frm}: {WHO}", f"Date: {date}", f"Subject: {sent['Subject']}", f"To: {sent['To']}"]
        return [*mine, "", f"---------- {loc.forward.strip('- ')} ---------", *head, "", "", *original]
    raise ValueError(client)


def _own_html(lines: list[str], container: str) -> str:
    esc = [html.escape(x) for x in lines]
    if container == "div":
        return "".join(f"<div>{x or '<br>'}</div>" for x in esc)
    if container == "p":
        return "".join(f'<p class="MsoNormal">{x or "&nbsp;"}</p>' for x in esc)
    if container == "br":
        return "<div>" + "<br>".join(esc) + "</div>"
    if container in ("ul", "ol"):
        items = "".join(f"<li>{x}</li>" for x in esc if x)
        return f"<{container}>{items}</{container}>"
    if container == "mso-list":  # Outlook's numbered list: the number in a conditional section, spaces after it
        return "".join(
            f'<p class="MsoListParagraph" style="margin-left:36.0pt;text-indent:-18.0pt;mso-list:l0 level1 lfo1">'
            f'<![if !supportLists]><span style="mso-list:Ignore">{n + 1}.<span style="font:7.0pt &quot;Times New '
            f'Roman&quot;">&nbsp;&nbsp;&nbsp;&nbsp;&nbsp; </span></span><![endif]>{x}<o:p></o:p></p>'
            for n, x in enumerate(y for y in esc if y)
        )
    if container == "mso-p":
        return "".join(f'<p class="MsoNormal"><span lang="DE">{x or "&nbsp;"}<o:p></o:p></span></p>' for x in esc)
    rows = "".join(f"<tr><td>{x}</td></tr>" for x in esc if x)
    return f'<table border="1"><tbody>{rows}</tbody></table>'


def _divs(lines: list[str]) -> str:
    return "".join(f"<div>{html.escape(x) or '<br>'}</div>" for x in lines)


def _bold_block(loc: Locale, sent: EmailMessage) -> str:
    """Outlook's header block in HTML: each label in bold, a line each."""
    return "<br>".join(
        f"<b>{html.escape(k)}:</b>{html.escape(v)}" for k, v in (x.split(":", 1) for x in _block(loc, sent))
    )


def html_body(
    client: str, loc: Locale, sent: EmailMessage, own: list[str], sig: list[str], order: str, container: str
) -> str:
    who = html.escape(loc.attribution.format(who=WHO))
    hello = f"<div>{html.escape(loc.hello)}</div><div><br></div>"
    mine = hello + _own_html(own, container) + ("<div><br></div>" + _divs(sig) if sig else "")
    gmail_quote = 'class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204)"'
    original = _plain(sent)
    at = _listed(original, order) + 1
    if client == "gmail-html":
        return (
            f'<div dir="ltr">{mine}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">{who}<br>'
            f"</div><blockquote {gmail_quote}>{_html(sent)}</blockquote></div>"
        )
    if client == "gmail-html-inline":
        return (
            f'<div dir="ltr">{hello}</div><div class="gmail_quote"><div dir="ltr" class="gmail_attr">{who}<br></div>'
            f"<blockquote {gmail_quote}>{_divs(original[:at])}</blockquote><div>{_own_html(own, container)}</div>"
            f"<blockquote {gmail_quote}>{_divs(original[at:])}</blockquote></div>{_divs(sig)}"
        )
    if client == "outlook-html":
        block = _bold_block(loc, sent)
        return (
            f'<html><body><div style="font-family:Calibri">{mine}</div><hr style="display:inline-block;width:98%">'
            f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri">{block}</font><div>&nbsp;</div></div>'
            f"<div>{_html(sent)}</div></body></html>"
        )
    if client == "gmail-html-forward":  # the forwarded mail is not quoted: it follows the marker and its labels
        frm, when, to, subject, date = (html.escape(x) for x in loc.block)
        head = (
            f"{html.escape(loc.forward.strip('- ').join(['---------- ', ' ---------']))}<br>{frm}: <strong "
            f'class="gmail_sendername" dir="auto">pbem moderator</strong> <span dir="auto">&lt;games@example.org&gt;'
            f"</span><br>{when}: {date}<br>{subject}: {html.escape(str(sent['Subject']))}<br>{to}: "
            f"&lt;{html.escape(str(sent['To']))}&gt;<br>"
        )
        return (
            f'<div dir="ltr">{mine}<br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">{head}</div><br><br>'
            f"{_html(sent)}</div></div>"
        )
    if client == "outlook-mobile-html":
        block = _bold_block(loc, sent)
        return (
            f'<html><body><div dir="auto">{mine}</div><div id="ms-outlook-mobile-signature"><div><br></div>'
            f'{html.escape(loc.phone)}</div><div id="mail-editor-reference-message-container"><br><hr '
            f'style="display:inline-block;width:98%"><div id="divRplyFwdMsg" dir="ltr">{block}</div><div>&nbsp;'
            f'</div><div class="ms-outlook-mobile-reference-message">{_html(sent)}</div></div></body></html>'
        )
    if client == "thunderbird-html-forward":
        frm, when, to, subject, date = (html.escape(x) for x in loc.block)
        rows = "".join(
            f'<tr><th valign="BASELINE" nowrap="nowrap" align="RIGHT">{k}: </th><td>{v}</td></tr>'
            for k, v in ((subject, html.escape(str(sent["Subject"]))), (when, date), (frm, html.escape(WHO)))
        )
        return (
            f'<html><body><p>{mine}</p><br><div class="moz-forward-container"><br><br>{html.escape(loc.forward)}'
            f'<table class="moz-email-headers-table" border="0" cellspacing="0" cellpadding="0"><tbody>{rows}'
            f"</tbody></table><br><br>{_html(sent)}</div></body></html>"
        )
    if client == "thunderbird-html-bottom":  # the answer below the quote, its signature after "-- "
        return (
            f'<html><body><div class="moz-cite-prefix">{who}<br></div><blockquote type="cite" cite="mid:x@example.org">'
            f'{_html(sent)}</blockquote>{mine}<div class="moz-signature">-- <br>{html.escape(loc.phone)}</div>'
            "</body></html>"
        )
    if client == "yahoo-html":
        return (
            f'<html><body><div class="ydp3f0f6a4yahoo-style-wrap">{mine}</div><div id="yahoo_quoted_1234" '
            f'class="yahoo_quoted"><div style="font-family:Helvetica"><div>{who}</div><div><br></div><div><br></div>'
            f'<div><div dir="ltr">{_html(sent)}</div></div></div></div></body></html>'
        )
    if client == "proton-html":
        return (
            f'<div style="font-family: Arial">{mine}</div><br><div class="protonmail_quote">'
            f'{html.escape(loc.original)}<br>{who}<br><br><blockquote class="protonmail_quote" type="cite">'
            f"{_html(sent)}</blockquote><br></div>"
        )
    if client == "apple-html":
        return (
            f'<html><body dir="auto">{mine}<div><br><blockquote type="cite">{who}<br><br></blockquote></div>'
            f'<blockquote type="cite"><div>{_html(sent)}</div></blockquote></body></html>'
        )
    if client == "apple-html-inline":
        return (
            f'<html><body dir="auto">{hello}<blockquote type="cite">{who}<br><br></blockquote>'
            f'<blockquote type="cite">{_divs(original[:at])}</blockquote>{_own_html(own, container)}'
            f'<blockquote type="cite">{_divs(original[at:])}</blockquote>{_divs(sig)}</body></html>'
        )
    raise ValueError(client)


@dataclass(frozen=True)
class Case:
    client: str
    locale: str
    shape: str
    signature: str
    container: str
    two: bool

    @property
    def label(self) -> str:
        html_part = f"/{self.container}" if self.client in HTML_CLIENTS else ""
        return f"{self.client}/{self.locale}/{self.shape}/{self.signature}{html_part}{'/two' if self.two else ''}"


def cases(salt: int = 0) -> list[Case]:
    """Every client in every locale, and every client with every shape; the other parts mixed in turn (`salt`: a
    moment's own mix, so that each meets other pairs)."""
    locales, shapes, sigs = list(LOCALES), list(SHAPES), list(SIGNATURES)
    out = []
    for c, client in enumerate(CLIENTS):
        for n, locale in enumerate(locales):
            k = c * 7 + n * 5 + salt
            out.append(
                Case(
                    client,
                    locale,
                    shapes[k % len(shapes)],
                    sigs[k % len(sigs)],
                    CONTAINERS[k % len(CONTAINERS)],
                    k % 3 == 0,
                )
            )
        for n, shape in enumerate(shapes):
            k = c * 3 + n * 7 + salt
            out.append(
                Case(
                    client,
                    locales[k % len(locales)],
                    shape,
                    sigs[(k + 1) % len(sigs)],
                    CONTAINERS[k % len(CONTAINERS)],
                    k % 4 == 1,
                )
            )
    return out


def _meant(moment: Moment, pick: int, two: bool) -> list[str]:
    """One legal order, or two the game takes in one message (a meld and an event), as `meant` gives them."""
    for k in range(len(moment.legal) if two else 0):
        want = meant(moment, pick + k, two=True)
        if len(want) == 2 and not _misread(moment, b"", want, "", want):
            return want
    return meant(moment, pick)


def build(moment: Moment, case: Case) -> tuple[bytes, list[str]]:
    """The reply of `case` to `moment`'s report, and the orders it means."""
    want = _meant(moment, zlib.crc32(case.label.encode()) % len(moment.legal), case.two)
    own = [SHAPES[case.shape](o, n) for n, o in enumerate(want)]
    if case.shape == "no-order":  # a control: the quoted report's orders, the signature's name, are never read
        want, own = [], ["Still thinking, I will answer tomorrow."]
    loc = LOCALES[case.locale]
    sig = SIGNATURES[case.signature](moment, loc)
    near = want[0] if want else ""
    msg = _message(moment, ("AW: " if case.locale == "de" else "Re: ") + str(moment.report["Subject"]))
    if case.client in HTML_CLIENTS:
        msg.set_content(html_body(case.client, loc, moment.report, own, sig, near, case.container), subtype="html")
    else:
        msg.set_content("\n".join(text_body(case.client, loc, moment.report, own, sig, near)) + "\n")
    return msg.as_bytes(), want


def misread(moment: Moment, chosen: list[Case]) -> list[str]:
    failures = []
    for case in chosen:
        raw, want = build(moment, case)
        ex = reading(moment, raw)
        if why := _misread(moment, raw, want, case.label, list(ex.orders)):
            failures.append(why)
        elif ex.problems:
            failures.append(f"{moment.kind} / {case.label}: read as meant, but told {ex.problems}")
    return failures


def sample(kind: str) -> list[Case]:
    """What the suite runs of a moment's cases: one of each second shape (every shape in four of the eight moments),
    drawn with a seed; `REPLIES19_ALL=1` runs every case."""
    every = cases(KINDS.index(kind))
    if os.environ.get("REPLIES19_ALL"):
        return every
    rng = random.Random(f"replies19:{kind}")
    shapes = list(SHAPES)[KINDS.index(kind) % 2 :: 2]
    return [rng.choice([c for c in every if c.shape == shape]) for shape in shapes]


@pytest.mark.parametrize("kind", KINDS)
def test_replies_combining_client_locale_shape_and_place_are_read_as_meant(
    moments: dict[str, Moment], kind: str
) -> None:
    chosen = sample(kind)
    failures = misread(moments[kind], chosen)
    assert not failures, f"{len(failures)} of {len(chosen)} misread:\n" + "\n".join(failures[:40])


@pytest.mark.parametrize("kind", ["sixteen-thirty+later", "dynasties+later"])
def test_a_numbered_answer_under_its_own_line_of_outlooks_inline_copy_is_read(
    moments: dict[str, Moment], kind: str
) -> None:
    """Outlook's inline answer, the order typed right under the report's last listed line: "1. ACCEPT Bob GIVING
    Spain 1" under "ACCEPT Bob GIVING Spain 1" went on as the report's own words do ("... Spain 1 / ACCEPT Bob ..."),
    so it was taken for the copy and dropped, untold (`pbem.orders.own_mail._repeated`).  Each numbered shape."""
    moment = moments[kind]
    failures = []
    for shape in ("numbered", "numbered-paren", "nbsp-numbered-stop", "full-width-numbered", "plain"):
        label = f"outlook-inline/en/{shape}/none"
        want = [moment.legal[-1]]
        msg = _message(moment)
        own = [SHAPES[shape](want[0], 0)]
        msg.set_content("\n".join(text_body("outlook-inline", LOCALES["en"], moment.report, own, [], want[0])) + "\n")
        raw = msg.as_bytes()
        ex = reading(moment, raw)
        if why := _misread(moment, raw, want, label, list(ex.orders)) or ex.problems:
            failures.append(f"{label}: {why}")
    assert not failures, "\n".join(failures)


def test_through_a_real_poll_a_chinese_gmail_forward_with_a_numbered_list_is_applied(tmp_path) -> None:
    """A Chinese Gmail forward in HTML, the order in a list numbered as a Chinese keyboard types it ("1、"), signed
    with a name the game knows: applied as meant, the answer refusing nothing."""
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "dynasties")
    want = moment.legal[1]
    case = Case("gmail-html-forward", "zh", "cjk-comma", "choice-name", "ul", False)
    msg = _message(moment)
    loc = LOCALES[case.locale]
    own = [SHAPES[case.shape](want, 0)]
    sig = SIGNATURES[case.signature](moment, loc)
    msg.set_content(html_body(case.client, loc, moment.report, own, sig, want, case.container), subtype="html")
    deliver(moment.cfg, msg.as_bytes())
    summary = _poll(moment.cfg, moment.clock)
    assert (summary.accepted, summary.rejected) == (1, 0), summary.line()
    with session(moment.cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        req = next(r for r in loaded.engine.requests(loaded.state) if r.player == moment.player)
    assert [o.upper() for o in req.on_file] == [want.upper()]
    answer = sent_mail(moment.cfg)[-1]
    assert moment.address in str(answer["To"]) and "NOT applied" not in str(answer["Subject"]), answer["Subject"]


@pytest.mark.parametrize("kind", ["dynasties", "italian-wars+later"])
def test_an_order_after_a_greeting_on_its_line_is_read(moments: dict[str, Moment], kind: str) -> None:
    """ "Hallo, TRIBUTE Silver 7", "こんにちは、PASS": an order said after a greeting in the writer's language is read
    as the line would be alone (`pbem.orders.openers.greeted`); it was told the order to send (replies20), and the
    Japanese one told nothing before that."""
    moment = moments[kind]
    o = moment.legal[-1]
    failures = []
    for locale, loc in LOCALES.items():
        typed = f"{loc.hello.rstrip(',，')}{'、' if locale in ('ja', 'zh') else ', '}{o}"
        msg = _message(moment)
        msg.set_content("\n".join(text_body("gmail-top", loc, moment.report, [typed], [], o)) + "\n")
        raw = msg.as_bytes()
        ex = reading(moment, raw)
        if why := _misread(moment, raw, [o], typed, list(ex.orders)) or ex.problems:
            failures.append(f"{locale} {typed!r}: {why}")
    assert not failures, "\n".join(failures)
