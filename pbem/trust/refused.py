"""`pbem verify --mail`: the reasons an acknowledgement gives for refusing a player's lines, worked out again.

A message refused whole ("NOTHING WAS APPLIED") leaves no input in the record: the export says it was refused and,
to its sender, why ("'line': reason; ..."), and the acknowledgement quotes each line "ok" or "NO" with the reason
and what would be accepted.  Both are the moderator's word (fifth round: the lines quoted as refused must be the
ones the record's reason names, no more): he could refuse a valid order with a made-up reason ("you are not asked
anything now") and never apply it, and every check passed.  What pbem refuses, and how it words the refusal, is a
pure function of the game's state, the player and the lines (the engine and the intake's reading), so once the
seed is out the state the message met can be replayed and the reading run again: each acknowledgement of a
refused message must say what pbem says of the lines it quotes, and of the player's orders on file and who is
awaited (from the same state, as the intake says them), in the text and the HTML part, at its head's state
or at one the record went through before the reader's next visible entry (another player's hidden input may have
been applied first: `pbem.trust.shown.windows`).  A refusal of lines pbem's reading accepts is named as such.

The reading lives in the use cases (`pbem.app.rereading.refused`), passed in as `Reread`.  Compared only where
every line of the message is quoted whole: not past "... and N more lines not shown" nor for a line cut at
`pbem.trust.acked.LINE_CHARS`.  The lines are re-read in the order quoted: lines refused alike are quoted
together under the first of them, so a later one may have stood after other lines in the message; a refused line
changes nothing, so its reading is the same.  The acknowledgement's text is not signed: a mismatch is the player's
evidence, not proof for others.  Linear in the mail and in the refusals: the state the export's order of messages
says the message met is read first (an honest refusal: one reading), then the window's from its head, at most
`STATES` states a refusal (`untrue`).
"""

from __future__ import annotations

import bisect
import html
import json
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from pbem.engine.base import Engine
from pbem.engine.views import as_kept
from pbem.trust import acked, shown, told
from pbem.trust import deal as joining
from pbem.trust.quote import apart, clip

#: The game's engine for a state, the state, the player, the lines -> (text, HTML) pbem's acknowledgement writes
#: for them, with the player's orders on file and who is awaited; without "NOTHING WAS APPLIED" when it would
#: accept them (`pbem.app.rereading.refused`).
Reread = Callable[[Engine, dict[str, Any], str, list[str]], tuple[str, str]]
#: The game's engine for a state, the state, the player, a line they wrote as an order in a sentence ("I vote red")
#: -> the note pbem's acknowledgement writes for it there, its "write it as:" hint; "" when it writes none
#: (`pbem.app.rereading.hint`).
Hint = Callable[[Engine, dict[str, Any], str, str], str]
#: The game's engine for a state, the state, the player, the lines of a held message -> (line, reason) of each line
#: the deadline could not apply there, as the held_failed notice quotes them; [] when it applies them
#: (`pbem.app.rereading.failed`).
Failed = Callable[[Engine, dict[str, Any], str, list[str]], list[tuple[str, str]]]


class Readings(NamedTuple):
    """pbem's readings `pbem verify --mail` asks besides a refusal's (`Reread`): a "write it as:" hint's, and a
    held_failed notice's reasons.  None: not worked out again."""

    hint: Hint | None = None
    failed: Failed | None = None


_OK, _NO = "  ok   ", '  NO   "'
_HTML_START, _HTML_END = "<p><strong>Nothing was applied</strong>", "</tbody></table>"
CUT = "\u2026"  # how a quoted line longer than `acked.LINE_CHARS` ends


def block(text: str) -> list[str] | None:
    """The refusal an acknowledgement's text prints: "NOTHING WAS APPLIED:" and the line after it, a blank line,
    its rows up to the next blank line, and the count of lines not shown when there is one (each line without
    trailing blanks); None when the text has none."""
    rows = [row.rstrip() for row in text.split("\n")]
    start = next((i for i, row in enumerate(rows) if row.startswith(acked.REFUSED)), None)
    if start is None:
        return None
    out: list[str] = []
    blanks = 0
    for k in range(start, len(rows)):
        if not rows[k]:
            blanks += 1
            if blanks == 2:
                if k + 1 < len(rows) and rows[k + 1].startswith("  ... and "):
                    out.append(rows[k + 1])
                break
        out.append(rows[k])
    return out


