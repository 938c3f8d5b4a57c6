"""Order lines a player quoted themselves at the top level of a reply (pure).

Some players mark their order with a "> " of their own, as if quoting it, on a line apart from any quoted mail:
"Hi," / "> TRIBUTE Gold 4" / "Thanks", above or below the quoted report, or in a reply that quotes nothing.  Every
quoted line was dropped as someone else's text, so the message was answered "no orders found".  Such a line is the
writer's (`typed_quoted`) when all of these hold:

* it is quoted once, or twice ("Hi," / ">> NO EVENT", typed so into Outlook's unquoted original too: neither read
  nor told, the player thought they had ordered) as every line with words of its run is, and is an order or command
  of the game (`keep`), and no part of a copy of pbem's mail (the caller's `drop`,
  `pbem.orders.own_mail.without_copies`; a mail naming none of pbem's, a fresh one with the code, has no copy:
  `mine_quoted`, read as a reply is);
* it is not inside a quoted copy (a copied line above it and one below: a line typed inside the quote is not read
  and is told, `pbem.orders.own_mail.changed_in_quote`);
* it is not a line of a mail pbem sent as laid out there: a quote trimmed down to a line of the report's list
  (">     PLAY Platinum 9", quoted with its indentation) is pbem's, not typed;
* every other line with words in its run of quoted lines is such a line too (a quote of prose is someone's mail),
  and no attribution ("On ... wrote:") stands right above the run (a quote of an earlier mail of the player's, or of
  another player's, is not this message's order).

Linear in the reply and the sent mails' lines.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence

from pbem.orders.extract import Extracted, extract, own_line, subject_line
from pbem.orders.furniture import attribution_at, unquoted


def unquote_typed(
    lines: list[str],
    per_line: list[list[str]],
    drop: list[bool],
    sent: list[str],
    keep: Callable[[str], bool] | None,
    wanted: bool,
) -> None:
    """`lines` with the writer's own orders quoted at the top level (`typed_quoted`) unquoted, read as theirs, when
    `wanted` and some line is taken as an order (`keep`)."""
    if wanted and keep is not None:
        for n in typed_quoted(lines, per_line, drop, sent, keep):
            lines[n] = marked_off(lines[n]) or ""


def read_alone(text: str, subject: str, words: tuple[str, ...] | None, reply: bool) -> Extracted:
    """A mail read where no mail of pbem's it answers is known: its writer's own quoted orders read
    (`mine_quoted`), a label naming a step checked by its own subject when it is a reply (`reply`: it names a mail
    by In-Reply-To or References; "Re: [pbem g1] Turn 4, Alice to play"), by none when it is a fresh mail.  The
    poll reads a mail naming none of pbem's so (`pbem.app.reading`), and so do `pbem verify`'s readers given no
    received mail (`pbem.trust.sent`, `pbem.trust.vouched`): "Turn 3: PASS" answering Turn 5 was read there."""
    return extract(
        mine_quoted(text, own_line(words)), subject, words, answers=lambda: subject_line(subject) if reply else ""
    )


def mine_quoted(text: str, keep: Callable[[str], bool]) -> str:
    """`text`, a mail that names no mail of pbem's (a fresh one, the code in it), with the writer's own orders quoted
    at the top level unquoted (`typed_quoted`, no copy to leave out): "CODE ..." / "> PASS" was dropped unseen as a
    quote, where the same line in a reply is read."""
    if ">" not in text:
        return text
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    worded = [[line] if line.strip(" >\t") else [] for line in lines]
    unquote_typed(lines, worded, [False] * len(lines), [], keep, True)
    return "\n".join(lines)


def marked_off(line: str) -> str | None:
    """A line quoted once or twice (``> NO EVENT``, ``>> NO EVENT``, ``> > NO EVENT``) without its quote marks (one
    space after the last taken off too); None for any other line."""
    once = unquoted(line)
    if once is not None or not line.lstrip().startswith(">"):
        return once
    return unquoted(line.lstrip()[1:])


def depth(line: str) -> int:
    """How many times a line is quoted, up to 3 (3: three or more)."""
    bare = line.lstrip()
    for n in range(3):
        if not bare.startswith(">"):
            return n
        bare = bare[1:].lstrip()
    return 3


def typed_quoted(
    lines: list[str], per_line: list[list[str]], drop: list[bool], sent: list[str], keep: Callable[[str], bool]
) -> list[int]:
    """The indexes of the lines of `lines` that are the writer's own orders quoted at the top level (the module
    docstring).  `per_line`: each line's words; `drop`: whether each is part of a copy; `sent`: the sent texts."""
    copied: list[int] | None = None
    pbems: set[str] | None = None
    out: list[int] = []
    for start, end in _runs(lines):
        worded = [n for n in range(start, end) if per_line[n]]
        if not worded or any(drop[n] for n in worded):
            continue  # most runs: a quoted copy of pbem's mail, its lines dropped
        if len({depth(lines[n]) for n in worded}) > 1 or depth(lines[worded[0]]) > 2:
            continue  # lines quoted once and twice: an older mail quoted in the one answered
        mines = [marked_off(lines[n]) for n in worded]
        if any(m is None or not keep(m) for m in mines):
            continue
        if copied is None:
            copied = [n for n, ws in enumerate(per_line) if ws and drop[n] and lines[n].lstrip().startswith(">")]
        if copied and copied[0] < start and copied[-1] >= end:
            continue  # inside a quoted copy (a copied line above it and one below)
        if _attributed(lines, start):
            continue
        if pbems is None:
            pbems = {line.rstrip() for text in sent for line in text.split("\n") if line.strip()}
        if any(_laid_out(lines[n], pbems) for n in worded):
            continue  # a line of pbem's mail as laid out there: a trimmed quote
        out += worded
    return out


