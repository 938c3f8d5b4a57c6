"""Replies still misread or silently dropped (replies13): HTML quotes whose lines are built from several inline pieces.

A client that quotes pbem's report in an HTML-only reply often re-serialises it: a line's words in `<span>`s (Outlook,
Word), a `<font>` round its first words, a link or a bold word inside it, `&nbsp;` between pieces.  `html_to_text`
marked each piece of text inside a `<blockquote>` with its own "> ", so such a line was flattened "> NO > EVENT":
pbem's copy was no longer its words, and a line the player set in bold in the quote read "> *NO > EVENT*".  Each
shape is quoted by Gmail, Apple Mail and iOS (`tests.test_replies12_players`), with an order typed above the quote,
with none (nothing read, nothing told), and with the player's chosen line set in bold inside the quote.

On 8eab23c, 105 of the 360 cases of the whole generator (`cases(moment, every=True)`) failed: every one a line set in
bold inside the quote (of 120), 61 dropped with nothing told ("> *NO > EVENT*" matched no order and was pbem's line),
44 refused (">" read as a card).  An order typed above such a quote, and none: none failed (sound); the suite runs
all the bold cases and one split a client of the others (21 cases a moment).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest

from pbem.mail.inbound.message import html_to_text
from tests.test_replies3_players import KINDS, Moment, shared_moments
from tests.test_replies7_clients import _esc, _html_mail
from tests.test_replies10_players import QUIET, misread_or_untold
from tests.test_replies11_players import NONE
from tests.test_replies12_players import apple, gmail, ios, listed, report


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def _halves(words: list[str]) -> tuple[str, str]:
    cut = max(1, len(words) // 2)
    return " ".join(words[:cut]), " ".join(words[cut:])


#: How a client re-serialises a line's (escaped) words into inline pieces.
SPLIT: dict[str, Callable[[list[str]], str]] = {
    "spans": lambda ws: " ".join(f'<span style="font-size:11pt">{w}</span>' for w in ws),
    "spans-nbsp": lambda ws: "&nbsp;".join(f"<span>{w}</span>" for w in ws),
    "font-head": lambda ws: '<font face="Arial">{}</font> {}'.format(*_halves(ws)),
    "bold-tail": lambda ws: "{} <b>{}</b>".format(*_halves(ws)),
    "link-mid": lambda ws: '{} <a href="https://example.org/">{}</a>'.format(*_halves(ws)),
}

QUOTING: dict[str, Callable[[Moment, list[str], str], str]] = {"gmail": gmail, "apple": apple, "ios": ios}

_LINE = re.compile(r"<(li|p)>([^<]+)</\1>")


def split_lines(rep: str, how: Callable[[list[str]], str], marked: str = "") -> str:
    """The report's HTML with each plain <li> and <p> line's words split into inline pieces; the <li> listing `marked`
    (escaped) set in bold by the player, around its pieces."""

    def piece(m: re.Match[str]) -> str:
        tag, text = m.group(1), m.group(2)
        words = text.split()
        if len(words) < 2:
            return m.group(0)
        inner = how(words)
        if tag == "li" and text == marked:
            inner = f"<b>{inner}</b>"
        return f"<{tag}>{inner}</{tag}>"

    return _LINE.sub(piece, rep)


def cases(moment: Moment, every: bool = False) -> list[tuple[str, bytes, list[str] | None]]:
    """(label, the reply, the orders meant): each quoting client with each way of splitting lines, the chosen line
    set in bold in the quote; an order above the quote and none, for each split (`every`) or one turning per client
    (none of those failed on 8eab23c: the suite's share)."""
    legal, choices = moment.legal, listed(moment)
    multi = [o for o in choices if " " in o] or choices
    out: list[tuple[str, bytes, list[str] | None]] = []
    for c, (client, quote) in enumerate(QUOTING.items()):
        for k, (how, split) in enumerate(SPLIT.items()):
            o = multi[(c * 3 + k) % len(multi)]
            rep = split_lines(report(moment, False), split, html.escape(o, quote=False))
            body = quote(moment, ["Meine Wahl ist unten markiert."], rep)
            out.append((f"{client}/{how}/bold-in-quote", _html_mail(moment, body), [o]))
            if not every and k != (c * 2 + len(legal)) % len(SPLIT):
                continue
            rep = split_lines(report(moment, (c + k) % 2 == 1), split)
            o = legal[(c * 5 + k * 3) % len(legal)]
            out.append(
                (f"{client}/{how}/above", _html_mail(moment, quote(moment, ["Hi,", _esc(o), "Thanks"], rep)), [o])
            )
            out.append((f"{client}/{how}/none", _html_mail(moment, quote(moment, ["Hi,", _esc(NONE)], rep)), QUIET))
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_each_reply_of_the_replies13_corpus_is_read_as_the_player_meant(moments: dict[str, Moment], kind: str) -> None:
    failures = misread_or_untold(moments[kind], cases(moments[kind]))
    assert not failures, f"{len(failures)} misread:\n" + "\n".join(failures)


SHAPES = {
    "<blockquote><div>NO <b>EVENT</b></div></blockquote>": "> NO EVENT",
    "<blockquote><div><span>NO</span> <span>EVENT</span></div></blockquote>": "> NO EVENT",
    "<blockquote><div><font>NO</font> EVENT</div></blockquote>": "> NO EVENT",
    "<blockquote><div>see <a href=x>here</a> now</div></blockquote>": "> see here now",
    "<blockquote><div><b><span>NO</span> <span>EVENT</span></b></div></blockquote>": "> *NO EVENT*",
    "<blockquote><div> <b>NO EVENT</b></div></blockquote>": ">  *NO EVENT*",  # its space as written
    "<blockquote>a <i>b</i><br><i>c</i> d<blockquote>e <i>f</i></blockquote>g</blockquote>": "> a b\n> c d\n> > e f\n> g",
    "<blockquote><pre>one <b>two</b>\nthree <i>four</i></pre></blockquote>": "> one two\n> three four",
}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_quoted_line_has_one_mark_at_its_start_whatever_pieces_build_it(shape: str) -> None:
    assert html_to_text(shape) == SHAPES[shape]
