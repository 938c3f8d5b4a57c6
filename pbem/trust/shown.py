"""`pbem verify --mail`: the tables a report showed its reader, against the replayed view at its head.

A receipt's signature covers the receipt, not the report: `pbem.trust.told` reads back the lines under "What
happened", but a report's tables (the reader's hand and secret state, the public scores and tracks, the table)
were not compared with anything, so a true head could carry a false table: Alice shown 3 Gold too many in Bob's
treasury, or a card in her hand she does not hold (third fairness red team).  Every report prints its
sections from the engine's view of its reader (`pbem.app.reporting.player_report`, `mail/_sections.txt.j2`),
so once the seed is revealed the view can be replayed: the report's sections must be those of the reader's
view of the state after the inputs up to its head, or of one of the states the record went through before the
reader's next visible entry (another player's secret input may be applied before the report is written).

The report's opening lines (the turn, what is asked of the reader, who is awaited, the legal orders and
defaults: `mail/_asked.txt.j2`) are one more section (`OPENING`), their deadline's words left out (they hold the
time the mail was written; `pbem.trust.due` checks the deadline's time).
Each section is compared by its heading and its lines taken as a set: the rows of a table followed the order of
the keys of the engine's state in mail written before order13 (whether the state was just applied or loaded from
the record), and say nothing by their order (each row names its player or country).  A section the view lacks is a
mismatch too.  The HTML part's sections (`mail/_sections.html.j2`) are compared the same way (`html_sections`),
since most mail programs show that part; so are the pictures of the board (`pbem.trust.pictured`: drawn again
from the view its sections matched, compared by their decoded pixels), and every other word of both parts and the
subject (`pbem.trust.prose`: the report's templates rendered again from the replay and the export).
The text is not signed, so a report that differs is evidence for the player who holds it, not proof for
others.  Pure; the replay is linear in the record, each view rendered once per reader and position.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from pbem import engine as registry
from pbem.engine.base import Engine
from pbem.render.pictures import VERSION, VERSIONS, Picture
from pbem.render.templates import render
from pbem.trust import deal as joining
from pbem.trust import folded, pictured, prose, told
from pbem.trust.fold import Fold
from pbem.trust.quote import between, clip

MARK = "Private report for "
#: Headings the report template prints around the sections, which no view gives.
FIXED = ("Your message", "What happened since your last report", "The board (", "The game is over")

Sections = dict[str, list[str]]
#: The title line and what a report asks first (`pbem.render.asking.first_lines`, `mail/_asked.txt.j2`): compared
#: as one more section.
ITEM = ("<li>", "</li>")  # an item of a list on one line (`quote.between`: linear, a lazy pattern was not)
ASKED = '<section class="asked" id="asked">'
PARAGRAPH = re.compile(r'^(<p(?: class="lead")?>)(.*)(</p>)$')
HTML = "the HTML part's "  # a key of `html_sections`: the HTML part's sections, each by its <h2> line
OPENING = "the opening lines (the turn, what is asked of whom, the legal orders and defaults)"
#: The deadline's time in the opening lines, left out: it holds the render time ("in 2 days"), and the deadline
#: itself is `pbem.trust.due`'s to check.  Only the words `pbem.render.asking.due_phrase` writes are left out, and
#: only inside a sentence that states a deadline: any other word is compared (a deadline sentence that says more
#: was not), and so is "No deadline is set" (it was masked like a time, so a report could say there was no
#: deadline while the replay had one).  An honest pbem has a deadline whenever a step is open: every step opens
#: with one, and none is ever taken away (`Replay` renders the opening lines with a stand-in deadline, `UNDATED`).
_DATE = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d\d:\d\d UTC"
_DUE = rf"(?:(?:in \d{{1,6}} (?:minutes?|hours|days), )?{_DATE}|now \(it was due {_DATE}\))"
DEADLINE = re.compile(rf"^Deadline: {_DUE}\.$|; deadline {_DUE}\.$")
#: The deadline the replay's opening lines state: any time, since only that one is stated is compared.
UNDATED = "2000-01-03T00:00:00+00:00"


def sections(text: str, start: int = 0) -> Sections:
    """The sections `text` prints from offset `start`: each heading's title with its non-blank lines (a wide
    table's row block as one entry, so a row's cells stay with their row), sorted, up to the reply hint (its last
    occurrence, or of "Nothing is needed from you now"), else the record line; the template's own headings (`FIXED`) left out."""
    end = max(text.rfind("\n" + told.AFTER[0], start), text.rfind("\n" + told.AFTER[2], start), -1)
    end = end if end >= 0 else text.rfind("\n" + told.AFTER[1], start)
    out: Sections = {}
    current: list[str] | None = None
    for row in text[start : end if end >= 0 else len(text)].split("\n"):
        line = row.rstrip()
        if line.startswith("== ") and line.endswith(" =="):
            title = line[3:-3]
            current = None if title.startswith(FIXED) else out.setdefault(title, [])
        elif line.startswith("    ") and current:  # a wide table's row goes on (`text_table`): one row, one entry
            current[-1] += " " + line.strip()
        elif line and current is not None:
            current.append(line)
    return {title: sorted(lines) for title, lines in out.items()}