def _runs(lines: list[str]) -> Iterator[tuple[int, int]]:
    """The runs of consecutive quoted lines (start, end); `typed_quoted` leaves out those with lines quoted once and
    twice, or three times (an older mail's), once the cheaper tests have kept them."""
    start = -1
    for n, line in enumerate([*lines, ""]):
        quoted = line.lstrip().startswith(">")
        if quoted and start < 0:
            start = n
        elif not quoted and start >= 0:
            yield start, n
            start = -1


def _attributed(lines: list[str], start: int) -> bool:
    """Whether an attribution (1 to 3 lines) ends on the line with words right above `start` (blank lines between)."""
    above = next((k for k in range(start - 1, max(-1, start - 3), -1) if lines[k].strip()), None)
    if above is None:
        return False
    return any(k >= 0 and attribution_at(lines, k) == above - k + 1 for k in range(above - 2, above + 1))


def _laid_out(line: str, pbems: set[str]) -> bool:
    """Whether a quoted line is one of pbem's as laid out there, quoted by "> " or by a tight ">" (">    PLAY ...")."""
    bare = line.lstrip()
    after = (bare[1:].lstrip() if depth(bare) == 2 else bare)[1:].rstrip()
    return after in pbems or after[1:] in pbems


GAP_WORDS = 10  # words of the reply, and of the sent mail, that a change in a rewrapped quote replaces, at most
GAPS = 64  # places where a copy stops and goes on again looked at per reply, at most
_WORD_AT = re.compile(r"\w+")


