"""The reply classes players22 left (replies23): a subject changed to a command or an order alone, with no game
tag, and a Japanese or Chinese greeting run into the next word with no mark.

Each class is generated over the eight moments of `tests.test_replies3_players` (four games, at their first report
and at a later step) and read through the real intake path (`pbem.app.reading.extracted` with the report known,
then `pbem.app.lines.seeming_told`):

* `BARE`: a reply to the report whose subject the player changed to a command or an order alone, the game's tag
  gone ("Help", "Re: status", "AW: History", "PASS", "Re: PLAY Platinum 9"), the body only quoting the report (as
  Gmail, the iPhone, Gmail's and Outlook's HTML-only mail lay it out) or empty.  On c43e2ee neither read nor told
  (`pbem.orders.extract.subject_line` reads only after a tag; through a real poll the mail named no game and was
  answered with the list of the player's games).  Expected: read, as the same subject after the tag is (the
  reply's In-Reply-To names the report, whose game it is).
* `UNSPACED`: "こんにちは皆さん PASS", "こんにちは PASS", "こんにちはPASS", "皆さん、こんにちは HELP", "大家好 PASS",
  "你好PASS", with every legal order and each command, in capitals and not, typed in the seven places of
  `tests.test_replies22_players`.  On c43e2ee the greeting was no greeting (its regex wanted a word boundary, and a
  mark after it): capitals listed as a sentence and told, "こんにちはPASS" and every command listed untold.
  Expected: capitals read, as "こんにちは、PASS" is; other cases told with what to send.
* `QUIET`: a subject that is chatter or the report's title with the tag dropped ("Re: Turn 3, Alice to play",
  "Thanks!"), and a Japanese greeting before a remark ("こんにちは 今日は暑いですね"): nothing read, nothing told.

`REPLIES23_ALL=1` runs every case; the suite runs a seeded sample.  Counts on c43e2ee are in docs/performance.md
("players23").
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbem import engine as registry
from pbem.app.lines import seeming_told
from pbem.orders.extract import Extracted, subject_line
from tests.test_replies3_players import KINDS, Moment, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies10_players import reading
from tests.test_replies19_players import LOCALES, html_body, text_body
from tests.test_replies21_players import COMMANDS
from tests.test_replies22_players import PLACES
from tests.test_replies22_players import Case as Case22
from tests.test_replies22_players import build as build22
from tests.test_replies22_players import failure as failure22


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


#: A greeting run into what follows, no mark ({o}: the order or command); "\u3000" is the IME's full-width space.
UNSPACED = (
    ("ja", "こんにちは皆さん {o}"),
    ("ja", "こんにちは {o}"),
    ("ja", "こんにちは{o}"),
    ("ja", "こんにちは皆さん{o}"),
    ("ja", "皆さん、こんにちは {o}"),
    ("ja", "おはようございます\u3000{o}"),
    ("ja", "お疲れ様です {o}"),
    ("zh", "大家好 {o}"),
    ("zh", "你好{o}"),
)
PREFIXES = ("", "Re: ", "RE: ", "AW: ")  # before a subject changed to a command or an order alone
QUIET_SUBJECTS = ("Thanks!", "Question about the rules", "Re: ")  # "Re: " + the report's title without its tag
QUIET_LINES = ("こんにちは 今日は暑いですね", "こんにちは皆さん、よろしくお願いします", "大家好 今天很热")
#: A changed subject's body: only the quote (as Gmail, the iPhone, Gmail's and Outlook's HTML lay it out), or nothing.
BODIES = ("gmail-top", "iphone-quote", "gmail-html", "outlook-html", "empty")


@dataclass(frozen=True)
class Case:
    cls: str
    typed: str  # the subject (`bare`, a quiet subject) or the line typed
    said: str  # the order or command read or told ("" for a remark)
    read: bool  # expected read (else told, or for a remark nothing)
    place: str
    locale: str = "en"

    @property
    def label(self) -> str:
        return f"{self.cls} {self.place}: {self.typed!r}"

    @property
    def command(self) -> bool:
        return self.said in COMMANDS


def _title(order: str) -> str:
    return " ".join(w[:1].upper() + w[1:].lower() for w in order.split())


def cases(moment: Moment) -> list[Case]:
    out: list[Case] = []
    for body in BODIES:
        out += [
            Case("bare", p + t, c, True, body) for p in PREFIXES for c in COMMANDS for t in (c, c.title(), c.lower())
        ]
        out += [Case("bare", p + o, o, True, body) for p in PREFIXES[:2] for o in moment.legal]
        title = subject_line(str(moment.report["Subject"]))
        out += [Case("quiet", s + (title if s == "Re: " else ""), "", False, body) for s in QUIET_SUBJECTS]
    for place in PLACES:
        for locale, form in UNSPACED:
            for said in (*moment.legal, *COMMANDS):
                out += [Case("unspaced", form.format(o=said), said, True, place, locale)]
                out += [Case("unspaced", form.format(o=_title(said)), said, False, place, locale)]
        out += [Case("quiet", typed, "", False, place, "ja") for typed in QUIET_LINES]
    return out


def _as22(case: Case) -> Case22:
    return Case22(case.cls, case.locale, case.typed, case.said, case.command, case.place)


def build(moment: Moment, case: Case) -> bytes:
    if case.place not in BODIES:  # a line typed: laid out as replies22's are
        return build22(moment, _as22(case))
    loc, sent, at = LOCALES["en"], moment.report, moment.legal[0]
    msg = _message(moment, subject=case.typed)
    if case.place.endswith("-html"):
        msg.set_content(html_body(case.place, loc, sent, [""], [], at, "div"), subtype="html")
    elif case.place == "empty":
        msg.set_content("\n")
    else:
        msg.set_content("\n".join(text_body(case.place.removesuffix("-quote"), loc, sent, [""], [], at)) + "\n")
    return msg.as_bytes()


def _same(orders: list[str], said: str) -> bool:
    return [" ".join(o.split()).casefold() for o in orders] == [said.casefold()]


def _read(ex: Extracted, case: Case) -> bool:
    if case.command:
        got = {"HELP": ex.help, "STATUS": ex.status, "REPORT": ex.status, "HISTORY": ex.history == ""}[case.said]
        return got and not ex.orders
    return _same(ex.orders, case.said) and not (ex.help or ex.status or ex.history is not None)


def failure(moment: Moment, case: Case) -> str:
    """Why `case` was not answered as expected, or "": a line typed and not to be read, by replies22's checks."""
    if case.place not in BODIES and not case.read:
        return failure22(moment, _as22(case))
    ex = seeming_told(registry.get(moment.kind), moment.state, moment.player, reading(moment, build(moment, case)))
    if case.read:
        return (
            "" if _read(ex, case) and not ex.problems else f"{case.label}: not read ({ex.orders}, told {ex.problems})"
        )
    if ex.orders or ex.help or ex.status or ex.history is not None or ex.problems:
        return f"{case.label}: a remark, read {ex.orders} or told {ex.problems}"
    return ""


