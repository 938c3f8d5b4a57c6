"""players27, item 4: realistic replies, each client's layout with what players add to it, counted as read.

`tests/test_replies19_players.py` combines clients (Gmail top-, bottom-posted and inline; Outlook's rule, original
and inline; forwards; the iPhone; HTML-only mail) with locales and order shapes.  This generator puts on each of
those replies what else a real one carries (`EXTRAS`): a quoted-printable or base64 body (soft breaks inside the
order's line), a footer starting with an order word under the signature, the player's own lines hard-wrapped at 40
columns, smart quotes, emoji, the first word autocorrected to a capital, the order in lower case, HELP above it,
"吧" after it, two orders on one line parted by ";".  Each is a reply to the report pbem sent (the eight moments of
`tests.test_replies3_players`: four games at their first report and at a later step), read through the intake's
path (`pbem.app.reading.extracted` with the report known, then `tests/replies27.judged`), and sorted (`outcome`):

* `read`: the orders meant applied exactly, nothing else;
* `told`: nothing applied, the message refused or set aside with the order to send shown (a wrap inside a name,
  two orders on one line: README says both are refused so);
* `misapplied`: something applied that was not meant (never allowed);
* `untold`: nothing applied and no word of the order meant.

`REPLIES27_REAL_ALL=1` runs every case (`python3 -m pytest tests/test_replies27_realistic.py -n 0`, about 3 min);
the suite runs `SAMPLED` a moment.  Of the 2,016 cases (252 a moment), on efd12b07: 1,834 read, 161 told (every
"semicolon": refused as two orders on one line, each shown), 21 untold, 0 misapplied; now 1,836 read, 172 told (8
wraps inside a name offered whole, 3 typed again under their listed line in an inline copy and offered), 8 untold,
0 misapplied.  Of the 13 untold now read or told, 5 were orders wrapped at 40 columns typed under their own listed
line inside an inline copy (Gmail's, Outlook's inline answers): the rest of the order, a piece of the report's own
line, was dropped as the copy's (`pbem.orders.own_mail._rest_typed` keeps it now).  The 8 left are `untold_may`:
footers of `tests.test_replies27_footers.RESIDUE` under an order ("Keep calm and carry on": the mail refused, the
footer quoted).  players28 (`pbem.orders.closings`): on c83d8ea7 1,836 read, 172 told, 8 untold, 0 misapplied; now
1,844 read, 172 told, 0 untold, 0 misapplied (the residue is empty).  Every quoted-printable and base64 body, footer, smart quote, emoji, autocorrected capital,
lower-case order, HELP above the order and "吧" after it is read.
"""

from __future__ import annotations

import os
import random
import textwrap
from dataclasses import dataclass

import pytest

from pbem import engine as registry
from tests.replies27 import judged
from tests.test_replies3_players import KINDS, Moment, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies10_players import reading
from tests.test_replies19_players import CLIENTS, HTML_CLIENTS, LOCALES, SIGNATURES, html_body, text_body
from tests.test_replies27_footers import FOOTERS, RESIDUE


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


EXTRAS = (
    "plain",
    "quoted-printable",
    "base64",
    "footer",
    "wrapped-40",
    "smart-quotes",
    "emoji",
    "autocapital",
    "lower",
    "help",
    "zh-ba",
    "semicolon",
)
FOOTER_NAMES = tuple(FOOTERS)


@dataclass(frozen=True)
class Case:
    client: str
    locale: str
    extra: str
    signature: str
    pick: int
    footer: str

    @property
    def label(self) -> str:
        return f"{self.client}/{self.locale}/{self.extra}/{self.signature}/{self.pick}/{self.footer}"


def cases() -> list[Case]:
    """Every client with every extra, in a locale, a signature, an order and a footer drawn in turn."""
    locales, sigs = list(LOCALES), list(SIGNATURES)
    out = []
    for c, client in enumerate(CLIENTS):
        for n, extra in enumerate(EXTRAS):
            k = c * 5 + n * 3
            out.append(
                Case(client, locales[k % len(locales)], extra, sigs[k % len(sigs)], k, FOOTER_NAMES[k % len(FOOTERS)])
            )
    return out


def _typed(extra: str, order: str, other: str) -> list[str]:
    if extra == "smart-quotes":
        return [f"“{order}”"]
    if extra == "emoji":
        return [f"\U0001f449 {order} \U0001f44d"]
    if extra == "autocapital":
        return [order[:1].upper() + order[1:].lower()]
    if extra == "lower":
        return [order.lower()]
    if extra == "help":
        return ["HELP", order]
    if extra == "zh-ba":
        return [f"{order}吧"]
    if extra == "semicolon":
        return [f"{order}; {other}"]
    if extra == "wrapped-40":
        return textwrap.wrap(order, 40, break_long_words=False, break_on_hyphens=False)
    return [order]


