# ruff: noqa: RUF001
"""An order after a label or a greeting on its line, in the languages players write (replies20).

players19 left two classes: a line with a label pbem did not know ("Also: PASS", "Alors : PASS", "Außerdem: PASS",
"Y también: PASS", "Orders for this turn - PASS") was neither read nor told, the order gone untold; an order after a
greeting on its line in German, French, Russian, Spanish... ("Hallo, PASS", "Hola: PASS") was told the order to send,
not read.  Here every legal order of each of the four games at its first report and at a later step is typed after
each label and greeting form of thirteen locales (`FORMS`: a greeting, one to the table, a two-word greeting, the
connectives "also" and "so", "for this turn", "my move", and a label naming someone, "Dana:", that pbem cannot
take for the player's own), at the top of the reply, typed inline under the quoted line it answers, and under a "-- "
signature, in plain text and in HTML, read through the real intake path (`pbem.app.reading.extracted` with the
report known, then `pbem.app.lines.seeming_told`).  Expected: the order read exactly (a greeting and a label the
player uses for their own order), or, for a label pbem cannot take for theirs, told with the line quoted and the
order to send; never dropped untold; under the signature never read; nothing else read or told.

On a0540ce, 15,424 of the 23,478 cases failed (`REPLIES20_ALL=1`: 43 orders, 91 forms, three places, two parts):
10,952 dropped untold (every label of the player's own but "Orders for this turn - PASS" in capitals, 6,364;
"Dana:", 2,180; a greeting pbem's sentence openers did not list, "Good morning: PASS", "Всем привет, PASS", 2,408), and
4,472 told the order to send where the player had written it plainly (a greeting and a comma, "Hallo, PASS";
"Orders for this turn - PASS").  None under the signature was read.  Now `pbem.orders.openers` reads the greeting
and the label of the player's own and tells the label naming someone: none fails.  The suite runs each locale's
forms once over the eight moments (91 cases; on a0540ce 58 of them failed).  Left: "Bob: EVENT CLAIM Emperor TARGET
Carol" typed inline under its listed line runs on as the report's own words do ("... TARGET Bob" / "EVENT CLAIM
Emperor TARGET Carol") and is dropped as the copy (`pbem.orders.own_mail`), untold (78 cases with "Bob:"; told since
replies21, `tests.test_replies21_players`)."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import pytest

from pbem import engine as registry
from pbem.app.lines import seeming_told
from tests.test_replies3_players import KINDS, Moment, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies8_players import _misread
from tests.test_replies10_players import reading
from tests.test_replies19_players import LOCALES, html_body, text_body


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


READ, TOLD = "read", "told"

#: Per locale, how a player writes an order after a greeting or a label on its line (`{o}`: the order), and whether
#: pbem is to read it (the player's own greeting or label) or tell it (a label naming someone: "Dana: PASS" may be
#: what someone else would choose; the answer quotes the line and the order to send).
FORMS: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (
        ("Hi, {o}", READ),
        ("Hello everyone, {o}", READ),
        ("Good morning: {o}", READ),
        ("Also: {o}", READ),
        ("Orders for this turn - {o}", READ),
        ("My move this turn: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
    "fr": (
        ("Bonjour, {o}", READ),
        ("Bonjour à tous, {o}", READ),
        ("Bonsoir : {o}", READ),
        ("Alors : {o}", READ),
        ("Pour ce tour : {o}", READ),
        ("Mon coup : {o}", READ),
        ("Dana : {o}", TOLD),
    ),
    "de": (
        ("Hallo, {o}", READ),
        ("Hallo zusammen, {o}", READ),
        ("Guten Morgen: {o}", READ),
        ("Außerdem: {o}", READ),
        ("Für diese Runde: {o}", READ),
        ("Mein Zug: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
    "es": (
        ("Hola: {o}", READ),
        ("Hola a todos, {o}", READ),
        ("Buenos días, {o}", READ),
        ("Y también: {o}", READ),
        ("Para este turno: {o}", READ),
        ("Mi jugada: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
    "it": (
        ("Ciao, {o}", READ),
        ("Ciao a tutti, {o}", READ),
        ("Buongiorno: {o}", READ),
        ("Inoltre: {o}", READ),
        ("Per questo turno: {o}", READ),
        ("La mia mossa: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
    "nl": (
        ("Hoi, {o}", READ),
        ("Hallo allemaal, {o}", READ),
        ("Goedemorgen: {o}", READ),
        ("Ook: {o}", READ),
        ("Voor deze beurt: {o}", READ),
        ("Mijn zet: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
    "pt": (
        ("Olá, {o}", READ),
        ("Olá a todos, {o}", READ),
        ("Bom dia: {o}", READ),
        ("Então: {o}", READ),
        ("Para este turno: {o}", READ),
        ("Minha jogada: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
    "pl": (
        ("Cześć, {o}", READ),
        ("Cześć wszystkim, {o}", READ),
        ("Dzień dobry: {o}", READ),
        ("Także: {o}", READ),
        ("W tej turze: {o}", READ),
        ("Mój ruch: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
    "sv": (
        ("Hej, {o}", READ),
        ("Hej allihop, {o}", READ),
        ("God morgon: {o}", READ),
        ("Också: {o}", READ),
        ("Den här rundan: {o}", READ),
        ("Mitt drag: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
    "ja": (
        ("こんにちは、{o}", READ),
        ("皆さん、こんにちは。{o}", READ),
        ("おはようございます：{o}", READ),
        ("また：{o}", READ),
        ("今回：{o}", READ),
        ("私の手：{o}", READ),
        ("Dana：{o}", TOLD),
    ),
    "zh": (
        ("你好，{o}", READ),
        ("大家好，{o}", READ),
        ("早上好：{o}", READ),
        ("另外：{o}", READ),
        ("本回合：{o}", READ),
        ("我的出牌：{o}", READ),
        ("Dana：{o}", TOLD),
    ),
    "ru": (
        ("Привет, {o}", READ),
        ("Всем привет, {o}", READ),
        ("Добрый день: {o}", READ),
        ("Итак: {o}", READ),
        ("На этот ход: {o}", READ),
        ("Мой ход: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
    "ko": (
        ("안녕하세요, {o}", READ),
        ("여러분 안녕하세요, {o}", READ),
        ("좋은 아침입니다: {o}", READ),
        ("그리고: {o}", READ),
        ("이번 턴: {o}", READ),
        ("내 선택: {o}", READ),
        ("Dana: {o}", TOLD),
    ),
}

#: Where the line goes: above the quote, typed inline under the quoted line it answers, under a "-- " signature.
PLACES = ("top", "inline", "signature")
#: (plain text client, HTML client) for each place (`tests.test_replies19_players`).
CLIENTS = {
    "top": ("gmail-top", "gmail-html"),
    "inline": ("gmail-inline", "apple-html-inline"),
    "signature": ("gmail-top", "gmail-html"),
}


@dataclass(frozen=True)
class Case:
    locale: str
    form: int
    order: str
    place: str
    html: bool

    @property
    def typed(self) -> str:
        return FORMS[self.locale][self.form][0].format(o=self.order)

    @property
    def expected(self) -> str:
        return FORMS[self.locale][self.form][1]

    @property
    def label(self) -> str:
        return f"{self.place}/{'html' if self.html else 'text'}/{self.locale}: {self.typed!r}"


def cases(moment: Moment) -> list[Case]:
    return [
        Case(locale, k, order, place, html)
        for locale, forms in FORMS.items()
        for k in range(len(forms))
        for order in moment.legal
        for place in PLACES
        for html in (False, True)
    ]


def build(moment: Moment, case: Case) -> bytes:
    loc = LOCALES[case.locale]
    own, sig = ([], ["-- ", moment.player, case.typed]) if case.place == "signature" else ([case.typed], [])
    if case.place == "signature":
        own = ["Still thinking it over."]
    msg = _message(moment)
    client = CLIENTS[case.place][case.html]
    if case.html:
        msg.set_content(html_body(client, loc, moment.report, own, sig, case.order, "div"), subtype="html")
    else:
        msg.set_content("\n".join(text_body(client, loc, moment.report, own, sig, case.order)) + "\n")
    return msg.as_bytes()


def failure(moment: Moment, case: Case) -> str:
    """Why `case` was not answered as expected, or ""."""
    raw = build(moment, case)
    ex = seeming_told(registry.get(moment.kind), moment.state, moment.player, reading(moment, raw))
    told = [p for p in ex.problems if f'"{case.typed.strip()}"' in p]
    if case.place == "signature":
        return f"{case.label}: under the signature, read {ex.orders}" if ex.orders else ""
    if case.expected == READ:
        if why := _misread(moment, raw, [case.order], case.label, list(ex.orders)):
            return why + (f" (told {ex.problems})" if ex.problems else " (untold)")
        return f"{case.label}: read as meant, but told {ex.problems}" if ex.problems else ""
    if ex.orders:
        return f"{case.label}: to be told, read {ex.orders}"
    if not told or case.order.upper() not in told[0].upper():
        return f"{case.label}: to be told, told {ex.problems}"
    return ""


def sample(kind: str, moment: Moment) -> list[Case]:
    """What the suite runs of a moment's cases: the locale and form pairs of every eighth place in `FORMS` (the
    eight moments run each pair once), each with an order, a place and a part drawn with a seed; `REPLIES20_ALL=1`
    runs every case."""
    every = cases(moment)
    if os.environ.get("REPLIES20_ALL"):
        return every
    rng = random.Random(f"replies20:{kind}")
    pairs = [(locale, k) for locale, forms in FORMS.items() for k in range(len(forms))][KINDS.index(kind) :: len(KINDS)]
    return [rng.choice([c for c in every if (c.locale, c.form) == pair]) for pair in pairs]


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_after_a_greeting_or_a_label_is_read_or_told(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    chosen = sample(kind, moment)
    failures = [why for case in chosen if (why := failure(moment, case))]
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures[:40])


def test_no_line_of_pbems_own_mail_is_read_or_told_as_a_greeting_or_a_label(moments: dict[str, Moment]) -> None:
    """Every line of every mail pbem sent in the eight games (text and HTML read as text: reports, answers, the
    first mails), read alone as a player's line: none is read or told by what reads past a greeting or a label
    (`pbem.orders.openers`): "Default at the deadline: DISCARD-IF-NEEDED LOWEST" and "Asked of you now: Accept one
    offer ..." are pbem's, in a copy its reader did not take out (`PBEMS_LABELS`; the first was told in a test of
    replies12).  Nor read as a command after a greeting (`opened_command`), nor told as an order after one in any case
    (`_opened`) or as one for a later step (`NEXT_STEP`): replies21.  Nor told as an order or a command after a
    greeting of any words (`_opened`, `_opened_command`): replies22."""
    from pbem.mail.inbound.message import html_to_text
    from pbem.orders.extract import (
        _labelled_by_other,
        _opened,
        _opened_command,
        is_order,
        labelled_order,
        opened_command,
    )
    from pbem.orders.openers import CONNECTIVE, NEXT_STEP, THIS_STEP, greeted
    from tests.conftest import sent_mail

    found = []
    for kind, moment in moments.items():
        words = tuple(registry.get(moment.kind).order_words)
        for mail in sent_mail(moment.cfg):
            parts = [mail.get_body(("plain",)), mail.get_body(("html",))]
            text = "\n".join(
                p.get_content() if p.get_content_subtype() == "plain" else html_to_text(p.get_content())
                for p in parts
                if p is not None
            )
            for line in {ln.strip() for ln in text.splitlines()}:
                opened = THIS_STEP.match(line) or CONNECTIVE.match(line) or greeted(line)
                later = NEXT_STEP.match(line)
                widely = _opened(line, words) or _opened_command(line)  # a greeting of any words: replies22
                if (opened and (labelled_order(line, words) or opened_command(line))) or (
                    widely or _labelled_by_other(line, words) or (later and is_order(later.group(1), words))
                ):
                    found.append(f"{kind}: {line!r}")
    assert not found, "\n".join(found[:20])


def test_through_a_real_poll_a_greeting_is_read_and_a_label_naming_someone_told(tmp_path) -> None:
    """A German reply "Hallo zusammen, <order>" through a real poll: applied, nothing refused.  Then "Dana: <order>"
    in a French one: nothing applied, and the answer quotes the line, says why and shows the order to send."""
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "italian-wars")
    order = moment.legal[-1]
    for locale, typed in (("fr", f"Dana : {order}"), ("de", f"Hallo zusammen, {order}")):
        msg = _message(moment)
        msg.set_content("\n".join(text_body("gmail-top", LOCALES[locale], moment.report, [typed], [], order)) + "\n")
        deliver(moment.cfg, msg.as_bytes())
        summary = _poll(moment.cfg, moment.clock)
        answer = sent_mail(moment.cfg)[-1]
        text = answer.get_body(("plain",)).get_content()
        if locale == "fr":
            assert summary.accepted == 0, summary.line()
            assert f'"{typed}" was not read as an order' in " ".join(text.split()), text
            assert f"write it as: {order}" in " ".join(text.split()), text
        else:
            assert (summary.accepted, summary.rejected) == (1, 0), summary.line()
            assert "NOT applied" not in str(answer["Subject"]) and "not read" not in text, text


def test_a_greeting_or_a_connective_before_words_in_lower_case_is_not_read(moments: dict[str, Moment]) -> None:
    """ "Hi all, play nice!" above "PLAY Platinum 9" in Dynasties: read past its greeting, "play nice" was refused and
    the message with it; a greeting or a connective is read past only before an order word in capitals, so the line is
    a remark and the order below it is applied.  "Hallo, play platinum 9" alone is not read either (told the order
    to send, as "Hi, vote red" is: a sentence).  Each locale's greetings and connective (`FORMS`' first four)."""
    moment = moments["dynasties+later"]
    order = moment.legal[0]
    failures = []
    for locale, forms in FORMS.items():
        for typed in (form.format(o=o) for form, _ in forms[:4] for o in ("play nice!", order.lower())):
            own = [typed, "", order] if typed.endswith("!") else [typed]
            msg = _message(moment)
            msg.set_content("\n".join(text_body("gmail-top", LOCALES[locale], moment.report, own, [], order)) + "\n")
            raw = msg.as_bytes()
            ex = reading(moment, raw)
            if own[-1] == order and (why := _misread(moment, raw, [order], typed, list(ex.orders))):
                failures.append(why)
            elif own[-1] != order and ex.orders:
                failures.append(f"{locale} {typed!r}: read {ex.orders}")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:20])
