"""`pbem verify --mail`: the lines an acknowledgement quotes as applied, against the input the export records.

A mail that acknowledges a player's orders carries the receipt of the input recorded for them (`X-Pbem-Input`,
checked against the export by `pbem.trust.receipts`), and quotes the lines it applied: "Accepted and applied:"
in the acknowledgement and in a report that answers the message ("== Your message =="), "were applied:" in the
notice of orders held until a deadline.  The receipt binds the input's lines, but what the player reads is the
quote, which nobody compared (fifth fairness round): a moderator could apply PASS, record PASS, and tell the player
"OK   VOTE RED" under the true receipt, while the tables are true of PASS.  Each quote, in the text part and the
HTML part, must now be the recorded input's lines, in order, as pbem quotes them (`short`: at most `LINE_CHARS`
characters each, the first `MANY` of a long message and a count of the rest).  What the player actually wrote is
their Sent folder's (`pbem verify --sent`: SUBSTITUTED when the export applied other lines than the mail gives),
so together the two checks bind the quote to the Sent mail.  "(understood as: ...)" after a line is the engine's
reading: once the seed is out it must be the replay's (`pbem.trust.receipts._readings`), before that only its
form is checked.  Pure; linear in the text.
"""

from __future__ import annotations

import ast
import re
from html import unescape

from markupsafe import escape

from pbem.orders.away import SYNTAX as AWAY_SYNTAX
from pbem.trust import spans
from pbem.trust.quote import between

MANY = 100  # as `pbem.app.answers.MANY`: accepted lines quoted back at most (tests/test_fairness5.py holds them equal)
LINE_CHARS = 200  # as `pbem.app.answers.LINE_CHARS`: characters of one quoted line

#: The text quotes: the line that starts the block, the prefix of each of its rows.
APPLIED = ("Accepted and applied:", "  OK   ")
HELD = ("The orders you sent, held until then, were applied:", "    ")
_MORE = re.compile(r"^  \.\.\. and (\d{1,9}) more lines? not shown\.$")
_UNDERSTOOD = "   (understood as: "
#: The engine's reading of a row, on the line below it (a phone's 40 columns), as written since the fifteenth
#: session; read as the row's old third column, "   (understood as: ...)", so both forms compare alike.
UNDERSTOOD_BELOW = "       understood as: "
_ROW = re.compile(r"\A<tr><td><code>([^<]*+)</code></td><td>ok([^<]*+)</td></tr>")
_HTML_MORE = re.compile(r"<p>\u2026 and (\d{1,9}) more lines? not shown\.</p>")
_HELD_LIST = ('were applied:</p>\n<ul class="legal">', "</ul>")  # (`quote.between`: linear, a lazy pattern was not)
_ITEM = ("<li><code>", "</code></li>")  # on one line


def short(line: str) -> str:
    """One input line as an acknowledgement quotes it (`pbem.app.answers.short`)."""
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "\u2026"


def quoted(text: str) -> tuple[list[str], int, bool] | None:
    """(the rows of the first block of applied lines of a mail's text, the count of lines "not shown", whether it is
    the acknowledgement's "Accepted and applied:" block); None when the text has none."""
    rows = text.split("\n")
    for i, row in enumerate(rows):
        for start, prefix in (APPLIED, HELD):
            if row.rstrip() == start or (row.rstrip().endswith(" " + start) and start == HELD[0]):
                got: list[str] = []
                more, below = 0, False  # below: the last row has its reading on the line under it
                for line in rows[i + 1 :]:
                    line = line.rstrip()
                    if prefix == APPLIED[1] and got and not below and line.startswith(UNDERSTOOD_BELOW):
                        got[-1], below = f"{got[-1]}{_UNDERSTOOD}{line[len(UNDERSTOOD_BELOW) :]})", True
                    elif line.startswith(prefix) and (prefix == APPLIED[1] or line.strip()):
                        got.append(line[len(prefix) :] if prefix == HELD[1] else line)
                        below = False
                    elif (m := _MORE.match(line)) and prefix == APPLIED[1]:
                        more = int(m[1])
                        break
                    elif line:
                        break
                return got, more, prefix == APPLIED[1]
    return None


