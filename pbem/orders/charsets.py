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


#: A text's bytes are read as the web reads them (WHATWG Encoding): one labelled ISO-8859-1 or ASCII is
#: Windows-1252, the superset Windows clients and webmails write under those labels.  Read as labelled, the en dash,
#: curly quotes and ellipsis of such a mail (bytes 0x80-0x9F) became C1 control characters: `NO EVENT \u2013 thanks`
#: was refused as `"NO EVENT \x96"`, and `Alice\u2019s` quoted back as `Alice\x92s` (explore35).
def text_of(payload: bytes, charset: str | None) -> str:
    """The text of a body part's bytes `payload` labelled `charset` (None: no label), as its writer meant it.

    Bytes that are all ASCII read alike under every label a mail client writes.  A label that names no codec
    (`x-unknown`, `unknown-8bit`), no label at all, an ASCII one (8-bit bytes under it are a mislabel) or an
    ISO-8859-1 one is read as UTF-8 when the bytes are UTF-8 (no Latin-1 text is), else as Windows-1252.  Before, they were
    read as UTF-8 or as labelled with replacement, and "Zo\u00eb" written in Latin-1 came back as "Zo\ufffd".
    A slow codec's label (`SLOW_CODECS`) is read as an unknown one.  Raises what the codec raises (`LookupError`
    never)."""
    try:
        name = codecs.lookup(charset).name if charset else ""
    except (LookupError, ValueError, TypeError):
        name = ""
    if name in SLOW_CODECS:
        name = ""
    if name not in ("", "ascii", "iso8859-1") or payload.isascii():
        return payload.decode(name or "utf-8", "replace")
    try:
        return payload.decode("utf-8")  # (as a header's raw 8-bit bytes are read: `message._eight_bit`)
    except UnicodeDecodeError:
        return payload.decode("cp1252", "replace")


def as_utf8(payload: bytes, charset: str | None) -> str | None:
    """The text `text_of` reads of `payload` when it reads it as UTF-8 under a label that says otherwise (none,
    unknown, ASCII, Latin-1), else None: the redaction of codes reads a part as the poll does (a code in full-width
    letters, UTF-8 under `charset=iso-8859-1`, is read by the poll and must be found to be taken out)."""
    try:
        name = codecs.lookup(charset).name if charset else ""
    except (LookupError, ValueError, TypeError):
        name = ""
    if name not in ("", "ascii", "iso8859-1") or payload.isascii():
        return None
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return None


def meant(raw: bytes, charset: str) -> tuple[bytes, str]:
    """An encoded word's bytes and charset as `text_of` reads them: a label that may not fit its bytes (unknown, ASCII,
    Latin-1) gives the text as UTF-8, any other is kept.  `=?x-unknown?B?...?=` kept a whole Subject as written (its
    game tag unread: the mail was told it names no game) and `=?iso-8859-1?Q?...=96...?=` read a C1 control."""
    try:
        name = codecs.lookup(charset).name
    except (LookupError, ValueError, TypeError):
        name = ""
    if name in ("", "ascii", "iso8859-1") and not (name and raw.isascii()):
        return text_of(raw, charset).encode("utf-8"), "utf-8"
    return raw, charset


def decodable(charset: str) -> str:
    """`charset`, or "utf-8" when its codec is one of `SLOW_CODECS` (an unknown one is left to fail as before)."""
    try:
        return "utf-8" if codecs.lookup(charset).name in SLOW_CODECS else charset
    except (LookupError, ValueError, TypeError):
        return charset
