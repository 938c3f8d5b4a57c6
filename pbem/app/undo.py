"""`pbem game undo NAME --to SEQ --why TEXT [--reroll]`: take a game back to the state after input SEQ.

The record stays append-only and chained: the later inputs stay in it, and one
moderator input of kind `undo` (`pbem.trust.fold`) says from then on that they no
longer count.  The state is rebuilt by folding the record again, so `pbem verify`
replays the undo like any input and checks its public `undo` event.  Every player
gets a report: the undo event (what was undone, why, and whether draws are replayed
or new) and what is asked of them now; the step asked now gets a fresh deadline.
Deciding is pure (`decide_undo`); `undo` loads and applies in one transaction.
"""

from __future__ import annotations

import json
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.app import views
from pbem.app.control import Command
from pbem.app.decision import Decision, Effect, GameError, Input, NewDeadline, Report
from pbem.home.app import Home
from pbem.record import store
from pbem.trust import deal as joining
from pbem.trust.fold import UNDO, Fold, read_undo, undo_lines

MAX_REASON = 300


def decide_undo(
    loaded: store.Loaded, control: str, fold: Fold, to: int, why: str, reroll: bool, when: datetime
) -> Decision:
    """Go back to the state after input `to`; `fold` holds the game's record folded up to now."""
    if control == "abandoned":
        raise GameError(f"game {loaded.game.name} is abandoned")
    if not why.strip():
        raise GameError("say why with --why: every player reads it")
    why = " ".join(why.split())[:MAX_REASON]
    name = loaded.game.name
    if loaded.over:
        raise GameError(
            f"game {name} is over: its seed was revealed with the result, and every hidden card and draw can be"
            " worked out from it, so it cannot be played on; start a new game instead"
        )
    if loaded.seq == 0:
        raise GameError(f"game {name} has no input yet: there is nothing to take back")
    dealt = max((seq for seq, kind, _, _ in fold.done if kind in joining.KINDS), default=0)
    first = dealt if not joining.is_joining(loaded.state) else 0  # not back into the join step once dealt
    if first >= loaded.seq:
        raise GameError(f"game {name} has had no input since the deal (input {first}): there is nothing to take back")
    if not first <= to < loaded.seq:
        where = f"{first} (the deal)" if first else "0 (the start)"
        raise GameError(f"--to must name an earlier input: {where} to {loaded.seq - 1}; see pbem game inputs {name}")
    out = fold.run(loaded.seq + 1, UNDO, "", undo_lines(to, reroll, why), loaded.state)
    if not out.accepted:
        raise GameError(next(r.reason for r in out.lines if not r.ok))
    eng = views.engine(loaded)
    step = views.current_step(eng, out.state)
    effects: list[Effect] = [Input(UNDO, "", tuple(undo_lines(to, reroll, why)), out, reopen=step)]
    if step and eng.result(out.state) is None:
        effects.append(NewDeadline(step, when + timedelta(seconds=loaded.game.deadline_seconds), f"undo to {to}"))
    effects += [Report(p) for p in views.players(loaded)]
    return Decision(game=loaded.game.name, effects=effects)


def undo(home: Home, name: str, to: int, why: str, reroll: bool, when: datetime) -> list[int]:
    """Apply the undo; returns the inputs it undid."""
    with home.units() as s:
        c = Command(s, name)
        fold, _, _ = store.folded(c.loaded.game, store.inputs(s, c.gid), join=store.join_opened(s, c.gid))
        d = decide_undo(c.loaded, c.control, fold, to, why, reroll, when)
        undone: list[int] = next(e.outcome.events[0].data["undone"] for e in d.effects if isinstance(e, Input))
        c.reads()  # what every player's report reads: the events since their last one
        c.apply(home.policy, d, when)
        return undone


@dataclass(frozen=True)
class Listed:
    """One input of a game as `pbem game inputs` lists it."""

    seq: int
    when: datetime
    kind: str  # orders, deadline, join, start, undo, ...
    player: str
    lines: list[str]
    undone_by: int | None  # the undo input that took it back, if one did


def listed(home: Home, name: str) -> list[Listed]:
    """Every input of the game, in order, each marked with the undo that took it back (if any)."""
    with home.units() as s:
        game = store.game_by_name(s, name)
        if game is None or game.id is None:
            raise GameError(f'no game named "{name}"; see pbem game list')
        rows = store.inputs(s, game.id)
    out = [Listed(r.seq, r.created_at, r.kind, r.player, json.loads(r.lines_json), None) for r in rows]
    undone: dict[int, int] = {}
    for r in out:
        if r.kind == UNDO:
            with suppress(ValueError):  # an undo's lines are its own; never unreadable in a record
                to = read_undo(r.lines)[0]
                for other in out:
                    if to < other.seq < r.seq and other.kind != UNDO:
                        undone.setdefault(other.seq, r.seq)
    return [Listed(r.seq, r.when, r.kind, r.player, r.lines, undone.get(r.seq)) for r in out]
