"""In the HTML part of a refusal each order that would be accepted is on a line of its own (walk7).

Found walking the README as four players, reading the mail at 360 px in Chromium: Bob's refusal of "Event person
Henrich" listed what would be accepted as code spans one after another in the table's narrow column, so the phone
wrapped them into "EVENT PERSON Heinrich EVENT / PERSON Heinrich EVENT / PERSON Frederick NO EVENT": nobody could
tell where one order ended and the next began (the text part has one a line).  Now each is on its own line (`<br>`
before each).  `pbem verify --mail` compares a refusal's HTML with pbem's own (`pbem.trust.refused.html_block`),
which reads both forms as one: a mail written before this change is not named.

The generator: the states the bots reach in every kind (`tests.app.test_refusals_agree.states`), each player asked
something, the legal lines seen on the way sent with a typo (a letter dropped from the last word), each refusal that
lists what would be accepted rendered as mailed.  Counted with `PBEM_REFUSAL_HTML_FULL=1` (every state and line, 60 s):
on efd12b07 every one of the 4,341 such refusals ran its orders together, on walk7 none (and `html_block` reads
each in both forms alike).  The suite's sample (every 3rd state, 5th line, 6 refusals a game) checks 24.
"""

from __future__ import annotations

import dataclasses
import os
import re

import pytest

from pbem import engine as registry
from pbem.mail.outbound.outgoing import Mail
from pbem.render.templates import render_mail
from pbem.trust.refused import html_block
from tests.app.plain import loaded
from tests.app.test_refusals_agree import send, states

FULL = os.environ.get("PBEM_REFUSAL_HTML_FULL") == "1"
STATES, LINES, CAP = (1, 1, 10**9) if FULL else (3, 5, 6)
RECORD = {"entries": 3, "head": "0" * 64}
CELL = re.compile(r"would be accepted:(.*?)</td>", re.S)


def typo(line: str) -> str:
    head, _, last = line.rpartition(" ")
    return f"{head} {last[:-1]}" if head and len(last) > 3 else line + "x"


def refusals(kind: str) -> list[tuple[str, str, str]]:
    """(player, line sent, HTML part) of the refusals that list what would be accepted."""
    eng = registry.get(kind)
    found, seen, players = states(kind)
    g0 = loaded(kind, players)
    out: list[tuple[str, str, str]] = []
    for st in found[::STATES]:
        g = dataclasses.replace(g0, state=st)
        for p in players:
            if not any(r.player == p for r in eng.requests(st)):
                continue
            for line in seen[::LINES]:
                if len(out) >= CAP:
                    return out
                d = send(g, p, [typo(line)])
                mail = next((e for e in d.effects if isinstance(e, Mail) and e.kind == "ack"), None)
                if mail is None or not any(r.get("legal") and not r["ok"] for r in mail.context.get("lines", [])):
                    continue
                shown = render_mail("ack", {**mail.context, "moderator": "pbem moderator", "record": RECORD})
                out.append((p, typo(line), shown.html))
    return out


def _as_written_before(page: str) -> str:
    """The HTML part as pbem wrote it before walk7: the orders of each list one after another, a space after each."""

    def spaced(m: re.Match[str]) -> str:
        return "would be accepted: " + "".join(f"<code>{c}</code> " for c in re.findall(r"<code>([^<>]*)</code>", m[1]))

    return re.sub(r"would be accepted:((?:<br><code>[^<>]*</code>)+)", spaced, page)


@pytest.mark.parametrize("kind", registry.available())
def test_each_order_a_refusal_offers_is_on_a_line_of_its_own_in_html(kind: str) -> None:
    found = refusals(kind)
    assert found, kind
    for p, line, page in found:
        for cell in CELL.findall(page):
            listed = re.findall(r"(<br>)?<code>[^<>]*</code>", cell)
            assert listed and all(listed), (kind, p, line, cell)  # each order after a line break
        assert html_block(_as_written_before(page)) == html_block(page), (kind, p, line)  # verify reads both alike