_ON_FILE, _FILED, _WAITING = "Orders now on file for you", "    (on file) ", "Still awaited from: "
_HTML_STATUS = re.compile(
    r"<p>Orders now on file for you:</p><pre>[^<]{0,100000}</pre>|<p>Still awaited from: [^<]{0,20000}</p>"
)


def status(text: str) -> list[str]:
    """What an acknowledgement's text says of the game besides the refusal: the player's orders on file and who is
    awaited (`mail/_ack_body.txt.j2`, from the state the message met)."""
    out: list[str] = []
    listing = False
    for row in (row.rstrip() for row in text.split("\n")):
        listing = row.startswith(_ON_FILE) or (listing and row.startswith(_FILED))
        if listing or row.startswith(_WAITING):
            out.append(row)
    return out


def html_status(page: str) -> list[str]:
    """`status` of an acknowledgement's HTML part."""
    return _HTML_STATUS.findall(page)


def html_block(page: str) -> str:
    """The refusal an acknowledgement's HTML part prints: its paragraph and table ("" when it has none), each list of
    what would be accepted in one form: a line each since walk7 (on a phone the orders ran together, one wrapped
    into the next), a space between them in the mails written before, which say the same."""
    start = page.find(_HTML_START)
    end = page.find(_HTML_END, start) if start >= 0 else -1
    return _LISTED.sub(_spaced, page[start : end + len(_HTML_END)]) if end >= 0 else ""


_LISTED = re.compile(r"would be accepted:((?:<br><code>[^<>]{0,4000}</code>){1,100})")
_CODE = re.compile(r"<code>([^<>]{0,4000})</code>")


def _spaced(m: re.Match[str]) -> str:
    return "would be accepted: " + "".join(f"<code>{c}</code> " for c in _CODE.findall(m.group(1)))


def quoted(rows: list[str]) -> list[str] | None:
    """The player's lines a refusal quotes ("ok" and "NO" rows), in its order; None when they are not all there
    whole (some "not shown", or one cut at `acked.LINE_CHARS`)."""
    out = []
    for row in rows:
        if row.startswith(_OK):
            out.append(row[len(_OK) :])
        elif row.startswith(_NO) and row.endswith('"'):
            out.append(row[len(_NO) : -1])
        elif row.startswith("  ... and "):
            return None
    if not out or any(len(line) >= acked.LINE_CHARS and line.endswith(CUT) for line in out):
        return None
    return out


Refusal = tuple[int, int, str, str, str]  # (head's position, the reader's next visible position, name, text, HTML)


#: At most this many states of a refusal's window are read (the one the export's order of messages says the message
#: met first, then the window's from its head): each costs a reading, and a window is as long as the run of other
#: players' entries hidden from the reader, so reading every state for every refusal cost refusals times that run.
STATES = 32
#: A refusal in a longer window that the export's order of messages does not place reads on past them, from one
#: budget for the whole mailbox of as many states as the record has inputs (at most one more replay's worth of
#: readings): a refusal forged in one long window is named, and only what the budget leaves unread is set aside
#: (tenth round: every such refusal was set aside, its first 32 states read).


def untrue(
    doc: dict[str, Any],
    rows: list[dict[str, Any]],
    refusals: list[Refusal],
    seat: list[str],
    reread: Reread,
    replying: list[str] | None = None,
    aside: list[tuple[int, str, int]] | None = None,
    wrote: dict[str, list[str]] | None = None,
    seeming: Hint | None = None,
) -> list[tuple[int, str]]:
    """(position, what differs) of each refusal whose words are not pbem's reading of the lines it quotes at any
    state its head allows.  `rows`: the chain in order; `seat`: the reader's names; `replying`: the Message-ID each
    refusal answers (the state the export's order of messages says it met is read first: `_Met`).  At most `STATES`
    states of a window are read: a refusal none of them matches is named when that order placed it (pbem's reading
    at the state the export itself says the message met differs), else added to `aside` as (position, name, the
    states its window holds).  `wrote`: by a refusal's name, every order line of the message it answers as the poll
    read it (the player's Sent folder, `pbem verify --sent`): a refusal that quotes only its first lines ("... and N
    more lines not shown") or cuts a line is compared with pbem's reading of them all, which cuts it the same way;
    without them it is left out.  `seeming`: pbem's "write it as:" note for a line written as an order in a
    sentence; a state matches only where the refusal's notes of that form are pbem's there too (`hinted`).  Raises
    ValueError (and the others `pbem.trust.shown.Replay` raises) when the record cannot be replayed."""
    inputs = [i for i, row in enumerate(rows, 1) if "lines" in row]
    spans = shown.windows(inputs, [(at, upto) for at, upto, _, _, _ in refusals])
    replay = shown.Replay(doc, rows, {q for span in spans for q in span})
    met = _Met(doc, rows, inputs)
    out = []
    budget = len(inputs)  # states read past `STATES` for all the refusals together
    for k, ((at, _, name, text, page), span) in enumerate(zip(refusals, spans)):
        got, got_html = block(text) or [], html_block(page)
        lines = quoted(got)
        if lines is None:
            lines = (wrote or {}).get(name)
        if lines is None:
            continue
        hint = met.of(span, replying[k] if replying and k < len(replying) else "")
        order = [hint, *(q for q in span if q != hint)] if hint is not None else span
        hints = hinted_notes(text, page) if seeming is not None else []
        said = (got, status(text), html_block(page) if page else None, html_status(page) if page else None)
        read = order if hint is None else order[:STATES]  # (unplaced: read on past `STATES` while the budget lasts)
        matched, first, misled, used, whole = _matches(replay, read, seat, lines, reread, said, hints, seeming, budget)
        budget -= used
        if matched or first is None:
            continue
        if hint is None and not whole:
            if aside is not None:
                aside.append((at, name, len(order)))
        else:
            how = misled or _how(got, got_html if page else None, lines, *first)
            out.append((at, f"{name} {how or _how_status(text, page, *first)}"))
    return out


