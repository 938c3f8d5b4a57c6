"""HISTORY by mail: the game's history as the asking player may know it, or one turn of it (the Judge's HISTORY).

A player of the game writes ``HISTORY`` (the whole history so far) or ``HISTORY 3`` (turn, hand or gambit 3 alone) from
their registered address; like HELP and STATUS it needs no code, since the answer goes to that address only, and it
counts against the answers budget (outbox purpose ``notice``).  It holds every public event and the events shown to
that seat (under its earlier names too, after a `pbem game replace`: the newcomer knows what the seat knew, as their
report and `pbem export --as` do), and nothing else: another player's hidden facts never, whatever the game.  Its
lines carry no record numbers (they would count the entries hidden from the reader).  Bounded: at most `MAX_EVENTS`
events, the latest, each of at most `MAX_CHARS` characters; the answer says what it left out and how to ask for one
turn.  `load` reads the record (the shell's part, in the message's transaction); `told` is pure; `answer` adds the
mail to a decision within the budget.
"""

from __future__ import annotations

from typing import Any

from pbem.app.answers import Outgoing
from pbem.app.decision import Decision
from pbem.engine.base import Event
from pbem.history.story import Group, turns

__all__ = ["MAX_CHARS", "MAX_EVENTS", "answer", "load", "seen", "told", "turns"]
from pbem.record import store
from pbem.record.db import Unit
from pbem.record.rows import Seat
from pbem.render.sanitize import visible

MAX_EVENTS = 200  # events one answer holds at most (the latest)
MAX_CHARS = 400  # characters of one event's line at most


def load(s: Unit, loaded: store.Loaded, seat: Seat, asked: str) -> dict[str, object]:
    """The history mail's context for `seat`, asking `asked` ("" the whole history, "3" one turn)."""
    return told(loaded.game.kind, loaded.over, seat.player, seen(s, loaded, seat), asked)


def seen(s: Unit, loaded: store.Loaded, seat: Seat) -> list[dict[str, Any]]:
    """The events `seat` may see, in order: public ones and those shown to it under any of its names."""
    assert loaded.game.id is not None
    names = store.seat_names(s, loaded.game.id).get(seat.player, (seat.player,))
    events = []
    for row in store.events_for(s, loaded.game.id):
        ev = store.event_of(row)
        if any(ev.visible_to(n) for n in names):
            events.append(_entry(row.seq, row.input_seq, ev))
    return events


def _entry(seq: int, input_seq: int, ev: Event) -> dict[str, Any]:
    return {"seq": seq, "input_seq": input_seq, **ev.to_json()}


def told(kind: str, over: bool, player: str, events: list[dict[str, Any]], asked: str) -> dict[str, object]:
    """What the answer says (pure): the groups of events (turn by turn) it shows, what it left out, the turns known.
    `events` are those `player` may see, in order, as `pbem.history.story.turns` takes them."""
    doc: dict[str, Any] = {"game": {"kind": kind, "over": over}, "events": events}
    groups = turns(doc)
    numbers = [int(g.key[1:]) for g in groups if g.key.startswith("t")]
    step = _step(kind)
    if asked:
        n = int(asked)
        running = numbers[-1] + 1 if numbers else 1  # the turn being played: its events so far
        chosen = [g for g in groups if g.key == f"t{n}" or (g.key == "end" and not over and n == running)]
        if not chosen:
            return _context(step, asked, [], 0, len(events), numbers, missing=True)
        groups = chosen
    total = sum(len(g.events) for g in groups)
    left_out = max(0, total - MAX_EVENTS)
    return _context(step, asked, _lines(groups, player, left_out), left_out, total, numbers, missing=False)


def _step(kind: str) -> str:
    from pbem.history.story import step_word

    return step_word({"game": {"kind": kind}})


def _lines(groups: list[Group], player: str, skip: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for g in groups:
        lines = []
        for ev in g.events:
            if skip > 0:
                skip -= 1
                continue
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
    step: str, asked: str, groups: list[dict[str, object]], left_out: int, total: int, numbers: list[int], missing: bool
) -> dict[str, object]:
    known = f"{numbers[0]} to {numbers[-1]}" if numbers else ""
    return dict(
        step=step,
        turn=asked,
        groups=groups,
        left_out=left_out,
        total=total,
        known=known,
        missing=missing,
        max_events=MAX_EVENTS,
    )


def answer(d: Decision, out: Outgoing, seat: Seat, game_name: str, history: dict[str, object] | None) -> None:
    """The history mail to `seat`'s registered address, within the answers budget (`history`: `load`'s context)."""
    if history is not None and out.admit(d, seat.address, player=seat.player, to_name=seat.display_name):
        context = {"game_name": game_name, **history}
        d.effects.append(out.mail(seat.address, "history", "notice", context, player=seat.player))
