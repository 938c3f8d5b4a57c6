"""An order followed by the words Japanese, Chinese and Korean say it with, run into it (replies24).

"PASSでお願いします" ("PASS, please"), "PASSにします" ("I'll take PASS"), "PASSします", "PASSで", "PASS吧", "PASS로
하겠습니다", "PASS 할게요", "PASS 부탁드립니다": an IME writes them straight after the order's last Latin letter, with no
space or comma, where `pbem.orders.typed._THANKS` looks for one.  Each is generated after every legal order of the
eight moments of `tests.test_replies3_players` (four games, at their first report and at a later step), at the top of
a Gmail reply and in Gmail's HTML-only mail, and read through the real intake path
(`pbem.app.reading.extracted` with the report known, then `pbem.app.lines.seeming_told`):

* `SAID`: expected read as the order alone.  On e5c877a the words stayed on the order's last word ("DISCARD
  Sortieでお願いします" names no card, "PASSします" is no order word) and the line was refused or listed untold.
* `NEGATED`: the same order with a negation ("PASSしません", "PASS 안 할게요", "PASSではありません"): whatever is
  read, the game takes nothing.  On e5c877a a negation run into the last word was dropped by Dynasties' parser, which
  reads only ASCII letters and digits: "TRIBUTE Gold 4しません" was applied as TRIBUTE Gold 4
  (`pbem.app.unread.shortened` now refuses it, the order alone offered).
* `PROSE`: the order in capitals run into the sentence before it ("我选PASS", "私はPASS"): not read (a sentence), told
  with the order to send, as "I choose PASS" is.  On e5c877a listed as not read, untold: the order was one word with
  the words before it (`pbem.orders.extract.in_prose` now ends a word where the scripts meet).

`REPLIES24_SAID_ALL=1` runs every case; the suite runs a seeded sample.  On e5c877a 1,146 of the 1,376 cases failed:
774 of 774 `SAID` (762 read with the words on the order or listed untold, 12 told), 28 of 258 `NEGATED` applied as
the order ("TRIBUTE Copper Coronationしません"), 344 of 344 `PROSE` untold; now none does.  Of the suite's sample (2
cases of each class a moment, 48) 34 failed on e5c877a.
"""

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


SAID = (
    ("ja", "{o}でお願いします"),
    ("ja", "{o}でお願いします。"),
    ("ja", "{o}にします"),
    ("ja", "{o}します"),
    ("ja", "{o}で"),
    ("zh", "{o}吧"),
    ("ko", "{o}로 하겠습니다"),
    ("ko", "{o} 할게요"),
    ("ko", "{o} 부탁드립니다"),
)
NEGATED = (("ja", "{o}しません"), ("ja", "{o}ではありません"), ("ko", "{o} 안 할게요"))
PROSE = (("zh", "我选{o}"), ("zh", "我选择{o}"), ("ja", "私は{o}"), ("ja", "今回は{o}"))  # a sentence: told
CLASSES = ("said", "negated", "prose")
PLACES = ("top", "html")


@dataclass(frozen=True)
class Case:
    cls: str
    locale: str
    typed: str
    order: str
    place: str

    @property
    def label(self) -> str:
        return f"{self.cls} {self.place}/{self.locale}: {self.typed!r}"


def cases(moment: Moment) -> list[Case]:
    return [
        Case(cls, locale, form.format(o=o), o, place)
        for cls, forms in (("said", SAID), ("negated", NEGATED), ("prose", PROSE))
        for locale, form in forms
        for o in moment.legal
        for place in PLACES
    ]


def build(moment: Moment, case: Case) -> bytes:
    loc, msg = LOCALES[case.locale], _message(moment)
    if case.place == "html":
        msg.set_content(
            html_body("gmail-html", loc, moment.report, [case.typed], [], case.order, "div"), subtype="html"
        )
    else:
        msg.set_content("\n".join(text_body("gmail-top", loc, moment.report, [case.typed], [], case.order)) + "\n")
    return msg.as_bytes()


def failure(moment: Moment, case: Case) -> str:
    """Why `case` was not read as expected, or "": the order alone read; a negated order nothing the game takes."""
    raw = build(moment, case)
    ex = seeming_told(registry.get(moment.kind), moment.state, moment.player, reading(moment, raw))
    if case.cls == "negated":
        return _misread(moment, raw, [], case.label, ex.orders)
    if case.cls == "prose":
        told = [p for p in ex.problems if f'"{case.typed}"' in p and p.upper().endswith(case.order.upper())]
        return "" if told and not ex.orders else f"{case.label}: read {ex.orders}, told {ex.problems}"
    if [" ".join(o.split()) for o in ex.orders] == [case.order] and not ex.problems:
        return ""
    return f"{case.label}: read {ex.orders}, told {ex.problems}"


SAMPLED = 2  # cases of each class a moment runs in the suite


def sample(kind: str, moment: Moment) -> list[Case]:
    every = cases(moment)
    if os.environ.get("REPLIES24_SAID_ALL"):
        return every
    rng = random.Random(f"replies24-said:{kind}")
    return [c for cls in CLASSES for c in rng.sample([c for c in every if c.cls == cls], SAMPLED)]


@pytest.mark.parametrize("kind", KINDS)
def test_an_order_said_so_in_japanese_chinese_or_korean_is_read(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    chosen = sample(kind, moment)
    failures = [why for case in chosen if (why := failure(moment, case))]
    assert not failures, f"{len(failures)} of {len(chosen)}:\n" + "\n".join(failures[:40])