def differs(text: str, page: str, applied: list[str], understood: list[str] | None = None) -> str:
    """How the applied lines `text` and its HTML part `page` quote differ from `applied` (the recorded input's
    lines), in one phrase naming the first line that differs; "" when they agree (or the mail quotes none).
    `understood`: what the engine understood of each line, replayed (once the seed is out), for the
    "(understood as: ...)" a row adds; None: that reading's words are not compared."""
    found = quoted(text)
    if found is not None:
        got, more, ack = found
        want = [short(x) for x in applied] if ack else list(applied)
        shown = want[:MANY] if ack and len(want) > MANY else want
        rows = [_line(row) for row in got] if ack else got
        how = _compare(
            rows, more, shown, len(want) - len(shown), [row[len(APPLIED[1]) :] for row in got] if ack else []
        )
        if how:
            return how
        if ack and understood is not None:
            for row, line, reading in zip(got, shown, understood):
                said = f"{_UNDERSTOOD}{reading})" if reading and reading != line else ""
                if row != APPLIED[1] + line + said:
                    return _reading(row[len(APPLIED[1]) :], line + said)
    how = _html_differs(page, applied, understood) if page else ""
    return how


def _line(row: str) -> str:
    """The quoted line of a row "  OK   LINE" or "  OK   LINE   (understood as: ...)" (the row's own words when the
    reading's form is not there)."""
    line = row[len(APPLIED[1]) :]
    at = line.rfind(_UNDERSTOOD)
    return line[:at] if at > 0 and line.endswith(")") else line


def _compare(got: list[str], more: int, shown: list[str], want_more: int, whole: list[str]) -> str:
    from pbem.trust.quote import apart, clip

    for i, (a, b) in enumerate(zip(got, shown)):
        if a != b and not (whole and whole[i] == b):
            said, recorded = apart(a, b)
            return f"quotes your line {said} as applied where the export's input applied {recorded}"
    if len(got) > len(shown):
        return f'quotes "{clip(got[len(shown)])}" as applied, which the export\'s input does not apply'
    if len(got) < len(shown):
        return f'leaves out "{clip(shown[len(got)])}", which the export\'s input applied'
    if more != want_more:
        return f"counts {more} more lines not shown where the export's input has {want_more}"
    return ""


def _reading(got: str, want: str) -> str:
    from pbem.trust.quote import apart

    said, replayed = apart(got, want)
    return f"says {said} where the replay's reading of your line gives {replayed}"


def _html_differs(page: str, applied: list[str], understood: list[str] | None = None) -> str:
    """The HTML part's quote: the rows of its table (the acknowledgement) or its list (the held orders' notice)."""
    held = between(page, *_HELD_LIST, most=1)
    if held:
        got = [unescape(x) for line in held[0].split("\n") for x in between(line, *_ITEM)]
        how = _compare(got, 0, list(applied), 0, [])
        return f"in its HTML part {how}" if how else ""
    at = page.find("<p>Accepted and applied:</p>")
    if at < 0:
        return ""
    start, end = page.find("<tbody>", at), page.find("</tbody></table>", at)
    body = page[start + len("<tbody>") : end] if 0 <= start < end else ""
    rows = [_ROW.fullmatch(row) for row in body.split("\n") if row.strip()]
    more = _HTML_MORE.match(page, end + len("</tbody></table>\n")) if end >= 0 else None
    want = [short(x) for x in applied]
    shown = want[:MANY] if len(want) > MANY else want
    got = [_unescaped(m[1]) if m else row.strip() for m, row in zip(rows, [r for r in body.split("\n") if r.strip()])]
    bad = next((unescape(m[2]) for m in rows if m and m[2] and not (m[2].startswith(" (") and m[2].endswith(")"))), "")
    how = _compare(got, int(more[1]) if more else 0, shown, len(want) - len(shown), [])
    if not how and bad:
        how = f'says "{bad}" after a line where only "ok" and what the engine understood are written'
    if not how and understood is not None:
        for m, line, reading in zip(rows, shown, understood):
            said = f" ({reading})" if reading and reading != line else ""
            if m is not None and unescape(m[2]) != said:
                how = _reading(line + unescape(m[2]), line + said)
                break
    return f"in its HTML part {how}" if how else ""


def _unescaped(html: str) -> str:
    """A quoted line's HTML as the player reads it; markup the template never writes there is kept as it is (so
    that it differs)."""
    text = unescape(html)
    return text if str(escape(text)) == html else html


