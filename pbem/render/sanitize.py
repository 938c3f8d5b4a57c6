"""Text from outside (press, salts, names, server errors) made safe for a terminal or a text export (issue 26).

`visible` replaces every control character (C0 and C1, DEL, the Unicode line
and paragraph separators, and the bidirectional overrides and isolates that
reorder a line as it is shown) by
a visible escape such as ``\\x1b`` or ``\\u202e``; newlines and tabs are kept
where `keep_lines` says so.  An escape sequence in a player's press can then
neither recolour nor rewrite the moderator's terminal, nor hide text in an
export read with `cat`.  Applied to every value a template renders
(`pbem.render.templates`), every log line (`pbem.home.logs`), the text
export (`pbem.history.text`) and `pbem outbox list`.
"""

from __future__ import annotations

import re
import unicodedata

_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
#: The characters `visible` looks for first: category Cc (U+0000-U+001F, U+007F-U+009F) but newline and tab, Zl
#: and Zp (U+2028, U+2029) and the bidirectional controls.  One search of the whole text, in C, instead of a
#: category look-up per character (templates pass every value they print through here).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029" + "".join(sorted(_BIDI)) + "]")


def _escape(ch: str) -> str:
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def visible(text: str, keep_lines: bool = False) -> str:
    """`text` with every control character shown as an escape (newline and tab kept with `keep_lines`)."""
    if text.isascii() and text.isprintable():
        return text
    if _CONTROL.search(text) is None:
        return text  # the common case (accents, CJK, newlines): no copy
    if keep_lines:
        text = text.replace("\r\n", "\n")  # a line end as mail writes it is a line end, not a control
    out = []
    for ch in text:
        if keep_lines and ch in "\n\t":
            out.append(ch)
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            out.append(_escape(ch))
        else:
            out.append(ch)
    return "".join(out)
