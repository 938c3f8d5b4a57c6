"""players31, part B: realistic replies, thirty-first round (shapes `tests/test_replies30_realistic.py` lacks).

Each family (`FAMILIES`) is a reply to the report pbem sent (the eight moments of `tests.test_replies3_players`), read
through the intake's path (`pbem.app.reading.extracted` with the report known, then `tests/replies27.judged`) and
sorted as `tests.test_replies30_realistic.outcome` sorts: `read` (what the player meant applied), `told` (nothing
applied, and a note quotes the order or a line of it is refused, quoted back with why), `untold` (nothing applied,
nothing said), `misapplied` (something applied the player did not mean):

* quote headers of non-English clients above the report: Gmail's French, German and Spanish attributions, Outlook's
  From/Sent/To/Subject block in English, German and French (the report under it unquoted), a Gmail attribution
  wrapped over two lines;
* HTML-only replies: the order in a <div> above a <blockquote>, in a table, or parted by a <br> inside it;
* invisible characters inside the order (a no-break space, a zero-width space, a soft hyphen, a BOM) and look-alike
  letters (a Cyrillic letter in the order word, full-width digits);
* a number written as a word ("TRIBUTE Gold five"), an en or em dash after the order word, "1x" before its argument;
* the order in the top reply and again in a quoted older reply of the player's own under it.

* Outlook's text copy of the report re-wrapped at 72 columns, its indents gone, the order above it or under it; a
  German attribution with the order under the quote; the player's older reply quoted, holding the same order or
  another one.

`REPLIES31_ALL=1 python3 -m pytest tests/test_replies31_realistic.py -n 0 -s` runs every case and prints the counts
per family; the suite runs `SAMPLED` cases a moment.  Of the 600 cases (25 families, 3 orders, 8 moments), on
8aa88d6c: 513 read, 87 told, 0 untold, 0 misapplied; now 537 read, 63 told, 0 untold, 0 misapplied.  A Cyrillic letter
in the order word (24 of 24 told on 8aa88d6c, "write it as: TRIBUTE Gold 4") is read now (`pbem.orders.typed`'s
look-alikes).  Told, each refused with its reason: a dash after the order word (30 of 48: Habsburg, Italian Wars and
Sixteen Thirty refuse "MELD \u2013 Heinrich ...", '"-" is not a card'; Dynasties reads it), "1x" before the argument
(21 of 24), a <br> inside the order (12 of 24: its halves refused).  Read before and now: every non-English quote
header, Outlook's blocks (re-wrapped too), HTML in a <div> or a table, a no-break space, a zero-width space, a soft
hyphen, a BOM, full-width digits, numbers as words, the order again (or another) in a quoted reply of the player's.
players32: on 4da2cbd6 537 read, 63 told; now 597 read, 3 told, 0 untold, 0 misapplied.  A dash after the order word
and "1x" are read (`pbem.orders.extract._labelled`, `untimed`), a <br> before the order's number, after TARGET or ">"
or inside an order phrase ("NO" / "EVENT") joined (`extract._wrapped`, `_unhyphened`); told still, the order offered:
a <br> inside a name or after the order word alone ("DISCARD" / "Belligerent": 3 of 24).
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from pbem import engine as registry
from tests.replies27 import judged, sampled, tallied
from tests.test_replies3_players import KINDS, Moment, _html, _plain, shared_moments
from tests.test_replies7_clients import _message
from tests.test_replies10_players import reading
from tests.test_replies19_players import WHO


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def _quoted(lines: list[str], prefix: str = "> ") -> list[str]:
    return [f"{prefix}{x}".rstrip() for x in lines]


#: Attributions above a quoted report (Gmail's, in the writer's language; one wrapped as Gmail wraps a long one).
ATTRIBUTIONS = {
    "gmail-fr": [f"Le lun. 7 déc. 2026 à 10:02, {WHO} a écrit :"],
    "gmail-de": [f"Am 07.12.2026 um 10:02 schrieb {WHO}:"],
    "gmail-es": [f"El lun, 7 dic 2026 a las 10:02, {WHO.replace('<', '(<').replace('>', '>)')} escribió:"],
    "gmail-wrapped": ["On Mon, Dec 7, 2026 at 10:02 AM pbem moderator <", "games@example.org> wrote:"],
}
#: Outlook's header block above the report, unquoted.
OUTLOOK = {
    "outlook-en": ("From", "Sent", "To", "Subject", "Monday, December 7, 2026 10:02 AM", ": "),
    "outlook-de": ("Von", "Gesendet", "An", "Betreff", "Montag, 7. Dezember 2026 10:02", ": "),
    "outlook-fr": ("De", "Envoyé", "À", "Objet", "lundi 7 décembre 2026 10:02", " : "),
}
HTML = ("html-div-blockquote", "html-table", "html-br-inside")


def _cyrillic(order: str) -> str:
    """The first of A, E, O, a, e, o, P, C, T in the order word as its Cyrillic look-alike ("P\u0410SS")."""
    look = str.maketrans("AEOaeoPCT", "\u0410\u0415\u041e\u0430\u0435\u043e\u0420\u0421\u0422")
    word, _, rest = order.partition(" ")
    at = next((k for k, ch in enumerate(word) if ch in "AEOaeoPCT"), None)
    if at is None:
        return order
    return word[:at] + word[at].translate(look) + word[at + 1 :] + (f" {rest}" if rest else "")


def _inside(order: str, ch: str) -> str:
    """`ch` inside the order word, after its second letter ("TR\u200bIBUTE")."""
    return order[:2] + ch + order[2:]


def _full_width(order: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in order)


WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def _worded(order: str) -> str:
    """Each number up to twelve written as a word ("TRIBUTE Gold five")."""
    return re.sub(r"\b(\d{1,2})\b", lambda m: WORDS[int(m[1])] if int(m[1]) < len(WORDS) else m[1], order)


_PHRASES: set[str] = {w.upper() for k in ("habsburg", "italian-wars", "sixteen-thirty", "dynasties")
                      for w in registry.get(k).order_words if " " in w}  # fmt: skip


def _split(order: str) -> tuple[str, str]:
    """The order word (a phrase's words together: "NO EVENT", "NO TRADE") and the rest."""
    words = order.split()
    n = 2 if " ".join(words[:2]).upper() in _PHRASES else 1
    return " ".join(words[:n]), " ".join(words[n:])


def _dashed(order: str, dash: str) -> str:
    """A dash between the order word and its argument ("TRIBUTE – Gold 5"); an order of no argument as it is."""
    word, rest = _split(order)
    return f"{word} {dash} {rest}" if rest else order


def _times(order: str) -> str:
    """ "1x" before the argument ("TRIBUTE 1x Gold 5"); an order of no argument as it is."""
    word, rest = _split(order)
    return f"{word} 1x {rest}" if rest else order


#: How a family types the order on the player's own line (a reply at the top, Gmail's quote under it).
TYPED: dict[str, Callable[[str], str]] = {
    "nbsp": lambda o: o.replace(" ", "\u00a0", 1),
    "zero-width": lambda o: _inside(o, "\u200b"),
    "soft-hyphen": lambda o: _inside(o, "\u00ad"),
    "bom": lambda o: "\ufeff" + o,
    "cyrillic": _cyrillic,
    "full-width-digits": _full_width,
    "number-words": _worded,
    "en-dash": lambda o: _dashed(o, "\u2013"),
    "em-dash": lambda o: _dashed(o, "\u2014"),
    "times-x": _times,
}
#: More shapes: Outlook's copy of the report re-wrapped at 72 columns, its indents gone (as Outlook converts an HTML
#: report to text), the order above or under it; a German attribution with the order under the quote; the player's
#: older reply quoted holding another order than the one typed now.
MORE = ("outlook-rewrapped", "outlook-rewrapped-under", "gmail-de-under", "own-older-reply", "own-older-other")
FAMILIES = (*ATTRIBUTIONS, *OUTLOOK, *HTML, *TYPED, *MORE)


@dataclass(frozen=True)
class Case:
    family: str
    pick: int

    @property
    def label(self) -> str:
        return f"{self.family}/{self.pick}"


PICKS = 3


def cases() -> list[Case]:
    return [Case(f, p) for f in FAMILIES for p in range(PICKS)]


def _outlook(moment: Moment, labels: tuple[str, ...]) -> list[str]:
    frm, sent, to, subject, date, colon = labels
    r = moment.report
    block = [
        f"{frm}{colon}{r['From']}",
        f"{sent}{colon}{date}",
        f"{to}{colon}{r['To']}",
        f"{subject}{colon}{r['Subject']}",
    ]
    return ["", "_" * 32, *block, "", *_plain(r)]


def _rewrapped(lines: list[str]) -> list[str]:
    """`lines` as Outlook's text copy of a report: each paragraph's lines joined, their indents gone, wrapped at 72."""
    out: list[str] = []
    para: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            para.append(line.strip())
            continue
        out += textwrap.wrap(" ".join(para), 72) if para else []
        out.append("")
        para = []
    return out


def _html_body(moment: Moment, family: str, order: str) -> str:
    quote = f'<div class="gmail_quote"><div>{html.escape(WHO)} wrote:</div><blockquote>{_html(moment.report)}</blockquote></div>'
    if family == "html-div-blockquote":
        mine = f"<div>Hi,</div><div><br></div><div>{html.escape(order)}</div><div><br></div><div>Thanks</div>"
    elif family == "html-table":
        mine = f"<p>Hi,</p><table><tr><td>{html.escape(order)}</td></tr></table><p>Thanks</p>"
    else:  # a <br> where the phone wrapped the order before its last word
        head, _, last = order.rpartition(" ")
        mine = (
            f"<div>Hi,<br><br>{html.escape(head or order)}<br>{html.escape(last) if head else ''}<br><br>Thanks</div>"
        )
    return f"<html><body>{mine}<br>{quote}</body></html>"


def build(moment: Moment, case: Case) -> tuple[bytes, str]:
    """The reply of `case` to `moment`'s report, and the order it means."""
    order = moment.legal[case.pick % len(moment.legal)]
    original = _plain(moment.report)
    msg = _message(moment)
    f = case.family
    mine = ["Hi,", "", order, "", "Thanks", moment.player]
    if f in HTML:
        msg.set_content(_html_body(moment, f, order), subtype="html")
        return msg.as_bytes(), order
    if f in ATTRIBUTIONS:
        body = [*mine, "", *ATTRIBUTIONS[f], "", *_quoted(original)]
    elif f in OUTLOOK:
        body = [*mine, *_outlook(moment, OUTLOOK[f])]
    elif f in TYPED:
        body = [
            "Hi,",
            "",
            TYPED[f](order),
            "",
            "Thanks",
            moment.player,
            "",
            f"On Mon, 7 Dec 2026 at 10:02, {WHO} wrote:",
        ]
        body += _quoted(original)
    elif f.startswith("outlook-rewrapped"):
        copy = [*_outlook(moment, OUTLOOK["outlook-en"])[:6], *_rewrapped(original)]
        body = (
            [*mine, *copy] if f == "outlook-rewrapped" else ["Hi, my order is under your mail.", *copy, "", *mine[2:]]
        )
    elif f == "gmail-de-under":
        body = [*ATTRIBUTIONS["gmail-de"], *_quoted(original), "", *mine]
    else:  # the player's own earlier reply quoted under this one: the same order again, or another one
        other = moment.legal[(case.pick + 1) % len(moment.legal)] if f == "own-older-other" else order
        older = [other, "", "Thanks", moment.player, "", f"On Sun, 6 Dec 2026 at 09:00, {WHO} wrote:"]
        older += _quoted(original)
        body = [*mine, "", f"On Sun, 6 Dec 2026 at 21:30, {moment.player} <{moment.address}> wrote:", *_quoted(older)]
    msg.set_content("\n".join(body) + "\n")
    return msg.as_bytes(), order


def verdict(moment: Moment, raw: bytes, order: str, label: str) -> tuple[str, str]:
    """(`read`, `told`, `untold` or `misapplied`, what was read and told) of the reply `raw` meaning `order`
    (players32's generator judges its cases the same way)."""
    eng = registry.get(moment.kind)
    got = judged(eng, moment.state, moment.player, reading(moment, raw))
    want = eng.apply(moment.state, moment.player, [order])
    said = f"{label}: meant {order!r}, applied {got.applied}, refused {got.refused}, told {got.notes}"
    if got.applied:
        return ("read" if got.state == want.state else "misapplied"), said
    told = bool(got.refused) or any(order.upper() in n.upper() for n in got.notes)
    return ("told" if told else "untold"), said


def outcome(moment: Moment, case: Case) -> tuple[str, str]:
    return verdict(moment, *build(moment, case), case.label)


SAMPLED = 4


def sample(kind: str) -> list[Case]:
    return sampled(cases(), "REPLIES31_ALL", "replies31", kind, SAMPLED)


@pytest.mark.parametrize("kind", KINDS)
def test_realistic_replies_of_round_thirty_one_are_read_or_told_and_never_misapplied(
    moments: dict[str, Moment], kind: str
) -> None:
    """Of the 600 cases (25 families, 3 orders, 8 moments): see the module docstring's figures."""
    moment = moments[kind]
    failures = tallied(kind, sample(kind), lambda case: outcome(moment, case), "REPLIES31_ALL")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:60])
