"""A game tag typed with a Japanese or Chinese input method names its game (explore35).

Such an input method types brackets, letters, digits and spaces full-width unless switched off: a new mail whose
subject was `[pbem hh1] status` typed so was told "the subject does not name a game", though its body's orders are
read in full-width letters.  The generator types each part of the tag full-width or not, with the subject's command
after it, and asks `parse` for the game and `subject_line` for the command.
"""

from __future__ import annotations

import unicodedata
from itertools import product

from pbem.mail.inbound.message import parse
from pbem.orders.extract import subject_line


def _wide(text: str) -> str:
    return "".join("\u3000" if ch == " " else chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)


PARTS = (("[", "\uff3b"), ("pbem",), (" ", "\u3000"), ("hh1",), ("]", "\uff3d"))
AFTER = (" status", " HELP", "\u3000\uff53\uff54\uff41\uff54\uff55\uff53", " NO EVENT")


def test_a_tag_typed_full_width_names_its_game() -> None:
    """The 2 brackets, the space and the 2 words, each full-width or not (32 tags, 31 with a full-width character),
    with 4 subjects after them: 120 of 128 named no game on the base commit; 0 now."""
    tags = set()
    for b1, sp, b2, wide_word, wide_name in product(PARTS[0], PARTS[2], PARTS[4], (0, 1), (0, 1)):
        tags.add(b1 + (_wide("pbem") if wide_word else "pbem") + sp + (_wide("hh1") if wide_name else "hh1") + b2)
    wrong = []
    for tag, after in product(sorted(tags), AFTER):
        raw = f"From: alice@example.org\nSubject: {tag}{after}\nMessage-ID: <t@example.org>\n\nhi\n".encode()
        msg = parse(raw)
        said = unicodedata.normalize("NFKC", subject_line(msg.subject)).lower()  # (the line is read so)
        if msg.game != "hh1" or said != unicodedata.normalize("NFKC", after).strip().lower():
            wrong.append((tag, after, msg.game, said))
    assert not wrong, f"{len(wrong)} of {len(tags) * len(AFTER)} subjects named no game or another, e.g. {wrong[0]}"
