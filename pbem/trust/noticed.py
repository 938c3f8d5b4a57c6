"""`pbem verify --mail`: a deadline's notices and reminders to the player, against their templates rendered again.

At a deadline pbem tells each player what it applied for them, with the receipt of the input recorded
(`pbem.app.deadlines`): the orders they sent, held until then (`held_applied`), or the published default
(`deadline_applied`, quoting what they were asked).  Such a notice answers no message, so the forms an answer is held
to (eighth round) were never asked of it: the receipt bound the input, the held lines were compared
(`pbem.trust.acked`), and every other word was the moderator's (tenth round): the default lines, the step, "no orders
from you" for a player whose orders he dropped.  Once the seed is out its subject, text and HTML part must be its
templates rendered again from the export and the mail's own receipt and sender: the lines the input applied for the
player (its lines, or its default-orders events for them), what the replayed game asked the player at the state
before that input, and the deadline the notice states, which must have passed when the input was recorded.

A reminder before a deadline carries only a head, and nothing read its words either (the legal orders it lists, the
default it names, the time left).  It must be its templates rendered at one of the first `STATES` states of its
head's window (another player's hidden input may have come first), from what the replayed game asked the player
there, the deadline it states and its Date.  Pure but for rendering; one replay up to the last mail, one render a
notice and a state tried for a reminder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.trust import shown
from pbem.trust.quote import apart, clip, quote

KINDS = {"deadline": "deadline_applied", "orders": "held_applied"}  # the input's kind -> the notice it receipts


@dataclass(frozen=True)
class Notice:
    """A mail carrying the receipt of a deadline's input of the player and answering no message."""

    name: str  # the mail's name, for the problem
    at: int  # the input's chain position
    subject: str
    text: str
    page: str  # its HTML part
    sender: str  # the From header's display name, which signs it
    record: tuple[int, str]  # its X-Pbem-Record
    receipt: tuple[int, str]  # its X-Pbem-Input, as the reader counts it


def stated(text: str, game: str) -> tuple[str, str]:
    """(the deadline, the prompt) a notice's text states ("" each where it states none): its first line is "The
    deadline of game G passed (2026-12-03 09:00 UTC) with ...", a deadline_applied notice's second the prompt."""
    rows = text.lstrip().split("\n")
    head = f"The deadline of game {game} passed ("
    due = rows[0][len(head) :].partition(")")[0] if rows[0].startswith(head) else ""
    prompt = rows[1][2:].rstrip() if len(rows) > 1 and rows[1].startswith("  ") else ""
    return due, prompt


def _input_before(rows: list[dict[str, Any]], at: int) -> int:
    """The position of the last input before position `at` (0: none): the nearest, where the greatest of all of them
    read every input before it for each notice, notices times the chain (costs10)."""
    return next((i for i in range(at - 1, 0, -1) if "lines" in rows[i - 1]), 0)


def _applied(rows: list[dict[str, Any]], at: int, seat: list[str]) -> list[str]:
    """The lines the input at `at` applied for the seat: a held message's lines, or the default-orders events it
    recorded for one of the seat's names."""
    row = rows[at - 1]
    if row.get("kind") != "deadline":
        return [str(x) for x in row.get("lines") or ()]
    lines: list[str] = []
    for ev in (rows[k] for k in range(at, len(rows))):  # (a slice copied the rest of the chain for each notice)
        if "lines" in ev or ev.get("input_seq") != row.get("seq"):
            break
        data = ev.get("data")
        if ev.get("kind") == "default-orders" and isinstance(data, dict) and data.get("player") in seat:
            lines += [str(x) for x in data.get("lines") or ()]
    return lines


def _asked(replay: shown.Replay, position: int, seat: list[str]) -> str:
    """What the replayed game asked the seat at the state kept at `position`, as `decide_deadline` words it: the
    prompt of their open request, else the step."""
    state = json.loads(json.dumps(replay.states[position], sort_keys=True))  # (as the record stores and loads it)
    eng = replay.reader(state)
    requests = eng.requests(state)
    prompts = {r.player: r.prompt for r in requests if not r.answered}
    return next((prompts[p] for p in seat if p in prompts), requests[0].step if requests else "")


