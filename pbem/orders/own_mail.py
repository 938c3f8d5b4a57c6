"""Removing copies of pbem's own mail from a reply (pure), before its orders are read.

pbem knows the text of the mails a reply names (`pbem.app.reading`): a copy of one inside the reply,
quoted or not, reflowed, flattened from HTML, under any client's header block in any language, is
never read as orders (the Outlook Polish and Japanese replies that re-applied an acknowledgement's
"orders now on file").  A copy is found by its words, not its layout: both texts become streams of
words (case, punctuation, quote marks and line breaks ignored).  Every run of `GRAM` words of the reply
that also occurs in a sent mail is matched to its places there; a chain of such runs at consecutive places
(the reply's words following each other exactly as in the sent mail) covering at least `RUN` words is a
copy.  Order lines copied one by one out of a report's list, even of a repetitive one, are short chains,
not a copy; a single order copied out of a report is kept.  Every line whose words all lie in a copy is dropped (a
quoted one leaves its quote mark, ">": the quote is still seen where it was), and with it the client's block just
above it (`_drop_header_block`): an attribution (``... wrote:``) or a block of ``Label: value`` lines (From/Od/差出人
...).  A line the reader takes as the writer's own order or command (`keep`) is never part of that block, nor is a
lone ``Label: value`` line that does not end with a colon: a player's "PRESS TO ALL: ..." or a moderator's "UNDO TO
17: misread order" right above the quoted mail is read (refused with its reason if it cannot be), never dropped
unseen as the client's furniture.
An answer typed into the copy itself (Outlook's inline reply, the original unquoted below the client's block) is
the writer's: the rule or "-----Original Message-----" marker above a dropped block goes with it (else it would
end the writer's text there, `pbem.orders.furniture`), a line typed right under its own line of the copy
(`_repeated`) is kept, and so is a block the writer's lines stand between (`_drop_block_above_answer`), and so is a
line of the copy quoted once that the writer marked as their choice (``> NO EVENT <--``, ``> ✓ PASS``:
`pbem.orders.typed.chosen`), whose words are all the copy's, and so is a line of a copy starred whole
(``*NO EVENT*``, ``> *NO EVENT*``: bold as a plain-text client shows it) that pbem did not set in bold itself
(`_keep_starred`), and so is a quoted line the writer changed into an order (``> PLAY <card>`` edited into
``> PLAY Gold 7``: `_edited_in_quote`; a quoted line pbem wrote, unchanged, never is; a quoted listed order
changed into another, or an order typed inside the quote as a line of its own, `changed_in_quote`, is not read,
and is told), and so is an order the writer quoted themselves on a line of its own at the top level, apart from
any quote ("Hi," / "> TRIBUTE Gold 4": `pbem.orders.own_quotes`).  The unquoted rest of a quoted line that a client
rewrapped without quoting it is the copy's, not an answer typed into the quote (`_cut_from_above`).
Cost: linear in both texts: a run looked up only where a chain may start (found by a search of the sent words in C,
at most `FINDS` a reply, then by an index of their places built once) and the chain followed word by word
(`_SentIndex`); at most `PLACES` places a word and `WORK` look-ups a word of the reply, else every run of the sent
mails is joined and looked up (`_places`, at most `PLACES` places remembered per run).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from html import unescape
from itertools import compress, count, islice
from operator import ne
from typing import overload

from pbem.orders.furniture import MARKER, QUOTE_RUN, header_block_at, unquoted
from pbem.orders.openers import labelled_by_other
from pbem.orders.own_quotes import changed_in_rewrapped, depth, marked_off, unquote_typed
from pbem.orders.typed import CODE_PATTERN, chosen, cleaned, may_be_marked_lines, points_up

GRAM = 6  # words in one matched run
RUN = 30  # words in a row, following each other as in a sent mail, that make a copy
PLACES = 512  # places of one word run in the sent mails remembered (repetitive lists), at most
WORK = 2  # look-ups a word of the reply, a place tried counted as one more, while `_SentIndex` finds the chains
FINDS = 64  # runs a reply looks up by searching the sent words (`_SentIndex.places_of`), at most
HEADER_LINES = 10  # "Label: value" lines above a copy dropped with it, at most
ABOVE = 12  # lines with words between a copy and a client's header block above it (an answer typed there), at most
_WORD = re.compile(r"\w+")
_LABEL = re.compile(r"^\s*+[>|]*+\s*+\**+[^\s:：][^:：]{0,30}\**\s*[:：]")


#: ASCII bytes -> the same byte for a word character (letters, digits, "_"), a space for any other.
_ASCII_WORDS = bytes(c if chr(c).isalnum() or c == 95 else 32 for c in range(128)) + bytes(range(128, 256))
_ASCII = bytes(range(128))
PARTING = 8  # distinct non-ASCII characters that part words replaced one by one (in C), at most; more: one translate


def _words(line: str) -> list[str]:
    """The words (runs of `\\w`) of `line`, case-folded, split by a byte table (a fifth of the regex's cost).

    A text with other characters (a report's HTML words hold its curly quotes) first has each non-ASCII character
    that is no word character made a space: they are found by deleting the ASCII bytes of its UTF-8 (in C; a lone
    surrogate passes through), and `str.isalnum` reads the Unicode classes the regex's `\\w` does.  The table then
    keeps the other non-ASCII bytes whole, and every piece left between spaces is one word.  Word by word, as this
    read such a text before, cost two and a half times as much.  Linear: a `str.replace` a character for at most
    `PARTING` of them, else one `str.translate`."""
    line = line.casefold()
    if line.isascii():
        return line.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
    others = set(line.encode("utf-8", "surrogatepass").translate(None, _ASCII).decode("utf-8", "surrogatepass"))
    parting = [c for c in others if not c.isalnum()]
    if len(parting) > PARTING:
        line = line.translate(dict.fromkeys(map(ord, parting), " "))
    else:
        for c in parting:
            line = line.replace(c, " ")
    return line.encode("utf-8", "surrogatepass").translate(_ASCII_WORDS).decode("utf-8", "surrogatepass").split()


#: `_ASCII_WORDS` with the line break kept: the lines of an ASCII text split after one pass over it.
_ASCII_LINES = _ASCII_WORDS[:10] + b"\n" + _ASCII_WORDS[11:]


def _each_lines_words(lines: list[str]) -> list[list[str]]:
    """`_words` of each of `lines` (none holding a line break).  An ASCII reply (most) is case-folded and its table
    pass made once for all its lines, not once a line."""
    whole = "\n".join(lines).casefold()
    if not lines or not whole.isascii():
        return [_words(line) for line in lines]
    return [line.split() for line in whole.encode("ascii").translate(_ASCII_LINES).decode("ascii").split("\n")]


def _grams(words: list[str]) -> Iterator[str]:
    """Every run of `GRAM` words in a row, in order, as one string (its words joined by a space, which no word
    holds): built in C by zip and join, and a string keeps its hash, where a tuple of words is hashed again at
    every look-up of it."""
    return map(" ".join, zip(*(words[k:] for k in range(GRAM))))


def _places(sent: list[str]) -> dict[str, int | set[int]]:
    """Each run of GRAM words of the sent mails -> where it starts in their words: the place itself for a run
    found once (most are: no set is built for them), else the set of its places (at most PLACES)."""
    known: dict[str, int | set[int]] = {}
    offset = 0
    for t in sent:
        words = _words(t)
        grams = list(_grams(words))
        first = dict(zip(reversed(grams), range(offset + len(grams) - 1, offset - 1, -1)))
        if len(first) == len(grams) and known.keys().isdisjoint(first):
            known.update(first)  # every run once: built in C
        else:
            for i, gram in enumerate(grams, offset):
                places = known.get(gram)
                if places is None:
                    known[gram] = i
                elif isinstance(places, int):
                    known[gram] = {places, i}
                elif len(places) < PLACES:
                    places.add(i)
        offset += len(words) + GRAM  # no run spans two sent mails
    return known


class _FoundAt(Sequence[int | set[int] | None]):
    """Per word of the reply's stream, the places in the sent mails of the run of `GRAM` words it starts (None: no
    sent mail has it; a place for a run found once; else the set of its places), one more None past the last run;
    and the chains of those runs (`chains`).  Built from `_places` for every run (`_found_at`), or looked up when
    asked (`_SentIndex.found_at`)."""

    def __init__(self, stream: list[str]) -> None:
        self.stream = stream
        self.runs = max(len(stream) - GRAM + 1, 0)

    def __len__(self) -> int:
        return self.runs + 1

    @overload
    def __getitem__(self, i: int) -> int | set[int] | None: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[int | set[int] | None]: ...

    def __getitem__(self, i: int | slice) -> int | set[int] | Sequence[int | set[int] | None] | None:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.places(i) if i < self.runs else None

    def places(self, i: int) -> int | set[int] | None:
        raise NotImplementedError

    def chains(self) -> Iterator[tuple[int, int]]:
        """Each chain of runs at consecutive places (the reply's words following each other exactly as in a sent
        mail) as (its first word, one past its last word), the next chain starting where one could not go on."""
        start, here = 0, None  # the chain of runs now: where it started in the reply, where it may be in the mails
        for i in range(len(self)):
            found = self[i]
            if here is not None and found is not None:
                follows = _follows(here, found)
                if follows is not None:
                    here = follows
                    continue
            if here is not None:  # the chain ended: words start .. i-1+GRAM-1
                yield start, i - 1 + GRAM
            start, here = i, found


class _Listed(_FoundAt):
    def __init__(self, stream: list[str], found: list[int | set[int] | None]) -> None:
        super().__init__(stream)
        self.found = found

    def places(self, i: int) -> int | set[int] | None:
        return self.found[i]


def _found_at(known: dict[str, int | set[int]], stream: list[str]) -> _FoundAt:
    """Every run's places looked up in `known` (`_places`): for sent mails with a word at more than `PLACES` places."""
    return _Listed(stream, [known.get(gram) for gram in _grams(stream)])


class _Costly(Exception):
    """More work than `_Indexed.budget` allows: a reply of words the sent mails have at many places, or of many
    short pieces of them (each word looked up, where `_places` costs a join and a look-up)."""


def _chains(index: _SentIndex, sent: list[str], stream: list[str]) -> tuple[_FoundAt, list[tuple[int, int]]]:
    """The reply's runs' places and their chains: by the sent words' index, or (a word of the sent mails at more
    than `PLACES` places, or a reply that would try too many) by every run of the sent mails (`_places`), whose
    cost a run does not depend on how often its first word is sent.  Both find the same."""
    if index.plain:
        found_at = index.found_at(stream)
        try:
            return found_at, list(found_at.chains())
        except _Costly:
            pass
    listed = _found_at(_places(sent), stream)
    return listed, list(listed.chains())


class _SentIndex:
    """The sent mails' words as one stream, as `_places` counts them (`GRAM` gaps between two mails, no run spans
    them): a run's places are where its words follow each other there.
    Cheaper than `_places`, which joins and hashes every run of every sent text (two a reply: its plain part and
    its HTML part, a thousand runs): a reply's quote is mostly one long chain, whose run is looked up once at its
    start and followed word by word (`_Indexed.chains`).  `plain`: no word is at more than `PLACES` places (else
    `_places` keeps its first `PLACES` places per run, and the reader goes that way); `counts`: each word's places,
    how many (`Counter`, in C).  A run is found by searching the words joined by spaces for its words so joined
    (`str.find`, in C), its place counted by the spaces before it: a reply to a report looks up about 20 runs (the
    lines above its quote, and where the quote starts), and each word's places indexed in a Python loop over the
    report's two parts cost 1.95 M instructions a reply, a quarter of the copy search.  After `FINDS` searches the
    places are indexed that way all the same (`_at`: a reply of many words the sent mails lack, or of many short
    pieces of them), so a reply costs at most `FINDS` passes over the sent words in C."""

    def __init__(self, sent: list[str]) -> None:
        self.words: list[str | None] = []
        tokens: list[str] = []  # the words, a line break for each gap: joined by spaces for the searches
        self.runs = 0
        for t in sent:
            words = _words(t)
            self.runs += max(len(words) - GRAM + 1, 0)
            self.words += words
            self.words += [None] * GRAM  # no run spans two sent mails, nor follows one past its end
            tokens += words
            tokens += _GAP
        self.tokens = tokens
        self.known = set(self.words)  # the words sent (and None)
        self.plain = _at_most(self.words, PLACES)
        self.joined = ""  # " w1 w2 ... ", made on the first search: every word has one space before it
        self.finds = FINDS  # searches left before the places are indexed (`_at`)
        self.at: dict[str, list[int]] | None = None
        self.tried = 0  # places of a run's first word tried by the last `places_of` (the index's look-ups)

    def found_at(self, stream: list[str]) -> _Indexed:
        return _Indexed(stream, self)

    def places_of(self, run: list[str]) -> list[int]:
        """Where the words of `run` (`GRAM` of them) follow each other in the sent words, in order; `tried`: the
        places of its first word the index tried (a search is bounded by `FINDS` instead)."""
        self.tried = 0
        if not all(map(self.known.__contains__, run)):
            return []  # a word of it is not sent (the writer's own lines, mostly): no search
        if self.finds > 0:
            self.finds -= 1
            if not self.joined:
                self.joined = " " + " ".join(self.tokens) + " "
            joined, wanted = self.joined, " " + " ".join(run) + " "  # no word holds a space or a line break
            found: list[int] = []
            place, seen = 0, 0
            at = joined.find(wanted)
            while at >= 0:
                place += joined.count(" ", seen, at)
                seen = at
                found.append(place)
                at = joined.find(wanted, at + 1)
            return found
        if self.at is None:
            self.at = self._at()
        words, tried = self.words, self.at.get(run[0], ())
        self.tried = len(tried)
        return [p for p in tried if words[p : p + GRAM] == run]

    def _at(self) -> dict[str, list[int]]:
        """Each word's places, in order."""
        at: defaultdict[str, list[int]] = defaultdict(list)
        for p, w in enumerate(self.words):
            if w is not None:
                at[w].append(p)
        return at


CHUNK = 32  # words a piece of the sent words `_at_most` counts the distinct words of


def _at_most(words: list[str | None], most: int) -> bool:
    """Whether no word is at more than `most` places of `words`.  A word is at most at n - d + 1 places of a piece
    of n words holding d distinct ones, so at most at the sum of that over pieces of `CHUNK` words: a report's
    thousand words in 34 pieces, each a set made in C (the sum about 270 for a bound of 512), where counting each
    word (`Counter`) cost 0.75 M instructions a reply.  Only when that bound is above `most` are they counted."""
    n = len(words)
    pieces = map(words.__getitem__, map(slice, range(0, n, CHUNK), range(CHUNK, n + CHUNK, CHUNK)))
    if n - sum(map(len, map(set, pieces))) + -(-n // CHUNK) <= most:
        return True
    counts = Counter(words)
    counts.pop(None, None)
    return max(counts.values(), default=0) <= most


_GAP = ["\n"] * GRAM  # a gap between two sent mails in `_SentIndex.tokens`: no run is found across one


class _Indexed(_FoundAt):
    def __init__(self, stream: list[str], index: _SentIndex) -> None:
        super().__init__(stream)
        self.sent = index
        self.budget = WORK * len(stream) + 4096  # look-ups and places tried finding the chains, at most (`_Costly`)

    def places(self, i: int) -> int | set[int] | None:
        """The places of the run of words i .. i+GRAM-1 (each place of its first word counted as a look-up)."""
        run = self.stream[i : i + GRAM]
        found = self.sent.places_of(run)
        self.budget -= 2 + self.sent.tried
        return None if not found else found[0] if len(found) == 1 else set(found)

    def _reach(self, i: int, p: int) -> int:
        """How many words from i on follow each other as the sent mails' from place p on."""
        differ = next(compress(count(), map(ne, islice(self.stream, i, None), islice(self.sent.words, p, None))), None)
        return len(self.stream) - i if differ is None else differ

    def chains(self) -> Iterator[tuple[int, int]]:
        """As `_FoundAt.chains` follows them run by run: a chain starting at word i with its run at places P goes on
        while one p of P has the reply's words after i as the sent words after p, so it ends at the furthest reach."""
        i = 0
        while i < self.runs:
            found = self.places(i)
            if self.budget < 0:
                raise _Costly
            if found is None:
                i += 1
                continue
            places = (found,) if isinstance(found, int) else found
            self.budget -= 4 * len(places)  # a reach costs about four look-ups (its iterators)
            end = i + max(self._reach(i, p) for p in places)
            yield i, end
            i = end - GRAM + 1  # the first run that does not go on: a chain starts there


def _follows(here: int | set[int], found: int | set[int]) -> int | set[int] | None:
    """The places in `found` right after one in `here` (the chain goes on there), or None."""
    if isinstance(here, int):
        after = here + 1
        return after if (after == found if isinstance(found, int) else after in found) else None
    if isinstance(found, int):
        return found if found - 1 in here else None
    follows = {p + 1 for p in here if p + 1 in found}
    return follows or None


def without_copies(
    text: str,
    sent: list[str],
    keep: Callable[[str], bool] | None = None,
    edited: list[str] | None = None,
    changed: list[tuple[str, str]] | None = None,
    redacted: str = "",
    mine_quoted: bool = False,
    bold: Iterable[str] = (),
) -> str:
    """`text` without the lines that belong to a copy of one of the `sent` texts.  `keep(line)`: the line is the
    writer's own order or command, never dropped as a client's block above a copy (None: no line is).  `edited`:
    the sent mails' plain texts, laid out line by line as sent; with them, a line of a quoted copy in which the
    writer filled in a blank is theirs (`_edited_in_quote`), and each quoted line of pbem's the writer changed into
    another order, not read, is added to `changed` as (the line as quoted, the line pbem wrote there): the caller
    tells the writer (`changed_in_quote`).  `redacted`: what the kept copy of a mail shows in place of the
    player's code (`pbem.mail.outbound.outgoing.REDACTED`); a code in the writer's copy is read as it.  `mine_quoted`:
    an order the writer quoted themselves apart from any quote is theirs (`pbem.orders.own_quotes`; a player's reply,
    never a moderator's command mail, whose quoted commands are never run).  `bold`: the texts the sent mails' HTML
    parts set in bold (`bold_texts`); a line of the copy the writer marked with asterisks that pbem did not is
    theirs (`_keep_starred`)."""
    index = _SentIndex(sent)
    if not index.runs:
        return text
    keep = _asked_once(keep)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    per_line = _line_words(lines, sent, redacted)
    stream = [w for ws in per_line for w in ws]
    in_copy = bytearray(len(stream))  # 1 for a word of a copy
    found_at, chains = _chains(index, sent, stream)
    for start, end in chains:  # a chain of runs: words start .. end-1 of the reply follow a sent mail's
        if end - start >= RUN:
            in_copy[start:end] = b"\x01" * (end - start)
    drop = [False] * len(lines)  # a line with words, all of them in a copy
    first = [0] * len(lines)  # where each line's first word is in the stream
    end = 0
    for n, ws in enumerate(per_line):
        begin, end = end, end + len(ws)
        first[n] = begin
        drop[n] = end > begin and in_copy.find(0, begin, end) < 0
    if keep is not None and any(drop):
        between = [
            n
            for run in _typed_between_quotes(lines)
            if sum(len(per_line[k]) for k in run if drop[k]) < RUN  # else a copy of its own, unquoted: no answer
            for n in run
            if drop[n] and keep(lines[n])
        ]
        cut = _cut_from_above(between, first, found_at, sent)
        for n in (
            *(n for n in between if n not in cut),
            *_repeated(lines, per_line, drop),
            *_typed_again(lines, per_line, drop, sent),
        ):
            if drop[n] and keep(lines[n]):
                drop[n] = False
        for n in list(_rest_typed(lines, per_line, drop, sent, keep)):
            drop[n] = False
        _keep_marked(lines, drop, keep)
        _keep_starred(lines, drop, keep, sent, bold)
        if edited:
            for n in list(_edited_in_quote(lines, per_line, drop, edited, keep)):
                lines[n], drop[n] = unquoted(lines[n]) or "", False  # read as a line of the writer's own
            if changed is not None:  # laid out as sent, or as an HTML part's quote is flattened
                texts = [*edited, *(t for t in sent if t not in edited)]  # the HTML part's words too
                quoted = _quoted_texts(lines, per_line)  # each quoted line's text, read once for both
                changed += changed_in_quote(lines, per_line, drop, texts, keep, quoted)
                told = {line for line, _ in changed}
                changed += [
                    c for c in trimmed_in_quote(lines, per_line, drop, edited, keep, quoted) if c[0] not in told
                ]
                changed += changed_in_rewrapped(lines, first, in_copy, found_at, sent, keep, GRAM, changed)  # by words
    unquote_typed(lines, per_line, drop, edited or sent, keep, mine_quoted)  # "> TRIBUTE Gold 4": the writer's
    _drop_wordless_inside(lines, per_line, drop)
    for n in range(len(lines)):
        if drop[n] and (n == 0 or not drop[n - 1]):
            _drop_header_block(lines, drop, n, keep)
            _drop_block_above_answer(lines, drop, n)
    return "\n".join(_left(lines, drop))


def _asked_once(keep: Callable[[str], bool] | None) -> Callable[[str], bool] | None:
    """`keep`, its answer for a line remembered for this reply: the client's blocks above each paragraph of a copy,
    the marked lines and the quoted ones ask it of the same lines again (a quarter of its calls).  It holds no more
    answers than the reply has lines asked of."""
    if keep is None:
        return None
    asked = keep
    answers: dict[str, bool] = {}

    def once(line: str) -> bool:
        got = answers.get(line)
        if got is None:
            got = answers[line] = asked(line)
        return got

    return once


def _left(lines: list[str], drop: list[bool]) -> Iterator[str]:
    """The lines kept, and what stays of the dropped lines of a copy: a quote mark alone (">") where a run of quoted
    ones was, `QUOTE_RUN` of them at most (blank quoted lines among them counted in the run), else nothing.  The quote stays seen where its words went: a "-- " signature
    above it ends there and the answer below it is read (`pbem.orders.furniture._signature_end`).  A plain part's
    quote kept its blank "> " lines; an HTML part's, flattened with none (a <div> a line, no blank between), left
    none, and the answer was dropped as the signature's.  A mark for every line of the copy made every later reading
    of the reply go over the whole report again (2.3% more instructions a reply)."""
    run = 0
    for n, line in enumerate(lines):
        if drop[n] and not _QUOTED.match(line):
            continue
        if drop[n] or line.strip() == ">":  # the copy's blank quoted lines, kept, are marks alone as well
            run += 1
            if run <= QUOTE_RUN:
                yield ">" if drop[n] else line
            continue
        run = 0
        yield line


def _line_words(lines: list[str], sent: list[str], redacted: str) -> list[list[str]]:
    """The words of each line, a code read as the words of `redacted` when a `sent` text shows it: the copy pbem
    keeps of a mail carrying the player's code shows `redacted` there, and the code split the player's copy of that
    mail into runs too short to be found (the join invitation's lines to send, CODE, JOIN, SALT, between two
    mentions of the code, were read as the player's JOIN from an Outlook reply holding the invitation unquoted)."""
    per_line = _each_lines_words(lines)
    if not redacted or not any(redacted in t for t in sent):
        return per_line
    for n, line in enumerate(lines):
        if "-" in line and CODE_PATTERN.search(line):
            per_line[n] = _words(CODE_PATTERN.sub(redacted, line))
    return per_line


_QUOTED = re.compile(r"^\s*>")
_RULE = frozenset("-_=* ")  # the characters of a rule's line (a line of them only)
_RULED = _RULE | {">"}  # and of a rule or a blank line quoted
_BLANK = re.compile(r"<[^<>\s][^<>]*>|__|\.\.\.|…")  # a blank a line of pbem's mail asks the reader to fill


def _keep_marked(lines: list[str], drop: list[bool], keep: Callable[[str], bool]) -> None:
    """Keep the lines of a quoted copy the writer marked as their choice: "> NO EVENT <-- this" (all its words the
    copy's), and "> NO EVENT" with "<-- this" typed on a line of its own under it (`pbem.orders.typed.points_up`),
    when the line is an order (`keep`).  One pass; a line is asked whether it may carry a mark only when it holds
    a piece of one (`pbem.orders.typed.may_be_marked_lines`)."""
    marked = set(may_be_marked_lines(lines))
    for n, line in enumerate(lines):
        mine = unquoted(line) if drop[n] and n in marked else None
        if mine is not None and chosen(mine) and keep(mine):
            drop[n] = False
        elif not drop[n] and points_up(line):
            above = next((k for k in (n - 1, n - 2) if k >= 0 and lines[k].strip()), None)
            quoted = unquoted(lines[above]) if above is not None and drop[above] else None
            if above is not None and quoted is not None and keep(quoted):
                drop[above] = False


def starred(line: str) -> str:
    """The text of a line wrapped whole in asterisks ("*NO EVENT*", "**NO EVENT**": bold as a plain-text client shows
    it), or ""."""
    bare = line.strip()
    if len(bare) < 3 or bare[0] != "*" or bare[-1] != "*":
        return ""
    inner = bare.strip("*").strip()
    return "" if "*" in inner else inner


#: A text pbem's own HTML sets in bold (`away_ack`'s notice: `<p><strong>Noted: you are away until ...</strong></p>`).
_BOLD = re.compile(r"<(strong|b)>([^<>]{1,300})</\1>")


def bold_texts(html: str) -> list[str]:
    """The texts pbem's `html` sets in bold, entities decoded (a client's plain part shows each as "*...*")."""
    return [unescape(m.group(2)) for m in _BOLD.finditer(html)] if "<strong>" in html or "<b>" in html else []


def _keep_starred(
    lines: list[str], drop: list[bool], keep: Callable[[str], bool], sent: list[str], bold: Iterable[str]
) -> None:
    """Keep the lines of a copy the writer marked as their choice with asterisks, as a plain-text client shows bold
    ("*NO EVENT*" in Outlook's unquoted original, "> *NO EVENT*" quoted once: read as a line of the writer's own),
    when the line is an order (`keep`) and pbem did not emphasise it itself: neither a line of a sent text starred
    whole nor a text its HTML set in bold (`bold`: pbem sets whole lines in bold, `away_ack`'s notice for one, which
    a client's plain part shows "*...*"; none of them is an order today, and a bold line of pbem's that became one
    would still be pbem's).  The words of such a line are all the copy's, and it was dropped unseen.  One
    pass; the sent texts are read only when a line is starred."""
    found = [
        (n, mine)
        for n, line in enumerate(lines)
        if drop[n] and line.rstrip().endswith("*") and (mine := _starred_line(line))  # not a "* " bullet
    ]
    if not found:
        return
    pbems = {_key(t) for t in bold} | {_key(starred(r)) for t in sent for r in t.split("\n") if starred(r)}
    for n, mine in found:
        inner = starred(mine)
        if keep(inner) and _key(inner) not in pbems:
            lines[n], drop[n] = mine, False


def _starred_line(line: str) -> str:
    """`line` without its quote mark if it is quoted once, when what is left is starred whole ("*NO EVENT*"); else
    "" (a line quoted twice is an older mail's)."""
    mine = unquoted(line) if _QUOTED.match(line) else line
    return mine if mine is not None and starred(mine) else ""


def _key(text: str) -> str:
    return " ".join(_words(text))


GAP = 40  # lines of a sent mail between the two quoted lines around an edited one, at most
SPOTS = 16  # places of one line's words in the sent mails tried when aligning an edited quoted line, at most


def _edited_in_quote(
    lines: list[str], per_line: list[list[str]], drop: list[bool], sent: list[str], keep: Callable[[str], bool]
) -> Iterator[int]:
    """The lines of a quoted copy in which the writer filled in a blank of pbem's ("> PLAY <card>" edited into "> PLAY
    Gold 7", "> VOTE ____" into "> VOTE RED"): quoted once, an order or command (`keep`), between two quoted lines
    of the copy (A above, B below), where the sent mail has, between an A and a B of it (at most `GAP` lines
    apart, found by their words), as many lines as the reply, none with this line's words, and a line with a blank
    (`_BLANK`: `<card>`, `____`, `...`) starting with its first word (the line it was edited from).
    A quoted line pbem wrote, unchanged, is never one: the sent mail has it between its neighbours; nor is a line
    of a quote a client laid out otherwise (an HTML part's cells flattened into lines), nor any line of a quote
    that holds another line no sent mail has which is no order (the quote is of a mail pbem sent but `sent` does
    not hold, say an earlier acknowledgement much like it).  Linear: at most `SPOTS`
    places of each neighbour's words are tried, and `GAP` lines between them."""
    split = [text.split("\n") for text in sent]
    prompts = {(t, i) for t, rows in enumerate(split) for i, line in enumerate(rows) if _BLANK.search(line)}
    if _all_still_blank(lines, split, prompts):
        return
    firsts = {_words(split[t][i])[0] for t, i in prompts if _words(split[t][i])}  # the order words of the blanks
    candidates = [
        n
        for n, line in enumerate(lines)
        if per_line[n]
        and per_line[n][0] in firsts
        and (mine := unquoted(line)) is not None
        and not chosen(mine)  # a marked line is `_keep_marked`'s
        and keep(mine)
    ]
    if not candidates:
        return
    where: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    texts = [[tuple(_words(line)) for line in rows] for rows in split]
    for t, words in enumerate(texts):
        for i, ws in enumerate(words):
            spots = where.setdefault(ws, []) if ws else None
            if spots is not None and len(spots) < SPOTS:
                spots.append((t, i))
    for n, said in enumerate(per_line):
        mine = unquoted(lines[n]) if said and not drop[n] else None
        if mine is not None and tuple(said) not in where and (chosen(mine) or not keep(mine)):
            return  # a quoted line no sent mail has and no order: the quote is of a mail not among `sent`
    copied = [n for n, ws in enumerate(per_line) if ws and drop[n] and _QUOTED.match(lines[n])]
    for n in candidates:
        at = bisect_left(copied, n)
        below_at = at + 1 if at < len(copied) and copied[at] == n else at
        if at == 0 or below_at >= len(copied):
            continue  # not inside a quoted copy
        k, m = copied[at - 1], copied[below_at]
        typed = sum(1 for ws in per_line[k + 1 : m] if ws)  # lines with words between the two, this one included
        ws = tuple(per_line[n])
        if any(
            _filled_in(texts[t], prompts, t, i, j, typed, ws) for t, i, j in _around(where, per_line[k], per_line[m])
        ):
            yield n


CHANGED = 8  # quoted lines changed into another order told, per reply
QUOTED_ORDERS = 64  # quoted order lines of a reply looked at for a change, at most


#: `changed_in_quote`'s "line pbem wrote" for a listed order kept alone of the quote's list (`trimmed_in_quote`).
TRIMMED = "\x00trimmed"


def changed_note(quoted: str, was: str = "x") -> str:
    """What the writer is told of a line of the quoted report they changed into another order (`changed_in_quote`):
    the line, why it was not read, the line to send (short: an answer quotes 200 characters of a note)."""
    mine = (marked_off(quoted) or quoted).strip()
    how = "changed line of the quote" if was else "line typed inside the quote"
    how = "line kept alone of the quote's list of orders" if was == TRIMMED else how
    return f'"{quoted}": a {how} is not read; to send it, write it above the quote: {cleaned(mine) or mine}'


#: `pbem.orders.own_quotes.marked_off`'s text of a line, stripped, in one match: a line quoted once or twice, what
#: follows its marks (white space between them).  Called line by line (its `unquoted` twice), it cost 0.48 M
#: instructions a reply of `changed_in_quote`'s, the match and a strip 0.29 M.
#: Anchored (`\A`): only ever `match`ed, and a search of it would read the blanks before a ">" again from each place.
_MARKED_OFF = re.compile(r"\A\s*+>\s*+(?:>\s*+)?+(?!>)(.*)", re.DOTALL)


def changed_in_quote(
    lines: list[str],
    per_line: list[list[str]],
    drop: list[bool],
    sent: list[str],
    keep: Callable[[str], bool],
    quoted: dict[int, str] | None = None,
) -> list[tuple[str, str]]:
    """The lines of a quoted copy of pbem's mail that the writer changed into another order, each as (the line as
    quoted, the line pbem wrote at its place), or typed into it as a line of its own (iOS and Gmail keep what is
    typed inside an HTML quote quoted), each as (the line as quoted, ""): quoted once or twice (">> PASS"), quoted
    more often than a sent mail has it, an order (`keep`) with no mark of choice, right above the copy's first line or
    below its last in the quote (`_next_to`), or between two lines of the copy (A above, B below) where
    the sent mail has, between an A and a B (at most `GAP` lines apart), as many lines, the one at its place another
    order with no blank ("> VOTE RED" of the report's list edited into "> VOTE BLUE"), or one line fewer, the others
    as the reply has them (a line typed in).  Not read (a quoted listed order is pbem's: `_edited_in_quote` reads a
    blank filled in only): the writer is told, with the line to send.  Linear, as `_edited_in_quote`: at most
    `QUOTED_ORDERS` lines looked at, `SPOTS` places of each neighbour, `CHANGED` lines told."""
    split = [text.split("\n") for text in sent]
    quoted = _quoted_texts(lines, per_line) if quoted is None else quoted
    many = Counter(quoted.values())
    sent_many: Counter[str] = Counter()
    for rows in split:  # the most times one sent text has the line
        sent_many |= Counter(filter(many.__contains__, map(str.strip, rows)))
    candidates = [  # a line quoted more often than a sent mail has it (most replies: none, and no more is done)
        n for n, mine in quoted.items() if many[mine] > sent_many[mine] and not chosen(mine) and keep(mine)
    ][:QUOTED_ORDERS]
    if not candidates:
        return []
    where: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for t, rows in enumerate(split):
        for i, line in enumerate(rows):
            spots = where.setdefault(tuple(_words(line)), []) if line.strip() else None
            if spots is not None and len(spots) < SPOTS:
                spots.append((t, i))
    copied = [n for n, ws in enumerate(per_line) if ws and drop[n] and _QUOTED.match(lines[n])]
    out: list[tuple[str, str]] = []
    for n in candidates:
        at = bisect_left(copied, n)
        below_at = at + 1 if at < len(copied) and copied[at] == n else at
        if len(out) >= CHANGED:
            continue
        if at == 0 or below_at >= len(copied):
            if copied and not drop[n] and _next_to(lines, per_line, n, copied[0] if at == 0 else copied[-1]):
                out.append(
                    (lines[n].strip(), "")
                )  # typed into the quote above its copy's first line, or below its last
            continue  # not inside a quoted copy
        k, m = copied[at - 1], copied[below_at]
        if m - k > 2 * GAP:
            continue  # no place of a sent mail (its neighbours at most `GAP` lines apart) is so long
        mine_at = [g for g in range(k + 1, m) if per_line[g]]
        for t, i, j in _around(where, per_line[k], per_line[m], adjacent=True):
            gap = [g for g in range(i + 1, j) if split[t][g].strip()]
            if len(gap) == len(mine_at):
                was = split[t][gap[mine_at.index(n)]].strip()
                if _words(was) != per_line[n] and keep(was) and not _BLANK.search(was):
                    out.append((lines[n].strip(), was))
                break  # the place of the line in the sent mail is found: changed there or not
            others = [tuple(per_line[g]) for g in mine_at if g != n] if len(gap) + 1 == len(mine_at) else None
            if others is not None and others == [tuple(_words(split[t][g])) for g in gap]:
                out.append((lines[n].strip(), ""))  # typed into the quote, between two of its lines
                break
    told = {" ".join(_words(line)): (line, was) for line, was in reversed(out)}  # the first of lines alike
    return list(reversed(told.values()))  # typed above its own listed line: both read as typed in, told once


def trimmed_in_quote(
    lines: list[str],
    per_line: list[list[str]],
    drop: list[bool],
    sent: list[str],
    keep: Callable[[str], bool],
    quoted: dict[int, str] | None = None,
) -> list[tuple[str, str]]:
    """The listed orders the writer kept of a quoted copy's list, the list's other lines deleted (">     NO EVENT"
    alone under "> Legal orders now (copy one per line):", the quote cut there or going on), each as (the line as
    quoted, `TRIMMED`): read as nothing and told nothing before (players33).  A run of quoted orders (`keep`, no mark
    of choice; blank quoted lines between) right under a line of the copy where a sent mail has that line over a block
    of two lines or more that holds each of them, in its order, and more.  Where the quote ends with the run and the
    run is the block's first lines, a client may have cut the quote there: told only for the block's first line
    alone.  Not read (a quoted order is pbem's line): told, with the line to send.  Linear: `QUOTED_ORDERS` quoted
    lines looked at, `SPOTS` places of a line above a run, `GAP` lines of a run and of a block.
    `quoted`: each quoted line's text (`_quoted_texts`, read once for `changed_in_quote` too); the sent lines' words
    are read a text at a time (`_rows_words`), and a walk reads the quoted lines' texts, not their quote marks again
    (perf35: with them, `without_copies` went from 8.36 M to 7.45 M instructions a reply).  The reader is asked first,
    of every quoted line: its answers are remembered across a poll's replies (`pbem.orders.extract.own_line`), and
    reading the structure first to ask it less cost a poll more than it saved (docs/performance.md, perf35)."""
    texts = _quoted_texts(lines, per_line) if quoted is None else quoted
    mine = {
        n: said
        for n, said in texts.items()
        if n < QUOTED_ORDERS * GAP
        and keep(said)
        and not chosen(said)
        and not _BLANK.search(said)  # "MELD <Person> ...": the syntax's line, no order
    }
    if not mine:
        return []
    split = [list(map(str.strip, text.split("\n"))) for text in sent]
    where = _row_places(split, sent)
    last = next((g for g in range(len(lines) - 1, -1, -1) if per_line[g] and _QUOTED.match(lines[g])), -1)
    out: list[tuple[str, str]] = []
    n, runs = next(iter(mine)), 0  # the lines before the first order are none
    while n < len(lines) and runs < QUOTED_ORDERS:
        if n not in mine:
            n += 1
            continue
        k = n - 1  # the line with words above the run, past blank quoted lines
        while k >= 0 and n - k <= GAP and _QUOTED.match(lines[k]) and not per_line[k]:
            k -= 1
        runs, start, n = runs + 1, n, n + 1
        if k < 0 or not drop[k] or not _QUOTED.match(lines[k]):
            continue
        heading = (texts[k] if k in texts else (marked_off(lines[k]) or "").rstrip()).endswith((":", "\uff1a"))
        for t, i in where.get(tuple(per_line[k]), []):
            block = split[t][i + 1 : i + 1 + GAP]
            if "" in block:
                del block[block.index("") :]  # the block ends at a blank line
            found = _quoted_of(lines, per_line, start, block, texts)
            if not found or len(found) == len(block):
                continue  # not this place, or the list whole (answers typed between its lines)
            typed = [texts.get(g, "") for g in found]
            if not [r for r in block if r not in typed and keep(r) and not _BLANK.search(r)]:
                break  # no order of the list deleted
            if found[-1] == last and block[: len(typed)] == typed and (len(typed) > 1 or not heading):
                break  # the quote cut under the list's first lines: a client's cut as well
            if not _list_ends(lines, per_line, found[-1], keep, texts):
                break  # a line changed or rewrapped there: `changed_in_quote`'s, or the copy's
            out += [(lines[g].strip(), TRIMMED) for g in found if g in mine]
            n = found[-1] + 1
            break
    return out[:CHANGED]


def _row_places(split: list[list[str]], sent: list[str]) -> dict[tuple[str, ...], list[tuple[int, int]]]:
    """The words of each line of the `sent` texts (`split`: their lines stripped) -> where such lines are, (text,
    line), `SPOTS` at most (no blank line)."""
    where: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for t, text in enumerate(sent):
        for i, (row, ws) in enumerate(zip(split[t], _rows_words(text))):
            spots = where.setdefault(ws, []) if row else None
            if spots is not None and len(spots) < SPOTS:
                spots.append((t, i))
    return where


def _quoted_texts(lines: list[str], per_line: list[list[str]]) -> dict[int, str]:
    """Each line with words quoted once or twice -> its text, its quote marks and white space around it off (as
    `own_quotes.marked_off` and a strip give it): one match a line."""
    return {n: q.group(1).rstrip() for n, line in enumerate(lines) if per_line[n] and (q := _MARKED_OFF.match(line))}


def _rows_words(text: str) -> Iterator[tuple[str, ...]]:
    """The words (`_words`) of each line of `text`, as tuples: an ASCII text (most) case-folded and split by the table
    in one pass (in C), not line by line."""
    whole = text.casefold()
    if not whole.isascii():
        return (tuple(_words(row)) for row in text.split("\n"))
    return map(tuple, map(str.split, whole.encode("ascii").translate(_ASCII_LINES).decode("ascii").split("\n")))


def _list_ends(
    lines: list[str], per_line: list[list[str]], at: int, keep: Callable[[str], bool], texts: dict[int, str]
) -> bool:
    """Whether the quoted list ends under line `at`: the quote ends, or goes on after a blank line with a line that is
    no order (the report's next part), as a list the writer cut goes on; a line changed into another order or typed
    there, or the rest of a line a client rewrapped, follows it with no blank line between."""
    g, blank = at + 1, False
    while g < len(lines) and (not per_line[g] or not _QUOTED.match(lines[g])):
        blank, g = blank or not per_line[g], g + 1
    return g >= len(lines) or (blank and not keep(texts.get(g, "")))


def _quoted_of(
    lines: list[str], per_line: list[list[str]], start: int, block: list[str], texts: dict[int, str]
) -> list[int]:
    """The quoted lines from `start` on that are lines of `block` in its order (blank lines and the writer's own,
    unquoted, passed over; at most `GAP` lines past the last found), up to the first quoted line that is none.
    `texts`: the quoted lines' texts (`_quoted_texts`; a line quoted thrice has none, and is no line of a block)."""
    found: list[int] = []
    at, g = 0, start
    while g < len(lines) and at < len(block) and g - (found[-1] if found else start) <= GAP:
        said = texts.get(g)
        if said is None and per_line[g] and _QUOTED.match(lines[g]):
            said = ""
        if said is not None:
            if said not in block[at:]:
                break
            at = block.index(said, at) + 1
            found.append(g)
        g += 1
    return found


def _next_to(lines: list[str], per_line: list[list[str]], n: int, k: int) -> bool:
    """Whether quoted line `n` is next to line `k` of a copy, quoted as often or more (">> PASS" in a "> " quote), with
    only quoted blank lines between: "> PASS" typed into the quote above its first line of the copy, or below its last,
    was dropped unseen.  An earlier answer quoted above a quoted report (a thread) has its attribution between."""
    a, b = min(n, k), max(n, k)
    if depth(lines[n]) < depth(lines[k]) or b - a > GAP:
        return False
    return all(not per_line[g] and _QUOTED.match(lines[g]) for g in range(a + 1, b))


LOOKS = 16  # places of one blank's line in a reply looked at, at most (`_whole_lines`)


def _all_still_blank(lines: list[str], split: list[list[str]], prompts: set[tuple[int, int]]) -> bool:
    """Whether the reply still has every line with a blank as often as the sent mails have it, as a whole line as
    sent (quote marks and the spaces around it aside): then no blank was filled in, and the search for one is
    skipped (it read every quoted line that starts with an order word, a report's whole list of legal orders, for
    each reply).  Found by `str.find` over the reply, a few lines a mail; a quote its client rewrapped or respaced
    is not found so, and is searched."""
    if not prompts:
        return True
    wanted: dict[str, int] = {}
    for t, i in prompts:
        key = split[t][i].strip()
        wanted[key] = wanted.get(key, 0) + 1
    reply = "\n".join(lines)
    return all(_whole_lines(reply, key, n) >= n for key, n in wanted.items())


def _whole_lines(text: str, key: str, enough: int) -> int:
    """How many lines of `text` are `key` alone after their quote marks (counted up to `enough`; at most `LOOKS`
    places of `key` looked at, so a line of a thousand "..." costs no more than a reply's length a few times)."""
    found, at, looks = 0, text.find(key), LOOKS
    while at >= 0 and found < enough and looks:
        looks -= 1
        start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at + len(key))
        after = text[at + len(key) : end if end >= 0 else len(text)]
        if not text[start:at].strip(" \t>") and not after.strip():
            found += 1
        at = text.find(key, at + len(key))
    return found


def _around(
    where: dict[tuple[str, ...], list[tuple[int, int]]], above: list[str], below: list[str], adjacent: bool = False
) -> Iterator[tuple[int, int, int]]:
    """(text, line of `above`, line of `below`) of each place where the two are at most `GAP` lines apart in order
    (with a line between them, unless `adjacent`)."""
    for t, i in where.get(tuple(above), []):
        for u, j in where.get(tuple(below), []):
            if u == t and i + (0 if adjacent else 1) < j <= i + GAP:
                yield t, i, j


def _filled_in(
    text: list[tuple[str, ...]], prompts: set[tuple[int, int]], t: int, i: int, j: int, typed: int, ws: tuple[str, ...]
) -> bool:
    """Whether the `typed` lines with words of a reply between lines `i` and `j` of sent text `t` may be its lines
    there with one line, of words `ws`, a line with a blank filled in: as many lines, none of words `ws`, one with
    a blank starting with its first word."""
    gap = [(w, g) for g, w in enumerate(text[i + 1 : j], i + 1) if w]
    return (
        len(gap) == typed and all(w != ws for w, _ in gap) and any(w[0] == ws[0] and (t, g) in prompts for w, g in gap)
    )


def _cut_from_above(
    candidates: list[int], first: list[int], found_at: Sequence[int | set[int] | None], sent: list[str]
) -> set[int]:
    """The `candidates` (unquoted lines between quoted ones) that are the rest of the quoted line above them, cut
    off by a client that rewrapped the quote without quoting the rest ("> ... play one event or NO" then "EVENT (add
    DISCARD-IF-NEEDED ...)"): their first word follows the words above it as in a sent mail, in the middle of one of
    its lines.  Read as an answer typed between quoted lines, such a piece of pbem's prose was an order ("EVENT (add
    ..." refused the message).  A line of the sent mail typed or unquoted whole starts where a line of it starts.
    The sent mails' line starts are counted only when there is a candidate (most replies have none)."""
    spans: dict[int, int | set[int]] = {}
    for n in candidates:
        places = found_at[first[n] - GRAM + 1] if first[n] >= GRAM - 1 else None
        if places is not None:
            spans[n] = places
    if not spans:
        return set()
    starts: set[int] = set()
    offset = 0
    for text in sent:  # the places `_places` gives the words of the sent mails, each line's first one
        for line in text.split("\n"):
            starts.add(offset)
            offset += len(_words(line))
        offset += GRAM
    out: set[int] = set()
    for n, places in spans.items():
        here = {places} if isinstance(places, int) else places
        if all(p + GRAM - 1 not in starts for p in here):
            out.add(n)
    return out


def _typed_between_quotes(lines: list[str]) -> Iterator[list[int]]:
    """Each run of unquoted lines that has a quoted line just above it and a quoted line (or the end) just below it:
    the writer's own lines typed into a quoted mail (an inline reply), kept even when one repeats the quoted line
    above it word for word ("tribute copper king" under the list's last "> TRIBUTE Copper King", a chain the words
    of the quote below then continue; found by the players' testers).  The caller leaves out a run that holds a
    copy of its own (`RUN` words of pbem's or more): the unquoted original under Outlook's block, below an order the
    writer quoted themselves ("> TRIBUTE Gold 4"), whose every listed line was read as an order.  One pass."""
    run: list[int] = []
    before = False  # the line with words just above the current run is quoted
    for n, line in enumerate(lines):
        if not line.strip(" >"):
            continue  # no words: neither ends nor starts a run
        if _QUOTED.match(line):
            if before and run:
                yield run
            run, before = [], True
        else:
            if not run and not before:
                continue  # not below a quote (a top-posted reply, a copy without quote marks)
            run.append(n)
    if before and run:
        yield run


def _typed_again(lines: list[str], per_line: list[list[str]], drop: list[bool], sent: list[str]) -> Iterator[int]:
    """Lines of a copy that are one line of the sent mail typed once more right under the writer's own text (Outlook's
    inline reply: "Ciao," then "DISCARD Belligerent." typed above the report's next list line, the copy's words going
    on from there as from the report's own line): a line whose words the reply's copy holds more often than any sent
    mail does, whose line with words above it is the writer's (not a client's "Label: value" line: the first line of
    a copy below a header block is the copy's); at most as many as the surplus.  Linear; the sent mails' lines are
    read only when some line of a copy has the writer's own line above it (most replies have none: a reply's quote
    starts under its attribution)."""
    candidates: list[int] = []
    above_own = False  # the line with words above is the writer's own (not in a copy)
    for n, ws in enumerate(per_line):
        if not ws:
            continue
        if drop[n] and above_own:
            candidates.append(n)
        above_own = not drop[n] and not _LABEL.match(lines[n])  # the writer's text, not a client's header line
    if not candidates:
        return
    surplus: dict[tuple[str, ...], int] = {}
    for n, ws in enumerate(per_line):
        if ws and drop[n]:
            surplus[tuple(ws)] = surplus.get(tuple(ws), 0) + 1
    wanted = {tuple(per_line[n]) for n in candidates}
    most: dict[tuple[str, ...], int] = {}
    for text in sent:
        here: dict[tuple[str, ...], int] = {}
        for line in text.split("\n"):
            key = tuple(_words(line))
            if key in wanted:
                here[key] = here.get(key, 0) + 1
        for key, k in here.items():
            most[key] = max(most.get(key, 0), k)
    for n in candidates:
        key = tuple(per_line[n])
        if surplus[key] > most.get(key, 0):
            surplus[key] -= 1
            yield n


def _drop_wordless_inside(lines: list[str], per_line: list[list[str]], drop: list[bool]) -> None:
    """The lines without words between two lines of a copy are the copy's: pbem's own "-- " above its signature,
    its rules and blank lines.  Left in an unquoted copy, the "-- " ended the writer's text there, and an order
    written below the copied mail (bottom-posted under Thunderbird's "-------- Original Message --------") was
    never read.  A quoted one stays (`pbem.orders.furniture` drops it, and reads an attribution by the quote
    under it).  One pass."""
    run: list[int] = []
    copied = False  # the line with words above the run is in a copy
    for n, ws in enumerate(per_line):
        if not ws:
            if not _QUOTED.match(lines[n]):
                run.append(n)
            continue
        if copied and drop[n]:
            for b in run:
                drop[b] = True
        run, copied = [], drop[n]


def _repeated(lines: list[str], per_line: list[list[str]], drop: list[bool]) -> Iterator[int]:
    """The lines whose words are those of the line with words just above them: a line typed under its own copy
    in an answer written into the unquoted mail (Outlook's inline reply: "tribute gold 7" right under the report's
    "TRIBUTE Gold 7", the line above in a copy), never a line of pbem's mail (no two lines in a row of it say the
    same; one below the writer's own line saying the same is the copy's).  A list's number before it is no word of
    the answer ("1. ACCEPT Bob GIVING Spain 1" under the report's last listed line: the number and the line went on
    as the report's words do, "Spain 1 / ACCEPT Bob ...", and the answer was taken for the copy).  One pass."""
    above: list[str] = []
    copied = False  # the line with words above is in a copy
    for n, ws in enumerate(per_line):
        if not ws:
            continue
        below = per_line[n + 1] if n + 1 < len(per_line) else []
        if copied and (
            ws == above
            or (len(ws) > len(above) > 0 and ws[-len(above) :] == above and _unlisted(lines[n]) == above)
            or (below and len(ws) < len(above) and ws + below == above)  # typed again, wrapped: `_rest_typed`
        ):
            yield n
        above, copied = ws, drop[n]


def _rest_typed(
    lines: list[str], per_line: list[list[str]], drop: list[bool], sent: list[str], keep: Callable[[str], bool]
) -> Iterator[int]:
    """The line of a copy right under the writer's own order that completes it into one line of a sent mail: a hard
    wrap at 40 columns parted an order typed again under its listed line ("PLACE-START United Provinces 1, German" /
    "States 1, Poland 3"), and the rest, dropped as the copy's, left the first half refused with no word of the
    order meant (players27); read as the writer's, the order is offered whole (`pbem.app.wraps`).  The sent mails'
    lines are read only when such a pair is found."""
    wanted: dict[tuple[str, ...], int] = {}
    for n in range(len(lines) - 1):
        if per_line[n] and per_line[n + 1] and not drop[n] and drop[n + 1] and keep(lines[n]):
            wanted[tuple(per_line[n] + per_line[n + 1])] = n + 1
    if wanted:
        listed = {tuple(_words(line)) for text in sent for line in text.split("\n")}
        yield from (n for key, n in wanted.items() if key in listed)


def _unlisted(line: str) -> list[str]:
    """The words of `line` without a list's marker before it ("1. PASS": pass), nor a label naming someone ("Bob:
    EVENT CLAIM Emperor TARGET Carol" under its listed line: the name ran on as the report's "... TARGET Bob" /
    "EVENT CLAIM ..." do, and the line was dropped untold as the copy's; `pbem.orders.openers.labelled_by_other`)."""
    return _words(cleaned(labelled_by_other(line) or line))


def _drop_block_above_answer(lines: list[str], drop: list[bool], start: int) -> None:
    """An answer typed into the mail right under the client's header block, above the copy starting at `start`
    (Outlook: "-----Original Message-----", From/Sent/To/Subject, the player's lines, then pbem's mail): the
    block and the marker or rule above it are dropped, the player's lines kept.  The block is found by
    `pbem.orders.furniture.header_block_at` (a From line with Sent/To/Subject below it) at most `ABOVE` lines with
    words above the copy, the lines between it and the copy holding no quoted line; nothing else is dropped."""
    n, seen = start - 1, 0
    while n >= 0 and seen < ABOVE and not drop[n]:
        if _QUOTED.match(lines[n]):
            return
        if lines[n].strip():
            seen += 1
            if header_block_at(lines, n):
                break
        n -= 1
    else:
        return
    end = n
    while end < start and _LABEL.match(lines[end]):
        drop[end] = True  # the block's labelled lines, down to the first line that is not one
        end += 1
    n -= 1
    while n >= 0 and (not lines[n].strip() or set(lines[n].strip()) <= _RULED or MARKER.match(lines[n])):
        drop[n] = True  # the blank lines, the rule and the marker right above it
        if lines[n].strip() and not set(lines[n].strip()) <= _RULE:
            return  # the marker: above it is the writer's own text
        n -= 1


def _drop_header_block(lines: list[str], drop: list[bool], start: int, keep: Callable[[str], bool] | None) -> None:
    """Drop the client's block just above a copy starting at `start`, with the blank lines and rules under it.

    Going up from the copy, the ``Label: value`` lines come in runs (lines in a row; blank lines or rules
    between runs).  A run is the client's if it has two lines or more (From/Sent/To/Subject, an attribution
    wrapped over two lines) or its lowest line ends with a colon (``On ... wrote:``, ``30.11.2026, 21:08, X:``).
    The first run that is not ends the block and is kept, and so is every line `keep` says is the writer's."""
    n, seen, dropped = start - 1, 0, False
    under: list[int] = []  # blank lines and rules above the last run dropped
    run: list[int] = []  # the run of labelled lines being read, lowest first
    while n >= 0 and seen < HEADER_LINES:
        line = lines[n]
        if _LABEL.match(line) and not (keep is not None and keep(line)):
            run.append(n)
            seen += 1
        else:
            if run:
                if not _the_clients(lines, run):
                    return
                for b in under + run:
                    drop[b] = True
                under, run, dropped = [], [], True
            if line.strip() and not set(line.strip()) <= _RULED:
                if dropped and MARKER.match(line):
                    drop[n] = True  # "-----Original Message-----" above the client's block
                if dropped:
                    for b in under:
                        drop[b] = True  # the rule above it: below it, an answer typed into the mail is read
                return
            under.append(n)
        n -= 1
    if run and _the_clients(lines, run):
        for b in under + run:
            drop[b] = True
    elif dropped and n < 0:
        for b in under:
            drop[b] = True  # the rule above the client's block, at the top of the mail


def _the_clients(lines: list[str], run: list[int]) -> bool:
    """A run of labelled lines (lowest first) a client wrote: two or more, or one ending with a colon."""
    return len(run) >= 2 or lines[run[0]].rstrip().endswith((":", "："))