REFUSED = "NOTHING WAS APPLIED: "
_NO = re.compile(r'^  NO   "(.*)"$')
#: A refused line as the record's reason names it (`pbem.app.intake`: "'line': why; 'line': why"), as
#: `pbem.trust.sent.grouped` reads it.
_QUOTED_LINE = re.compile(r"""(?:^|; )('(?:[^'\\\n]|\\.)*+'|"(?:[^"\\\n]|\\.)*+"): """)


#: The first words of the two notices a deadline sends with the receipt of the input it applied for the player
#: (`mail/held_applied.txt.j2`, `mail/deadline_applied.txt.j2`) and the line each says it with.
DEADLINE_FIRST = "The deadline of game "
DEFAULTED = "So the published default was applied on your behalf:"


def receipted(text: str) -> bool:
    """Whether a mail's text is one of the mails pbem writes with the receipt of an input of orders
    (`pbem.app.stamping.RECEIPTED`, and a report answering the message): the acknowledgement (its first line quotes
    the message and names the game, and a line says what was applied), a report answering the message ("Private
    report for" and "Accepted and applied:"), or a deadline's notice of the held orders or the default it applied.
    Each of those is read further by its own check; a mail in none of these forms was read by none (eighth round: a
    receipted answer whose whole text the moderator replaced passed).  A JOIN's acknowledgement is `joined`'s."""
    first = text.lstrip().split("\n", 1)[0].rstrip()
    rows = {row.rstrip() for row in text.split("\n")}
    if (first.startswith('Your message "') and '" for game "' in first) or "Private report for " in text:
        return APPLIED[0] in rows
    if first.startswith(DEADLINE_FIRST):
        return first.endswith(" " + HELD[0]) or DEFAULTED in rows
    return False


def said_outcome(text: str) -> str | None:
    """What an acknowledgement's text says became of the message it answers: "applied" ("Accepted and applied:"),
    "refused" ("NOTHING WAS APPLIED: ..."), None when it says neither (a notice, a report without one)."""
    for line in text.split("\n"):
        if line.rstrip() == APPLIED[0]:
            return "applied"
        if line.startswith(REFUSED):
            return "refused"
    return None


def refused_quoted(text: str) -> list[str]:
    """The lines an acknowledgement of a refused message quotes as refused ('  NO   "line"'), sorted."""
    return sorted(m[1] for line in text.split("\n") if (m := _NO.match(line.rstrip())))


def reason_lines(reason: str) -> list[str] | None:
    """The lines a refused message's recorded reason names ("'a': why; 'b': why"), sorted; None when it is no list
    of refused lines (another reason, or one that does not start with a quoted line)."""
    found = list(_QUOTED_LINE.finditer(reason))
    if not found or found[0].start() != 0:
        return None
    try:
        return sorted(str(ast.literal_eval(m[1])) for m in found)
    except (ValueError, SyntaxError):
        return None


#: Notes whose words are fixed, written by the use cases (`pbem.app.misuse.IGNORED_CODE`, `IGNORED_CODE_ASKING`,
#: `pbem.app.notify.PROMISES` and `ALREADY`): mirrored here, the trust layer does not import them (tests/test_fairness6.py holds
#: them equal).
FIXED_NOTES = (
    "The CODE line in your mail is not your current player code and was ignored: a reply to pbem's mail needs no "
    "code. A new mail needs your current code (LOST CODE sends you a new one).",
    "The CODE line in your mail is not your current player code and was ignored: HELP and STATUS need no code, but "
    "orders in a new mail need your current code (LOST CODE sends you a new one).",
    "WATCH: from now on you get a report after every move you may see.",
    "NORMAL: from now on you get mail when you are asked to act, when your mail is answered, when a step you took "
    "part in resolves, when something is done to you, and at the end; the rest waits for your next mail.",
    "DIGEST: from now on you get at most one mail a day, when something new happened, besides the mails that ask "
    "you to act and the end of the game; everything else waits for your next mail.",
    "WATCH: you already get a report after every move you may see; nothing changed.",
    "NORMAL: you already get the mail of the default (when you are asked to act, when your mail is answered, when a "
    "step you took part in resolves, when something is done to you, and at the end); nothing changed.",
    "DIGEST: you already get at most one mail a day, besides the mails that ask you to act and the end of the game; "
    "nothing changed.",
    "No orders were found in your message. Send HELP for the order syntax.",
    "This game resolves at the deadline: your orders are on file and will be applied then, in the order they arrived.",
)
HELD_NOTE = FIXED_NOTES[-1]  # the note of an acknowledgement of orders held until the deadline
_ON_FILE = "Orders now on file for you (revisable until the step resolves):"
_FILED = "    (on file) "
_HTML_ON_FILE = re.compile(r"<p>Orders now on file for you:</p><pre>([^<]{0,200000})</pre>")


