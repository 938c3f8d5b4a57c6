"""`pbem verify --mail`: the prose of a report's text part, against the same template rendered from the replay.

`pbem.trust.shown` compares a report's sections and opening lines, `pbem.trust.told` its "What happened" list, but
the words between them were read by nobody: a report could tell its reader "Bob has already sent his orders", or
change the sentence that says what pbem checks, and `verify --mail` passed (fourth fairness red team).  Every
line of an honest report's text part comes from `mail/report.txt.j2`, so the rest of the text (its *prose*) is
rendered again from the replay and the export, and compared line by line, in order (blank lines left out):

* a function of the replayed view: the line naming the reader, the board's note (when the replay draws a
  picture), the block saying the game is over (its result, the scores, the seed, the commitment), the reply hint
  with the game's name;
* a function of the export: the commitment and the game key's fingerprint, the salts of the deal and the warning
  about it (said by the report listing the salts and the final one; any other may say it, as all did before
  notices2, and then says the export's), the warning of a seed chosen by hand, the seat's earlier names;
* fixed template text: every other word of these paragraphs.

Mail-specific, and so taken from the mail itself (`Said`): whether it is the first report (the commitment and
code paragraphs, the salts, the earlier names are said once), the player's secret code (its value is not in the
export; only its place in the fixed sentence is read), the record line "Record #N, HEAD..." (masked only when it
is the mail's own receipt, `X-Pbem-Record`), the moderator's name under the signature line "-- " (held to the
mail's From display name, `said`'s `sender`), and the
acknowledgement of the reader's own message ("== Your message ==": their own words, and its input's receipt,
checked by the input check; the lines it quotes as applied by `pbem.trust.acked`).  The deadline's time in the
opening lines is `pbem.trust.due`'s.  Pure; linear in
the text; one small template rendered per report.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pbem.render.templates import env, render
from pbem.trust import told
from pbem.trust.quote import cut_between

MARK = "Private report for "
#: The code's line: the paragraph on one line since the mails were made to read on a phone, or (earlier) its first.
CODE = re.compile(
    r'^Your secret player code is ([A-Za-z0-9-]{1,40})\. Put a line "CODE \1" in a new order message'
    r"(?: \(a reply to a mail of this game needs none\)\.)?$"
)
RECORD = re.compile(r"^Record #(\d{1,9}), ([0-9a-f]{16})\.\.\.$")
#: Each unindented line the acknowledgement prints (`mail/_ack_body.txt.j2`, `_input.txt.j2`), whole (`ack_line`):
#: any other unindented line ends it (and is compared), so that a block "Your message" made up to hold lies holds
#: them only indented, where an honest one quotes the player's own words.  A line that starts as pbem's and goes on
#: otherwise ("Correct the line below and send the whole message again. Bob has voted.") is no line pbem writes
#: (sixth round: only their first words were read, so the rest of such a line was the moderator's to word).
ACK_WHOLE = (
    re.compile(r'\AYour message ".{0,400}" for game "(.{1,200})" was read\.'),
    re.compile(r"\AAccepted and applied:"),
    re.compile(
        r"\ANOTHING WAS APPLIED: (?:one line was|\d{1,9} lines were) not accepted, and a message counts whole or not at all\."
    ),
    re.compile(r"\ACorrect the lines? below and send the whole message again\."),
    re.compile(r"\AIt cannot be corrected now: see the note above\."),  # before walk9
    re.compile(r"\AIts lines are not used: see the note above\."),
    re.compile(
        r"\ANothing is asked of you now: nothing more is needed from you, and you will be mailed when you are asked\."
    ),
    re.compile(r"\ARecorded as entry #\d{1,9} of the game's record as you may see it; its hash is"),
    re.compile(
        r"\AKeep this mail: it is your receipt \(pbem verify --mail checks it against the published history\)\."
    ),
    re.compile(
        r"\ANot read as orders \(set aside: they start with no order word; greetings and signatures are fine, and an "
        r"order must start with its order word, see HELP\):"
    ),
    re.compile(
        r"\ANot read as orders \(set aside: lines under your signature or sign-off, footers, closings and remarks are not "
        r"read; to send one as an order, write it above your signature, starting with its order word, see HELP\):"
    ),
    re.compile(r"\AOrders now on file for you \(revisable until the step resolves\):"),
    re.compile(r"\AStill awaited from: [^\n]{1,2000}\."),
    re.compile(r"\AYour report follows in a separate message\."),
)


def ack_line(row: str) -> bool:
    """Whether `row` is, whole, an unindented line an acknowledgement prints (`ACK_WHOLE`)."""
    return any(p.fullmatch(row) for p in ACK_WHOLE)


FIRST = {  # a paragraph said once, by the line it starts with
    "code": "Your secret player code is ",
    "commitment": "Fairness: this game's random seed is fixed and sealed.",
    "salts": "The deal: nobody chose it.",
    "former": "You took over the seat of ",
    "bindings": "Its record ",  # which checks the game promises: said since fairness26 (X-Pbem-Bindings)
    "deal_warning": "Warning about the deal: ",  # said in every report by pbem before notices2; now where it is news
}
FORMER = re.compile(
    r"^You took over the seat of (.{1,400}): in the history below, what every player was told names the seat so; "
    r"what only the seat was told is addressed to you\.$"
)
#: The same sentence as pbem wrote it up to walk8, which said the whole history calls the seat by its earlier name
#: above the lines only the seat saw, addressed to the newcomer by their own (`reporting._addressed`).
FORMER_OLDER = re.compile(r"^You took over the seat of (.{1,400}): the history below calls the seat so until then\.$")
#: The same opening for a newcomer who kept the seat's name (players26: told nothing of taking a seat over).
KEPT = re.compile(r"^You took over the seat of .{1,400} from its earlier player: the history below is the seat's from")


@dataclass(frozen=True)
class Said:
    """A report's prose lines and what in them is the mail's own (`said`)."""

    lines: tuple[str, ...]
    html: tuple[str, ...]  # the HTML part's prose lines (`html_lines`), () for a mail without one
    code: str | None
    moderator: str
    first: frozenset[str]  # the paragraphs said once that it says (`FIRST`)
    former: tuple[str, ...]
    older_former: bool = False  # the sentence of the earlier names in its form up to walk8 (`FORMER_OLDER`)


def said(
    text: str, record: tuple[int, str] | None, page: str = "", subject: str | None = None, sender: str = ""
) -> Said:
    """The prose of a report's plain text (`text`): its non-blank lines outside the opening lines, the
    acknowledgement, the "What happened" list and the sections (each compared elsewhere), the code and the
    moderator's name masked (when `sender`, the From header's display name, is given: only when it is that name,
    which pbem signs with, else kept, and so named), the record line masked when it is `record` (the mail's
    receipt); and of its HTML part (`page`, `html_lines`); the mail's `subject` (decoded, its blanks made one)
    first, when given."""
    lines = prose_lines(text)
    code = next((m.group(1) for line in lines if (m := CODE.match(line))), None)
    sign = max((i for i, line in enumerate(lines) if line == "--"), default=-1)
    moderator = lines[sign + 1] if 0 <= sign < len(lines) - 1 else ""
    out = []
    for i, line in enumerate(lines):
        if code is not None and CODE.match(line):
            line = line.replace(code, "<code>")
        elif i == sign + 1 and sign >= 0:
            line = "<moderator>" if not sender or line == sender else f"{line} (signed so by the sender {sender})"
        elif record is not None and (m := RECORD.match(line)) and (int(m[1]), m[2]) == (record[0], record[1][:16]):
            line = "Record #<receipt>"
        out.append(line)
    found = next((m for line in lines if (m := FORMER.match(line) or FORMER_OLDER.match(line))), None)
    former = tuple(found[1].split(", ")) if found is not None else ()
    older = found is not None and found.re is FORMER_OLDER
    first = frozenset(k for k, start in FIRST.items() if any(line.startswith(start) for line in lines))
    first |= {"takeover"} if any(KEPT.match(line) for line in lines) else set()  # a newcomer under the seat's name
    if subject is not None:  # what the inbox shows before anything else
        out.insert(0, "Subject: " + " ".join(subject.split()))
        first = first | ({"takeover"} if subject.endswith(": full report") and "You now play " in subject else set())
    return Said(tuple(out), html_lines(page, code), code, moderator, first, former, older)


_LISTED = ("<section><h2>What happened since your last report</h2><ul>", "</ul></section>")  # (`cut_between`)
_SRC = re.compile(r'(?<=<img )src="[^"]{0,500}"')
_BETWEEN = re.compile(r"(?<=</p>)\s*(?=<)|(?<=</section>)\s*(?=<)|(?<=</figure>)\s*(?=<)")


def html_lines(page: str, code: str | None) -> tuple[str, ...]:
    """The prose of a report's HTML part: its non-blank lines, stripped, outside the opening lines (`<section
    class="asked">`), the acknowledgement (from its heading to the paragraph naming the reader), the "What
    happened" list and the sections (`<section>` to `</section>`), each compared elsewhere; the board's figure
    with each `<img>`'s source left out (a Content-ID: `pbem.trust.pictured` compares the pictures), its size and
    alt text kept; the code masked."""
    if not page:
        return ()
    page = cut_between(page, *_LISTED)
    ack = page.find("<h2>Your message</h2>")
    if ack >= 0 and (mark := page.find("<p>" + MARK, ack)) >= 0:  # (its quoted words are escaped: no "<p>")
        page = page[:ack] + page[mark:]
    out: list[str] = []
    skip = False
    for row in page.split("\n"):
        line = row.strip()
        if line in ('<section class="asked" id="asked">', "<section>", '<section class="private">'):
            skip = True
        elif skip:
            skip = not line.endswith("</section>")  # ("</pre></section>": the asked section's orders on file end it)
        elif line:
            line = _SRC.sub('src=""', line) if '<figure class="board">' in line else line
            line = line.replace(code, "<code>") if code and "secret player code" in line else line
            out += [piece for piece in _BETWEEN.split(line) if piece]  # (where a block left out joined two lines)
    return tuple(out)


def prose_lines(text: str) -> list[str]:
    """The non-blank lines of a report's text outside what the other checks compare (`said`)."""
    listed_at = text.find(told.HEADING)
    if listed_at >= 0:  # the list as `told.listed` reads it, to its end
        end = told.listed(text)[1]
        text = text[:listed_at] + text[end:]
    rows = [row.rstrip() for row in text.split("\n")]
    at = next((i for i, row in enumerate(rows) if row.startswith(MARK) or row.startswith("== ")), len(rows))
    out: list[str] = []
    state = "prose"
    for row in rows[at:]:
        if row.startswith("== ") and row.endswith(" =="):
            title = row[3:-3]
            fixed = title.startswith(("The board (", "The game is over"))
            state = "ack" if title == "Your message" else ("prose" if fixed else "section")
            if fixed:
                out.append(row)
        elif (state == "ack" and row and not row.startswith((" ", "\t")) and not ack_line(row)) or (
            state == "section" and row.startswith(told.AFTER)
        ):
            state = "prose"  # (the acknowledgement quotes the player's words indented)
            out.append(row)
        elif state == "prose" and row:
            out.append(row)
    return out


def expected(
    doc: dict[str, Any],
    seat: list[str],
    mail: Said,
    figures: list[dict[str, Any]],
    result: dict[str, Any] | None,
    record: tuple[int, str] | None,
    deal: dict[str, Any] | None,
    head: tuple[str, str] = ("", ""),
    asked: bool = False,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The prose lines an honest report to `seat[0]` prints (`said`'s form): `mail/report.txt.j2` rendered from the
    export `doc` (`deal`: its `salts` event's data, None without a join step), the replayed state's `result` and
    the pictures its view is drawn in (`figures`: each one's size and alt text, as the HTML's figure shows them),
    whether the replay asked the reader anything there (`asked`: the reply line or "Nothing is needed from you now"),
    and what is the mail's own (the earlier names it gives only when they are the seat's, `seat`); with the HTML part's (`head`: the game's title and the view's turn, which its title shows)."""
    game = doc["game"]
    reader = seat[0]
    if result is not None and result.get("earlier"):  # a final report worded by an earlier pbem (walk8: HH-R3 named)
        older = [e for e in result["earlier"] if any(e in line for line in mail.lines)]
        result = (
            {**result, "summary": older[0]} if older and not any(result["summary"] in x for x in mail.lines) else result
        )
    former = list(mail.former) if set(mail.former) <= set(seat[1:]) else seat[1:]
    key = game.get("key")
    from pbem.trust.signing import fingerprint

    rec = None if record is None else {"entries": record[0], "head": record[1]}
    if rec is not None and key:
        rec["key"] = fingerprint(key)
        if "bindings" in mail.first:  # (a report of a pbem before fairness26 does not say it)
            from pbem.trust.signing import marked

            rec["bindings"] = marked(game)
    ctx = {
        "title": head[0],
        "game_name": game["name"],
        "player": reader,
        "view": {"turn": head[1]},
        "sections": [],
        "happened": [],
        "asked": [],
        "asked_now": asked,
        "waiting": [],
        "due_at": None,
        "now": None,
        "result": result,
        "seed": doc.get("seed") if result is not None else None,
        "commitment_final": doc.get("seed_commitment", ""),
        "commitment": doc.get("seed_commitment") if "commitment" in mail.first else None,
        "insecure_seed": bool(game.get("insecure_seed")),
        "code": mail.code if "code" in mail.first else None,
        "takeover": "takeover" in mail.first,
        "former": former if "former" in mail.first else [],
        "older_former": mail.older_former,
        "moderator": mail.moderator,
        "salts": _salts(doc, deal) if "salts" in mail.first else None,
        "deal_warning": _warning(deal) if _warns(mail, result) else None,
        "boards": figures,
        "record": rec,
    }
    subject = bool(mail.lines[:1] and mail.lines[0].startswith("Subject: "))
    return _rendered(json.dumps([ctx, record, subject], default=str))  # (in order: the scores print so)


@lru_cache(maxsize=4_096)
def _rendered(key: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`expected`'s two renders, kept by their whole context (as JSON, in its order): a mailbox checked again, or the
    reports of one moment to one reader, render once."""
    ctx, record, subject = json.loads(key)
    record = None if record is None else (record[0], record[1])
    module = env().get_template("mail/report.txt.j2").make_module(ctx)
    lines = said(str(module), record, subject=str(getattr(module, "subject", ""))).lines
    return lines if subject else lines[1:], html_lines(render("mail/report.html.j2", **ctx), ctx["code"])


def _salts(doc: dict[str, Any], deal: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The salts a first report after the deal lists (`pbem.app.reporting._salts`): the seats' names, in order."""
    if not isinstance(deal, dict):
        return None
    signed = deal.get("signed") or [""] * len(deal.get("salts", []))
    names = [str(p["name"]) for p in doc["players"]]
    return [
        {"player": p, "salt": salt} | ({"signed": True} if sig else {})
        for p, salt, sig in zip(names, deal.get("salts", []), signed)
    ]


def _warns(mail: Said, result: dict[str, Any] | None) -> bool:
    """Whether an honest report warns about the deal (when its deal lacks something): the one listing the salts and
    the final one must (`pbem.app.reporting._deal_warning`); any other may, as every report did before notices2, and
    then says the warning the export gives."""
    return "salts" in mail.first or result is not None or "deal_warning" in mail.first


def _warning(deal: dict[str, Any] | None) -> str | None:
    from pbem.trust.deal import weakness

    return weakness(deal) if isinstance(deal, dict) else None


def differs(got: tuple[str, ...], want: tuple[str, ...]) -> str:
    """How a report's prose differs from the replay's, in one phrase naming the first line that differs."""
    from pbem.trust.quote import apart, clip, quote

    for a, b in zip(got, want):
        if a != b and a.startswith("Subject: ") and b.startswith("Subject: "):
            return f"has the subject {quote(a[9:])} where the replay's report has {quote(b[9:])}"
        if a != b:
            said, replayed = apart(a, b)
            return f"says {said} where the replay's report says {replayed}"
    if len(got) > len(want):
        return f'says "{clip(got[len(want)])}", which the replay\'s report does not say'
    return f'leaves out "{clip(want[len(got)])}", which the replay\'s report says'
