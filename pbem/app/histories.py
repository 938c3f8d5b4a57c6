"""HISTORY by mail: the game's history as the asking player may know it, or one turn of it (the Judge's HISTORY).

A player of the game writes ``HISTORY`` (the whole history so far) or ``HISTORY 3`` (turn, hand or gambit 3 alone) from
their registered address; like HELP and STATUS it needs no code, since the answer goes to that address only, and it
counts against the answers budget (outbox purpose ``notice``).  It holds every public event and the events shown to
that seat (under its earlier names too, after a `pbem game replace`: the newcomer knows what the seat knew, as their
report and `pbem export --as` do), and nothing else: another player's hidden facts never, whatever the game.  Its
lines carry no record numbers (they would count the entries hidden from the reader).  Bounded: at most `MAX_EVENTS`
events, the latest, each of at most `MAX_CHARS` characters; the answer says when it left earlier ones out and how to
ask for one turn.  Its cost is its answer's, not the game's length (costs8): `load` reads only the events it prints,
the latest the reader may see, and the turn's bounds by index (`pbem.record.history_rows`), in the message's
transaction; `told` is pure and groups them as the export's story does (`pbem.history.story.turns`); `answer` adds
the mail to a decision within the budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pbem.app.answers import Outgoing
from pbem.app.decision import Decision
from pbem.engine import UnknownKind, get
from pbem.engine.declare import HistorySpec
from pbem.history.story import Group
from pbem.record import history_rows as rows
from pbem.record import store
from pbem.record.db import Unit
from pbem.record.rows import Seat
from pbem.render.sanitize import visible

__all__ = ["MAX_CHARS", "MAX_EVENTS", "Read", "answer", "load", "told"]

MAX_EVENTS = 200  # events one answer holds at most (the latest)
MAX_CHARS = 400  # characters of one event's line at most


@dataclass
class Read:
    """What one answer is made of, as `load` read it: the events it shows (the latest `MAX_EVENTS` of those asked
    that the reader may see, in order), whether earlier ones were left out, the turn each scoring event among them
    closes, where the set-up ends, the first and last turn numbers there are, and whether the turn asked is not."""

    events: list[dict[str, Any]] = field(default_factory=list)
    left_out: bool = False
    closing: dict[int, int] = field(default_factory=dict)  # seq of a scoring event shown -> the turn it closes
    first_scoring: int | None = None  # the set-up's events (input 0) are those before it (all of them if None)
    known: tuple[int, int] | None = None
    missing: bool = False


def load(s: Unit, loaded: store.Loaded, seat: Seat, asked: str) -> dict[str, object]:
    """The history mail's context for `seat`, asking `asked` ("" the whole history, "3" one turn): the record read
    for the answer's events only (`pbem.record.history_rows`), whatever the game's length."""
    gid = loaded.game.id
    assert gid is not None
    names = store.seat_names(s, gid).get(seat.player, (seat.player,))
    spec = _spec(loaded.game.kind)

    def number(scored: rows.Scoring) -> int:  # the turn a scoring event closes: its data's number, else its place
        data = json.loads(scored[1])
        n = data.get(spec.step_key) if isinstance(data, dict) else None
        return (
            n if isinstance(n, int) and not isinstance(n, bool) else rows.scorings_count(s, gid, before=scored[0]) + 1
        )

    first, last = rows.scoring(s, gid), rows.scoring(s, gid, last=True)
    read = Read(first_scoring=first[0] if first else None)
    read.known = (number(first), number(last)) if first and last else None
    after, upto = 0, None
    if asked:
        bounds = _turn(s, gid, int(asked), read.known, loaded.over, number)
        if bounds is None:
            read.missing = True
            return told(loaded.game.kind, loaded.over, seat.player, read, asked)
        after, upto = bounds
    below = (read.first_scoring or 2**62) if asked else None  # one turn: not the set-up's events
    shown = rows.latest_seen(s, gid, names, MAX_EVENTS + 1, after=after, upto=upto, setup_below=below,
                             visible=lambda vis: _sees(vis, names))  # fmt: skip
    read.left_out = len(shown) > MAX_EVENTS
    read.missing = bool(asked) and not shown  # the turn being played, nothing of it seen yet: not there yet
    for seq, input_seq, kind, text, vis, data in reversed(shown[:MAX_EVENTS]):
        read.events.append(
            {"seq": seq, "input_seq": input_seq, "kind": kind, "text": text, "visibility": json.loads(vis)}
        )
        if kind == rows.SCORES:
            read.closing[seq] = number((seq, data))
    return told(loaded.game.kind, loaded.over, seat.player, read, asked)


def _turn(
    s: Unit, gid: int, n: int, known: tuple[int, int] | None, over: bool, number: Callable[[rows.Scoring], int]
) -> tuple[int, int | None] | None:
    """The positions (after, up to) of turn `n`'s events, None if there is no such turn: the `n`-th scoring event
    closes it when the game numbers them in order (looked up by index), else the first numbered `n`; the turn being
    played (the one after the last scoring) runs to the end."""
    nth = rows.nth_scoring(s, gid, n)
    if nth is not None and number(nth) == n:
        found: rows.Scoring | None = nth
    elif known is not None and (nth is not None or known != (1, rows.scorings_count(s, gid))):
        found = next((x for x in rows.scorings(s, gid) if number(x) == n), None)  # numbered out of order
    else:
        found = None
    if found is not None:
        return rows.scoring_before(s, gid, found[0]), found[0]
    if not over and n == (known[1] + 1 if known else 1):
        return (rows.scoring(s, gid, last=True) or (0, ""))[0], None
    return None


def _spec(kind: str) -> HistorySpec:
    try:
        return get(kind).history
    except UnknownKind:
        return HistorySpec()


def _sees(vis_json: str, names: tuple[str, ...]) -> bool:
    vis = json.loads(vis_json)
    return vis == "public" or (isinstance(vis, list) and any(n in vis for n in names))


def told(kind: str, over: bool, player: str, read: Read, asked: str) -> dict[str, object]:
    """What the answer says (pure): the events `read` holds grouped turn by turn, whether earlier ones were left
    out, the turns known."""
    step = _spec(kind).step
    if read.missing:
        return _context(step, asked, [], False, read.known, missing=True)
    return _context(step, asked, _lines(_grouped(read, step, over), player), read.left_out, read.known, missing=False)


def _grouped(read: Read, step: str, over: bool) -> list[Group]:
    """`read`'s events grouped as `pbem.history.story.turns` groups a whole record: the set-up, each turn (closed by
    its scoring event), and what came after the last scoring."""
    keyed: list[tuple[str, str, dict[str, Any]]] = []
    closing: int | None = None  # the turn of the next scoring event at or after the event
    for ev in reversed(read.events):
        closing = read.closing.get(ev["seq"], closing)
        if ev["input_seq"] == 0 and (read.first_scoring is None or ev["seq"] < read.first_scoring):
            keyed.append(("setup", "Set-up", ev))
        elif closing is None:
            keyed.append(("end", "End of the game" if over else "Since the last scoring (in progress)", ev))
        else:
            keyed.append((f"t{closing}", f"{step} {closing}", ev))
    groups: dict[str, Group] = {}
    for key, title, ev in reversed(keyed):
        groups.setdefault(key, Group(key, title)).events.append(ev)
    return list(groups.values())


def _lines(groups: list[Group], player: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for g in groups:
        lines = []
        for ev in g.events:
            text = visible(str(ev["text"]))
            text = text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "\u2026"
            lines.append(text + _tag(ev["visibility"], player))
        if lines:
            out.append({"title": g.title, "lines": lines})
    return out


def _tag(vis: Any, player: str) -> str:
    if vis == "public":
        return ""
    shown = [str(v) for v in vis]
    return " [to you]" if len(shown) == 1 else f" [to {', '.join(shown)}]"  # one name: this seat's, now or before


def _context(
    step: str, asked: str, groups: list[dict[str, object]], left_out: bool, known: tuple[int, int] | None, missing: bool
) -> dict[str, object]:
    return dict(
        step=step,
        turn=asked,
        groups=groups,
        left_out=left_out,
        known=f"{known[0]} to {known[1]}" if known else "",
        missing=missing,
        max_events=MAX_EVENTS,
    )


def answer(d: Decision, out: Outgoing, seat: Seat, game_name: str, history: dict[str, object] | None) -> None:
    """The history mail to `seat`'s registered address, within the answers budget (`history`: `load`'s context)."""
    if history is not None and out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):
        context = {"game_name": game_name, **history}
        d.effects.append(out.mail(seat.address, "history", "notice", context, player=seat.player))
