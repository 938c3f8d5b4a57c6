"""`pbem verify --mail`: what the acknowledgement of a JOIN says, against the join step the export records.

A JOIN's acknowledgement (`templates/mail/join_ack.*.j2`, written by `pbem.app.join.decide_join`) tells the player
whether they joined, under which seat, with which salt, and who is still awaited ("Waiting for: ...") or that the
cards are dealt.  Its receipt (`X-Pbem-Input`) binds the JOIN input, but the words were read by nobody (sixth
round's limits): the moderator could tell Alice "you have joined, Alice, with the salt "x"" over an input holding
another salt, tell her "you have already joined" when she had not (so that she never does, and he starts without
her salt), refuse a valid JOIN with a made-up reason, or tell her nobody else is awaited.  The join step is pure
and needs no seed until the deal (`pbem.trust.deal.JoinStep`), so each claim is compared with the record folded
to the acknowledgement's place (`untrue`): right after the input its receipt names, or (no input: a refusal) at
its head.  The reasons of a refused line must be the join step's reading of that line (`pbem.trust.deal.read_join`),
and every line of the text and paragraph of the HTML part one its template writes.  Pure; linear in the text and
in the record (one fold for all the acknowledgements of a mailbox).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import unescape
from typing import Any

from pbem.trust import deal as joining
from pbem.trust import spans
from pbem.trust.acked import FIXED_NOTES, NOTES, PARAGRAPHS
from pbem.trust.quote import apart, clip, quote

_FIRST = re.compile(r'\AYour message "(.{0,2000})" was read\.')
_FIRST_HTML = re.compile(r"\AYour message \u201c(.{0,2000})\u201d was read\.", re.S)
_JOINED = re.compile(r'Game (.{1,400}?): you have joined, (.{1,400}?), (?:with the salt "(.{0,800})"|without a salt)\.')
_JOINED_HTML = re.compile(
    r"Game (.{1,400}?): you have joined, (.{1,400}?), (?:with the salt \u201c(.{0,800})\u201d|without a salt)\. "
    r"Your salt is fixed now; it is published with the deal\.",
    re.S,
)
_ALREADY = re.compile(
    r"Game (.{1,400}?): you have already joined\. Your salt is fixed once given, so nothing was changed\."
)
_REFUSED = re.compile(r"Game (.{1,400}?): you have not joined yet; nothing in your message was applied:")
_WAITING = re.compile(r"\AWaiting for: (.{1,4000}?)\. The cards are dealt once every player has joined\.")
DEALT = "Every player has joined: the cards are dealt. Your first report follows."
FIXED = "Your salt is fixed now; it is published with the deal."
SEND = "Send JOIN alone on a line, and if you like a line SALT <any text>, in a reply (a new message needs your CODE line too)."
#: `SEND` as pbem wrote it up to walk8, which asked every sender for a CODE line a reply does not need
SENDS = (SEND, "Send JOIN alone on a line, and if you like a line SALT <any text>, with your CODE line.")
_RECEIPT = re.compile(r"\ARecorded as entry #\d{1,9} of the game's record as you may see it; its hash is")
KEEP = "Keep this mail: it is your receipt (pbem verify --mail checks it against the published history)."
_RECORD = re.compile(r"\ARecord #\d{1,9}, [0-9a-f]{16}\.\.\.")
_HASH = re.compile(r"\A  [0-9a-f]{64}")
NOTE = "  NOTE "
MAX_ROW = 2_000  # characters of a refused row read (pbem quotes a line of a JOIN's message whole: a salt is short)
#: Characters of a JOIN's acknowledgement read, text and HTML (pbem's are about 1 and 4 KB): a longer one is named
#: (its paragraphs' reading would cost more than linear).
MAX_TEXT, MAX_HTML = 50_000, 100_000
_ROW = "  '"
#: The markup of a JOIN's acknowledgement's HTML body (`join_ack.html.j2`, `_input.html.j2`, `_notice.html.j2`).
_TAGS = frozenset({"p", "code", "ul", "li"})
_ATTRIBUTES = frozenset({"", 'class="receipt"', 'class="record"', 'class="signature"'})
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]{0,20})([^<>]{0,400})>")
#: `<p(?: class="[a-z]{1,20}")?>(.{0,100000}?)</p>|<ul>(.{0,200000}?)</ul>` (re.S), read in time linear in the page
#: (`pbem.trust.spans`: searched, a run of "<p>" cost its square)
_BLOCK = (
    spans.Kind(re.compile(r'<p(?: class="[a-z]{1,20}")?>'), "</p>", 100_000),
    spans.Kind(re.compile(r"<ul>"), "</ul>", 200_000),
)
_ITEM = re.compile(r"<li><code>(.{0,2000}?)</code>: (.{0,2000}?)</li>", re.S)
_ANY_TAG = re.compile(r"<[^<>]{0,400}>")


def is_join_ack(text: str) -> bool:
    """Whether a mail's text is a JOIN's acknowledgement: its first line quotes the message it answers without
    naming the game (an acknowledgement of orders names it, `pbem.trust.acked`), and a line says what became of it."""
    first = text.lstrip().split("\n", 1)[0].rstrip()
    return bool(_FIRST.fullmatch(first)) and (": you have " in text and "\nGame " in text)


@dataclass
class Said:
    """What one part of a JOIN's acknowledgement says: the claims compared with the record, and its first words
    that are no line (or paragraph) pbem writes there ("" when none)."""

    game: str = ""
    claim: str = ""  # "joined", "already", "refused" ("" when it says none)
    player: str = ""
    salt: str | None = None  # the salt stated ("" without one); None: not stated
    rows: list[str] = field(default_factory=list)  # each refused line as "LINE': REASON" (the template's quote)
    waiting: list[str] | None = None  # "Waiting for: ..."'s names; None when it says none
    dealt: bool = False
    stray: str = ""


def _claim(said: Said, line: str, forms: tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]) -> bool:
    joined, already, refused = forms
    if m := joined.fullmatch(line):
        said.game, said.claim, said.player, said.salt = m[1], "joined", m[2], m[3] or ""
    elif m := already.fullmatch(line):
        said.game, said.claim = m[1], "already"
    elif m := refused.fullmatch(line):
        said.game, said.claim = m[1], "refused"
    elif m := _WAITING.fullmatch(line):
        said.waiting = m[1].split(", ")
    elif line == DEALT:
        said.dealt = True
    else:
        return False
    return True


def read_text(text: str, sender: str) -> Said:
    """The claims of a JOIN's acknowledgement's text part, each line read whole."""
    said = Said()
    rows = [row.rstrip() for row in text.split("\n")]
    sign = max((i for i, row in enumerate(rows) if row == "--"), default=len(rows))
    for i, row in enumerate(rows):
        if not row or i == sign:
            continue
        if i == sign + 1:
            if sender and row != sender:
                said.stray = said.stray or f'is signed "{clip(row)}" where its sender is named "{clip(sender)}"'
            continue
        if row.startswith(NOTE):
            note = row[len(NOTE) :]
            if note in FIXED_NOTES or any(p.fullmatch(note) for p in NOTES):
                continue
        elif row.startswith(_ROW):
            said.rows.append(row[len(_ROW) :])
            continue
        elif _fixed(row, i) or _claim(said, row, (_JOINED, _ALREADY, _REFUSED)):
            continue
        said.stray = said.stray or f"says {quote(row)}, a line pbem does not write in the acknowledgement of a JOIN"
    return said


def _fixed(row: str, i: int) -> bool:
    """A line of the text whose words are fixed (its receipt's, its hint's, its record line), or its first."""
    return bool(
        _HASH.fullmatch(row)
        or (i == 0 and _FIRST.fullmatch(row))
        or row in (FIXED, *SENDS, KEEP)
        or _RECEIPT.fullmatch(row)
        or _RECORD.fullmatch(row)
    )


def _words(inner: str) -> str:
    return unescape(_ANY_TAG.sub("", inner))


def read_html(page: str, sender: str) -> Said:
    """The claims of a JOIN's acknowledgement's HTML part (its body): each paragraph read whole, its markup the
    template's, nothing outside its paragraphs and list."""
    said = Said()
    start, end = page.find("<body>"), page.rfind("</body>")
    body = page[start + len("<body>") : end] if 0 <= start < end else page
    for m in _TAG.finditer(body):
        if m[2].lower() not in _TAGS or (m[3].strip() not in _ATTRIBUTES and not m[1]):
            said.stray = f"in its HTML part holds {clip(m[0])}, markup pbem does not write in a JOIN's acknowledgement"
            return said
    rest = spans.without(body, _BLOCK)
    if rest.strip():
        said.stray = f"in its HTML part says {quote(_words(rest).strip())} outside its paragraphs"
        return said
    first = True
    for block in spans.blocks(body, _BLOCK):
        if block.kind == 1:  # a list
            items = _ITEM.findall(block.inside)
            if _ITEM.sub("", block.inside).strip():
                said.stray = (
                    said.stray
                    or f"in its HTML part lists {quote(_words(block.inside))}, not as pbem lists refused lines"
                )
            said.rows += [f"{unescape(line)}': {_words(why)}" for line, why in items]
            continue
        line = _words(block.inside)
        if first and _FIRST_HTML.fullmatch(line):
            first = False
            continue
        first = False
        if 'class="signature"' in body[block.start : block.start + 30]:
            if sender and line != sender:
                said.stray = (
                    said.stray or f'in its HTML part is signed "{clip(line)}" where its sender is "{clip(sender)}"'
                )
            continue
        if line in (*SENDS, *FIXED_NOTES) or any(p.fullmatch(line) for p in (*NOTES, *PARAGRAPHS)):
            continue
        if _claim(said, line, (_JOINED_HTML, _ALREADY, _REFUSED)):
            continue
        said.stray = said.stray or f"in its HTML part says {quote(line)}, a paragraph pbem does not write there"
    return said