def changed_in_rewrapped(
    lines: list[str],
    first: list[int],
    in_copy: bytearray,
    found_at: Sequence[int | set[int] | None],
    sent: list[str],
    keep: Callable[[str], bool],
    gram: int,
    told: list[tuple[str, str]] = (),  # type: ignore[assignment]
) -> list[tuple[str, str]]:
    """The listed orders of pbem's mail the writer changed in a quote its client rewrapped or reflowed (format=flowed:
    "> ... copy one per line): PLAY Platinum 9 PLAY Copper 11 PLAY" / "> Silver 11 ..."), each as (the line as
    changed, quoted; the line pbem wrote), found by words where `pbem.orders.own_mail.changed_in_quote` finds them by
    lines: a copy's words (`in_copy`, the reply's word stream) stop, at most `GAP_WORDS` words on quoted lines not in
    it follow, and the copy goes on right after; the sent mail's words between the two places are part of one line
    of it that is an order (`keep`), and that line with the writer's words in their place is another order.
    `first`: where each line's first word is in the stream; `found_at`: each word's run of `gram` words' places in
    `sent` (`pbem.orders.own_mail._places`); `told`: the changes found by lines already, not found again.  Linear:
    at most `GAPS` gaps, each a few words."""
    copy_starts = in_copy.find(1)
    if copy_starts < 0 or in_copy.find(0, copy_starts) < 0:
        return []  # no word after a copy's first that is not in one: no gap (`_gaps`), most replies
    known = {(_key(line), was) for line, was in told}
    owner = [0] * len(in_copy)  # the line of each word of the stream
    for n in range(len(lines)):
        end = first[n + 1] if n + 1 < len(lines) else len(in_copy)
        owner[first[n] : end] = [n] * (end - first[n])
    texts = _SentWords(sent, gram)
    out: list[tuple[str, str]] = []
    for a, b, piece in _gaps(in_copy, owner, lines):
        if b - a > GAP_WORDS:
            if piece:
                continue  # the writer's own lines under a quote: no change of pbem's
            return []  # many words inside the quote that are not pbem's: a quote of a mail not among `sent`
        before = found_at[a - gram] if a >= gram else None
        after = found_at[b] if b < len(found_at) else None
        change = next(
            (
                was
                for p, q in (_pairs(before, after, gram) if before is not None and after is not None else ())
                if (was := texts.change(p + gram, q, _typed(lines, owner, first, a, b), piece)) is not None
                and keep(was[0])
                and keep(was[1])
                and _key(was[0]) != _key(was[1])
            ),
            None,
        )
        if (
            change is None
            and not piece
            and not _split_word(texts, stream_words(lines, owner, first, a, b), before, after, gram)
        ):
            return []  # words inside the quote that change no listed order: a quote of a mail not among `sent`
        if change is None:
            continue  # a long word the client's wrap split ("16bd...aafba" / "97bff..."): the copy's own
        if (_key(change[1]), change[0]) not in known:
            known.add((_key(change[1]), change[0]))
            out.append(("> " + change[1], change[0]))
    return out


def _gaps(in_copy: bytearray, owner: list[int], lines: list[str]) -> Iterator[tuple[int, int, bool]]:
    """The runs [a, b) of words not in a copy, a copy's word on each side, starting on a quoted line and ending on
    one, or on the unquoted rest of the quoted line above it (a client that quotes a rewrapped line's first piece
    only: "> PLACE-START England 2, United Provinces 1, United" / "Provinces 3"), each with whether it starts or
    ends on such a rest further down (`_piece`: a narrow wrap, 30 to 40 columns, leaves a listed line's change all
    on its unquoted pieces, "> EVENT CLAIM Emperor TARGET" / "Carol"; such a gap is a change only inside one line)."""
    found = 0
    a = in_copy.find(0)
    while a >= 0 and found < GAPS:
        b = in_copy.find(1, a)
        if b < 0:
            return
        start, last = owner[a], owner[b - 1]
        quoted = _quoted(lines[start]) and (_quoted(lines[last]) or (last > start and _quoted(lines[last - 1])))
        if a > 0 and (quoted or (_piece(lines, start) and _piece(lines, last))):
            found += 1
            yield a, b, not quoted
        a = in_copy.find(0, b)


PIECES = 3  # unquoted lines under a quoted one read as the rest of its line (a narrow wrap's pieces), at most


def _piece(lines: list[str], n: int) -> bool:
    """Whether line `n` is quoted, or one of the `PIECES` unquoted lines of words right under a quoted line."""
    for k in range(n, max(-1, n - PIECES - 1), -1):
        if _quoted(lines[k]):
            return True
        if not lines[k].strip():
            return False
    return False


def _quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def stream_words(lines: list[str], owner: list[int], first: list[int], a: int, b: int) -> list[str]:
    """Words a .. b-1 of the reply's stream, case-folded."""
    out: list[str] = []
    for n in sorted({owner[k] for k in range(a, b)}):
        words = _WORD_AT.findall(lines[n].casefold())
        if n + 1 < len(first) and len(words) != first[n + 1] - first[n]:
            return []
        out += words[max(a, first[n]) - first[n] : min(b, first[n] + len(words)) - first[n]]
    return out


def _split_word(
    texts: _SentWords, words: list[str], before: int | set[int] | None, after: int | set[int] | None, gram: int
) -> bool:
    """Whether the reply's `words` are the sent mail's words between the two runs around them, one of them split
    by a line break (the same letters, fewer breaks)."""
    if before is None or after is None or len(words) > GAP_WORDS:
        return False
    return any("".join(texts.words(p + gram, q)) == "".join(words) for p, q in _pairs(before, after, gram))


