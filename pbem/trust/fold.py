"""Folding recorded inputs into a state: one input at a time, undo included (pure).

Both the moderator (`pbem.record.store.replay`) and `pbem verify` fold a game's
inputs with `Fold`, so they agree on what every input does:

* a player's orders, the deadline's defaults (`deadline`), the moderator's start of
  a game whose join step was open (`start`), a seat renamed (`pbem.engine.seats`);
* `undo` (issue 28, `pbem game undo NAME --to SEQ`): its lines are the target SEQ,
  `replay` or `reroll`, and the moderator's reason.  The state becomes the state
  after input SEQ again (earlier undos honoured), and one public `undo` event says
  which inputs were undone and why.  The later inputs stay in the record, chained
  as ever; only their effect is gone.

Randomness after an undo: with `replay` (the default) the generator goes back with
the state, so a result that is played again the same way comes out the same: nobody,
the moderator included, can undo a draw to get another.  With `reroll` (a public
choice, stated in the undo event and every report) the generator keeps the counter
the undone inputs had reached, so the draws that follow are ones nobody has seen.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pbem.engine.base import PUBLIC, Engine, Event, LineResult, Outcome, apply_defaults
from pbem.engine.seats import RENAME, rename

UNDO = "undo"
MODES = ("replay", "reroll")


def undo_lines(to: int, reroll: bool, why: str) -> list[str]:
    """The lines an undo input records."""
    return [str(to), "reroll" if reroll else "replay", why]


def read_undo(lines: list[str]) -> tuple[int, bool, str]:
    """(target input, reroll, reason) of an undo input's lines; ValueError if they are not an undo's."""
    if len(lines) != 3 or not lines[0].isdigit() or lines[1] not in MODES:
        raise ValueError(f"not the lines of an undo input: {lines!r}")
    return int(lines[0]), lines[1] == "reroll", lines[2]


def run_input(eng: Engine, state: dict[str, Any], kind: str, player: str, lines: list[str]) -> Outcome:
    """One recorded input other than undo: a player's orders, the deadline's defaults, a start, a rename."""
    if kind == "deadline":
        return apply_defaults(eng, state)
    if kind == "start":  # the moderator started a game whose join step was open
        return eng.timeout(state)
    if kind == RENAME:
        return rename(state, player, lines[0])
    return eng.apply(state, player, lines)


def _refused(state: dict[str, Any], line: str, reason: str) -> Outcome:
    return Outcome(state, [], [LineResult(line, False, reason, ())])


class Fold:
    """A game's inputs folded one by one from its starting state; remembers them so undo can go back."""

    def __init__(self, start: dict[str, Any], engine_for: Callable[[dict[str, Any]], Engine]) -> None:
        self.start = copy.deepcopy(start)
        self.engine_for = engine_for  # the engine that reads a state (the join step while it is open)
        self.done: list[tuple[int, str, str, list[str]]] = []  # (seq, kind, player, lines) accepted so far

    def run(self, seq: int, kind: str, player: str, lines: list[str], state: dict[str, Any]) -> Outcome:
        """Input `seq` on `state` (the state after the inputs run so far)."""
        if kind == UNDO:
            out = self._undo(seq, lines, state)
        else:
            out = run_input(self.engine_for(state), state, kind, player, lines)
        if out.accepted:
            self.done.append((seq, kind, player, list(lines)))
        return out

    def state_after(self, to: int) -> dict[str, Any]:
        """The state after input `to`, folding again from the start (undos among them honoured)."""
        again = Fold(self.start, self.engine_for)
        state = copy.deepcopy(self.start)
        for seq, kind, player, lines in self.done:
            if seq > to:
                break
            state = again.run(seq, kind, player, lines, state).state
        return state

    def _undo(self, seq: int, lines: list[str], state: dict[str, Any]) -> Outcome:
        try:
            to, reroll, why = read_undo(lines)
        except ValueError as exc:
            return _refused(state, " ".join(lines), str(exc))
        if not 0 <= to < seq - 1:
            return _refused(state, lines[0], f"input {to} is not an earlier input to go back to")
        undone = [s for s, kind, _, _ in self.done if s > to and kind != UNDO]
        restored = self.state_after(to)
        if reroll:
            if not isinstance(restored.get("rng"), dict) or not isinstance(state.get("rng"), dict):
                return _refused(state, lines[1], "this game keeps no generator to reroll")
            restored["rng"]["n"] = max(int(restored["rng"]["n"]), int(state["rng"]["n"]))
        span = f"input {undone[0]}" if len(undone) == 1 else f"inputs {undone[0]} to {undone[-1]}" if undone else ""
        text = f"The moderator took the game back to where it stood after input {to}" + (
            f"; {span} no longer count." if span else "."
        )
        text += " Later draws are new ones (reroll)." if reroll else " Draws are replayed as they were."
        if why:
            text += f" Reason: {why}"
        data = {"to": to, "undone": undone, "reroll": reroll, "why": why}
        return Outcome(restored, [Event("undo", text, PUBLIC, data)], [LineResult(" ".join(lines), True, "", ())])