SAMPLED = 3  # cases of each class a moment runs in the suite


def sample(kind: str, moment: Moment) -> list[Case]:
    """The suite's cases of a moment: `SAMPLED` of each class, drawn with a seed; `REPLIES23_ALL=1`: every case."""
    every = cases(moment)
    if os.environ.get("REPLIES23_ALL"):
        return every
    rng = random.Random(f"replies23:{kind}")
    return [c for cls in ("bare", "unspaced", "quiet") for c in rng.sample([c for c in every if c.cls == cls], SAMPLED)]


@pytest.mark.parametrize("kind", KINDS)
def test_a_bare_subject_is_read_and_an_unspaced_greeting_is_one(moments: dict[str, Moment], kind: str) -> None:
    moment = moments[kind]
    chosen = sample(kind, moment)
    failures = [why for case in chosen if (why := failure(moment, case))]
    by_class = {cls: sum(1 for f in failures if f.startswith(cls)) for cls in ("bare", "unspaced", "quiet")}
    assert not failures, f"{len(failures)} of {len(chosen)} {by_class}:\n" + "\n".join(failures[:40])


def test_through_a_real_poll_a_subject_changed_to_help_is_answered_in_its_game(tmp_path: Path) -> None:
    """A reply to the report whose subject the player changed to "Help", the body only quoting, through a real poll:
    the handbook of the report's game is mailed (on c43e2ee the mail named no game: answered with the list of the
    player's games, as a new mail's "HELP" with no tag is).  Then "PASS" so: the order is applied."""
    from tests.conftest import deliver, sent_mail
    from tests.test_replies3_players import _moment, _poll

    moment = _moment(tmp_path, "italian-wars")
    loc, order = LOCALES["en"], moment.legal[0]
    for subject in ("Help", f"Re: {order}"):
        msg = _message(moment, subject=subject)
        msg.set_content("\n".join(text_body("gmail-top", loc, moment.report, [""], [], order)) + "\n")
        deliver(moment.cfg, msg.as_bytes())
        summary = _poll(moment.cfg, moment.clock)
        answer = sent_mail(moment.cfg)[-1]
        text = " ".join(answer.get_body(("plain",)).get_content().split())
        assert "Your games" not in text and "does not name a game" not in text, text
        if subject == "Help":
            assert "Handbook (Help)" in str(answer["Subject"]), (answer["Subject"], text[:300])
        else:
            assert summary.accepted == 1, summary.line()