def held(text: str, page: str, applied: list[str]) -> str:
    """How an acknowledgement of orders held until the deadline differs from the lines the deadline applied for its
    message (`applied`), in one phrase ("" when it agrees): the lines it quotes as accepted (`differs`, the
    engine's reading then not compared: it read them at another state) and the orders it lists as on file, which
    pbem writes from the same lines (`pbem.app.intake`), in the text and the HTML part; and it says no one is
    awaited there (pbem does not)."""
    how = differs(text, page, applied, None)
    if how:
        return how
    rows = [row.rstrip() for row in text.split("\n")]
    filed = on_file(rows)
    if filed != applied:
        return _on_file(filed, applied, "")
    if page:
        found = _HTML_ON_FILE.findall(page)
        items = [unescape(x) for x in found[0].split("\n") if x] if len(found) == 1 else []
        shown = [x[len("(on file) ") :] if x.startswith("(on file) ") else x for x in items]
        if len(found) != 1 or shown != applied or any(not x.startswith("(on file) ") for x in items):
            return _on_file(shown, applied, "in its HTML part ")
    if any(row.startswith("Still awaited from: ") for row in rows) or "<p>Still awaited from: " in page:
        return "says who is still awaited, which pbem does not say to orders held until the deadline"
    return ""


def on_file(rows: list[str]) -> list[str]:
    """The orders an acknowledgement's text (its rows, without trailing blanks) lists as on file for the player
    ("Orders now on file for you ...:", then a row "    (on file) LINE" each), in order."""
    at = next((i for i, row in enumerate(rows) if row == _ON_FILE), None)
    filed: list[str] = []
    for row in rows[at + 1 :] if at is not None else []:
        if not row.startswith(_FILED):
            break
        filed.append(row[len(_FILED) :])
    return filed


def _on_file(filed: list[str], applied: list[str], part: str) -> str:
    from pbem.trust.quote import clip

    return (
        f"{part}lists {clip('; '.join(filed)) or 'nothing'} as your orders on file, where the deadline applied "
        f"{clip('; '.join(applied)) or 'nothing'}"
    )


