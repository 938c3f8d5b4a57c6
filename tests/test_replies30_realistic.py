"""players30, part B: realistic replies, thirtieth round (shapes `tests/test_replies27_realistic.py` lacks).

Each family (`FAMILIES`) is a reply to the report pbem sent (the eight moments of `tests.test_replies3_players`),
read through the intake's path (`pbem.app.reading.extracted` with the report known, then `tests/replies27.judged`)
and sorted as `tests.test_replies27_realistic.outcome` sorts (`read`, `told`, `untold`, `misapplied`):

* mobile footers under the player's name: "Get Outlook for iOS", "Sent from my Galaxy", Yahoo's, Proton's;
* a reply written above and below the quote: "see below" above, the order under the quote;
* voice dictation: "pass period", "... comma thanks period";
* autocorrect inside an order's argument: curly quotes around it, a hyphen made a dash;
* the order inside a forwarded mail's body (the player's own mail from another address, forwarded);
* the report's own lines pasted back unquoted above the order (never applied but the order), or with a question and
  no order (nothing applied);
* a second mail the same minute correcting the first (a mail test, `test_a_second_mail_the_same_minute_...`);
* an order in the Subject and another in the body: the body's stands, and the player is told of the subject's;

`REPLIES30_ALL=1 python3 -m pytest tests/test_replies30_realistic.py -n 0 -s` runs every case and prints the
counts; the suite runs `SAMPLED` cases a moment.  Of the 1,224 cases (17 families, 3 clients, 3 orders, 8 moments),
on b1f92b21: 1,011 read, 0 told, 141 untold, 0 misapplied, and the 72 `subject-and-body` cases read without a word
of the subject's order (counted apart: the body's orders applied, the subject's dropped silently).  Untold: 69 of 72
`dictated-comma` ("tribute gold 5 comma thanks period": refused, "comma" taken for a word of the order) and all 72
`forwarded-orders` (answered as if the mail said nothing).  Now 1,152 read, 72 told (every `forwarded-orders`: the
order quoted, "send it as a line of your own"), 0 untold, 0 misapplied; the subject's order is told
(`pbem.orders.elsewhere`), a dictated comma read as "," (`pbem.orders.typed`).  Every mobile footer, dictated
"period", curly quotes around an argument, a dash for a hyphen, a reply above and below the quote, and the report's
own lines pasted back unquoted (with an order or only a question) were read as meant before and are now.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from pbem import engine as registry
from tests.replies27 import judged, sampled, tallied
from tests.test_replies3_players import KINDS, Moment, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies10_players import reading
from tests.test_replies19_players import LOCALES, WHO, _plain, text_body


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


MOBILE = {
    "outlook-ios": ["Get Outlook for iOS"],
    "outlook-android": ["Get Outlook for Android"],
    "galaxy": ["Sent from my Galaxy"],
    "samsung": ["Sent from my Samsung Galaxy smartphone."],
    "yahoo": ["Sent from Yahoo Mail on Android"],
    "yahoo-iphone": ["Sent from Yahoo Mail for iPhone"],
    "proton": ["Sent with Proton Mail secure email."],
    "proton-mobile": ["Sent from Proton Mail mobile"],
}
CLIENTS = ("gmail-top", "gmail-bottom", "outlook-rule")


def _dictated(order: str) -> str:
    return f"{order.lower()} period"


def _comma(order: str) -> str:
    return f"{order.lower()} comma thanks period"


def _curly(order: str) -> str:
    verb, _, rest = order.partition(" ")
    return f"{verb} \u201c{rest}\u201d" if rest else f"\u201c{order}\u201d"


def _dashed(order: str) -> str:
    """A phone's hyphen made a dash inside a name; an order with none gets a phone's non-breaking spaces."""
    return order.replace("-", "\u2013") if "-" in order else order.replace(" ", "\u00a0")


#: How a family types the order on the player's own line.
TYPED: dict[str, Callable[[str], list[str]]] = {
    "dictated-period": lambda o: [_dictated(o)],
    "dictated-comma": lambda o: [_comma(o)],
    "curly-argument": lambda o: [_curly(o)],
    "smart-dash": lambda o: [_dashed(o)],
}
FAMILIES = (*MOBILE, *TYPED, "above-and-below", "forwarded-orders", "report-pasted", "report-asked", "subject-and-body")


@dataclass(frozen=True)
class Case:
    family: str
    client: str
    pick: int

    @property
    def label(self) -> str:
        return f"{self.family}/{self.client}/{self.pick}"


def cases() -> list[Case]:
    return [Case(f, c, p) for f in FAMILIES for c in CLIENTS for p in range(3)]


def _quoted(lines: list[str]) -> list[str]:
    return [f"> {x}".rstrip() for x in lines]


def build(moment: Moment, case: Case) -> tuple[bytes, str, str]:
    """The reply of `case` to `moment`'s report, the order it means, and another legal order."""
    legal = moment.legal
    order, other = legal[case.pick % len(legal)], legal[(case.pick + 1) % len(legal)]
    loc = LOCALES["en"]
    title = "Re: " + str(moment.report["Subject"])
    original = _plain(moment.report)
    who = loc.attribution.format(who=WHO)
    sig = [loc.thanks, moment.player]
    f = case.family
    msg = _message(moment, f"{title} - {other}" if f == "subject-and-body" else title)
    if f in MOBILE:
        body = text_body(case.client, loc, moment.report, [order], [*sig, "", *MOBILE[f]], order)
    elif f in TYPED:
        body = text_body(case.client, loc, moment.report, TYPED[f](order), sig, order)
    elif f == "above-and-below":  # a line above the quote saying the answer is below it, the order under the quote
        body = [loc.hello, "", "My orders are below.", "", who, *_quoted(original), "", order, "", *sig]
    elif f == "forwarded-orders":  # the player's own mail from another address, forwarded to the game
        fwd = ["---------- Forwarded message ---------", f"From: {moment.player} <me@home.example>"]
        fwd += ["Date: Mon, 30 Nov 2026 at 21:30", f"Subject: {title}", f"To: {moment.report['From']}", "", order]
        body = [loc.hello, "", "Sent from my other address by mistake, forwarding:", "", *fwd, "", *sig]
    elif f == "report-pasted":  # the report's own lines pasted back without quote marks, then the order
        body = [loc.hello, "", "You wrote:", "", *original[:40], "", "My order:", order, "", *sig]
    elif f == "report-asked":  # the same lines pasted with a question, and no order of the player's
        body = [loc.hello, "", "What does this mean?", "", *original[:40], "", *sig]
    else:
        body = text_body(case.client, loc, moment.report, [order], sig, order)
    msg.set_content("\n".join(body) + "\n")
    return msg.as_bytes(), order, other