# --------------------------------------------------------------------------- the record folded


@dataclass(frozen=True)
class Step:
    """The join step at one place of the record: who joined, with which salt; the seats' names; dealt or not."""

    joined: dict[str, str]
    seats: list[str]
    dealt: bool


def states(doc: dict[str, Any], rows: list[dict[str, Any]], places: list[int]) -> dict[int, Step]:
    """The join step right after each of `places` (chain positions, 1-based: the state after every input among
    the first `place` entries), folded once; the places after an undo in the join step are left out when the seed
    is not out (the undo names its target by a mark the seed keys)."""
    from pbem import engine as registry
    from pbem.trust.fold import UNDO, Fold

    players = [str(p["name"]) for p in doc["players"]]
    seed, options = str(doc.get("seed") or ""), doc["game"]["options"]
    eng = registry.get(doc["game"]["kind"])
    state: dict[str, Any] = joining.open_state(players)
    fold = Fold(state, lambda st: joining.step_engine(eng, st, players, seed, options), seed or None)
    out: dict[int, Step] = {}
    wanted = sorted(set(places))
    k = 0
    for i, row in enumerate([None, *rows]):
        if row is not None and "lines" in row and joining.is_joining(state):
            if row["kind"] == UNDO and not seed:
                break
            state = fold.run(int(row["seq"]), str(row["kind"]), str(row["player"]), list(row["lines"]), state).state
        while k < len(wanted) and wanted[k] == i:
            dealt = not joining.is_joining(state)
            seats = joining.seated(state, players) if not dealt else []
            out[wanted[k]] = Step({} if dealt else dict(joining.joined(state)), seats, dealt)
            k += 1
    return out