_Q = r'"[^\n]{0,400}"'  # a line of the player's message, quoted
#: Every other note an acknowledgement prints ("  NOTE ..."), whole: the reading's (`pbem.orders.extract`,
#: `pbem.orders.away`, `pbem.app.absence`, `pbem.app.lines.replaced` and
#: `repeat_note`) and the template's own
#: (`mail/_ack_body.txt.j2`, `join_ack.txt.j2`).  What a quoted line says is the player's own mail's
#: (`pbem verify --sent`: `pbem.trust.sent._quoted`); the rest of a note is one of these forms.
NOTES = tuple(
    re.compile(p)
    for p in (
        _Q + r" was not read as an order: an order line starts with its order word, so write it as: [^\n]{1,400}",
        _Q + r" was not read as an order: it names [A-Z][a-z]{1,8} \d{1,3}, but [^\n]{1,400}; to order for this step,"
        r" send the order alone: [^\n]{1,400}",
        _Q + r": write the code alone after the word: CODE <your code>",
        _Q + r": a (?:changed line of the quote|line typed inside the quote|line kept alone of the quote's list of"
        r" orders) is not read; to send it, write it above the quote: [^\n]{1,400}",  # `pbem.orders.own_mail.changed_note`
        _Q + r": write " + re.escape(AWAY_SYNTAX),
        _Q + r": [^\n]{1,400} is not a date; write it as YYYY-MM-DD",
        _Q + r": say from 1 to \d{1,6} days",
        _Q + r": that day has begun or passed; write a later date, or the number of days",
        _Q + r": at most \d{1,6} days ahead",
        _Q + r": a press message starts with PRESS TO <player> or PRESS TO ALL; nothing was sent",
        _Q + r': press must end with a line "END PRESS", or be one line: [^\n]{0,400}: <message>; nothing was sent',
        _Q + r" was replaced by " + _Q + r", later in the same message: only the later one stands",
        _Q + r" repeats an order above it in the same message: read once",  # `pbem.app.lines.repeat_note`
        _Q + r" was not read: it reads as a footer or a closing, not as a JOIN or SALT line",  # `join.footer_note`
        _Q + r" was refused and " + _Q + r" under it was not read: if a line break parted one order, send it on one"
        r" line: [^\n]{1,400}",  # `pbem.app.wraps.wrap_note`
        _Q + r" repeats a press above it in the same message: sent once",  # `pbem.orders.extract.press_repeat_note`
        # players29's and players30's notes, which an honest acknowledgement carries (players30: `verify --mail` named
        # each "no note pbem writes": 866 of 866 generated, `tests/test_replies30_notes.py`)
        _Q + r" was not read: it is under your signature \(the " + _Q + r" line above it\), which pbem does not read"
        r"(?:, and as written it is no order \([^\n]{1,800}\))?\. If it is your order, (?:send it above that line|what"
        r" would be accepted): [^\n]{1,2000}",  # `pbem.orders.extract.signed_note`, `pbem.app.signed`
        _Q + r" was set aside: it says you do not want [^\n]{1,400}, so nothing of it was applied",  # `negated_note`
        _Q + r" in the subject was not read: only the orders in the body are\. If you meant it too, send it in the"
        r" body, one order a line: [^\n]{1,400}",  # `pbem.orders.elsewhere.subject_note`
        _Q + r" was not read: it is inside a forwarded message \(under " + _Q + r"\), and pbem reads only what you"
        r" write above it\. If it is your order, send it as a line of your own: [^\n]{1,400}",  # `forwarded_note`
        r'Your earlier message "[^\n]{0,200}" sent \d{4}-\d\d-\d\d \d\d:\d\d UTC was applied and stands: a later mail does'
        r" not change orders applied\.",  # `pbem.app.earlier.note` (players31)
        # players32's: a count before an order's argument, an ending run into an order, a closing set aside
        _Q + r' was not read: "[^\n]{1,20}" asks for more than one, and an order names one; if you meant one, write it'
        r" as: [^\n]{1,400}",  # `pbem.orders.extract.times_note`
        _Q + r" was not read as an order: the words run into its end were not understood, so send it alone: "
        r"[^\n]{1,400}",  # `pbem.orders.extract.seeming_note` of `cjk_tailed`
        _Q + r" was not read as an order: it comes after your orders, its words after [^\n]{1,40} are in lower case"
        r" and name nothing of the game, so it was read as a closing remark(?:; no [^\n]{1,40} order is open to you"
        r" now\.|\. If you meant an order, send it as the report lists it, e\.g\. [^\n]{1,2000})",
        # `pbem.app.asides.closing_note`
        _Q + r" was not read as an order: it is in lower case and its words only begin a name of the game, so it was"
        r" read as a closing remark, not as [^\n]{1,400}; if you meant that order, send it as: [^\n]{1,400}",
        # `pbem.app.prefixed.note` (players33)
        _Q + r" was not read as an order: pbem does not repeat an earlier step's orders; send the orders for this step"
        r" as your report lists them, e\.g\. [^\n]{1,2000}",  # `pbem.app.repeated.note` (players34)
        r"Press not sent: [^\n]{1,2000}\. Write PRESS TO <player>\[, <player>\.\.\.\] or PRESS TO ALL\.",
        r"\.\.\. and \d{1,9} more notes? like these, not shown\.",
        r"Press sent to [^\n]{1,2000}\.",
        r"The step your mail answered closed at (?:its deadline, \d{4}-\d\d-\d\d \d\d:\d\d UTC(?: \(applied at "
        r"\d{4}-\d\d-\d\d \d\d:\d\d UTC\))?|\d{4}-\d\d-\d\d \d\d:\d\d UTC), before your mail arrived: (?:its "
        r"deadline passed(?: and your default orders were applied: [^\n]{1,2000})?|it was resolved by the orders sent "
        r"for it)\. (?:You are asked now: [^\n]{1,2000}\.|Nothing is asked of you now\.)",  # `pbem.app.closing`
        r"Nothing was applied: if you meant these orders for what you are asked now, send them again: [^\n]{1,2000}\.",
        r"This step's deadline, \d{4}-\d\d-\d\d \d\d:\d\d UTC, passed before this mail was read: it cannot be "
        r"corrected now, and (?:your default orders are applied for you in this run: [^\n]{1,2000}|nothing is applied "
        r"for you in this run)\. The report that follows says what you are asked now\.",  # `closing.overdue` before walk9
        r"This step's deadline, \d{4}-\d\d-\d\d \d\d:\d\d UTC, passed before this mail was read, so its lines are not "
        r"used\. When pbem applies that deadline \(in this run, or in a later one if this run stops at its time limit "
        r"first\), (?:your default orders are applied for you: [^\n]{1,2000}|nothing is applied for you), unless a "
        r"corrected mail of yours is read before then\. The report that follows says what you are asked now\.",  # walk9
    )
)
NOTE = "  NOTE "


