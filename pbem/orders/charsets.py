"""The charsets a mail's text is read in (pure): one whose decoding costs the square of the text is read as UTF-8.

Both readings of a player's mail use it: the poll's (`pbem.mail.inbound`: a body, an encoded word of a header) and
`pbem verify`'s (`pbem.trust`: a mailbox's text parts), which the layers keep apart (the trust layer may not import
the mail parser); both read a mail's body for its orders, so the rule lives here, beside that reading, once.
"""

from __future__ import annotations

import codecs

#: Codecs no mail client labels a text with whose decoding costs the square of the text: the standard library's
#: punycode decoder inserts each character into a list, so a 240 KB body labelled `charset=punycode` took 3.8 s of
#: the poll (costs19; of the 120 codecs Python has, it alone grew faster than its input on the shapes tried).  The
#: poll refuses a body so labelled with that reason (`pbem.mail.inbound.message._decode`) and keeps an encoded word
#: so labelled as written (a 96 KB Subject of one took 1.35 s, 15 times the fourth of it); `pbem verify` reads
#: such a text as UTF-8 with replacement (`pbem.trust.addresses.content_text`).
SLOW_CODECS = frozenset({"punycode"})


def decodable(charset: str) -> str:
    """`charset`, or "utf-8" when its codec is one of `SLOW_CODECS` (an unknown one is left to fail as before)."""
    try:
        return "utf-8" if codecs.lookup(charset).name in SLOW_CODECS else charset
    except (LookupError, ValueError, TypeError):
        return charset