def unfolded(doc: dict[str, Any], rows: list[dict[str, Any]], acks: list[Ack]) -> int:
    """How many of `acks` `untrue` leaves out: those at or after an undo in the join step, before the seed is out."""
    if doc.get("seed"):
        return 0
    from pbem.trust.fold import UNDO

    undo = next((i for i, row in enumerate(rows, 1) if row.get("kind") == UNDO and "lines" in row), None)
    return 0 if undo is None else sum((place if n is None else n) >= undo for place, n, *_ in acks)


def _reasons(line: str) -> set[str]:
    """The reasons the join step may give for refusing `line` in a message (`read_join`): its reading alone, and for
    a SALT line that reads as one, that only one SALT line is taken."""
    _, results = joining.read_join([line])
    out = {r.reason for r in results if not r.ok}
    if not out:
        m = re.match(r"^salt\b[:=]?\s*(.*)$", line.strip(), re.IGNORECASE | re.DOTALL)
        if m is not None:
            out.add("send one SALT line only: the salt is fixed once given")
    return out


def _row(row: str) -> tuple[str, str, bool]:
    """(line, reason, whether that reason is the join step's for that line) of a refused row "LINE': REASON"; a row
    longer than pbem writes one (a line of at most `SALT_MAX` + a few characters, a reason) is not split (each split
    is read: the square of the row's length)."""
    at = row.find("': ") if len(row) <= MAX_ROW else -1
    first = (row[:at], row[at + 3 :]) if at >= 0 else (row, "")
    while at >= 0:
        line, why = row[:at], row[at + 3 :]
        if why in _reasons(line):
            return line, why, True
        at = row.find("': ", at + 1)
    return first[0], first[1], False


Ack = tuple[int, int | None, str, str, str, dict[str, Any] | None]  # (place, input place, name, text, html, input)


