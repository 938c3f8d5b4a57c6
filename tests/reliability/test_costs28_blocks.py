"""An acknowledgement's HTML blocks are read in time linear in the page (costs28).

`acked._PARAGRAPH` and `joined._BLOCK` (`<p...>(.{0,100000}?)</p>`, searched) read from every opening tag to its
closing one: a page of a run of `<p>` cost the square of the run, 0.05 s at 2,000 tags and 0.81 s at 8,000 (16x), and
`pbem verify --mail` reads an acknowledgement's HTML from a folder the moderator mails into, up to 32 MiB a mail.
Found by the static pattern check's rule for a run the pattern's own lead can repeat inside
(tests/reliability/pattern_uses.py).  `pbem.trust.spans` reads the same blocks (the old patterns' `finditer` and
`sub`, compared here on random pages) in linear time.
"""

from __future__ import annotations

import functools
import random
import re

from pbem.trust import acked, joined, spans
from tests.growth import growth
from tests.sizes import size

OLD_BLOCK = re.compile(r"<p(?: class=\"[a-z]{1,20}\")?>(.{0,100000}?)</p>|<ul>(.{0,200000}?)</ul>", re.S)
ATOMS = ["<p>", "</p>", "<ul>", "</ul>", '<p class="note">', "a", " ", "<", "p>", "\n", "<p", '<p class="">', "</u"]
MAX_GROWTH = 9.0


def test_the_blocks_are_the_old_patterns_matches() -> None:
    rng = random.Random(28)
    small = (
        spans.Kind(re.compile(r'<p(?: class="[a-z]{1,20}")?>'), "</p>", 12),
        spans.Kind(re.compile(r"<ul>"), "</ul>", 20),
    )
    old_small = re.compile(r"<p(?: class=\"[a-z]{1,20}\")?>(.{0,12}?)</p>|<ul>(.{0,20}?)</ul>", re.S)
    for old, kinds in ((OLD_BLOCK, joined._BLOCK), (old_small, small)):
        for _ in range(size(100_000, 1_500)):
            page = "".join(rng.choice(ATOMS) for _ in range(rng.randint(0, 24)))
            found = [(b.start, b.end, b.kind, b.inside) for b in spans.blocks(page, kinds)]
            expected = [
                (m.start(), m.end(), 0 if m[1] is not None else 1, m[1] if m[1] is not None else m[2])
                for m in old.finditer(page)
            ]
            assert found == expected, page
            assert spans.without(page, kinds) == old.sub("", page), page
    assert [b.inside for b in spans.blocks("<p>a</p><p>b", acked._PARAGRAPH)] == ["a"]


def test_a_run_of_opening_tags_costs_time_linear_in_it() -> None:
    for name, read in (
        ("acked.unparagraphed", acked.unparagraphed),
        ("joined.read_html", functools.partial(joined.read_html, sender="Test Moderator")),
    ):
        for lead in ("<p>", '<p class="note">', "<ul>"):
            g = growth(lambda k, lead=lead, read=read: functools.partial(read, lead * k), 2_000, bound=MAX_GROWTH)
            assert g.ratio <= MAX_GROWTH, f"{name} of {lead!r} x 2,000 and x 8,000: {g}"