def outcome(moment: Moment, case: Case) -> tuple[str, str]:
    """(`read`, `told`, `misapplied` or `untold`, what was read and told); `subject-and-body` is `read` only when
    the player is told of the subject's order too."""
    raw, order, other = build(moment, case)
    eng = registry.get(moment.kind)
    got = judged(eng, moment.state, moment.player, reading(moment, raw))
    want = eng.apply(moment.state, moment.player, [order])
    said = f"{case.label}: meant {order!r}, applied {got.applied}, refused {got.refused}, told {got.notes}"
    if case.family == "report-asked":  # nothing meant: anything applied is misapplied
        return ("misapplied" if got.applied else "read"), said
    if got.applied:
        if got.state != want.state:
            return "misapplied", said
        if case.family == "subject-and-body" and not any(other.upper() in n.upper() for n in got.notes):
            return "read-untold", said
        return "read", said
    told = any(order.upper() in n.upper() for n in got.notes)
    return ("told" if told else "untold"), said


SAMPLED = 4


def sample(kind: str) -> list[Case]:
    return sampled(cases(), "REPLIES30_ALL", "replies30", kind, SAMPLED)


@pytest.mark.parametrize("kind", KINDS)
def test_realistic_replies_of_round_thirty_are_read_or_told_and_never_misapplied(
    moments: dict[str, Moment], kind: str
) -> None:
    moment = moments[kind]
    failures = tallied(kind, sample(kind), lambda case: outcome(moment, case), "REPLIES30_ALL")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:60])


CORRECTED = "Sorry, wrong one. I meant:"


@pytest.mark.parametrize("kind", ["habsburg", "dynasties"])
def test_a_second_mail_the_same_minute_correcting_the_first(home, clock, kind: str) -> None:
    """Real SQLite and Maildir: two replies to one report, 35 s apart, the second "Sorry, wrong one. I meant:" and
    another legal order.  Where the step waits for every player (Dynasties' Tributes, Sixteen Thirty's set-up, The
    Italian Wars' discards) the second replaces the first, and its answer says what is on file; in Habsburg the first
    ended Alice's turn, so the second is refused as out of turn, "Nothing is asked of you now", never applied: the
    first stands, as its own answer said, and (players31) the second's answer says so too, naming the first mail ("was
    applied and stands"; on 8aa88d6c it said nothing of it).  The same on b1f92b21 (4 of 4 kinds so, measured by hand; these two run)."""
    from tests.conftest import body_of, deliver, order_mail, sent_mail
    from tests.test_moderator import PLAYERS, asked, new_game, run_poll

    name = new_game(home, clock, kind=kind, name="g1", players=PLAYERS)
    run_poll(home, clock)
    seen: set[str] = set()
    req = next(r for r in asked(home, name)[0] if r.legal)
    address = dict(PLAYERS)[req.player]
    last = [m for m in sent_mail(home, seen) if address in str(m["To"])][-1]
    first, second = req.legal[0], req.legal[1]
    for body, when in ((first, "12:00:05"), (f"{CORRECTED}\n{second}", "12:00:40")):
        deliver(home, order_mail(f"{req.player} <{address}>", name, f"{body}\n\nThanks", subject=f"Re: {last['Subject']}",
                                 In_Reply_To=str(last["Message-ID"]), Date=f"Mon, 05 Jan 2026 {when} +0000"))  # fmt: skip
    run_poll(home, clock)
    answers = [body_of(m) for m in sent_mail(home, seen) if address in str(m["To"])]
    assert len(answers) == 2 and first in answers[0] and second in answers[1], answers
    if kind == "habsburg":
        assert "NOTHING WAS APPLIED" in answers[1] and "Nothing is asked of you now" in answers[1], answers[1]
        assert "was applied and stands" in answers[1], answers[1]  # the first mail named as standing (players31)
    else:
        assert "replaces your earlier" in answers[1] and f"(on file) {second}" in answers[1], answers[1]