def untrue(
    doc: dict[str, Any], rows: list[dict[str, Any]], acks: list[Ack], seat: list[str], sender: Callable[[str], str]
) -> list[tuple[int, str]]:
    """(place, how) of each JOIN's acknowledgement that says what the record does not: its game, the seat and the
    salt it names (the input its receipt names), whether the player had joined, the reasons of a refused line, who
    is awaited or that the cards are dealt; and any line or paragraph its template does not write.  `acks`: (its
    head's place, its input's place or None, its name, its text, its HTML, the input's row); `seat`: the reader's
    names; `sender`: the name a mail's signature must give.  Those after an undo in the join step are left out before
    the seed is out (`unfolded`)."""
    places = [p for place, n, *_ in acks for p in ((place,) if n is None else (n - 1, n))]
    found = states(doc, rows, places)
    game = str(doc["game"]["name"])
    out: list[tuple[int, str]] = []
    for place, n, name, text, page, row in acks:
        if (place if n is None else n) not in found:
            continue  # (after an undo in the join step, before the seed is out: `unfolded` counts them)
        before, after = (found[place], found[place]) if n is None else (found[n - 1], found[n])
        if len(text) > MAX_TEXT or len(page) > MAX_HTML:
            out.append((place, f"{name} is longer than any acknowledgement of a JOIN pbem writes: it was not read"))
            continue
        for part, said in (("", read_text(text, sender(name))), ("in its HTML part ", read_html(page, sender(name)))):
            if part and not page:
                continue
            how = said.stray or _wrong(said, before, after, game, seat, row)
            if how:
                out.append((place, f"{name} {'' if said.stray else part}{how}"))
                break
    return out


def _wrong(said: Said, before: Step, after: Step, game: str, seat: list[str], row: dict[str, Any] | None) -> str:
    """How the claims of one part differ from the join step before and after the message ("" when they agree)."""
    if not said.claim:
        return "says neither that you joined nor why not"
    if said.game != game:
        a, b = apart(said.game, game)
        return f"names the game {a} where the export's is {b}"
    if before.dealt:
        return "answers a JOIN as though the join step were open, but the record had dealt the cards by then"
    return _answer(said, before, seat, row) or _awaited(said, after)


def _answer(said: Said, before: Step, seat: list[str], row: dict[str, Any] | None) -> str:
    """How what one part says became of the JOIN differs from the record ("" when it agrees)."""
    mine = next((p for p in seat if p in before.joined), None)
    if said.claim == "joined":
        if row is None or row.get("kind") != "join":
            return "says you have joined, but its receipt names no JOIN input"
        who = str(row.get("player"))
        if said.player != who:
            a, b = apart(said.player, who)
            return f"says you joined as {a} where the JOIN input its receipt names is {b}'s"
        salt, _ = joining.read_join([str(x) for x in row.get("lines", [])])
        if said.salt != salt:
            a = quote(said.salt) if said.salt else "no salt"
            b = quote(salt) if salt else "no salt"
            return f"says you joined with {a} where the JOIN input its receipt names gives {b}"
        if said.rows:
            return f"quotes {quote(said.rows[0])} as refused in a JOIN it says was applied"
    elif said.claim == "already" and mine is None:
        return (
            "says you have already joined, but you had not joined at that point of the record (a JOIN you sent "
            "would have counted)"
        )
    elif said.claim == "refused":
        if mine is not None:
            return "says you have not joined yet, but the record has you joined by then"
        if not said.rows:
            return "refuses your JOIN without quoting a refused line"
        for quoted in said.rows:
            line, why, ok = _row(quoted)
            if not ok:
                reasons = _reasons(line)
                if not reasons:
                    return f"refuses your line {quote(line)}, but the join step's reading of that line accepts it"
                a, b = apart(why, sorted(reasons)[0])
                return f"refuses your line {quote(line)} saying {a}, where the join step's reading says {b}"
    return ""


def _awaited(said: Said, after: Step) -> str:
    """How who one part says is awaited (or that the cards are dealt) differs from the record after the JOIN."""
    if after.dealt:
        if said.waiting is not None or not said.dealt:
            return "does not say the cards are dealt, but its JOIN completed the step and the record deals them"
        return ""
    want = sorted(p for p in after.seats if p not in after.joined)
    if said.dealt:
        return f"says every player has joined and the cards are dealt, but the record still awaits {', '.join(want)}"
    if (said.waiting or []) != want:
        told, awaited = ", ".join(said.waiting or []) or "nobody", ", ".join(want) or "nobody"
        a, b = apart(told, awaited)
        return f"says it is waiting for {a} where the record awaits {b}"
    return ""


# --------------------------------------------------------------------------- the invitation (and STATUS) of a join step