def _late(due: str, row: dict[str, Any]) -> str:
    """How the deadline a notice states comes after its input was recorded ("" when it does not, or either is
    unreadable)."""
    try:
        when = datetime.strptime(due, "%Y-%m-%d %H:%M UTC")
        at = datetime.fromisoformat(str(row.get("at")))
    except ValueError:
        return ""
    if at.tzinfo is not None:
        at = at.astimezone(UTC).replace(tzinfo=None)
    if when <= at:
        return ""
    return f"says the deadline passed ({due}), but the export records what it applied at {clip(str(row.get('at')))}"


def untrue(
    doc: dict[str, Any], rows: list[dict[str, Any]], notices: list[Notice], seat: list[str]
) -> list[tuple[int, str]]:
    """(the input's position, what differs) for each notice that is not its templates rendered again (`expected`).
    Raises as `pbem.trust.shown.Replay`."""
    from pbem.render.templates import render_mail
    from pbem.trust.signing import fingerprint

    before = {n.at: _input_before(rows, n.at) for n in notices}
    replay = shown.Replay(doc, rows, set(before.values()))
    key = doc["game"].get("key")
    out: list[tuple[int, str]] = []
    for n in notices:
        row = rows[n.at - 1]
        kind = KINDS[str(row.get("kind"))]
        due, prompt = stated(n.text, str(doc["game"]["name"]))
        late = _late(due, row)
        if late:
            out.append((n.at, f"{n.name} {late}"))
            continue
        record: dict[str, Any] = {"entries": n.record[0], "head": n.record[1]}
        if key:
            record["key"] = fingerprint(key)
        ctx = {
            "game_name": doc["game"]["name"],
            "due": due,
            "lines": _applied(rows, n.at, seat),
            "prompt": _asked(replay, before[n.at], seat) if kind == "deadline_applied" else prompt,
            "record": record,
            "receipt": {"seq": n.receipt[0], "hash": n.receipt[1]},
            "moderator": n.sender,
        }
        want = render_mail(kind, ctx)
        how = _differs(n, want.subject, want.text, want.html)
        if how:
            out.append((n.at, f"{n.name} {how}"))
    return out


def _rows(text: str) -> list[str]:
    return [row.rstrip() for row in text.replace("\r\n", "\n").split("\n") if row.strip()]


def _differs(n: Notice, subject: str, text: str, page: str) -> str:
    """How a notice differs from its templates rendered again, in one phrase ("" when it does not)."""
    if " ".join(n.subject.split()) != subject:
        said, written = apart(n.subject, subject)
        return f"has the subject {said} where pbem writes {written}"
    got, want = _rows(n.text), _rows(text)
    for a, b in zip(got, want, strict=False):
        if a != b:
            said, written = apart(a, b)
            return f"says {said} where pbem writes {written}"
    if len(got) != len(want):
        return (
            f"says {quote(got[len(want)])}, which pbem does not write"
            if len(got) > len(want)
            else f"leaves out {quote(want[len(got)])}, which pbem writes"
        )
    if _rows(n.page) != _rows(page):
        said, written = apart(" ".join(_rows(n.page)), " ".join(_rows(page)))
        return f"in its HTML part says {said} where pbem writes {written}"
    return ""


STATES = 32  # states of a reminder's window read (as `pbem.trust.refused.STATES`)


def _human(due: datetime, when: datetime) -> str:
    """How long before the deadline a reminder says it is (`pbem.app.deadlines._human`)."""
    from pbem.engine.words import count

    hours = (due - when).total_seconds() / 3600
    return f"{hours:.0f} hours" if hours >= 1.5 else count(max(1, round(hours * 60)), "minute")


