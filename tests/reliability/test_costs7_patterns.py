"""Every pattern over a run of its own opening, and verify's readers of an HTML part's marks, cost linear time (costs7).

`test_pattern_costs` runs every pattern over runs of common characters; a pattern that opens with a literal and
then reads lazily to a closing mark (`<li>(.*?)</li>`, `were applied:</p>...(.*?)</ul>`) or to a bracket
(`\\[pbem\\s+[^\\]]*\\]`) is only slow on a run of its own opening left unclosed: each opening is read again to the
end, the square of the text.  Here each pattern that opens with two literal characters or more is searched over its
opening repeated (alone, and a line each), at `N` characters and four times that.  On 21a928b it found seven
patterns square (11 runs): the subject's game tag (a player's subject of "[pbem " repeated), and six of
`pbem verify --mail`'s readers of a mail's HTML part (the held orders' list and its items, the "What happened" list
and its items, a list's items in a section): a forged HTML part of 288 KB held verify 9 s on one of them.  They
read with `pbem.trust.quote.between` now, which stops at the first opening left unclosed.
"""

from __future__ import annotations

import functools
import re

from tests.growth import growth
from tests.reliability.test_pattern_costs import FLOOR, MAX_GROWTH, _search, confirmed, patterns, run_of

try:  # Python 3.11+
    from re import _parser as sre_parse  # type: ignore[attr-defined]
    from re._constants import AT, LITERAL  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    import sre_parse  # type: ignore[no-redef]
    from sre_constants import AT, LITERAL  # type: ignore[no-redef]

N = 4_000


def opening(p: re.Pattern) -> str:  # type: ignore[type-arg]
    """The literal characters a pattern starts with (after anchors): "" if fewer than two."""
    source = p.pattern if isinstance(p.pattern, str) else p.pattern.decode("latin-1")
    out: list[str] = []
    for op, av in sre_parse.parse(source, p.flags & ~re.ASCII if isinstance(p.pattern, str) else p.flags):
        if op is LITERAL:
            out.append(chr(av))
        elif not (op is AT and not out):
            break
    return "".join(out) if len(out) >= 2 else ""


def test_every_pattern_is_linear_over_its_own_opening_repeated() -> None:
    slow, tried = [], 0
    for name, p in patterns():
        lit = opening(p)
        for run in (lit, lit + "\n") if lit else ():
            tried += 1
            t1 = _search(p, run * (N // len(run)))
            if t1 < FLOOR:
                continue
            t1 = min(t1, _search(p, run * (N // len(run))))
            t4 = _search(p, run * (4 * N // len(run)))
            if t4 / t1 > MAX_GROWTH:
                t4 = min(t4, _search(p, run * (4 * N // len(run))))
            if t4 / t1 > MAX_GROWTH and confirmed(functools.partial(_search, p), run_of("", run)):
                slow.append(f"{name} over {run!r} x {N // len(run)}: {t1:.4f} s, at 4x {t4:.4f} s")
    assert tried > 100, tried
    assert slow == [], "\n".join(slow)


def test_verify_reads_a_forged_html_part_of_unclosed_marks_in_linear_time() -> None:
    from pbem.trust import acked, prose, told

    def page(n: int) -> str:
        return (
            '<p>x</p>were applied:</p>\n<ul class="legal">' * n
            + "<li><code>" * n
            + "<section><h2>What happened since your last report</h2><ul>" * n
            + "<li>" * n
        )

    def read(text: str) -> None:
        acked._html_differs(text, ["PASS"])
        told.html_listed(text)
        prose.html_lines(text, None)

    g = growth(lambda n: functools.partial(read, page(n)), 400, bound=MAX_GROWTH, floor=FLOOR)
    assert g.ratio <= MAX_GROWTH, str(g)