def _matches(
    replay: shown.Replay,
    span: list[int],
    seat: list[str],
    lines: list[str],
    reread: Reread,
    said: tuple[Any, ...],
    hints: list[tuple[str, str]],
    seeming: Hint | None,
    budget: int,
) -> tuple[bool, tuple[str, str] | None, str, int, bool]:
    """(whether pbem's reading of `lines` at a state of `span` says what a refusal `said` (its block and status, in
    the text and the HTML part, its hints too), pbem's words at the first state read, how its hints differ where
    only they do, the states read past the first `STATES` positions, whether every state of `span` was read).  Past
    those positions at most `budget` states are read (a state equal to one read before costs nothing)."""
    got, got_status, got_html, html_said = said
    first: tuple[str, str] | None = None
    misled = ""
    past: set[int] = set()
    head = set(span[:STATES])
    for q, text_want, html_want, eng, state, player in _readings(replay, span, seat, lines, reread):
        if q not in head and q not in past:
            if len(past) == budget:
                return False, first, misled, len(past), False
            past.add(q)
        if (block(text_want), status(text_want)) == (got, got_status) and (
            got_html is None or (html_block(html_want), html_status(html_want)) == (got_html, html_said)
        ):
            why = hinted(hints, seeming, eng, state, player) if seeming is not None else ""
            if not why:
                return True, first, misled, len(past), True
            misled = misled or why
        first = first or (text_want, html_want)
    return False, first, misled, len(past), True


class _Met:
    """The state a refused message met by the export's order of messages (pbem records each message as it handles
    it): the last input of its window whose message comes before it there, read first so that an honest refusal
    costs one reading.  Only a hint: every state of the window stays allowed (the order is the moderator's word)."""

    def __init__(self, doc: dict[str, Any], rows: list[dict[str, Any]], inputs: list[int]) -> None:
        self.order: dict[str, int] = {}
        twice: set[str] = set()
        for i, m in enumerate(doc.get("messages") or ()):
            mid = _key(m.get("message_id")) if isinstance(m, dict) else ""
            if mid in self.order:
                twice.add(mid)
            self.order.setdefault(mid, i)
        for mid in twice | {""}:
            self.order.pop(mid, None)
        self.at = {q: t for t, q in enumerate(inputs)}
        # each input's message's place in that order (-1: none), and where the run of rising places that ends at
        # it starts: a window inside one run is in its messages' order, so its hint is found by bisection
        self.places = [self.order.get(_key(rows[q - 1].get("message_id")), -1) for q in inputs]
        self.run: list[int] = []
        for t, place in enumerate(self.places):
            if place < 0:
                self.run.append(t + 1)
            else:
                self.run.append(self.run[t - 1] if t > 0 and place > self.places[t - 1] >= 0 else t)

    def of(self, span: list[int], replying: str) -> int | None:
        """The position of `span` whose state the message `replying` met by the order of messages: the last input
        after the window's first whose message comes before it, else the first; None when that order does not say
        (the message, or an input after the first, not in it, or those inputs not in their messages' order)."""
        place = self.order.get(_key(replying))
        if place is None or not span:
            return None
        if len(span) == 1:
            return span[0]
        lo, hi = self.at.get(span[1]), self.at.get(span[-1])
        if lo is None or hi is None or self.run[hi] > lo:
            return None
        return span[bisect.bisect_left(self.places, place, lo, hi + 1) - lo]


