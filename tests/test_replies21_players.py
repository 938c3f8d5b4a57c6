# ruff: noqa: RUF001
"""The reply classes players20 left (replies21): an order labelled with a player's name typed under its own listed
line, a command after a greeting, an order in title case after a greeting, an order labelled for the next step.

Each class is generated over the eight moments of `tests.test_replies20_players` (four games, at their first report
and at a later step), thirteen locales, every legal order, typed at the top of the reply and inline under the quoted
line it answers, in plain text and in HTML, read through the real intake path (`pbem.app.reading.extracted`, then
`pbem.app.lines.seeming_told`):

* `NAMED`: "Bob: <order>" (each seat's name as the label: "Alice:", "Bob:", "Carol -").  Typed inline under its listed line, the
  name and the order ran on as the report's own words do ("... TARGET Bob" / "EVENT CLAIM Emperor TARGET Carol"),
  and the line was dropped untold as part of the copy.  Expected: told, with the line quoted and the order to send.
* `COMMANDS`: "Hi, HELP", "Bonjour à tous, STATUS", "Also: HISTORY", each locale's greetings and connective before
  HELP, STATUS, REPORT, HISTORY in capitals.  Expected: the command read (it was listed as "not read").
* `TITLED`: "Hallo, Pass", "Hi! Vote Red", "Hola a todos, Pass" (title case after a greeting or a connective, a
  mark of every kind).  Expected: told, never read.  Reading is the same for every reader of a mail (the poll, the
  deadline's held orders, `pbem verify`), none of which may use the game's state to tell "Hallo Bob! Pass auf dich
  auf" or "Hi all, Play nice!" from an order; a phone capitalises after "!" and "。" as it does a line's first word,
  so title case there is how a sentence of chatter is written.  A line that is the order ("Pass" alone) is read
  in any case, as before.  On 7f9524d the marks "!" and "。", and some greetings, left the line untold.
* `LATER`: "Next turn: PASS", "Au prochain tour : PASS", "Nächste Runde: PASS", ... in each locale.  pbem reads an
  order for the step it asks now and refuses one from a player it does not ask; a game's own standing orders
  (STANDING, DISCARD-IF-NEEDED) are its way of ordering ahead.  Read, the order would apply to this step; told
  "write it as: PASS" (7f9524d), the player was told to send what would apply now.  Expected: not read, and told that
  the line names a later step, with the order to send for this step.

`REPLIES21_ALL=1` runs every case; the suite runs a seeded sample.  Counts on 7f9524d are in docs/performance.md
("players21").
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from pbem import engine as registry
from pbem.app.lines import seeming_told
from tests.test_replies3_players import KINDS, PLAYERS, Moment, shared_moments
from tests.test_replies10_players import reading
from tests.test_replies20_players import FORMS, READ, TOLD, build, failure


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


LATER_TOLD = "later"

#: Per locale, a greeting before "!" (where a phone capitalises the next word as a sentence's first).
EXCLAIMED = {
    "en": "Hi! {o}",
    "fr": "Salut ! {o}",
    "de": "Hallo! {o}",
    "es": "¡Hola! {o}",
    "it": "Ciao! {o}",
    "nl": "Hoi! {o}",
    "pt": "Olá! {o}",
    "pl": "Cześć! {o}",
    "sv": "Hej! {o}",
    "ja": "こんにちは。{o}",
    "zh": "你好！{o}",
    "ru": "Привет! {o}",
    "ko": "안녕하세요! {o}",
}

#: Per locale, a label naming the next step of the game.
LATER = {
    "en": ("Next turn: {o}", "For the next round - {o}"),
    "fr": ("Au prochain tour : {o}", "Tour suivant : {o}"),
    "de": ("Nächste Runde: {o}", "Im nächsten Zug: {o}"),
    "es": ("Próximo turno: {o}", "Para el siguiente turno: {o}"),
    "it": ("Prossimo turno: {o}", "Al prossimo turno: {o}"),
    "nl": ("Volgende beurt: {o}", "Voor de volgende ronde: {o}"),
    "pt": ("Próximo turno: {o}", "Na próxima rodada: {o}"),
    "pl": ("Następna tura: {o}", "W następnej turze: {o}"),
    "sv": ("Nästa runda: {o}", "Nästa drag: {o}"),
    "ja": ("次のターン：{o}", "次回：{o}"),
    "zh": ("下回合：{o}", "下一轮：{o}"),
    "ru": ("Следующий ход: {o}", "На следующий ход: {o}"),
    "ko": ("다음 턴: {o}", "다음 라운드: {o}"),
}

MARKS = (": ", ": ", " - ")  # after each seat's name (`PLAYERS`) in `NAMED`
COMMANDS = ("HELP", "STATUS", "REPORT", "HISTORY")


@dataclass(frozen=True)
class Case:
    """A line as `tests.test_replies20_players.build` and `failure` take it (`typed`, `expected`)."""

    cls: str
    locale: str
    typed: str
    expected: str
    order: str
    place: str
    html: bool

    @property
    def label(self) -> str:
        return f"{self.cls} {self.place}/{'html' if self.html else 'text'}/{self.locale}: {self.typed!r}"


def _title(order: str) -> str:
    return " ".join(w[:1].upper() + w[1:].lower() for w in order.split())


def _lines(moment: Moment) -> list[tuple[str, str, str, str, str]]:
    """(class, locale, line typed, expected, the order or command in it) for every case of `moment`."""
    out: list[tuple[str, str, str, str, str]] = []
    for locale, forms in FORMS.items():
        openers = [form for form, _ in forms[:4]] + [EXCLAIMED[locale]]
        for order in moment.legal:
            out += [("named", locale, f"{name}{mark}{order}", TOLD, order) for (name, _), mark in zip(PLAYERS, MARKS)]
            out += [("titled", locale, form.format(o=_title(order)), TOLD, order) for form in openers]
            out += [("later", locale, form.format(o=order), LATER_TOLD, order) for form in LATER[locale]]
        out += [("commands", locale, form.format(o=c), READ, c) for form in openers for c in COMMANDS]
    return out


def cases(moment: Moment) -> list[Case]:
    return [
        Case(cls, locale, typed, expected, order, place, html)
        for cls, locale, typed, expected, order in _lines(moment)
        for place in ("top", "inline")
        for html in (False, True)
    ]


def _command_failure(moment: Moment, case: Case) -> str:
    ex = reading(moment, build(moment, case))
    got = {"HELP": ex.help, "STATUS": ex.status, "REPORT": ex.status, "HISTORY": ex.history == ""}[case.order]
    if not got or ex.orders or ex.problems:
        return f"{case.label}: command not read (orders {ex.orders}, chatter {ex.chatter}, told {ex.problems})"
    return ""


def _later_failure(moment: Moment, case: Case) -> str:
    raw = build(moment, case)
    ex = seeming_told(registry.get(moment.kind), moment.state, moment.player, reading(moment, raw))
    told = [p for p in ex.problems if f'"{case.typed.strip()}"' in p]
    if ex.orders:
        return f"{case.label}: read {ex.orders}"
    if not told or "later step" not in told[0] or not told[0].upper().endswith(case.order.upper()):
        return f"{case.label}: not told it names a later step: {ex.problems}"
    return ""


def check(moment: Moment, case: Case) -> str:
    """Why `case` was not answered as expected, or ""."""
    by: dict[str, Callable[[Moment, Case], str]] = {"commands": _command_failure, "later": _later_failure}
    return by.get(case.cls, failure)(moment, case)


SAMPLED = 3  # cases of each class a moment runs in the suite


def sample(kind: str, moment: Moment) -> list[Case]:
    """The suite's cases of a moment: `SAMPLED` of each class, drawn with a seed; `REPLIES21_ALL=1`: every case."""
    every = cases(moment)
    if os.environ.get("REPLIES21_ALL"):
        return every
    rng = random.Random(f"replies21:{kind}")
    return [
        c
        for cls in ("named", "commands", "titled", "later")
        for c in rng.sample([c for c in every if c.cls == cls], SAMPLED)
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_the_classes_players20_left_are_read_or_told(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    chosen = sample(kind, moment)
    failures = [why for case in chosen if (why := check(moment, case))]
    by_class = {cls: sum(1 for f in failures if f.startswith(cls)) for cls in ("named", "commands", "titled", "later")}
    assert not failures, f"{len(failures)} of {len(chosen)} {by_class}:\n" + "\n".join(failures[:40])


def test_through_a_real_poll_a_command_after_a_greeting_is_answered_and_a_later_step_told(tmp_path) -> None:
    """ "Bonjour à tous, HELP" in a French reply through a real poll: the handbook is mailed.  Then "Nächste Runde:
    <order>" in a German one: nothing applied, and the answer quotes the line, says it names a later step and shows
    the order to send for this step."""
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _poll
    from tests.test_replies7_clients import _message
    from tests.test_replies19_players import LOCALES, text_body

    moment = _moment(tmp_path, "italian-wars")
    order = moment.legal[-1]
    for locale, typed in (("fr", "Bonjour à tous, HELP"), ("de", f"Nächste Runde: {order}")):
        msg = _message(moment)
        msg.set_content("\n".join(text_body("gmail-top", LOCALES[locale], moment.report, [typed], [], order)) + "\n")
        deliver(moment.cfg, msg.as_bytes())
        summary = _poll(moment.cfg, moment.clock)
        answer = sent_mail(moment.cfg)[-1]
        text = " ".join(answer.get_body(("plain",)).get_content().split())
        if locale == "fr":
            assert "Handbook (Help)" in str(answer["Subject"]), answer["Subject"]
        else:
            assert summary.accepted == 0, summary.line()
            assert f'"{typed}" was not read as an order: it names a later step' in text, text
            assert f"for this step, send: {order}" in text, text
