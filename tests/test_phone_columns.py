"""What a player reads on a phone held upright: about 40 columns of the text part.

A table of a report (its players, its hand, its countries...) is written aligned in columns only when every
line of it fits 40 columns; a wider one is written a block per row (`pbem.render.tables.text_table`), so that
no row wraps into a ragged pile.  Checked on every mail of every seeded game, all four kinds: every line of a
section that the HTML part shows as a table is at most 40 columns wide, but a single word longer than that
(nothing to cut).  Prose lines are not tables: a mail client wraps them between words, as it wraps any text.
"""

from __future__ import annotations

import re

import pytest

from pbem import engine as registry
from pbem.render.templates import NARROW

KINDS = registry.available()

#: A section of the HTML part: its <h2> title, then a table (`mail/_sections.html.j2`).
HTML_TABLE = re.compile(r"<section[^>]*>\n<h2>([^<]*?)(?: <small>[^<]*</small>)?</h2>\n<table")
TEXT_SECTION = re.compile(r"^== (.*?)(?: \(private: only you see this\))? ==$")


def table_lines(text: str, html: str) -> list[tuple[str, str]]:
    """(section title, line) of every line of the text part in a section the HTML part shows as a table."""
    tables = {title for title in HTML_TABLE.findall(html)}
    out = []
    current = None
    for line in text.split("\n"):
        head = TEXT_SECTION.match(line)
        if head:
            current = head[1] if head[1] in tables else None
        elif not line.strip():
            current = None
        elif current is not None:
            out.append((current, line))
    return out


def sent_raw(kind: str) -> list[bytes]:
    """Every mail of the seeded game of `kind`, as sent (raw bytes, oldest first)."""
    import mailbox

    from pbem.trust.receipts import delivered
    from tests.test_history_golden import seeded_home

    md = mailbox.Maildir(str(seeded_home(kind) / "mail" / "sent"), factory=None, create=False)
    return [md.get_bytes(k) for k in sorted(md.keys(), key=delivered)]


@pytest.mark.parametrize("kind", KINDS)
def test_every_table_of_every_seeded_mail_fits_a_phone(kind: str) -> None:
    from pbem.mail.outbound.bodies import text_bodies

    seen = 0
    wide: list[str] = []
    for raw in sent_raw(kind):
        found = text_bodies(raw)  # the parts as pbem composed them
        text, html = found.get("plain", ""), found.get("html", "")
        for title, line in table_lines(text, html):
            seen += 1
            if len(line) > NARROW and " " in line.strip():
                wide.append(f"{text.partition(chr(10))[0]} / {title}: {line!r} ({len(line)} columns)")
    assert seen > 50, f"{kind}: only {seen} table lines found: the test reads no tables"
    assert not wide, f"{kind}: {len(wide)} table lines wider than {NARROW} columns, e.g.\n" + "\n".join(wide[:5])


def test_a_wide_tables_rows_swapped_between_players_are_caught_by_verify_mail() -> None:
    """A row block's lines belong to their row: `pbem verify --mail` compares a wide table's rows, each block one
    entry (`pbem.trust.shown.sections`), so a report that gives Alice's gold and hand to Bob and Bob's to Alice
    (the same lines, in another order) is caught, as a swapped cell of an aligned row always was."""
    from pbem.trust.receipts import verify_mail
    from tests.test_fairness3 import _doc, _forged, _mails, _players, _text_of

    doc = _doc("dynasties")
    bob, address = _players(doc)[1]
    raws = _mails("dynasties", address)
    rows = re.compile(r"^  Player: (\w+)\n(    Gold: \d+; Hand: \d+;)$", re.M)

    def swapped(text: str) -> str:
        found = rows.findall(text)
        (a, first), (b, second) = found[0], next(f for f in found[1:] if f[1] != found[0][1])
        text = text.replace(f"  Player: {a}\n{first}\n", f"  Player: {a}\n@@\n", 1)
        text = text.replace(f"  Player: {b}\n{second}\n", f"  Player: {b}\n{first}\n", 1)
        return text.replace("\n@@\n", f"\n{second}\n", 1)

    def differs(raw: bytes) -> bool:
        found = rows.findall(_text_of(raw))
        return len({line for _, line in found}) > 1

    at = next(i for i, raw in enumerate(raws) if "Private report for" in _text_of(raw) and differs(raw))
    assert verify_mail(doc, raws, bob).ok
    forged = _forged(raws, at, swapped)
    assert _text_of(forged[at]) != _text_of(raws[at])
    c = verify_mail(doc, forged, bob)
    assert not c.ok and any("Treasuries and Families" in p for p in c.problems), c.problems