def opening(text: str) -> list[str]:
    """A report's opening lines (`OPENING`): its title line (the turn) and what it asks, of whom, with the legal
    orders and the defaults, sorted, the deadline's words left out (its time is `pbem.trust.due`'s)."""
    head, _, rest = text.partition("\n")
    ends = [at for at in (rest.find(MARK), rest.find("\n== ")) if at >= 0]
    asked = rest[: min(ends)] if ends else rest
    lines = [DEADLINE.sub(_undated, line.rstrip()) for line in asked.split("\n")]
    return sorted([head.rstrip(), *(line for line in lines if line)])


def _undated(m: re.Match[str]) -> str:
    return "; deadline -" if m.group().startswith(";") else "Deadline: -"


def html_sections(page: str) -> Sections:
    """The sections an HTML report prints (`mail/_sections.html.j2`: a line `<section>` or `<section
    class="private">`, its `<h2>` line, its lines up to `</section>`), each keyed by `HTML` and its `<h2>` line
    with its other lines, sorted (a table's rows as a set, as in the text)."""
    out: Sections = {}
    current: list[str] | None = None
    title = False
    for row in page.split("\n"):
        line = row.strip()
        if line in ("<section>", '<section class="private">'):
            current, title = [], True
        elif line == ASKED:  # the opening lines (`mail/_asked.html.j2`), their deadline's words left out
            current, title = out.setdefault(HTML + OPENING, []), False
        elif current is not None and title:
            current = out.setdefault(HTML + line, [])
            title = False
        elif line == "</section>":
            current = None
        elif line.endswith("</section>") and current is not None:  # "</pre></section>": orders on file end it
            current.append(line.removesuffix("</section>"))
            current = None
        elif line and current is not None:
            if line.startswith("<ul"):
                current += between(line, *ITEM)  # a list's items as a set too
            else:
                current.append(PARAGRAPH.sub(lambda m: m[1] + DEADLINE.sub(_undated, m[2]) + m[3], line))
    return {key: sorted(lines) for key, lines in out.items()}


def report_of(text: str, page: str = "") -> tuple[str, Sections, bool] | None:
    """(whom the report is for, the sections it prints) of a mail's plain text (`told.plain`) and HTML (`page`,
    `told.html`); None for a mail that is no report.  The sections are read after the "What happened" list
    (`told.listed`), else after the line naming the reader; the opening lines are one more section (`OPENING`).
    The last value says whether the mail has an HTML part (then its sections are compared, found or not)."""
    at = text.find(MARK)
    if at < 0:  # a report without the line naming its reader still has its board's note
        at = text.find(told.BOARD)
        if at < 0:
            return None
        reader = ""
    else:
        reader = text[at + len(MARK) :].split("\n", 1)[0].split(". ", 1)[0].rstrip(".")
    _, end = told.listed(text)
    return (
        reader,
        {OPENING: opening(text), **sections(text, end if end >= 0 else at), **html_sections(page)},
        bool(page),
    )