def unnoted(text: str) -> str:
    """The first note of an acknowledgement's text ("  NOTE ...") that is no note pbem writes ("" when none): one of
    `FIXED_NOTES`, or of the forms `NOTES`; a note cut at `LINE_CHARS` ("...\u2026", as pbem quotes a long one) by
    its start, which must start one.  Linear in the text: each note is matched whole once per form."""
    for row in text.split("\n"):
        if not row.startswith(NOTE):
            continue
        note = row[len(NOTE) :].rstrip()
        if note in FIXED_NOTES or any(p.fullmatch(note) for p in NOTES):
            continue
        if len(note) == LINE_CHARS and note.endswith("\u2026") and _starts_one(note[:-1]):
            continue
        from pbem.trust.quote import quote

        return f"notes {quote(note)}, no note pbem writes"
    return ""


#: Every other paragraph an acknowledgement's HTML part writes (`mail/_ack_body.html.j2`, `_input.html.j2`,
#: `_record.html.j2`), as its words read (`_said_in`: tags left out, a line break as "\n"), whole; a note is a
#: paragraph too, read as in the text (`FIXED_NOTES`, `NOTES`).
PARAGRAPHS = tuple(
    re.compile(p)
    for p in (
        r"Accepted and applied:",
        r"Nothing was applied: a message counts whole or not at all\. (?:Correct the lines marked NO and send the whole "
        r"message again|Nothing is asked of you now: nothing more is needed from you, and you will be mailed when you "
        r"are asked|It cannot be corrected now: see the note above|Its lines are not used: see the note above)\.",
        r"\u2026 and \d{1,9} more lines? not shown(?: \(the first refused lines are shown\))?\.",
        r"Recorded as entry #\d{1,9} of the game's record as you may see it; its hash is [0-9a-f]{64}\. Keep this "
        r"mail: it is your receipt \(pbem verify --mail checks it against the published history\)\.",
        r"Not read as orders \(set aside: they start with no order word; greetings and signatures are fine, and an "
        r"order must start with its order word, see HELP\):",
        r"Not read as orders \(set aside: lines under your signature or sign-off, footers, closings and remarks are not "
        r"read; to send one as an order, write it above your signature, starting with its order word, see HELP\):",
        r"\u2026 and \d{1,9} more notes? like these, not shown\.",
        r"Asked of you now: [^\n]{1,2000}\nWhat would be accepted \(one per line, as written here\):",
        r"Nothing is asked of you now\.",
        r"Your report follows in a separate message\.",
        r"Orders now on file for you:",
        r"Still awaited from: [^\n]{1,2000}\.",
        r"Reply to this mail with your orders; a new mail needs your player code, which is in your first mail for "
        r"this game\.",
        r"Record #\d{1,9}, [0-9a-f]{16}\.\.\.",
    )
)
#: `<p(?: class="[a-z]{1,20}")?>(.{0,100000}?)</p>` (re.S), read in time linear in the page (`pbem.trust.spans`: searched,
#: a run of "<p>" cost its square)
_PARAGRAPH = (spans.Kind(re.compile(r'<p(?: class="[a-z]{1,20}")?>'), "</p>", 100_000),)
_ANY_TAG = re.compile(r"<[^<>]{0,400}>")


