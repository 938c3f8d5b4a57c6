# ruff: noqa: RUF001, RUF002
"""The reply classes players21 left (replies22): a command after a greeting not in capitals, and a greeting of more
words than a name or two before an order or a command, typed as mail clients lay a reply out.

Each class is generated over the eight moments of `tests.test_replies3_players` (four games, at their first report
and at a later step), thirteen locales, every legal order, and seven places: above Gmail's attribution after a
"Hi," (`top`), right above the attribution with no blank line and no greeting line (`direct`), right above
Outlook's From/Sent/To/Subject block (`direct-outlook`), above "Sent from my iPhone" and its "> " quote
(`iphone`), typed inline under its listed line (`inline`), and in Gmail's and Outlook's HTML-only mail (`html`,
`html-outlook`), read through the real intake path (`pbem.app.reading.extracted` with the report known, then
`pbem.app.lines.seeming_told`):

* `TITLED`: "Hi, Help", "Bonjour, Status", "Hallo zusammen, report", "Also: History" (each locale's greetings and
  connective of `tests.test_replies20_players.FORMS`, and "!" or "。" after a greeting), HELP, STATUS, REPORT and
  HISTORY in title case and in lower case.  On 9fb0ae7 only listed as not read.  Expected: not read (as "Hi,
  Pass" is not, players21), and told with the line quoted, why, and the command to send.
* `LONG`: "Hello everyone and good luck, PASS", "Good morning Mr Smith and all: HELP", "Bonjour à tous et bonne
  chance : PASS", "皆さん、こんにちは。今回もよろしく：PASS" (a greeting, more words than a name or two, a comma or a
  colon) before every legal order and each command in capitals.  On 9fb0ae7 a colon made the line a client's
  "Label: value" line and right above the quote it was dropped with the attribution, untold; elsewhere the line
  was listed, the command or the order after a colon untold.  Expected: not read, told with the order or
  command to send.
* `SUBJECT`: a command typed after the title of the report in the reply's subject, the body only quoting it ("Re:
  [pbem g1] Turn 3, Alice to play - Help", "... STATUS", "...: history"), in plain text and in HTML.  On 9fb0ae7
  an order so typed was read (`pbem.orders.extract.after_title`), a command dropped untold.  Expected: read.
* `QUIET`: a greeting before words that only start like a command ("Hi, help me understand the rules", "Hello
  everyone, status quo for me"): nothing read, nothing told.

`REPLIES22_ALL=1` runs every case; the suite runs a seeded sample.  Counts on 9fb0ae7 are in docs/performance.md
("players22").
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import pytest

from pbem import engine as registry
from pbem.app.lines import seeming_told
from tests.test_replies3_players import KINDS, Moment, _plain, _quoted, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies10_players import reading
from tests.test_replies19_players import LOCALES, WHO, _block, html_body, text_body
from tests.test_replies20_players import FORMS
from tests.test_replies21_players import COMMANDS, EXCLAIMED


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


#: Per locale, a greeting of more words than a name or two, then a mark (`{o}`: the order or command).
LONG = {
    "en": ("Hello everyone and good luck, {o}", "Good morning Mr Smith and all: {o}"),
    "fr": ("Bonjour à tous et bonne chance, {o}", "Bonjour à tous et bonne chance : {o}"),
    "de": ("Hallo zusammen und viel Glück, {o}", "Guten Morgen an alle Mitspieler: {o}"),
    "es": ("Hola a todos y buena suerte, {o}", "Buenos días a todos los jugadores: {o}"),
    "it": ("Ciao a tutti e buona fortuna, {o}", "Buongiorno a tutti i giocatori: {o}"),
    "nl": ("Hallo allemaal en veel succes, {o}", "Goedemorgen aan alle spelers: {o}"),
    "pt": ("Olá a todos e boa sorte, {o}", "Bom dia a todos os jogadores: {o}"),
    "pl": ("Cześć wszystkim i powodzenia, {o}", "Dzień dobry wszystkim graczom tutaj: {o}"),
    "sv": ("Hej allihop och lycka till, {o}", "God morgon till alla spelare: {o}"),
    "ja": ("皆さん、こんにちは。今回もよろしく、{o}", "皆さん、こんにちは。今回もよろしくお願いします：{o}"),
    "zh": ("大家好，祝大家好运，{o}", "大家好，祝各位玩家好运：{o}"),
    "ru": ("Всем привет и удачи в игре, {o}", "Добрый день всем игрокам здесь: {o}"),
    "ko": ("안녕하세요 여러분, 모두 행운을 빕니다, {o}", "안녕하세요 여러분 모두 행운을 빕니다: {o}"),
}

#: Lines a greeting starts whose rest only starts like a command: a remark, neither read nor told.
QUIET = (
    "Hi, help me understand the rules",
    "Hello everyone and good luck, help is on its way",
    "Good morning Mr Smith and all: status quo for me",
    "Bonjour à tous, history will judge us",
    "Hallo zusammen: Help wanted",
)

PLACES = ("top", "direct", "direct-outlook", "iphone", "inline", "html", "html-outlook")
SUBJECT_MARKS = (" - ", " ", ": ", " \u2013 ")  # between the report's title and a command typed after it


@dataclass(frozen=True)
class Case:
    cls: str
    locale: str
    typed: str
    said: str  # the order or command to be told ("" for a remark)
    command: bool
    place: str

    @property
    def label(self) -> str:
        return f"{self.cls} {self.place}/{self.locale}: {self.typed!r}"


def _lines(moment: Moment) -> list[tuple[str, str, str, str, bool]]:
    """(class, locale, line typed, the order or command told, whether a command) for every line of `moment`."""
    out: list[tuple[str, str, str, str, bool]] = []
    for locale, forms in FORMS.items():
        openers = [form for form, _ in forms[:4]] + [EXCLAIMED[locale]]
        out += [
            ("titled", locale, form.format(o=typed), c, True)
            for form in openers
            for c in COMMANDS
            for typed in (c.title(), c.lower())
        ]
        for form in LONG[locale]:
            out += [("long", locale, form.format(o=o), o, False) for o in moment.legal]
            out += [("long", locale, form.format(o=c), c, True) for c in COMMANDS]
    out += [("quiet", "en", typed, "", False) for typed in QUIET]
    title = str(moment.report["Subject"])
    for c in COMMANDS:
        out += [
            ("subject", "en", f"Re: {title}{mark}{typed}", c, True)
            for mark in SUBJECT_MARKS
            for typed in (c, c.title())
        ]
    return out


SUBJECT_PLACES = ("top", "iphone", "html", "html-outlook")  # a subject's body: only the quote, as each lays it out


def cases(moment: Moment) -> list[Case]:
    return [
        Case(*line, place) for line in _lines(moment) for place in (SUBJECT_PLACES if line[0] == "subject" else PLACES)
    ]


def build(moment: Moment, case: Case) -> bytes:
    loc, sent = LOCALES[case.locale], moment.report
    original = _plain(sent)
    who = loc.attribution.format(who=WHO)
    at = case.said if not case.command and case.said else moment.legal[0]
    msg = _message(moment, subject=case.typed if case.cls == "subject" else "")
    own = [""] if case.cls == "subject" else [case.typed]  # a subject's command: the body only quotes
    if case.place in ("html", "html-outlook"):
        client = "gmail-html" if case.place == "html" else "outlook-html"
        msg.set_content(html_body(client, loc, sent, own, [], at, "div"), subtype="html")
        return msg.as_bytes()
    if case.cls == "subject":
        msg.set_content(
            "\n".join(text_body("iphone" if case.place == "iphone" else "gmail-top", loc, sent, own, [], at)) + "\n"
        )
        return msg.as_bytes()
    lines = {
        "top": lambda: text_body("gmail-top", loc, sent, [case.typed], [], at),
        "direct": lambda: [case.typed, who, *_quoted(original)],
        "direct-outlook": lambda: [case.typed, *_block(loc, sent), "", *original],
        "iphone": lambda: text_body("iphone", loc, sent, [case.typed], [], at),
        "inline": lambda: text_body("gmail-inline", loc, sent, [case.typed], [], at),
    }[case.place]()
    msg.set_content("\n".join(lines) + "\n")
    return msg.as_bytes()


def failure(moment: Moment, case: Case) -> str:
    """Why `case` was not answered as expected, or ""."""
    ex = seeming_told(registry.get(moment.kind), moment.state, moment.player, reading(moment, build(moment, case)))
    if case.cls == "subject":
        got = {"HELP": ex.help, "STATUS": ex.status, "REPORT": ex.status, "HISTORY": ex.history == ""}[case.said]
        return "" if got and not ex.orders and not ex.problems else f"{case.label}: not read (told {ex.problems})"
    if ex.orders or ex.help or ex.status or ex.history is not None:
        return f"{case.label}: read (orders {ex.orders}, help {ex.help}, status {ex.status}, history {ex.history})"
    told = [p for p in ex.problems if f'"{case.typed.strip()}"' in p]
    if not case.said:
        return f"{case.label}: a remark, told {told}" if told else ""
    if not told:
        listed = any(case.typed.strip() in line for line in ex.chatter)
        return f"{case.label}: {'listed as not read' if listed else 'dropped'}, untold ({ex.problems})"
    if not told[0].upper().endswith(case.said.upper()):
        return f"{case.label}: told without what to send: {told[0]}"
    return ""


SAMPLED = 3  # cases of each class a moment runs in the suite (a remark's: one)


def sample(kind: str, moment: Moment) -> list[Case]:
    """The suite's cases of a moment: `SAMPLED` of each class (one remark), drawn with a seed; `REPLIES22_ALL=1`:
    every case."""
    every = cases(moment)
    if os.environ.get("REPLIES22_ALL"):
        return every
    rng = random.Random(f"replies22:{kind}")
    drawn = [
        c for cls in ("titled", "long", "subject") for c in rng.sample([c for c in every if c.cls == cls], SAMPLED)
    ]
    return [*drawn, rng.choice([c for c in every if c.cls == "quiet"])]


@pytest.mark.parametrize("kind", KINDS)
def test_a_command_or_an_order_after_a_greeting_not_read_is_told(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    chosen = sample(kind, moment)
    failures = [why for case in chosen if (why := failure(moment, case))]
    by_class = {cls: sum(1 for f in failures if f.startswith(cls)) for cls in ("titled", "long", "subject", "quiet")}
    assert not failures, f"{len(failures)} of {len(chosen)} {by_class}:\n" + "\n".join(failures[:40])


def test_through_a_real_poll_a_long_greeting_right_above_the_quote_is_told(tmp_path) -> None:
    """ "Good morning Mr Smith and all: HELP" right above Gmail's attribution, through a real poll: nothing applied,
    and the answer quotes the line, says why and shows the command to send (on 9fb0ae7 the line was dropped with
    the attribution, and the player answered as if they had sent nothing)."""
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "italian-wars")
    typed = "Good morning Mr Smith and all: HELP"
    msg = _message(moment)
    who = LOCALES["en"].attribution.format(who=WHO)
    msg.set_content("\n".join([typed, who, *_quoted(_plain(moment.report))]) + "\n")
    deliver(moment.cfg, msg.as_bytes())
    summary = _poll(moment.cfg, moment.clock)
    text = " ".join(sent_mail(moment.cfg)[-1].get_body(("plain",)).get_content().split())
    assert summary.accepted == 0, summary.line()
    assert f'"{typed}" was not read as a command' in text and "send: HELP" in text, text