class Replay:
    """The states a finished game's record went through, replayed from its seed as `pbem verify` replays them
    (`pbem.trust.verify._replay`), kept at the input positions of the chain asked for."""

    def __init__(self, doc: dict[str, Any], rows: list[dict[str, Any]], wanted: set[int]) -> None:
        eng: Engine = registry.get(doc["game"]["kind"])
        players, seed, options = [str(p["name"]) for p in doc["players"]], str(doc["seed"]), doc["game"]["options"]
        self.reader: Callable[[dict[str, Any]], Engine] = lambda st: joining.step_engine(
            eng, st, players, seed, options
        )
        self.name = str(doc["game"]["name"])
        self.title = eng.title
        shared = folded.of(doc, rows)  # one fold for every check of a mailbox (`pbem.trust.folded`)
        # (each state folded when read: the shared fold keeps few, `pbem.trust.folded`)
        self.states: Mapping[int, dict[str, Any]] = (
            shared.states(wanted) if shared else self._replayed(doc, rows, wanted)
        )
        self._shown: dict[tuple[int, str], Sections | None] = {}
        self._views: dict[tuple[int, str], dict[str, Any]] = {}  # the view each `shown` rendered, for its pictures
        self._results: dict[tuple[int, str], dict[str, Any] | None] = {}  # the result each `_opening` gave
        self._asked: dict[tuple[int, str], bool] = {}  # whether the reader was asked anything there (`_opening`)
        self._boards: dict[tuple[int, str, int], list[Picture]] = {}  # the pictures of each view, by version
        self.deal = next((e.get("data") for e in doc.get("events", []) if e.get("kind") == "salts"), None)
        self._asked_html = ""  # the HTML opening lines `_opening` rendered last
        # the sections a report worded by an earlier pbem shows (`earlier`): its result's earlier summaries
        self._earlier: dict[tuple[int, str], list[Sections]] = {}
        self._next: dict[str, list[int]] = {}  # per reader: where the next run of another report starts (`runs`)
        self._kept: list[int] = []  # the positions kept, in order, and where each is among them
        self._at: dict[int, int] = {}

    def _replayed(self, doc: dict[str, Any], rows: list[dict[str, Any]], wanted: set[int]) -> dict[int, dict[str, Any]]:
        eng: Engine = registry.get(doc["game"]["kind"])
        players, seed, options = [str(p["name"]) for p in doc["players"]], str(doc["seed"]), doc["game"]["options"]
        state = joining.open_state(players) if "salts" in doc else eng.setup(players, seed, options)[0]
        states: dict[int, dict[str, Any]] = {0: state} if 0 in wanted else {}
        fold = Fold(state, self.reader, seed)
        last = max(wanted, default=0)
        for i, row in enumerate(rows, 1):
            if i > last:
                break
            if "lines" in row:
                out = fold.run(row["seq"], row["kind"], row["player"], row["lines"], state)
                if not out.accepted:
                    raise ValueError(f"input {row['seq']} is refused on replay")
                state = out.state
                if i in wanted:
                    states[i] = state
        return states

    def shown(self, position: int, reader: str) -> Sections | None:
        """The sections a report to `reader` prints at the state kept at `position` (None: no view for them)."""
        key = (position, reader)
        if key not in self._shown:
            state = json.loads(json.dumps(self.states[position], sort_keys=True))  # as the record stores it
            try:
                eng = self.reader(state)
                view = json.loads(json.dumps(eng.view(state, reader)))
                self._views[key] = view
                self._shown[key] = shown = {
                    OPENING: opening(self._opening(eng, state, view, reader, key)),
                    **sections(render("mail/_sections.txt.j2", sections=view["sections"])),
                    **html_sections(render("mail/_sections.html.j2", sections=view["sections"])),
                    **html_sections(self._asked_html),
                }
                result = self._results[key]
                self._earlier[key] = []
                for older in (result or {}).get("earlier", ()):  # the opening lines as an earlier pbem worded them
                    text = self._opening(eng, state, view, reader, key, str(older))
                    self._earlier[key].append({**shown, OPENING: opening(text), **html_sections(self._asked_html)})
                if self._earlier[key]:  # `_opening` for the earlier forms left its own HTML and result: this one's
                    self._opening(eng, state, view, reader, key)
            except (KeyError, ValueError, TypeError, IndexError):
                self._shown[key] = None
        return self._shown[key]

    def runs(self, span: list[int], reader: str) -> list[int]:
        """The positions of `span` (positions kept, in order, with none kept between them left out) where the
        report to `reader` differs from the one at the position before: a report compared with each state of its
        window compares once with each run of states that show the same (its sections, the view its pictures and
        prose are drawn from, the result), as many reports that share a window (answers to STATUS while another
        player revises a hidden answer) each compared with every state of it cost their number times its length."""
        if len(span) <= 1:
            return span
        if not self._kept:
            self._kept = sorted(self.states)
            self._at = {q: t for t, q in enumerate(self._kept)}
        kept = self._kept
        if reader not in self._next:

            def same(q: int) -> str:
                sections, key = self.shown(q, reader), (q, reader)
                return json.dumps([sections, self._views.get(key), self._results.get(key)], sort_keys=True, default=str)

            new, before = [], None  # whether each differs from the one before (one key held at a time)
            for q in kept:
                key = same(q)
                new.append(key != before)
                before = key
            nxt = [len(kept)] * len(kept)
            for t in range(len(kept) - 2, -1, -1):
                nxt[t] = t + 1 if new[t + 1] else nxt[t + 1]
            self._next[reader] = nxt
        nxt, t, last, out = self._next[reader], self._at[span[0]], self._at[span[-1]], []
        while t <= last:
            out.append(kept[t])
            t = nxt[t]
        return out

    def pictures(self, position: int, reader: str, version: int = VERSION) -> pictured.Shown:
        """The pictures a report to `reader` shows at the state kept at `position` (after `shown` gave its view),
        in the layout `version` (`pbem.render.pictures.VERSIONS`)."""
        return [(p.png, p.alt) for p in self._drawn((position, reader), version)]

    def _drawn(self, key: tuple[int, str], version: int = VERSION) -> list[Picture]:
        if (*key, version) not in self._boards:
            self._boards[(*key, version)] = pictured.drawn(self._views[key], version)
        return self._boards[(*key, version)]

    def said(
        self, doc: dict[str, Any], position: int, seat: list[str], mail: prose.Said, record: Any, version: int = VERSION
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The prose a report to `seat[0]` prints at the state kept at `position` (after `shown` gave its view),
        with what is the mail's own (`pbem.trust.prose.expected`); its figure's size that of the pictures' layout
        `version`, the one its pictures were found drawn in."""
        key = (position, seat[0])
        head = (self.title, str(self._views[key].get("turn", "")))
        figures = [{"cid": "", "width": p.width, "height": p.height, "alt": p.alt} for p in self._drawn(key, version)]
        asked = self._asked.get(key, False)
        return prose.expected(doc, seat, mail, figures, self._results[key], record, self.deal, head, asked)

    def earlier(self, position: int, reader: str) -> list[Sections]:
        """The sections a report to `reader` at `position` shows in the words of an earlier pbem (after `shown`): a
        House of Habsburg tie's result before walk8 named no HH-R3 in its opening lines (walk9: such a final
        report was refused by `pbem verify --mail`)."""
        return self._earlier.get((position, reader), [])

    def _opening(
        self,
        eng: Engine,
        state: dict[str, Any],
        view: dict[str, Any],
        reader: str,
        key: tuple[int, str],
        summary: str | None = None,
    ) -> str:
        """The opening lines a report to `reader` prints at `state` (`mail/report.txt.j2`, `mail/_asked.txt.j2`:
        `pbem.app.reporting.player_report`'s values), without a deadline; `summary`: the result's in an earlier
        pbem's words (`Result.earlier`)."""
        requests = eng.requests(state)
        result = eng.result(state)
        asked = [
            {"prompt": r.prompt, "syntax": list(r.syntax), "legal": list(r.legal), "default": list(r.default),
             "on_file": list(r.on_file), "answered": r.answered}
            for r in requests
            if r.player == reader
        ]  # fmt: skip
        title = f'{eng.title}, game "{self.name}": {view["turn"]}\n\n'
        ctx = {
            "asked": asked,
            "waiting": sorted({r.player for r in requests if not r.answered}),
            "due_at": UNDATED,  # an open step always has a deadline (`DEADLINE`); its time is left out
            "now": None,
            "result": None
            if result is None
            else {"summary": summary or result.summary, "scores": result.scores}
            | ({"earlier": list(result.earlier)} if result.earlier else {}),
            "player": reader,
        }
        self._results[key] = ctx["result"]  # type: ignore[assignment]
        self._asked[key] = bool(asked)
        self._asked_html = render("mail/_asked.html.j2", **ctx)
        return title + render("mail/_asked.txt.j2", **ctx)


def windows(inputs: list[int], heads: list[tuple[int, int]]) -> list[list[int]]:
    """For each (head position, the reader's next visible position) the input positions whose state a report at
    that head may show: the last input at or before the head (0: the set-up), and every one before the next."""
    out = []
    for at, upto in heads:
        i = bisect.bisect_right(inputs, at)
        out.append([inputs[i - 1] if i else 0, *inputs[i : bisect.bisect_left(inputs, upto)]])
    return out


def differs(got: Sections, want: Sections) -> str:
    """How a report's sections differ from the view's, in one phrase naming the section and a line."""
    for title, lines in sorted(want.items(), key=lambda item: item[0] == OPENING):  # the tables' first
        if title not in got:
            return f'has no section "{title}"'
        if got[title] != lines:
            extra = [x for x in got[title] if x not in lines]
            missing = [x for x in lines if x not in got[title]]
            said = f'shows "{clip(extra[0].strip())}"' if extra else f'leaves out "{clip(missing[0].strip())}"'
            return f'{said} under "{clip(title)}"' + (
                f' where the replay gives "{clip(missing[0].strip())}"' if extra and missing else ""
            )
    extra_title = next(t for t in got if t not in want)
    return f'has a section "{clip(extra_title)}" that the view of the replayed game does not give'


def _after(positions: list[int], at: int, end: int) -> int:
    """The first of the sorted `positions` after `at`, else `end`."""
    i = bisect.bisect_right(positions, at)
    return positions[i] if i < len(positions) else end


Report = tuple[int, str, tuple[str, Sections, bool]]  # (head's chain position, how the mail is named, `report_of`)


def _pictured(replay: Replay, pics: pictured.Read, matched: list[int], reader: str, version: int) -> bool:
    """Whether a mail's pictures are the replay's, in the layout `version`, at one of the states `matched`."""
    return any(pictured.alike(pics, replay.pictures(q, reader, version)) for q in matched)


def untrue(
    doc: dict[str, Any],
    rows: list[dict[str, Any]],
    reports: list[Report],
    names: list[str],
    seen: list[int],
    pictures: list[pictured.Read | None] | None = None,
    prose_of: list[tuple[prose.Said, Any] | None] | None = None,
) -> list[tuple[int, str, str]]:
    """Each (position, mail name, how it differs) of `reports` whose sections are those of no state its head allows
    (`windows`), or whose pictures (`pictures`, one per report: None for a mail without an HTML part) are not
    those of any such state its sections are (`pbem.trust.pictured`), or whose prose (`prose_of`, one per report:
    its `pbem.trust.prose.Said` and its receipt) is not (`pbem.trust.prose`).  `rows`: the chain in order; `names`: the
    reader's seat's (their own first); `seen`: the positions one of them may see (`_Chain.seen_by_seat`).  Raises ValueError when the
    record cannot be replayed (`pbem verify` says why)."""
    inputs = [i for i, row in enumerate(rows, 1) if "lines" in row]
    end = len(rows) + 1
    upto = [_after(seen, at, end) for at, _, _ in reports]
    spans = windows(inputs, [(at, nxt) for (at, _, _), nxt in zip(reports, upto)])
    replay = Replay(doc, rows, {q for span in spans for q in span})
    out = []
    for i, ((at, name, (whom, got, pages)), span) in enumerate(zip(reports, spans)):
        reader = whom if whom in names else names[0]  # (a mail without an HTML part shows its text only)
        wanted = [
            (q, {k: v for k, v in w.items() if pages or not k.startswith(HTML)})
            for q in replay.runs(span, reader)
            if (shown := replay.shown(q, reader)) is not None
            for w in (shown, *replay.earlier(q, reader))
        ]
        if wanted and got not in [w for _, w in wanted]:
            out.append((at, name, differs(got, wanted[0][1])))
            continue
        pics = pictures[i] if pictures is not None and pages else None
        matched = [q for q, w in wanted if w == got]
        version = VERSION
        if pics is not None and matched:  # the layout the pictures were drawn in: a mail an older pbem drew, version 1
            version = next((v for v in VERSIONS if _pictured(replay, pics, matched, reader, v)), 0)
            if not version:
                out.append((at, name, pictured.differs(pics, replay.pictures(matched[0], reader))))
                version = VERSION
        mail = prose_of[i] if prose_of is not None else None
        if mail is not None and matched:
            seat = [reader, *(n for n in names if n != reader)]
            wants = [replay.said(doc, q, seat, *mail, version) for q in matched]
            if mail[0].lines not in [text for text, _ in wants]:
                out.append((at, name, prose.differs(mail[0].lines, wants[0][0])))
            elif pages and mail[0].html not in [page for _, page in wants]:
                out.append((at, name, "in its HTML part " + prose.differs(mail[0].html, wants[0][1])))
    return out