_INVITED = re.compile(r'\A\s*[^\n]{1,400}, game "([^\n]{1,400})": joining\n')
_INVITE_CLAIMS = {
    "players": re.compile(r"^Players(?:, in seat order)?: ([^\n]{1,4000}?)\.$", re.M),  # the words before walk10
    "waiting": re.compile(r"^Waiting for: ([^\n]{1,4000}?)\.$", re.M),
    "commitment": re.compile(r"commitment is\s{1,8}([0-9a-f]{64})\b"),
    "for": re.compile(r"^Private mail for ([^\n]{1,400}?)\.(?: Do not forward it|$)", re.M),
    "joined": re.compile(
        r'^You have joined (?:with the salt [\u201c"]([^\n]{0,800})[\u201d"]|without a salt)\. Nothing', re.M
    ),
    "asked": re.compile(r"^To take your seat, reply to this message", re.M),
    "key": re.compile(
        r"^Every mail about this game is signed with the game's key, fingerprint ([0-9a-f ]{1,80})\.$", re.M
    ),
}


_JOIN_BY = re.compile(
    r"^(?:Join by: (\d{4}-\d\d-\d\d \d\d:\d\d) UTC\. |The others have until (\d{4}-\d\d-\d\d \d\d:\d\d) UTC to join\.)",
    re.M,
)


def join_by(text: str) -> datetime | None:
    """The join deadline an invitation's text states ("Join by: ..."; to one who joined, "The others have until ...
    to join."), None when it states none."""
    m = _JOIN_BY.search(text)
    if m is None:
        return None
    return datetime.strptime(m[1] or m[2], "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


def joins_by(text: str, page: str) -> list[datetime]:
    """The join deadlines an invitation states, its text part's then its HTML part's if another (`join_by`)."""
    out: list[datetime] = []
    for words in (text, _flat(page) if page else ""):
        if words and (when := join_by(words)) is not None and when not in out:
            out.append(when)
    return out


def is_invitation(text: str) -> bool:
    """Whether a mail's text is the invitation of a join step (or STATUS while it is open: the same mail)."""
    return bool(_INVITED.match(text))


def _flat(page: str) -> str:
    """An HTML part's words, a paragraph a line (what `_INVITE_CLAIMS` reads in the text part)."""
    start, end = page.find("<body>"), page.rfind("</body>")
    body = page[start + len("<body>") : end] if 0 <= start < end else page
    return unescape(_ANY_TAG.sub("", body.replace("</p>", "</p>\n").replace("</h1>", "</h1>\n")))


def invitation_untrue(text: str, page: str, step: Step, seat: list[str], commitment: str, fingerprint: str) -> str:
    """How an invitation to join (its text, then its HTML part) differs from the join step at its head ("" when it
    agrees): the seats in order, who is awaited (in seat order), whom it is for and whether they had joined (with
    which salt), the seed commitment it states and the key's fingerprint.  Its receipt binds only the head and the
    commitment header: the words the player reads were the moderator's (seventh round)."""
    if len(text) > MAX_TEXT or len(page) > MAX_HTML:
        return "is longer than any invitation pbem writes: it was not read"
    if step.dealt:
        return "invites you to join, but the record had dealt the cards by then"
    want = {
        "players": ", ".join(step.seats),
        "waiting": ", ".join(p for p in step.seats if p not in step.joined),
        "commitment": commitment,
        "key": fingerprint,
    }
    mine = next((p for p in seat if p in step.joined), None)
    for part, words in (("", text), ("in its HTML part ", _flat(page) if page else "")):
        if not words:
            continue
        for what, pattern in _INVITE_CLAIMS.items():
            for m in pattern.finditer(words):
                got = m[1] if m.groups() else ""
                how = _invited(what, got, want, mine, step, seat)
                if how:
                    return part + how
    return ""


def _invited(what: str, got: str | None, want: dict[str, str], mine: str | None, step: Step, seat: list[str]) -> str:
    if (what in want and what != "key") or (what == "key" and want["key"]):
        if got != want[what]:
            a, b = apart(got or "", want[what] or "nobody")
            return {
                "players": f"names the seats {a} where the record has {b}",
                "waiting": f"says it is waiting for {a} where the record awaits {b}",
                "commitment": f"states the seed commitment {a} where the export's is {b}",
                "key": f"names the game key's fingerprint {a} where the export's key gives {b}",
            }[what]
    elif what == "for" and got not in seat:
        return f"says it is private mail for {quote(got)}, where its receipt is {quote(seat[0])}'s"
    elif what == "joined":
        if mine is None:
            return "says you have joined, but you had not joined at that point of the record"
        if (got or "") != step.joined[mine]:
            return f"says you joined with {quote(got) if got else 'no salt'} where the record's JOIN gives " + (
                quote(step.joined[mine]) if step.joined[mine] else "no salt"
            )
    elif what == "asked" and mine is not None:
        return "asks you to join, but the record has you joined by then"
    return ""