def _pairs(before: int | set[int], after: int | set[int], gram: int) -> Iterator[tuple[int, int]]:
    """(p, q): the run ending right before the gap starts at p, the run right after it at q, with at most
    `GAP_WORDS` words of the sent mail between (p + gram - 1 is the last word before, q the first after)."""
    ps = sorted({before} if isinstance(before, int) else before)
    qs = sorted({after} if isinstance(after, int) else after)
    for p in ps[:8]:
        for q in qs[:8]:
            if 0 <= q - (p + gram) <= GAP_WORDS:
                yield p, q


def _typed(lines: list[str], owner: list[int], first: list[int], a: int, b: int) -> str:
    """The writer's text of words a .. b-1 of the stream, as typed (the punctuation between them kept), over the
    lines it was wrapped on joined again (after a hyphen the wrap broke at, with no space)."""
    rows = sorted({owner[k] for k in range(a, b)})
    out = ""
    for n in rows:
        spans = list(_WORD_AT.finditer(lines[n]))
        if n + 1 < len(first) and len(spans) != first[n + 1] - first[n]:
            return ""  # a line read with other words (a code read as the copy's): not laid out as the stream
        lo, hi = max(a, first[n]) - first[n], min(b, first[n] + len(spans)) - first[n]
        if not 0 <= lo < hi <= len(spans):
            return ""
        start = spans[lo].start() if n == rows[0] else len(lines[n]) - len(lines[n].lstrip(" >"))
        piece = lines[n][start : spans[hi - 1].end() if n == rows[-1] else len(lines[n])].strip()
        out = f"{out}{piece}" if out.endswith("-") or not out else f"{out} {piece}"
    return out


class _SentWords:
    """Where each place of the sent mails' word stream is: its text, line and the line's words' spans."""

    def __init__(self, sent: list[str], gram: int) -> None:
        self.sent, self.gram, self._starts = sent, gram, list[int]()
        self.lines: dict[int, list[tuple[str, int]]] = {}
        self.words_of: dict[int, list[str]] = {}

    @property
    def starts(self) -> list[int]:
        """Where each sent text's words start in the stream, as `_places` counts (no run spans two mails); worked
        out when a gap first asks (most gaps end a copy with nothing to look up)."""
        if not self._starts and self.sent:
            offset = 0
            for t in self.sent:
                self._starts.append(offset)
                offset += len(_WORD_AT.findall(t.casefold())) + self.gram
        return self._starts

    def _at(self, t: int) -> list[tuple[str, int]]:
        """Text `t`'s lines, each with the place of its first word."""
        if t not in self.lines:
            rows, k = [], self.starts[t]
            for line in self.sent[t].split("\n"):
                rows.append((line, k))
                k += len(_WORD_AT.findall(line.casefold()))
            self.lines[t] = rows
        return self.lines[t]

    def words(self, start: int, end: int) -> list[str]:
        """The sent mails' words at places start .. end-1 (case-folded), [] across two mails."""
        t = max((k for k, s in enumerate(self.starts) if s <= start), default=-1)
        if t < 0:
            return []
        if t not in self.words_of:
            self.words_of[t] = _WORD_AT.findall(self.sent[t].casefold())
        return self.words_of[t][start - self.starts[t] : end - self.starts[t]]

    def change(self, start: int, end: int, typed: str, inside: bool = False) -> tuple[str, str] | None:
        """(the sent line holding places start .. end-1, it with those words replaced by `typed`), or None when they
        are not all on one line (or `typed` is empty), or, `inside`, start that line (a line the writer typed under a
        quoted one in place of the next, no change of it)."""
        if not typed or end <= start:
            return None
        t = max((k for k, s in enumerate(self.starts) if s <= start), default=-1)
        if t < 0:
            return None
        rows = self._at(t)
        at = bisect_right(rows, start, key=lambda row: row[1]) - 1  # the last line starting at or before `start`
        while at > 0 and rows[at - 1][1] == rows[at][1]:
            at -= 1  # lines without words start where the next one does
        while 0 <= at < len(rows) and rows[at][1] <= start:
            line, k = rows[at]
            spans = list(_WORD_AT.finditer(line))
            if start < k + len(spans):
                if end > k + len(spans) or (inside and start == k):
                    return None  # the words replaced run over two lines, or are a whole line's start
                lo, hi = spans[start - k].start(), spans[end - 1 - k].end()
                return line.strip(), f"{line[:lo]}{typed}{line[hi:]}".strip()
            at += 1
        return None


def _key(line: str) -> str:
    """A line's words as compared: its quote mark, case and spacing aside."""
    return " ".join(_WORD_AT.findall(line.lstrip(" >").casefold()))