def build(moment: Moment, case: Case) -> tuple[bytes, str]:
    """The reply of `case` to `moment`'s report, and the order it means."""
    legal = moment.legal
    order, other = legal[case.pick % len(legal)], legal[(case.pick + 1) % len(legal)]
    own = _typed(case.extra, order, other)
    loc = LOCALES[case.locale]
    sig = SIGNATURES[case.signature](moment, loc)
    if case.extra == "footer":
        sig = [*sig, "", *FOOTERS[case.footer]]
    msg = _message(moment, "Re: " + str(moment.report["Subject"]))
    if case.client in HTML_CLIENTS:
        body = html_body(case.client, loc, moment.report, own, sig, order, "div")
        cte = "quoted-printable" if case.extra == "quoted-printable" else "base64" if case.extra == "base64" else None
        msg.set_content(body, subtype="html", cte=cte)
    else:
        text = "\n".join(text_body(case.client, loc, moment.report, own, sig, order)) + "\n"
        if case.extra == "quoted-printable":
            msg.set_content(text, cte="quoted-printable")
        elif case.extra == "base64":
            msg.set_content(text, cte="base64")
        else:
            msg.set_content(text)
    return msg.as_bytes(), order


def outcome(moment: Moment, case: Case) -> tuple[str, str]:
    """(`read`, `told`, `misapplied` or `untold`, what was read and told)."""
    raw, order = build(moment, case)
    eng = registry.get(moment.kind)
    got = judged(eng, moment.state, moment.player, reading(moment, raw))
    want = eng.apply(moment.state, moment.player, [order])
    said = f"{case.label}: meant {order!r}, applied {got.applied}, refused {got.refused}, told {got.notes}"
    if got.applied:
        return ("read" if got.state == want.state else "misapplied"), said
    short = order.split()[0].upper()
    told = any(order.upper() in n.upper() or (case.extra == "semicolon" and short in n.upper()) for n in got.notes)
    told = told or bool(got.refused and case.extra == "semicolon")  # two orders on one line: refused as such
    return ("told" if told else "untold"), said


SAMPLED = 6
#: The extras a case of which may be told rather than read: a wrap inside a name, two orders on one line.
TOLD_MAY = frozenset(("wrapped-40", "semicolon"))


def untold_may(case: Case) -> bool:
    """The cases left open (the module docstring): a footer of the residue under an order."""
    return case.extra == "footer" and case.footer in RESIDUE


def sample(kind: str) -> list[Case]:
    every = cases()
    if os.environ.get("REPLIES27_REAL_ALL"):
        return every
    return random.Random(f"replies27:{kind}").sample(every, SAMPLED)


@pytest.mark.parametrize("kind", KINDS)
def test_realistic_replies_are_read_as_meant_or_told_and_never_misapplied(
    moments: dict[str, Moment], kind: str
) -> None:
    moment = moments[kind]
    failures = []
    for case in sample(kind):
        how, said = outcome(moment, case)
        if (
            how == "misapplied"
            or (how == "untold" and not untold_may(case))
            or (how == "told" and case.extra not in TOLD_MAY)
        ):
            failures.append(f"{how}: {kind} {said}")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:40])


INLINE = ("gmail-inline", "outlook-inline", "gmail-html-inline", "apple-html-inline")


@pytest.mark.parametrize("kind", ["habsburg", "sixteen-thirty"])
def test_an_order_wrapped_under_its_own_listed_line_in_an_inline_copy_is_read_or_offered(
    moments: dict[str, Moment], kind: str
) -> None:
    """`pbem.orders.own_mail._rest_typed`: the rest of an order typed again under its listed line and wrapped at 40
    columns was dropped as the copy's (Outlook's inline answer: nothing read at all); 5 of the 2,016 realistic
    replies were so on efd12b07, none now.  Each inline client's wrapped case at these two moments."""
    moment = moments[kind]
    chosen = [c for c in cases() if c.extra == "wrapped-40" and c.client in INLINE]
    failures = [
        f"{how}: {said}"
        for c in chosen
        if (got := outcome(moment, c))[0] not in ("read", "told")
        for how, said in [got]
    ]
    assert not failures, "\n".join(failures)