def reminded(text: str) -> tuple[str, str]:
    """(the deadline, the time left) a reminder's text states ("Deadline: 2026-12-03 09:00 UTC (in about 24
    hours)."), "" each if none."""
    row = next((r for r in text.split("\n") if r.startswith("Deadline: ")), "")
    due, _, left = row[len("Deadline: ") :].partition(" (in about ")
    return due, left.rstrip().removesuffix(").")


def reminder_due(text: str) -> datetime | None:
    """The deadline a reminder's text states, to the minute (None: none that reads)."""
    try:
        return datetime.strptime(reminded(text)[0], "%Y-%m-%d %H:%M UTC").replace(tzinfo=UTC)
    except ValueError:
        return None


def _left(due: str, stamp: float, said: str) -> str:
    """The time left a reminder dated `stamp` before the deadline `due` says: `said` where it is one pbem may have
    written (the deadline is stated to the minute and the Date to the second, so the time pbem counted from lies
    within a minute of them), else what the stated figures give; `said` when the mail has no readable Date."""
    if not stamp:
        return said
    try:
        when = datetime.fromtimestamp(stamp, UTC)
        at = datetime.strptime(due, "%Y-%m-%d %H:%M UTC").replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return said
    allowed = {_human(at + timedelta(seconds=k), when) for k in range(-1, 61)}
    return said if said in allowed else _human(at, when)


def subjects(game: str) -> tuple[str, ...]:
    """The subjects of a reminder of a deadline in `game`: every step's ("orders due"), and the join step's since
    2026-12-06 ("join the game"; "orders due" before)."""
    return (f"[pbem {game}] Reminder: orders due", f"[pbem {game}] Reminder: join the game")


def _reminder_differs(n: Notice, ctx: dict[str, Any]) -> str:
    """How a reminder differs from its templates rendered with `ctx` ("" when it does not).  A join step's reminder
    may be in either wording pbem has written (both are pbem 0.3.0's, so X-Mailer cannot tell them apart): the
    one since, and the older one (`older_join`: "orders due", and the prompt's last sentence said again)."""
    from pbem.render.templates import render_mail

    want = render_mail("reminder", ctx)
    how = _differs(n, want.subject, want.text, want.html)
    if how and ctx["joining"]:
        older = render_mail("reminder", {**ctx, "older_join": True})
        if not _differs(n, older.subject, older.text, older.html):
            return ""
    return how


def reminders_untrue(
    doc: dict[str, Any], rows: list[dict[str, Any]], reminders: list[tuple[list[int], float, Notice]], seat: list[str]
) -> list[tuple[int, str]]:
    """(the reminder's head position, what differs) for each reminder (the input positions of its head's window,
    its Date as a timestamp, the mail) that is its templates rendered at none of the first `STATES` states of its
    window: what the replayed game asked the player there (each request's prompt, legal orders and default), the
    deadline the mail states and how long before it the mail was dated.  Raises as `pbem.trust.shown.Replay`."""
    from pbem.trust.deal import is_joining

    replay = shown.Replay(doc, rows, {q for span, _, _ in reminders for q in span[:STATES]})
    out: list[tuple[int, str]] = []
    for span, stamp, n in reminders:
        due, said = reminded(n.text)
        left = _left(due, stamp, said)
        first = ""
        for q in span[:STATES]:
            state = json.loads(json.dumps(replay.states[q], sort_keys=True))
            eng = replay.reader(state)
            asked = [
                {"prompt": r.prompt, "legal": list(r.legal), "default": list(r.default)}
                for r in eng.requests(state)
                if r.player in seat
            ]
            ctx = {
                "game_name": doc["game"]["name"],
                "due": due,
                "left": left,
                "asked": asked,
                "joining": is_joining(state),
                "record": {"entries": n.record[0], "head": n.record[1]},
                "receipt": None,
                "moderator": n.sender,
            }
            how = _reminder_differs(n, ctx)
            if not how:
                break
            first = first or how
        else:
            if first:
                out.append((n.at, f"{n.name} {first}"))
    return out