def _key(value: Any) -> str:
    """A Message-ID as `pbem.trust.receipts.message_key` compares it."""
    return "".join(str(value or "").split()).strip("<>").lower()[:998]


_SEEMING = '" was not read as an order: an order line starts with its order word, so write it as: '


def html_may_hint(raw: bytes) -> bool:
    """Whether a mail's HTML part may hold a "write it as:" note `hinted_notes` reads, without parsing it: each is a
    paragraph whose words start with an escaped quote, so a mail whose parts read as written (`told.readable`) and
    never say `<p>&#34;` holds none.  Its raw bytes were searched for "write it as" before, which a soft line break
    of quoted-printable, an escape ("=77rite") or base64 hides (tenth round)."""
    low = told.readable(raw)
    return low is None or b"<p>&#34;" in low


def hinted_notes(text: str, page: str = "") -> list[tuple[str, str]]:
    """(the line quoted, the whole note) of each "write it as:" note an acknowledgement's text prints (`NOTE "I vote
    red" was not read as an order: ... so write it as: VOTE red`), then each its HTML part `page` prints (a
    paragraph of its own, `mail/_ack_body.html.j2`) that the text does not; a note cut at `acked.LINE_CHARS` is left
    out."""
    notes = [row.rstrip()[len(acked.NOTE) :] for row in text.split("\n") if row.startswith(acked.NOTE + '"')]
    paragraphs = (chunk.partition("</p>") for chunk in page.split("<p>")[1:]) if page else ()
    notes += [html.unescape(body) for body, sep, _ in paragraphs if sep and body.startswith("&#34;")]
    out: list[tuple[str, str]] = []
    for note in notes:
        typed, sep, offered = note[1:].rpartition(_SEEMING)
        if sep and offered and not offered.endswith(CUT) and (typed, note) not in out:
            out.append((typed, note))
    return out


def hinted(hints: list[tuple[str, str]], hint: Hint, eng: Engine, state: dict[str, Any], player: str) -> str:
    """How the first of `hints` (`hinted_notes`) that is not pbem's note at `state` differs from it, in one phrase
    ("" when each is): the order a "write it as:" offers is pbem's reading of the line at the game's state, so one
    the moderator made up (another order, one the engine refuses) would have the player send what pbem never
    offered."""
    for typed, note in hints:
        try:
            want = hint(eng, state, player, typed)
        except (KeyError, ValueError, TypeError, IndexError, AttributeError):
            want = ""  # (no note pbem could write there)
        if want != note:
            offered = note.rpartition(_SEEMING)[2]
            read = (
                f'"{clip(want.rpartition(_SEEMING)[2])}"'
                if want
                else "no order for it (it is no order the game takes alone there)"
            )
            said = f'tells you to write "{clip(typed)}" as "{clip(offered)}"'
            return f"{said}, where pbem's reading of that line offers {read}"
    return ""


def hints_untrue(
    doc: dict[str, Any], rows: list[dict[str, Any]], acks: list[Refusal], seat: list[str], seeming: Hint
) -> tuple[list[tuple[int, str]], list[tuple[int, str, int]]]:
    """The "write it as:" hints of answers that refuse no lines (orders applied, held until the deadline, or none
    found), each as a `Refusal`: (position, what differs) of each whose hints are pbem's at no state of its head's
    window (`shown.windows`: the message met the state at its head, or one after another player's hidden input; an
    answer naming an input, the state before it), and (position, name, the states its window holds) of each not placed in the
    first `STATES` states of a longer one.  Raises as `untrue`."""
    inputs = [i for i, row in enumerate(rows, 1) if "lines" in row]
    spans = shown.windows(inputs, [(at, upto) for at, upto, _, _, _ in acks])
    replay = shown.Replay(doc, rows, {q for span in spans for q in span[:STATES]})
    out: list[tuple[int, str]] = []
    aside: list[tuple[int, str, int]] = []
    for (at, _, name, text, page), span in zip(acks, spans, strict=True):
        hints, misled = hinted_notes(text, page), ""
        for q in span[:STATES]:
            state = replay.states[q]
            if joining.is_joining(state):
                continue
            eng = replay.reader(state)
            whys = [hinted(hints, seeming, eng, state, player) for player in seat]
            if "" in whys:
                break
            misled = misled or whys[0]
        else:
            if misled and len(span) > STATES:
                aside.append((at, name, len(span)))
            elif misled:
                out.append((at, f"{name} {misled}"))
    return out, aside


