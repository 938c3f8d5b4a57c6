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

from datetime import datetime, timedelta

from pbem.app import views
from pbem.app.control import Command
from pbem.app.decision import Decision, Effect, GameError, Input, NewDeadline, Report
from pbem.home.app import Home
from pbem.record import store
from pbem.trust.fold import UNDO, Fold, undo_lines

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
    if not 0 <= to < loaded.seq:
        raise GameError(f"--to must name an earlier input: 0 (the start) to {loaded.seq - 1}; see pbem export")
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
