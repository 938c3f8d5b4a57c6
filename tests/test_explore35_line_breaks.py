"""Every line break a mail's text may hold ends a line (explore35).

Word and Outlook write a line typed with Shift+Enter as a vertical tab, a page break pasted with the text is a form
feed, and NEL (U+0085), the file, group and record separators end lines for `str.splitlines` too.  Only CR, LF, CRLF,
U+2028 and U+2029 ended a line: `NO EVENT<VT>thanks<FF>Alice` was refused as one order line with words after it,
and a `-- ` signature or `HELP` after such a break was read as part of the line above.  The generator writes each
body with each break and asks `extract` to read it as it reads the same body with LF.
"""

from __future__ import annotations

from itertools import product

from pbem.orders.extract import Extracted, extract

BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\r", "\r\n", "\u2028", "\u2029")
BODIES = (
    "Hi{b}NO EVENT{b}Thanks, Alice",
    "VOTE RED{b}-- {b}Alice{b}PASS",
    "TRIBUTE Gold 7{b}PRESS TO Bob: shall we?{b}Cheers",
    "HELP{b}Alice",
    "NO EVENT{b}{b}On Mon, 7 Dec 2026, Bob wrote:{b}> PASS",
    "CODE K7QX-2MPD{b}PASS{b}END{b}VOTE RED",
    "JOIN{b}SALT my phrase{b}Sent from my iPhone",
    "DISCARD Ditch{b}DISCARD Hedges",
)


def _read(ex: Extracted) -> tuple[object, ...]:
    return (ex.orders, ex.chatter, ex.help, ex.code, [(p.to, p.body) for p in ex.press], ex.problems)


def test_every_line_break_ends_a_line() -> None:
    """80 cases (8 bodies, 10 breaks): 48 were read otherwise than with LF on the base commit; 0 now."""
    cases = list(product(BODIES, BREAKS))
    wrong = [
        (body, brk) for body, brk in cases if _read(extract(body.format(b=brk))) != _read(extract(body.format(b="\n")))
    ]
    assert not wrong, f"{len(wrong)} of {len(cases)} read otherwise than with LF, e.g. {wrong[0]!r}"