def _readings(
    replay: shown.Replay, span: list[int], seat: list[str], lines: list[str], reread: Reread
) -> Iterator[tuple[int, str, str, Engine, dict[str, Any], str]]:
    """What pbem's reading says of `lines` at each position of `span`, for each name of the reader's seat, with the
    engine, the state and the name it was read at.  Since order13 no engine lists lines in the order of a state's
    keys (docs/architecture.md), so one reading of a state is pbem's now; a refusal written before listed them in the
    order the poll held the state in: loaded from the record (sorted keys, which lists what pbem lists now) or just
    applied, read second as replayed under `pbem.engine.views.as_kept`.  A state read before for these lines, the
    order of its keys included, is not read again."""
    done: set[tuple[str, bool]] = set()
    for q in span:
        state = replay.states[q]
        if joining.is_joining(state):
            continue  # (a JOIN's refusal is worded by the join step, and no acknowledgement of it says this)
        stored, kept = json.dumps(state, sort_keys=True), json.dumps(state)
        for key, earlier in ((stored, False), *(((kept, True),) if kept != stored else ())):
            if (key, earlier) in done:
                continue
            done.add((key, earlier))
            form = state if earlier else json.loads(stored)
            eng = replay.reader(form)
            for player in seat:
                try:
                    if earlier:
                        with as_kept():
                            said = reread(eng, form, player, lines)
                    else:
                        said = reread(eng, form, player, lines)
                except (KeyError, ValueError, TypeError, IndexError, AttributeError):
                    continue
                yield (q, *said, eng, form, player)


Status = tuple[int, str, str, str]  # (the input's position, the mail's name, its text, its HTML)


def status_untrue(
    doc: dict[str, Any], rows: list[dict[str, Any]], acks: list[Status], seat: list[str], reread: Reread
) -> list[tuple[int, str]]:
    """(position, what differs) of each acknowledgement of applied orders (its own mail) whose list of the player's
    orders on file and line of who is awaited are not the state's right after the input its receipt names (as
    `pbem.app.answering` writes them from the state the orders made).  Raises as `untrue`."""
    replay = shown.Replay(doc, rows, {n for n, _, _, _ in acks})
    out = []
    for n, name, text, page in acks:
        first: tuple[str, str] | None = None
        for _, text_want, html_want, *_ in _readings(replay, [n], seat, [], reread):
            if status(text_want) == status(text) and (not page or html_status(html_want) == html_status(page)):
                break
            first = first or (text_want, html_want)
        else:
            if first is not None:
                out.append((n, f"{name} {_how_status(text, page, *first)}"))
    return out


def _how(got: list[str], got_html: str | None, lines: list[str], text: str, html: str) -> str:
    """How the refusal (`got`, and `got_html` when the mail has an HTML part) differs from pbem's reading of its
    lines (`text`, `html`); "" when it does not (then what it says of the game does: `_how_status`)."""
    if block(text) is None:
        return (
            f"refuses your lines {clip('; '.join(lines))} (NOTHING WAS APPLIED), but pbem's reading of those very "
            "lines accepts them"
        )
    want = block(text) or []
    for a, b in zip(got, want, strict=False):
        if a != b:
            said, read = apart(a.strip(), b.strip())
            return f"says {said} where pbem's reading of the lines it quotes says {read}"
    if len(got) != len(want):
        more = (want[len(got)] if len(want) > len(got) else got[len(want)]).strip()
        return f'{"leaves out" if len(want) > len(got) else "adds"} "{clip(more)}" to what pbem\'s reading of the lines it quotes says'
    if got_html is not None and got_html != html_block(html):
        said, read = apart(got_html, html_block(html))
        return f"in its HTML part says {said} where pbem's reading of the lines it quotes says {read}"
    return ""


def _how_status(text: str, page: str, text_want: str, html_want: str) -> str:
    """How what the acknowledgement says of the game (orders on file, who is awaited) differs from the replay's."""
    for got, want, where in (
        (status(text), status(text_want), ""),
        (html_status(page), html_status(html_want), "in its HTML part "),
    ):
        if got != want:
            a = next((x for x in got if x not in want), "(nothing)")
            b = next((x for x in want if x not in got), "(nothing)")
            said, read = apart(a.strip(), b.strip())
            return f"{where}says {said} where the game replayed to the moment it answers says {read}"
    return "differs from pbem's reading of the lines it quotes"