def _said_in(inner: str) -> str:
    """A paragraph's words as a reader sees them: a line break as "\n", other tags left out, entities read."""
    return unescape(_ANY_TAG.sub("", inner.replace("<br>", "\n")))


def unparagraphed(html: str) -> str:
    """The first paragraph of an acknowledgement's HTML (`html`: its body, or a report's block "Your message") that
    pbem does not write ("" when none): a paragraph of `PARAGRAPHS`, or a note (`FIXED_NOTES`, `NOTES`, cut as in
    the text).  Its notes were free paragraphs: "<p>Bob has already voted red.</p>" passed (sixth round)."""
    for block in spans.blocks(html, _PARAGRAPH):
        said = _said_in(block.inside)
        if any(p.fullmatch(said) for p in PARAGRAPHS) or said in FIXED_NOTES or any(p.fullmatch(said) for p in NOTES):
            continue
        if len(said) == LINE_CHARS and said.endswith("\u2026") and _starts_one(said[:-1]):
            continue
        from pbem.trust.quote import quote

        return f"in its HTML part says {quote(said)}, a paragraph pbem does not write in an acknowledgement"
    return ""


_ASIDE_TEXT = "Not read as orders (set aside:"
_ASIDE_HTML = re.compile(r"<p>Not read as orders \(set aside:[^<]{0,400}</p><pre>([^<]{0,200000})</pre>")
_MORE_ASIDE = re.compile(r"\A(?:    \.\.\.|\u2026) and \d{1,9} more lines? not shown")


def aside_parts(text: str, page: str) -> str:
    """How the lines an acknowledgement's HTML part lists as not read as orders differ from those its text part
    lists ("" when alike, or when a part lists none): both are written from one list, so the HTML, which most mail
    programs show and `pbem verify --sent` does not read, is held to the text, which `--sent` holds to the player's
    own mail (sixth round)."""
    found = _ASIDE_HTML.search(page) if page else None
    rows = [row.rstrip() for row in text.split("\n")]
    at = next((i for i, row in enumerate(rows) if row.startswith(_ASIDE_TEXT)), None)
    if found is None or at is None:
        return ""
    said = []
    for row in rows[at + 1 :]:
        if not row.startswith("    ") or _MORE_ASIDE.match(row):
            break
        said.append(row[4:])
    shown = [unescape(x) for x in found[1].split("\n") if x and not _MORE_ASIDE.match(unescape(x))]
    if [" ".join(x.split()) for x in shown] == [" ".join(x.split()) for x in said]:
        return ""
    from pbem.trust.quote import clip

    return (
        f"in its HTML part lists {clip('; '.join(shown)) or '(no line)'} as not read as orders, where its text lists "
        f"{clip('; '.join(said)) or '(no line)'}"
    )


def _starts_one(cut: str) -> bool:
    """Whether `cut` (a note cut short) is the start of a fixed note, or starts a form: a quoted line, or one of the
    forms' fixed first words."""
    return (
        cut.startswith('"')
        or any(f.startswith(cut) for f in FIXED_NOTES)
        or cut.startswith(("Press not sent: ", "Press sent to "))
    )


#: The markup an acknowledgement's HTML is written with (`mail/_ack_body.html.j2`, `ack.html.j2`, `_record.html.j2`):
#: anything else in it (a heading, a section, a picture, a style) is no part of what pbem writes there.
TAGS = frozenset({"p", "strong", "table", "thead", "tbody", "tr", "th", "td", "code", "br", "pre"})
ATTRIBUTES = frozenset({"", 'scope="col"', 'class="receipt"', 'class="hint"', 'class="record"'})
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]{0,20})([^<>]{0,400})>")
#: The unindented lines an acknowledgement's own mail prints besides those of its body (`prose.ACK_WHOLE`): the
#: record's hint and line (`mail/_record.txt.j2`) and the signature.
HINT = (
    "Reply to this mail with your orders; a new mail needs your player code, which is in your first mail for this game."
)
_RECORD = re.compile(r"\ARecord #(\d{1,9}), ([0-9a-f]{16})\.\.\.")
_TITLE = re.compile(r"<title>(.{0,400}?)</title>", re.S)
_H1 = re.compile(r"<h1>(.{0,400}?)</h1>", re.S)


