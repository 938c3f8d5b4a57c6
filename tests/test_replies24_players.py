# ruff: noqa: RUF001, RUF002
"""The reply class players23 left (replies24): a greeting to someone by name, with a title, an honorific or
the name set off by marks of its own, in each locale's way of writing it, before an order or a command.

Each form is generated over the eight moments of `tests.test_replies3_players` (four games, at their first report
and at a later step), every legal order and each command, typed in the seven places of
`tests.test_replies22_players` (Gmail's top, right above an attribution or Outlook's block, the iPhone, inline
under its listed line, Gmail's and Outlook's HTML-only mail), read through the real intake path
(`pbem.app.reading.extracted` with the report known, then `pbem.app.lines.seeming_told`):

* `NAMED`: "こんにちはBobさん、PASS" (a name in Latin letters run into an unspaced greeting, an honorific, an
  ideographic comma), "お疲れ様です、田中さん。PASS", "Bobさん、こんにちは、PASS" and "Bob你好，PASS" (the name
  first, as Japanese and Chinese greet), "你好，王先生，PASS", "안녕하세요 PASS" and "안녕하세요 여러분 PASS"
  (Korean, no mark before the Latin letters), "안녕하세요, Bob님. PASS", "Hi, Bob. PASS", "Привет, Боб! PASS" (a
  name set off by marks of its own), "Dear Mr. Smith, PASS", "Bonjour M. Dupont, PASS", "Hola Sr. García, PASS",
  "Liebe Frau Dr. Schmidt, PASS" (a title's full stop, three words), "Beste meneer Jansen, PASS", "Witam Panie
  Janie, PASS" (a title in lower case), "Hello Bob，PASS" (a full-width comma).  On e5c877a most were told the order
  to send (an order line starts with its order word), or, the name first, listed as not read, untold.  Expected:
  read, as "Hi Bob, PASS" is; a command so typed answered.
* `TITLED`: the same forms before an order in title case ("Hi, Bob. Pass"): not read (a sentence may start so),
  told with the order to send, as "Hi Bob, Pass" is.
* `QUIET`: the same greetings before a remark ("Hi, Bob. Thanks for the game!", "こんにちはBobさん、よろしくお願い
  します", "Привет, Боб! Как дела?", "Bob你好，今天很热"): nothing read, nothing told.

`REPLIES24_ALL=1` runs every case (`REPLIES24_ALL=1 python3 -m pytest tests/test_replies24_players.py -n 0`); the
suite runs a seeded sample.  On e5c877a 21,609 of the 35,140 cases failed: 18,900 of 22,050 `NAMED` (15,645 told the
order to send, 3,255 untold: a command after "Hi, Bob.", the name-first forms), 2,709 of 12,642 `TITLED` listed as
not read, untold (the name-first and the name-between-marks forms), none of 448 `QUIET`; now none does.  Of the
suite's sample (3 cases of each class a moment, 72) 27 failed on e5c877a.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import pytest

from pbem import engine as registry
from pbem.app.lines import seeming_told
from tests.test_replies3_players import KINDS, Moment, shared_moments
from tests.test_replies10_players import reading
from tests.test_replies21_players import COMMANDS
from tests.test_replies22_players import PLACES
from tests.test_replies22_players import Case as Case22
from tests.test_replies22_players import build as build22
from tests.test_replies22_players import failure as failure22
from tests.test_replies23_players import _read, _title


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


#: Per locale, a greeting to someone by name before an order or a command (`{o}`).
NAMED = {
    "en": ("Hi, Bob. {o}", "Dear Mr. Smith, {o}", "Hello Bob，{o}", "Hi Bob-san! {o}"),
    "fr": ("Bonjour M. Dupont, {o}", "Salut, Bob ! {o}", "Bonjour Mme Dupont : {o}"),
    "de": ("Hallo Herr Müller, {o}", "Liebe Frau Dr. Schmidt, {o}", "Hallo, Bob! {o}"),
    "es": ("Hola Sr. García, {o}", "¡Hola, Bob! {o}", "Estimado señor García: {o}"),
    "it": ("Ciao, Bob! {o}", "Buongiorno sig. Rossi, {o}"),
    "nl": ("Beste meneer Jansen, {o}", "Hallo, Bob. {o}"),
    "pt": ("Olá Sr. Silva, {o}", "Oi, Bob! {o}", "Prezado senhor Silva: {o}"),
    "pl": ("Witam Panie Janie, {o}", "Cześć, Bob! {o}", "Dzień dobry pani Anno, {o}"),
    "sv": ("Hej, Bob! {o}", "God morgon Anna: {o}"),
    "ja": (
        "こんにちはBobさん、{o}",
        "こんにちは、Bobさん。{o}",
        "お疲れ様です、田中さん。{o}",
        "こんにちは Bob様！{o}",
        "Bobさん、こんにちは、{o}",
        "田中さん、こんにちは。{o}",
    ),
    "zh": ("你好Bob，{o}", "你好，王先生，{o}", "Bob你好，{o}", "王先生，你好：{o}"),
    "ru": ("Привет, Боб! {o}", "Здравствуйте, Иван Иванович! {o}"),
    "ko": (
        "안녕하세요 {o}",
        "안녕하세요 여러분 {o}",
        "안녕하세요, Bob님. {o}",
        "안녕하세요 철수님, {o}",
        "Bob님 안녕하세요, {o}",
    ),
}
FIRST = ("Bobさん、", "田中さん、", "Bob你好", "王先生，", "Bob님 ")  # the name-first forms (untold on e5c877a)

#: The greetings of `NAMED` before a remark: neither read nor told.
QUIET = (
    "Hi, Bob. Thanks for the game!",
    "Dear Mr. Smith, I hope you are well.",
    "Привет, Боб! Как дела?",
    "こんにちはBobさん、よろしくお願いします",
    "Bobさん、こんにちは。今日は暑いですね",
    "Bob你好，今天很热",
    "안녕하세요 여러분 반갑습니다",
    "Hola Sr. García, gracias por la partida.",
)
CLASSES = ("named", "titled", "quiet")


@dataclass(frozen=True)
class Case:
    cls: str
    locale: str
    typed: str
    said: str  # the order or command read or told ("" for a remark)
    place: str

    @property
    def label(self) -> str:
        return f"{self.cls} {self.place}/{self.locale}: {self.typed!r}"

    @property
    def command(self) -> bool:
        return self.said in COMMANDS


def cases(moment: Moment) -> list[Case]:
    out: list[Case] = []
    for place in PLACES:
        for locale, forms in NAMED.items():
            for form in forms:
                out += [Case("named", locale, form.format(o=o), o, place) for o in (*moment.legal, *COMMANDS)]
                out += [Case("titled", locale, form.format(o=_title(o)), o, place) for o in moment.legal]
        out += [Case("quiet", "en", typed, "", place) for typed in QUIET]
    return out


def _as22(case: Case) -> Case22:
    return Case22(case.cls, case.locale, case.typed, case.said, case.command, case.place)


def failure(moment: Moment, case: Case) -> str:
    """Why `case` was not answered as expected, or "": an order or a command not read, told, or a line not to be
    read that was (by replies22's checks: told with what to send, a remark neither read nor told)."""
    if case.cls != "named":
        return failure22(moment, _as22(case))
    ex = seeming_told(
        registry.get(moment.kind), moment.state, moment.player, reading(moment, build22(moment, _as22(case)))
    )
    if _read(ex, case) and not ex.problems:  # type: ignore[arg-type]  # replies23's Case: the same fields read
        return ""
    first = "first " if case.typed.startswith(FIRST) else ""
    return f"{case.cls} {first}{case.place}/{case.locale}: {case.typed!r}: not read ({ex.orders}, told {ex.problems})"


SAMPLED = 3  # cases of each class a moment runs in the suite


def sample(kind: str, moment: Moment) -> list[Case]:
    """The suite's cases of a moment: `SAMPLED` of each class, drawn with a seed; `REPLIES24_ALL=1`: every case."""
    every = cases(moment)
    if os.environ.get("REPLIES24_ALL"):
        return every
    rng = random.Random(f"replies24:{kind}")
    return [c for cls in CLASSES for c in rng.sample([c for c in every if c.cls == cls], SAMPLED)]


@pytest.mark.parametrize("kind", KINDS)
def test_a_greeting_to_someone_by_name_is_read_as_one(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    chosen = sample(kind, moment)
    failures = [why for case in chosen if (why := failure(moment, case))]
    by_class = {cls: sum(1 for f in failures if f.startswith(cls)) for cls in CLASSES}
    first = sum(1 for f in failures if f.startswith("named first"))
    assert not failures, f"{len(failures)} of {len(chosen)} {by_class} ({first} name first):\n" + "\n".join(
        failures[:40]
    )
