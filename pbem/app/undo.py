"""`pbem game undo NAME --to SEQ --why TEXT [--reroll]`: take a game back to the state after input SEQ.

The record stays append-only and chained: the later inputs stay in it, and one
moderator input of kind `undo` (`pbem.trust.fold`) says from then on that they no
longer count.  The state is rebuilt by folding the record again, so `pbem verify`
replays the undo like any input and checks its events.  The input names its target by
a mark only the seed's holder can read (`pbem.trust.fold.undo_mark`), not by the global
number the moderator typed, and its public event names the point gone back to in words:
a player counts no one else's inputs by it.  Every player gets a report: the public
event (to which point, why, whether draws are replayed or new), their own orders it
took back (a private event each), and what is asked of them now; the step asked now
gets a fresh deadline.
Deciding is pure (`decide_undo`); `undo` loads and applies in one transaction.
"""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.app import views
from pbem.app.control import Command
from pbem.app.decision import Decision, Effect, GameError, Input, NewDeadline, Report
from pbem.app.game_names import unknown_game
from pbem.app.say import codes_of, unfit
from pbem.engine.seats import RENAME
from pbem.home.app import Home
from pbem.record import store
from pbem.record.lookups import open_code_hashes
from pbem.trust import deal as joining
from pbem.trust.fold import UNDO, Fold, read_undo, undo_lines, undo_mark

MAX_REASON = 300


def decide_undo(
    loaded: store.Loaded,
    control: str,
    fold: Fold,
    to: int,
    why: str,
    reroll: bool,
    when: datetime,
    is_code: Callable[[str], bool] = lambda word: False,
) -> Decision:
    """Go back to the state after input `to`; `fold` holds the game's record folded up to now.  `is_code`: whether a
    word of the reason is a player's current code (`pbem.app.say.codes_of`): every player reads the reason."""
    if control == "abandoned":
        raise GameError(f"game {loaded.game.name} is abandoned")
    if not why.strip():
        raise GameError("say why with --why: every player reads it")
    why = " ".join(why.split())[:MAX_REASON]
    if unfit_why := unfit(why, is_code):  # every player reads it and the record keeps it, as a SAY (judges4)
        raise GameError(f"the reason (--why): {unfit_why}")
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
    if taken := _seat_given_after(fold, to, name):
        raise GameError(taken)
    lines = undo_lines(undo_mark(loaded.state, to, loaded.game.seed) or to, reroll, why)  # a join step: the seed's
    out = fold.run(loaded.seq + 1, UNDO, "", lines, loaded.state)
    if not out.accepted:
        raise GameError(next(r.reason for r in out.lines if not r.ok))
    eng = views.engine(loaded)
    step = views.current_step(eng, out.state)
    effects: list[Effect] = [Input(UNDO, "", tuple(lines), out, reopen=step)]
    if step and eng.result(out.state) is None:
        effects.append(NewDeadline(step, when + timedelta(seconds=loaded.game.deadline_seconds), f"undo to {to}"))
    effects += [Report(p) for p in views.players(loaded)]
    return Decision(game=loaded.game.name, effects=effects)


def _seat_given_after(fold: Fold, to: int, name: str) -> str:
    """Why an undo to `to` would take back a seat given to someone else (`pbem game replace`), or "".  The seat's
    row (the newcomer's address and code) stays, but the state would name the seat as before: the game would wait
    for a player with no address, and the newcomer's orders would name no seat of it."""
    gone = {seq for _, undone in fold.undos.values() for seq in undone}
    given = [
        (seq, old, lines) for seq, kind, old, lines in fold.done if kind == RENAME and seq > to and seq not in gone
    ]
    if not given:
        return ""
    seq, old, lines = given[0]
    new = lines[0] if lines else "?"
    return (
        f"input {seq} gave {old}'s seat to {new} (pbem game replace), and an undo cannot give a seat back: undo to "
        f'input {seq} or later; to give {old} the seat again, pbem game replace {name} {new} "{old} <address>"'
    )


def undo(home: Home, name: str, to: int, why: str, reroll: bool, when: datetime) -> list[int]:
    """Apply the undo; returns the inputs it undid."""
    with home.units() as s:
        c = Command(s, name)
        fold, _, _ = store.folded(c.loaded.game, store.inputs(s, c.gid), join=store.join_opened(s, c.gid))
        d = decide_undo(c.loaded, c.control, fold, to, why, reroll, when, codes_of(c.loaded, open_code_hashes(s)))
        undone = fold.undos[c.loaded.seq + 1][1]
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
    back_to: int | None = None  # an undo's: the input it went back to (the moderator's number, its mark read)


def listed(home: Home, name: str) -> list[Listed]:
    """Every input of the game, in order, each marked with the undo that took it back (if any).  An undo's mark
    is read by folding the record (the moderator holds the seed), only when the game has a marked undo."""
    with home.units() as s:
        game = store.game_by_name(s, name)
        if game is None or game.id is None:
            raise GameError(unknown_game(name, store.game_names(s)))
        rows = store.inputs(s, game.id)
        marked = any(r.kind == UNDO and '"mark:' in r.lines_json for r in rows)
        fold = store.folded(game, rows, join=store.join_opened(s, game.id))[0] if marked else None
    out = [Listed(r.seq, r.created_at, r.kind, r.player, json.loads(r.lines_json), None) for r in rows]
    undone, back = taken_back(out, fold)
    return [Listed(r.seq, r.when, r.kind, r.player, r.lines, undone.get(r.seq), back.get(r.seq)) for r in out]


def taken_back(out: list[Listed], fold: Fold | None) -> tuple[dict[int, int], dict[int, int]]:
    """Each input an undo took back, with the first undo that did, and each undo's target (an input number).
    The inputs no undo took back yet are kept in order and each undo takes its span out by bisection, where
    looking at every input for every undo cost undos times inputs (costs10)."""
    undone: dict[int, int] = {}
    back: dict[int, int] = {}
    standing = [r.seq for r in out if r.kind != UNDO]  # `out` is in order
    for r in out:
        if r.kind == UNDO:
            with suppress(ValueError):  # an undo's lines are its own; never unreadable in a record
                named = read_undo(r.lines)[0]
                to = named if isinstance(named, int) else fold.undos[r.seq][0] if fold else None
                if to is None:
                    continue
                back[r.seq] = to
                span = slice(bisect_right(standing, to), bisect_left(standing, r.seq))
                undone |= dict.fromkeys(standing[span], r.seq)
                del standing[span]
    return undone, back