def unwritten(text: str, page: str, sender: str = "", game: str = "", record: tuple[int, str] | None = None) -> str:
    """What an acknowledgement holds that pbem does not write, in one phrase ("" when nothing): in a report
    answering the message, a note its text block "Your message" holds that pbem does not write (`unnoted`; the
    block's other lines are `pbem.trust.prose`'s) and markup in that HTML block other than the acknowledgement's; in
    the acknowledgement's own mail, such a note, an unindented line of its text that none of
    its templates prints (the player's words are quoted indented), a fixed line that goes on otherwise, the game's
    name other than `game`, a record line other than the mail's receipt (`record`), a name under its signature
    other than the sender's (`sender`), and markup of its HTML other than the acknowledgement's, or a title or
    heading other than the template's."""
    from pbem.trust.prose import ACK_WHOLE, MARK, ack_line

    if MARK in text:
        start, end = page.find("<h2>Your message</h2>"), page.find("<p>" + MARK)
        at = text.find("\n== Your message ==\n")
        upto = text.find("\n== ", at + 1) if at >= 0 else -1
        block = text[at : upto if upto >= 0 else len(text)] if at >= 0 else ""
        html = page[start + len("<h2>Your message</h2>") : end] if 0 <= start < end else ""
        return unnoted(block) or _markup(html, ()) or unparagraphed(html) or aside_parts(block, html)
    first = text.lstrip().split("\n", 1)[0]
    if not (first.startswith('Your message "') and '" for game "' in first):
        return ""  # (no acknowledgement of orders: a JOIN's, a refusal of a code, a notice)
    noted = unnoted(text)
    if noted:
        return noted
    rows = [row.rstrip() for row in text.split("\n")]
    sign = max((i for i, row in enumerate(rows) if row == "--"), default=len(rows))
    for i, row in enumerate(rows):
        if i == sign + 1:
            if sender and row != sender:
                return f'is signed "{row[:80]}" where its sender is named "{sender[:80]}"'
        elif row and not row.startswith((" ", "\t")) and i != sign:
            from pbem.trust.quote import quote

            said = (
                f"says {quote(row)}, a line pbem does not write in an acknowledgement (it quotes your words indented)"
            )
            m = _RECORD.fullmatch(row)
            if m and record is not None and (int(m[1]), m[2]) != (record[0], record[1][:16]):
                return f"says {quote(row)}, where its receipt is record #{record[0]}, {record[1][:16]}..."
            if not (ack_line(row) or row == HINT or m):
                return said
            named = ACK_WHOLE[0].fullmatch(row)
            if named and game and named[1] != game:
                return f'says {quote(row)}, where the game is "{game[:80]}"'
    start, end = page.find("<body>"), page.rfind("</body>")
    body = page[start + len("<body>") : end] if 0 <= start < end else page
    return (
        _markup(body, ("h1",))
        or unparagraphed(body)
        or aside_parts(text, body)
        or (_headings(page, game) if game and page else "")
    )


def _headings(page: str, game: str) -> str:
    """The acknowledgement's title and heading must be its template's (`mail/ack.html.j2`) for the game `game`: they
    were its words (sixth round)."""
    from pbem.trust.quote import apart

    name = str(escape(game))
    for pattern, want, what in (
        (_TITLE, f"Orders for {name}", "title"),
        (_H1, f"Your orders for game \u201c{name}\u201d", "heading"),
    ):
        found = pattern.findall(page)
        if found != [want]:
            got = found[0] if len(found) == 1 else f"{len(found)} {what}s"
            said, written = apart(unescape(got), unescape(want))
            return f"in its HTML part has the {what} {said}, where pbem writes {written}"
    return ""


def _markup(html: str, also: tuple[str, ...]) -> str:
    for m in _TAG.finditer(html):
        name, attributes = m[2].lower(), m[3].strip()
        if (name not in TAGS and name not in also) or (attributes not in ATTRIBUTES and not m[1]):
            from pbem.trust.quote import clip

            return f"in its HTML part holds {clip(m[0], 80)}, markup pbem does not write in an acknowledgement"
    return ""
